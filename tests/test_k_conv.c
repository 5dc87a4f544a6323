#include <criterion/criterion.h>

#include "kernels/k_conv.h"
#include "kernels/k_conv_internal.h"
#include "ktest.h"

/* Reference: direct loops over output elements and (group-local) input
 * features and kernel positions, positions taken in the dilated/padded base
 * (XLA's pseudo-code generalised).  Doubles / wrapping int64 / complex. */
static void ref_conv(const KArray *l, const KArray *r, const KConvParams *p, KArray *o) {
  const KConvDims *dn = &p->dn;
  int ns = dn->nspatial, rank = ns + 2;
  int64_t G = p->feature_group_count, BG = p->batch_group_count;
  int64_t B = l->dims[dn->in_batch], KIF = r->dims[dn->k_in_feature], KOF = r->dims[dn->k_out_feature];
  int64_t Bo = B / BG, OFg = KOF / (G * BG);
  int64_t lst[8], rst[8], ost[8], s;
  s = 1; for (int i = rank - 1; i >= 0; i--) { lst[i] = s; s *= l->dims[i]; }
  s = 1; for (int i = rank - 1; i >= 0; i--) { rst[i] = s; s *= r->dims[i]; }
  s = 1; for (int i = rank - 1; i >= 0; i--) { ost[i] = s; s *= o->dims[i]; }
  int64_t nout = prod(rank, o->dims), ksp = 1;
  for (int d = 0; d < ns; d++) ksp *= r->dims[dn->k_spatial[d]];
  bool cpx = etype_is_complex(o->etype), isint = !cpx && !etype_is_float(o->etype);
  const KWindow *w = &p->window;
  for (int64_t f = 0; f < nout; f++) {
    int64_t oi[8], t = f;
    for (int i = rank - 1; i >= 0; i--) { oi[i] = t % o->dims[i]; t /= o->dims[i]; }
    int64_t ob = oi[dn->out_batch], of = oi[dn->out_feature], gi = of / OFg;
    int64_t fg = BG > 1 ? 0 : gi, bg = BG > 1 ? gi : 0;
    double acc = 0, acci = 0;
    uint64_t iacc = 0;
    for (int64_t ic = 0; ic < KIF; ic++)
      for (int64_t kp = 0; kp < ksp; kp++) {
        int64_t kk[8], t2 = kp, li = 0, ri = 0;
        for (int d = ns - 1; d >= 0; d--) { int64_t kd = r->dims[dn->k_spatial[d]]; kk[d] = t2 % kd; t2 /= kd; }
        bool ok = true;
        for (int d = 0; d < ns; d++) {
          int64_t ksz = r->dims[dn->k_spatial[d]];
          int64_t kw = w->reversal && w->reversal[d] ? ksz - 1 - kk[d] : kk[d];
          int64_t pos = oi[dn->out_spatial[d]] * (w->stride ? w->stride[d] : 1) + kw * (w->window_dilation ? w->window_dilation[d] : 1) - (w->pad_lo ? w->pad_lo[d] : 0);
          int64_t bdl = w->base_dilation ? w->base_dilation[d] : 1;
          if (pos < 0 || pos % bdl || pos / bdl >= l->dims[dn->in_spatial[d]]) { ok = false; break; }
          li += pos / bdl * lst[dn->in_spatial[d]];
          ri += kk[d] * rst[dn->k_spatial[d]];
        }
        if (!ok) continue;
        li += (bg * Bo + ob) * lst[dn->in_batch] + (fg * KIF + ic) * lst[dn->in_feature];
        ri += ic * rst[dn->k_in_feature] + of * rst[dn->k_out_feature];
        if (isint) iacc += (uint64_t)get_i(l->etype, l->data, li) * (uint64_t)get_i(r->etype, r->data, ri);
        else if (cpx) {
          double a[2], b[2];
          k_cvt(ET_C128, a, l->etype, (char *)l->data + li * etype_storage_bytes(l->etype), 1);
          k_cvt(ET_C128, b, r->etype, (char *)r->data + ri * etype_storage_bytes(r->etype), 1);
          acc += a[0] * b[0] - a[1] * b[1];
          acci += a[0] * b[1] + a[1] * b[0];
        } else acc += get_f(l->etype, l->data, li) * get_f(r->etype, r->data, ri);
      }
    int64_t oflat = 0;
    for (int i = 0; i < rank; i++) oflat += oi[i] * ost[i];
    if (isint) set_i(o->etype, o->data, oflat, (int64_t)iacc);
    else if (cpx) { double v[2] = {acc, acci}; k_cvt(o->etype, (char *)o->data + oflat * etype_storage_bytes(o->etype), ET_C128, v, 1); }
    else set_f(o->etype, o->data, oflat, acc);
  }
}

Test(k_conv, simple_1d_hand_derived) {
  /* lhs [N=1, C=1, W=4] = 1 2 3 4, kernel [O=1, I=1, W=2] = 1 1 -> 3 5 7. */
  float x[] = {1, 2, 3, 4}, k[] = {1, 1}, o[3];
  KArray L = ka(ET_F32, 3, (int64_t[]){1, 1, 4}, x), R = ka(ET_F32, 3, (int64_t[]){1, 1, 2}, k), O = ka(ET_F32, 3, (int64_t[]){1, 1, 3}, o);
  KConvParams p = {{1, 0, 1, (int64_t[]){2}, 1, 0, (int64_t[]){2}, 0, 1, (int64_t[]){2}}, {1, NULL, NULL, NULL, NULL, NULL, NULL, NULL}, 1, 1};
  Error err;
  cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
  cr_expect(o[0] == 3 && o[1] == 5 && o[2] == 7);
  /* Padding (1,1), stride 2, reversed kernel [1, 2]: windows over 0 1 2 3 4 0. */
  float k2[] = {1, 2}, o2[3];
  bool rev[] = {true};
  KArray R2 = ka(ET_F32, 3, (int64_t[]){1, 1, 2}, k2), O2 = ka(ET_F32, 3, (int64_t[]){1, 1, 3}, o2);
  p.window = (KWindow){1, NULL, (int64_t[]){2}, (int64_t[]){1}, (int64_t[]){1}, NULL, NULL, rev};
  cr_assert(k_conv(&L, &R2, &p, &O2, &err), "%s", err.msg);
  /* reversed kernel applied = [2, 1]: (0,1)->1, (2,3)->7, (4,0)->8 */
  cr_expect(o2[0] == 1 && o2[1] == 7 && o2[2] == 8, "%g %g %g", o2[0], o2[1], o2[2]);
  /* lhs dilation 2 (transposed conv): base 1 0 2 0 3 0 4, kernel 1 1 -> 1 2 2 3 3 4 */
  float o3[6];
  KArray O3 = ka(ET_F32, 3, (int64_t[]){1, 1, 6}, o3);
  p.window = (KWindow){1, NULL, NULL, NULL, NULL, (int64_t[]){2}, NULL, NULL};
  cr_assert(k_conv(&L, &R, &p, &O3, &err), "%s", err.msg);
  float w3[] = {1, 2, 2, 3, 3, 4};
  for (int i = 0; i < 6; i++) cr_expect_eq(o3[i], w3[i]);
  /* Negative padding (-1, 0): base 2 3 4 -> 5 7 */
  float o4[2];
  KArray O4 = ka(ET_F32, 3, (int64_t[]){1, 1, 2}, o4);
  p.window = (KWindow){1, NULL, NULL, (int64_t[]){-1}, (int64_t[]){0}, NULL, NULL, NULL};
  cr_assert(k_conv(&L, &R, &p, &O4, &err), "%s", err.msg);
  cr_expect(o4[0] == 5 && o4[1] == 7);
}

static void shuffle(Rng *r, int *a, int n) {
  for (int i = n - 1; i > 0; i--) { int j = (int)rng_int(r, 0, i), t = a[i]; a[i] = a[j]; a[j] = t; }
}

/* groups: 0 none, 1 random feature or batch groups, 2 depthwise (feature
 * groups of one input feature, 1..3 outputs each), 3 none with a window
 * covering the whole unpadded, undilated input (one output position), 4
 * random feature or batch groups with spatial dims innermost in lhs and
 * kernel (batch/feature and in/out feature in either order) and kernels
 * about as large as the input (weight gradients).  cmajor: lhs and result
 * channel-major ([B, F, S...]: the in-place im2col path), kernel in any
 * order.  5: base dilation 2..4 in every dim (the phase-decomposed path)
 * with strides, window dilations, negative or large paddings, reversal and
 * random feature or batch groups; lhs and result channel-major (NCHW) when
 * cmajor is set, feature-minor (NHWC) otherwise.  6: as 5 but dim 0
 * undilated and every layout shuffled. */
static void random_case(Rng *rng, EType lt, EType rt, EType ot, bool wide, double tol, int ns, int groups, bool cmajor) {
  int rank = ns + 2;
  int lp[8], rp[8], op[8];
  for (int i = 0; i < rank; i++) lp[i] = rp[i] = op[i] = i;
  if (groups == 5) {
    /* [B, F, S...] or [B, S..., F]; kernel in any order. */
    shuffle(rng, rp, rank);
    if (!cmajor) {
      lp[1] = op[1] = rank - 1;
      for (int d = 0; d < ns; d++) lp[2 + d] = op[2 + d] = 1 + d;
    }
  } else if (groups == 4) {
    if (rng_next(rng) & 1) { lp[0] = 1; lp[1] = 0; }
    if (rng_next(rng) & 1) { rp[0] = 1; rp[1] = 0; }
    shuffle(rng, op, rank);
  } else {
    shuffle(rng, rp, rank);
    if (!cmajor) { shuffle(rng, lp, rank); shuffle(rng, op, rank); }
  }
  int64_t ls[3], ks_[3], os_[3];
  KConvParams p;
  memset(&p, 0, sizeof p);
  p.dn.nspatial = ns;
  p.dn.in_batch = lp[0]; p.dn.in_feature = lp[1];
  p.dn.k_in_feature = rp[0]; p.dn.k_out_feature = rp[1];
  p.dn.out_batch = op[0]; p.dn.out_feature = op[1];
  for (int d = 0; d < ns; d++) { ls[d] = lp[2 + d]; ks_[d] = rp[2 + d]; os_[d] = op[2 + d]; }
  p.dn.in_spatial = ls; p.dn.k_spatial = ks_; p.dn.out_spatial = os_;
  int64_t G = 1, BG = 1;
  if (groups == 5 || groups == 6) {
    int64_t kind = rng_int(rng, 0, 2);
    if (kind == 1) G = rng_int(rng, 2, 3);
    if (kind == 2) BG = rng_int(rng, 2, 3);
  }
  if (groups == 1) { if (rng_next(rng) & 1) G = rng_int(rng, 1, 3); else BG = rng_int(rng, 1, 3); }
  if (groups == 4) { if (rng_next(rng) & 1) G = rng_int(rng, 2, 3); else BG = rng_int(rng, 2, 3); }
  if (groups == 2) G = rng_int(rng, 2, 9);
  int64_t Bo = rng_int(rng, 1, 2), IFg = groups == 2 ? 1 : rng_int(rng, 1, 3), OFg = rng_int(rng, 1, 3);
  int64_t ld[8], rd[8], od[8];
  ld[p.dn.in_batch] = Bo * BG; ld[p.dn.in_feature] = IFg * G;
  rd[p.dn.k_in_feature] = IFg; rd[p.dn.k_out_feature] = OFg * G * BG;
  od[p.dn.out_batch] = Bo; od[p.dn.out_feature] = OFg * G * BG;
  int64_t st[3], lo[3], hi[3], bd[3], wd[3];
  bool rev[3];
  for (int d = 0; d < ns; d++) {
    ld[ls[d]] = rng_int(rng, 1, 6); rd[ks_[d]] = rng_int(rng, 1, 3);
    st[d] = rng_int(rng, 1, 2); lo[d] = rng_int(rng, -1, 2); hi[d] = rng_int(rng, -1, 2);
    bd[d] = rng_int(rng, 1, 2); wd[d] = rng_int(rng, 1, 2); rev[d] = rng_next(rng) & 1;
    if (groups == 5 || groups == 6) {
      ld[ls[d]] = rng_int(rng, 1, 7); rd[ks_[d]] = rng_int(rng, 1, 4);
      bd[d] = groups == 6 && d == 0 ? 1 : rng_int(rng, 2, 4);
      st[d] = rng_int(rng, 1, 3); wd[d] = rng_int(rng, 1, 3);
      lo[d] = rng_int(rng, -2, 4); hi[d] = rng_int(rng, -2, 4);
    }
    if (groups == 3) { rd[ks_[d]] = ld[ls[d]]; lo[d] = hi[d] = 0; bd[d] = wd[d] = 1; rev[d] = false; }
    if (groups == 4) {
      ld[ls[d]] = rng_int(rng, 4, 9); wd[d] = rng_int(rng, 1, 2); bd[d] = rng_int(rng, 0, 5) == 0 ? 2 : 1;
      rd[ks_[d]] = rng_int(rng, 2, (ld[ls[d]] - 1) / wd[d] + 1); lo[d] = rng_int(rng, 0, 1); hi[d] = rng_int(rng, 0, 1);
    }
  }
  p.window = (KWindow){ns, NULL, st, lo, hi, bd, wd, rev};
  p.feature_group_count = G;
  p.batch_group_count = BG;
  Error err;
  for (int d = 0; d < ns; d++) cr_assert(k_window_out_size(ld[ls[d]], rd[ks_[d]], st[d], lo[d], hi[d], bd[d], wd[d], &od[os_[d]], &err));
  int64_t nl = prod(rank, ld), nr = prod(rank, rd), no = prod(rank, od);
  KArray L = ka(lt, rank, ld, rand_array(rng, lt, nl, wide)), R = ka(rt, rank, rd, rand_array(rng, rt, nr, wide));
  int es = etype_storage_bytes(ot);
  KArray W = ka(ot, rank, od, calloc((size_t)no + 1, (size_t)es)), O = ka(ot, rank, od, calloc((size_t)no + 1, (size_t)es));
  ref_conv(&L, &R, &p, &W);
  cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
  for (int64_t i = 0; i < no; i++) {
    if (etype_is_float(ot)) cr_assert(close_enough(get_f(ot, O.data, i), get_f(ot, W.data, i), tol, tol), "%s [%lld] %g vs %g", etype_name(ot), (long long)i, get_f(ot, O.data, i), get_f(ot, W.data, i));
    else if (etype_is_complex(ot)) {
      double a[2], b[2];
      k_cvt(ET_C128, a, ot, (char *)O.data + i * es, 1);
      k_cvt(ET_C128, b, ot, (char *)W.data + i * es, 1);
      cr_assert(close_enough(a[0], b[0], tol, tol) && close_enough(a[1], b[1], tol, tol));
    } else cr_assert_eq(get_i(ot, O.data, i), get_i(ot, W.data, i));
  }
  free(L.data); free(R.data); free(W.data); free(O.data);
}

Test(k_conv, random_layouts_windows_groups_types) {
  Rng rng = {2024};
  struct { EType l, r, o; bool wide; double tol; } cases[] = {
    {ET_F32, ET_F32, ET_F32, true, 1e-5}, {ET_F64, ET_F64, ET_F64, true, 1e-12}, {ET_BF16, ET_BF16, ET_BF16, false, 0},
    {ET_BF16, ET_BF16, ET_F32, false, 0}, {ET_F16, ET_F16, ET_F16, false, 0}, {ET_S32, ET_S32, ET_S32, true, 0},
    {ET_S8, ET_S8, ET_S32, false, 0}, {ET_U8, ET_U8, ET_U8, true, 0}, {ET_C64, ET_C64, ET_C64, true, 1e-5},
    {ET_C128, ET_C128, ET_C128, true, 1e-12}, {ET_S4, ET_S4, ET_S4, true, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int rep = 0; rep < 40; rep++)
      random_case(&rng, cases[c].l, cases[c].r, cases[c].o, cases[c].wide, cases[c].tol, 1 + rep % 3, rep % 2, false);
}

/* Channel-major (NCHW-like) lhs and result with every window attribute,
 * float and complex: the column-buffer path; groups and other types take
 * the general one. */
Test(k_conv, channel_major_windows) {
  Rng rng = {3131};
  struct { EType t; double tol; } cases[] = {{ET_F32, 1e-5}, {ET_F64, 1e-12}, {ET_C64, 1e-5}, {ET_C128, 1e-12}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int rep = 0; rep < 60; rep++)
      random_case(&rng, cases[c].t, cases[c].t, cases[c].t, true, cases[c].tol, 1 + rep % 3, rep % 4 == 3 ? 1 : 0, true);
  for (int rep = 0; rep < 10; rep++) random_case(&rng, ET_BF16, ET_BF16, ET_F32, false, 0, 1 + rep % 3, 0, true);
}

/* NCHW 3x3 (OIHW kernel) over several column-buffer chunks, stride 1 and 2. */
Test(k_conv, nchw_3x3_several_chunks) {
  Rng rng = {79};
  int64_t N = 2, C = 48, H = 23, Wd = 37, F = 5;
  for (int64_t s = 1; s <= 2; s++) {
    int64_t Ho = (H + 2 - 3) / s + 1, Wo = (Wd + 2 - 3) / s + 1;
    KArray L = ka(ET_F32, 4, (int64_t[]){N, C, H, Wd}, rand_array(&rng, ET_F32, N * C * H * Wd, true));
    KArray R = ka(ET_F32, 4, (int64_t[]){F, C, 3, 3}, rand_array(&rng, ET_F32, F * C * 9, true));
    int64_t od[] = {N, F, Ho, Wo}, no = N * F * Ho * Wo;
    KArray O = ka(ET_F32, 4, od, malloc((size_t)no * 4)), W = ka(ET_F32, 4, od, malloc((size_t)no * 4));
    KConvParams p = {{2, 0, 1, (int64_t[]){2, 3}, 1, 0, (int64_t[]){2, 3}, 0, 1, (int64_t[]){2, 3}},
                     {2, NULL, (int64_t[]){s, s}, (int64_t[]){1, 1}, (int64_t[]){1, 1}, NULL, NULL, NULL}, 1, 1};
    Error err;
    cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
    ref_conv(&L, &R, &p, &W);
    for (int64_t i = 0; i < no; i++)
      cr_assert(close_enough(((float *)O.data)[i], ((float *)W.data)[i], 1e-4, 1e-4), "s=%lld [%lld]", (long long)s, (long long)i);
    free(L.data); free(R.data); free(O.data); free(W.data);
  }
}

/* NCHW 1x1 convolutions (stride 1, no padding): one gemm per batch element
 * on the input as it is; f32, f64 and c64, 1 and 2 spatial dims. */
Test(k_conv, nchw_pointwise) {
  Rng rng = {88};
  struct { EType t; double tol; } cases[] = {{ET_F32, 1e-5}, {ET_F64, 1e-12}, {ET_C64, 1e-5}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int ns = 1; ns <= 2; ns++) {
      EType t = cases[c].t;
      int64_t N = 3, C = 5, F = 4, H = 6, Wd = ns == 2 ? 7 : 1, sp = H * Wd;
      int64_t ld[] = {N, C, H, Wd}, rd[] = {F, C, 1, 1}, od[] = {N, F, H, Wd}, no = N * F * sp;
      int es = etype_storage_bytes(t);
      KArray L = ka(t, ns + 2, ld, rand_array(&rng, t, N * C * sp, true)), R = ka(t, ns + 2, rd, rand_array(&rng, t, F * C, true));
      KArray O = ka(t, ns + 2, od, calloc((size_t)no, (size_t)es)), W = ka(t, ns + 2, od, calloc((size_t)no, (size_t)es));
      KConvParams p = {{ns, 0, 1, (int64_t[]){2, 3}, 1, 0, (int64_t[]){2, 3}, 0, 1, (int64_t[]){2, 3}},
                       {ns, NULL, NULL, NULL, NULL, NULL, NULL, NULL}, 1, 1};
      Error err;
      cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
      ref_conv(&L, &R, &p, &W);
      for (int64_t i = 0; i < no * (etype_is_complex(t) ? 2 : 1); i++) {
        double a = t == ET_F64 ? ((double *)O.data)[i] : ((float *)O.data)[i];
        double b = t == ET_F64 ? ((double *)W.data)[i] : ((float *)W.data)[i];
        cr_assert(close_enough(a, b, cases[c].tol, cases[c].tol), "%s ns=%d [%lld] %g vs %g", etype_name(t), ns, (long long)i, a, b);
      }
      free(L.data); free(R.data); free(O.data); free(W.data);
    }
}

Test(k_conv, zero_spatial_dims_and_depthwise) {
  Rng rng = {8};
  for (int rep = 0; rep < 20; rep++) random_case(&rng, ET_F32, ET_F32, ET_F32, true, 1e-5, 0, 1, false);
  /* Depthwise: feature_group_count == input features, NHWC / HWIO. */
  int64_t C = 4;
  float x[1 * 3 * 3 * 4], k[3 * 3 * 1 * 4], o[1 * 3 * 3 * 4], want[36];
  for (int i = 0; i < 36; i++) { x[i] = (float)(i % 7); k[i] = (float)(i % 5) - 2; }
  KArray L = ka(ET_F32, 4, (int64_t[]){1, 3, 3, C}, x), R = ka(ET_F32, 4, (int64_t[]){3, 3, 1, C}, k);
  KArray O = ka(ET_F32, 4, (int64_t[]){1, 3, 3, C}, o), W = ka(ET_F32, 4, (int64_t[]){1, 3, 3, C}, want);
  KConvParams p = {{2, 0, 3, (int64_t[]){1, 2}, 2, 3, (int64_t[]){0, 1}, 0, 3, (int64_t[]){1, 2}},
                   {2, NULL, NULL, (int64_t[]){1, 1}, (int64_t[]){1, 1}, NULL, NULL, NULL}, C, 1};
  Error err;
  cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
  ref_conv(&L, &R, &p, &W);
  for (int i = 0; i < 36; i++) cr_expect_eq(o[i], want[i]);
  /* Channel c only sees input channel c: centre output of channel 0. */
  float s = 0;
  for (int a = 0; a < 3; a++) for (int b = 0; b < 3; b++) s += x[(a * 3 + b) * C + 0] * k[(a * 3 + b) * C + 0];
  cr_expect_eq(o[(1 * 3 + 1) * C + 0], s);
}

/* The direct depthwise path (f32 compute: f32, bf16, f16) against the
 * reference, every layout / window / dilation / reversal / multiplier; f64 and
 * integers keep the im2col path. */
Test(k_conv, depthwise_direct_path) {
  Rng rng = {4242};
  struct { EType l, r, o; bool wide; double tol; } cases[] = {
    {ET_F32, ET_F32, ET_F32, true, 1e-5}, {ET_BF16, ET_BF16, ET_BF16, false, 0}, {ET_F16, ET_F16, ET_F32, false, 0},
    {ET_BF16, ET_F32, ET_F32, true, 1e-5}, {ET_F64, ET_F64, ET_F64, true, 1e-12}, {ET_S32, ET_S32, ET_S32, true, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int rep = 0; rep < 60; rep++)
      random_case(&rng, cases[c].l, cases[c].r, cases[c].o, cases[c].wide, cases[c].tol, rep % 4, 2, false);
}

/* Depthwise on channel-major lhs and result (NCHW): the direct per-plane
 * path for f32, every window attribute and multiplier; other types keep
 * their paths. */
Test(k_conv, depthwise_channel_major) {
  Rng rng = {515};
  for (int rep = 0; rep < 90; rep++) random_case(&rng, ET_F32, ET_F32, ET_F32, true, 1e-5, 1 + rep % 3, 2, true);
  for (int rep = 0; rep < 15; rep++) random_case(&rng, ET_BF16, ET_BF16, ET_BF16, false, 0, 1 + rep % 3, 2, true);
}

/* The f32 depthwise loops, NHWC (k_conv.c) and NCHW (k_conv_paths.c),
 * bit for bit against a scalar emulation of their order: per output, from
 * zero, each tap in kernel order (taps in padding skipped) adds its
 * product, rounded on its own (volatile: no fused multiply-add here
 * either).  Before those files turned contraction off, GCC's AVX-512
 * clones fused the multiply and the add and gave other bytes than the
 * AVX2 and baseline ones; on an AVX-512 machine this test caught it. */
static void depthwise_bytes(Rng *rng, bool nchw, int64_t M, int64_t stride) {
  int64_t B = 2, H = 9, W = 11, G = 21, OF = G * M, K = 3;
  int64_t OH = (H + 2 - K) / stride + 1, OW = (W + 2 - K) / stride + 1;
  int64_t sp_l[2] = {nchw ? 2 : 1, nchw ? 3 : 2}, sp_k[2] = {0, 1};
  KConvParams p;
  memset(&p, 0, sizeof p);
  p.dn = (KConvDims){2, 0, nchw ? 1 : 3, sp_l, 2, 3, sp_k, 0, nchw ? 1 : 3, sp_l};
  int64_t st[2] = {stride, stride}, lo[2] = {1, 1}, hi[2] = {1, 1};
  p.window = (KWindow){2, NULL, st, lo, hi, NULL, NULL, NULL};
  p.feature_group_count = G;
  p.batch_group_count = 1;
  int64_t ld[4] = {B, nchw ? G : H, nchw ? H : W, nchw ? W : G}, kd[4] = {K, K, 1, OF};
  int64_t od[4] = {B, nchw ? OF : OH, nchw ? OH : OW, nchw ? OW : OF};
  float *x = malloc((size_t)(B * H * W * G) * 4), *k = malloc((size_t)(K * K * OF) * 4);
  float *out = malloc((size_t)(B * OH * OW * OF) * 4);
  for (int64_t i = 0; i < B * H * W * G; i++) x[i] = (float)(2 * rng_unit(rng) - 1);
  for (int64_t i = 0; i < K * K * OF; i++) k[i] = (float)(2 * rng_unit(rng) - 1);
  KArray L = ka(ET_F32, 4, ld, x), R = ka(ET_F32, 4, kd, k), O = ka(ET_F32, 4, od, out);
  Error err;
  cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
  for (int64_t b = 0; b < B; b++)
    for (int64_t oy = 0; oy < OH; oy++)
      for (int64_t ox = 0; ox < OW; ox++)
        for (int64_t f = 0; f < OF; f++) {
          int64_t g = f / M;
          float e = 0;
          for (int64_t ky = 0; ky < K; ky++)
            for (int64_t kx = 0; kx < K; kx++) {
              int64_t y = oy * stride + ky - 1, xx = ox * stride + kx - 1;
              if (y < 0 || y >= H || xx < 0 || xx >= W) continue;
              float xv = nchw ? x[((b * G + g) * H + y) * W + xx] : x[((b * H + y) * W + xx) * G + g];
              volatile float prod = xv * k[(ky * K + kx) * OF + f];
              e = e + prod;
            }
          float got = nchw ? out[((b * OF + f) * OH + oy) * OW + ox] : out[((b * OH + oy) * OW + ox) * OF + f];
          cr_assert(memcmp(&got, &e, 4) == 0, "nchw %d M %lld stride %lld: [%lld,%lld,%lld,%lld] %.9g, emulated %.9g",
                    nchw, (long long)M, (long long)stride, (long long)b, (long long)oy, (long long)ox, (long long)f,
                    got, e);
        }
  free(x); free(k); free(out);
}

Test(k_conv, depthwise_same_bytes_on_every_cpu) {
  Rng rng = {717};
  for (int nchw = 0; nchw < 2; nchw++)
    for (int64_t M = 1; M <= 2; M++)
      for (int64_t s = 1; s <= 2; s++) depthwise_bytes(&rng, nchw, M, s);
}

/* Windows covering the whole input (weight gradients of 1x1 convolutions,
 * dense layers as convolutions): one dot, any layout and type. */
Test(k_conv, full_window_as_dot) {
  Rng rng = {616};
  struct { EType l, r, o; bool wide; double tol; } cases[] = {
    {ET_F32, ET_F32, ET_F32, true, 1e-5}, {ET_F64, ET_F64, ET_F64, true, 1e-12}, {ET_BF16, ET_BF16, ET_F32, false, 0},
    {ET_S32, ET_S32, ET_S32, true, 0}, {ET_C64, ET_C64, ET_C64, true, 1e-5},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int rep = 0; rep < 40; rep++)
      random_case(&rng, cases[c].l, cases[c].r, cases[c].o, cases[c].wide, cases[c].tol, rep % 4, 3, rep % 2 == 0);
}

/* Grouped convolutions whose kernels are about as large as the input, on
 * planar data (depthwise weight gradients in NCHW): dot products along
 * input rows for f32; other types keep the general path. */
Test(k_conv, grouped_planar_weight_gradients) {
  Rng rng = {717};
  for (int rep = 0; rep < 150; rep++) random_case(&rng, ET_F32, ET_F32, ET_F32, true, 1e-5, 1 + rep % 3, 4, false);
  for (int rep = 0; rep < 20; rep++) random_case(&rng, ET_F64, ET_F64, ET_F64, true, 1e-12, 1 + rep % 3, 4, false);
}

/* Base-dilated convolutions (lhs_dilate 2..4, the phase decomposition):
 * NCHW and NHWC with every window attribute and group kind, 1-3 spatial
 * dims; float, bf16, complex and integer types. */
Test(k_conv, base_dilated_phases) {
  Rng rng = {9090};
  struct { EType l, r, o; bool wide; double tol; } cases[] = {
    {ET_F32, ET_F32, ET_F32, true, 1e-5}, {ET_F64, ET_F64, ET_F64, true, 1e-12}, {ET_BF16, ET_BF16, ET_BF16, false, 0},
    {ET_BF16, ET_BF16, ET_F32, false, 0}, {ET_C64, ET_C64, ET_C64, true, 1e-5}, {ET_C128, ET_C128, ET_C128, true, 1e-12},
    {ET_S32, ET_S32, ET_S32, true, 0}, {ET_S4, ET_S4, ET_S4, true, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int rep = 0; rep < 120; rep++)
      random_case(&rng, cases[c].l, cases[c].r, cases[c].o, cases[c].wide, cases[c].tol, 1 + rep % 3, rep % 3 == 2 ? 6 : 5,
                  rep % 2 == 0);
}

/* The input gradient of a stride-2 3x3 convolution in NCHW / OIHW (mobilenet
 * shaped, lhs_dilate 2, padding 1_2): several column chunks per phase, the
 * 1x1 phase as a plain gemm; and the same in NDHWC with lhs_dilate 2x2x2. */
Test(k_conv, base_dilated_transposed_strided) {
  Rng rng = {4711};
  int64_t N = 2, C = 24, H = 19, Wd = 21, F = 3;
  int64_t Ho = 2 * H, Wo = 2 * Wd, no = N * F * Ho * Wo;
  KArray L = ka(ET_F32, 4, (int64_t[]){N, C, H, Wd}, rand_array(&rng, ET_F32, N * C * H * Wd, true));
  KArray R = ka(ET_F32, 4, (int64_t[]){F, C, 3, 3}, rand_array(&rng, ET_F32, F * C * 9, true));
  int64_t od[] = {N, F, Ho, Wo};
  KArray O = ka(ET_F32, 4, od, malloc((size_t)no * 4)), W = ka(ET_F32, 4, od, malloc((size_t)no * 4));
  KConvParams p = {{2, 0, 1, (int64_t[]){2, 3}, 1, 0, (int64_t[]){2, 3}, 0, 1, (int64_t[]){2, 3}},
                   {2, NULL, NULL, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){2, 2}, NULL, NULL}, 1, 1};
  Error err;
  cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
  ref_conv(&L, &R, &p, &W);
  for (int64_t i = 0; i < no; i++)
    cr_assert(close_enough(((float *)O.data)[i], ((float *)W.data)[i], 1e-4, 1e-4), "[%lld]", (long long)i);
  free(L.data); free(R.data); free(O.data); free(W.data);

  int64_t D = 4, C3 = 5, F3 = 6, O3 = 2 * D, no3 = N * O3 * O3 * O3 * F3;
  KArray L3 = ka(ET_F32, 5, (int64_t[]){N, D, D, D, C3}, rand_array(&rng, ET_F32, N * D * D * D * C3, true));
  KArray R3 = ka(ET_F32, 5, (int64_t[]){3, 3, 3, C3, F3}, rand_array(&rng, ET_F32, 27 * C3 * F3, true));
  int64_t od3[] = {N, O3, O3, O3, F3};
  KArray O3a = ka(ET_F32, 5, od3, malloc((size_t)no3 * 4)), W3 = ka(ET_F32, 5, od3, malloc((size_t)no3 * 4));
  KConvParams p3 = {{3, 0, 4, (int64_t[]){1, 2, 3}, 3, 4, (int64_t[]){0, 1, 2}, 0, 4, (int64_t[]){1, 2, 3}},
                    {3, NULL, NULL, (int64_t[]){1, 1, 1}, (int64_t[]){2, 2, 2}, (int64_t[]){2, 2, 2}, NULL, NULL}, 1, 1};
  cr_assert(k_conv(&L3, &R3, &p3, &O3a, &err), "%s", err.msg);
  ref_conv(&L3, &R3, &p3, &W3);
  for (int64_t i = 0; i < no3; i++)
    cr_assert(close_enough(((float *)O3a.data)[i], ((float *)W3.data)[i], 1e-4, 1e-4), "3d [%lld]", (long long)i);
  free(L3.data); free(R3.data); free(O3a.data); free(W3.data);
}

/* Results of more than 1 MiB per batch element: the phases run over batch
 * slices of 2 MiB of result (here 2 + 1 images), NCHW without groups and
 * NHWC with two feature groups. */
Test(k_conv, base_dilated_batch_slices) {
  Rng rng = {5150};
  int64_t N = 3, C = 2, H = 128, F = 4, Ho = 2 * H, no = N * F * Ho * Ho;
  for (int nhwc = 0; nhwc <= 1; nhwc++) {
    int64_t G = nhwc ? 2 : 1;
    int64_t ld[] = {N, C, H, H}, rd[] = {F, C / G, 3, 3}, od[] = {N, F, Ho, Ho};
    if (nhwc) {
      ld[1] = H; ld[3] = C; od[1] = Ho; od[3] = F;
      rd[0] = 3; rd[1] = 3; rd[2] = C / G; rd[3] = F;
    }
    KArray L = ka(ET_F32, 4, ld, rand_array(&rng, ET_F32, N * C * H * H, true));
    KArray R = ka(ET_F32, 4, rd, rand_array(&rng, ET_F32, F * C / G * 9, true));
    KArray O = ka(ET_F32, 4, od, malloc((size_t)no * 4)), W = ka(ET_F32, 4, od, malloc((size_t)no * 4));
    KConvParams p = {{2, 0, 1, (int64_t[]){2, 3}, 1, 0, (int64_t[]){2, 3}, 0, 1, (int64_t[]){2, 3}},
                     {2, NULL, NULL, (int64_t[]){1, 1}, (int64_t[]){2, 2}, (int64_t[]){2, 2}, NULL, NULL}, G, 1};
    int64_t hw[] = {1, 2}, khw[] = {0, 1};
    if (nhwc) p.dn = (KConvDims){2, 0, 3, hw, 2, 3, khw, 0, 3, hw};
    Error err;
    cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
    ref_conv(&L, &R, &p, &W);
    for (int64_t i = 0; i < no; i++)
      cr_assert(close_enough(((float *)O.data)[i], ((float *)W.data)[i], 1e-4, 1e-4), "nhwc=%d [%lld]", nhwc, (long long)i);
    free(L.data); free(R.data); free(O.data); free(W.data);
  }
}

Test(k_conv, nhwc_3x3_blas_path) {
  Rng rng = {77};
  int64_t N = 2, H = 9, Wd = 11, C = 16, F = 24;
  KArray L = ka(ET_F32, 4, (int64_t[]){N, H, Wd, C}, rand_array(&rng, ET_F32, N * H * Wd * C, true));
  KArray R = ka(ET_F32, 4, (int64_t[]){3, 3, C, F}, rand_array(&rng, ET_F32, 9 * C * F, true));
  int64_t od[] = {N, H, Wd, F};
  KArray O = ka(ET_F32, 4, od, malloc((size_t)(N * H * Wd * F) * 4)), W = ka(ET_F32, 4, od, malloc((size_t)(N * H * Wd * F) * 4));
  KConvParams p = {{2, 0, 3, (int64_t[]){1, 2}, 2, 3, (int64_t[]){0, 1}, 0, 3, (int64_t[]){1, 2}},
                   {2, NULL, NULL, (int64_t[]){1, 1}, (int64_t[]){1, 1}, NULL, NULL, NULL}, 1, 1};
  Error err;
  conv_direct_force(CONV_DIRECT_OFF); /* the im2col path (f32 NHWC takes the direct tiles) */
  bool ok = k_conv(&L, &R, &p, &O, &err);
  conv_direct_force(CONV_DIRECT_AUTO);
  cr_assert(ok, "%s", err.msg);
  ref_conv(&L, &R, &p, &W);
  for (int64_t i = 0; i < N * H * Wd * F; i++) cr_assert(close_enough(((float *)O.data)[i], ((float *)W.data)[i], 1e-4, 1e-4));
  free(L.data); free(R.data); free(O.data); free(W.data);
}

/* Enough output rows for the im2col patch to be filled and multiplied in
 * several chunks (the last one partial), with one and with two feature
 * groups. */
Test(k_conv, nhwc_3x3_several_patch_chunks) {
  Rng rng = {78};
  int64_t N = 3, H = 20, Wd = 21, C = 64, F = 8;
  for (int64_t G = 1; G <= 2; G++) {
    KArray L = ka(ET_F32, 4, (int64_t[]){N, H, Wd, C}, rand_array(&rng, ET_F32, N * H * Wd * C, true));
    KArray R = ka(ET_F32, 4, (int64_t[]){3, 3, C / G, F}, rand_array(&rng, ET_F32, 9 * C / G * F, true));
    int64_t od[] = {N, H, Wd, F};
    KArray O = ka(ET_F32, 4, od, malloc((size_t)(N * H * Wd * F) * 4)), W = ka(ET_F32, 4, od, malloc((size_t)(N * H * Wd * F) * 4));
    KConvParams p = {{2, 0, 3, (int64_t[]){1, 2}, 2, 3, (int64_t[]){0, 1}, 0, 3, (int64_t[]){1, 2}},
                     {2, NULL, NULL, (int64_t[]){1, 1}, (int64_t[]){1, 1}, NULL, NULL, NULL}, G, 1};
    Error err;
    conv_direct_force(CONV_DIRECT_OFF); /* the im2col path (f32 NHWC takes the direct tiles) */
    bool ok = k_conv(&L, &R, &p, &O, &err);
    conv_direct_force(CONV_DIRECT_AUTO);
    cr_assert(ok, "%s", err.msg);
    ref_conv(&L, &R, &p, &W);
    for (int64_t i = 0; i < N * H * Wd * F; i++)
      cr_assert(close_enough(((float *)O.data)[i], ((float *)W.data)[i], 1e-4, 1e-4), "G=%lld [%lld]", (long long)G, (long long)i);
    free(L.data); free(R.data); free(O.data); free(W.data);
  }
}

Test(k_conv, errors) {
  float x[16] = {0}, k[16] = {0}, o[16];
  KArray L = ka(ET_F32, 3, (int64_t[]){1, 2, 4}, x), R = ka(ET_F32, 3, (int64_t[]){1, 3, 2}, k), O = ka(ET_F32, 3, (int64_t[]){1, 1, 3}, o);
  KConvParams p = {{1, 0, 1, (int64_t[]){2}, 1, 0, (int64_t[]){2}, 0, 1, (int64_t[]){2}}, {1, NULL, NULL, NULL, NULL, NULL, NULL, NULL}, 1, 1};
  Error err;
  cr_expect_not(k_conv(&L, &R, &p, &O, &err)); /* kernel in-features 3 vs 2 */
  KConvParams q = p;
  q.dn.in_batch = 1; /* repeated dimension */
  cr_expect_not(k_conv(&L, &R, &q, &O, &err));
  q = p;
  q.feature_group_count = 0;
  cr_expect_not(k_conv(&L, &R, &q, &O, &err));
}

/* One weight-gradient-shaped convolution (kernel window larger than the
 * output, K = KIF x kernel positions >= 2048: the K-cut GEMM path of
 * k_conv_wgrad.c) against ref_conv.  layout 0: lhs [i, s..., b], kernel
 * [i, k..., f], result [o..., b, f] (TF's f01b_i01o->01bf, no copies);
 * 1: lhs [i|b, b|i, s...], kernel [i|f, f|i, k...] (NCHW, the spatial-minor
 * builder), result shuffled; 2: every layout shuffled.  Output sizes os[d]
 * are chosen, input sizes follow from the window.  tol < 0: exact. */
static void wgrad_case(Rng *rng, EType t, EType ot, bool wide, double tol, int ns, int layout, int64_t B,
                       int64_t KIF, int64_t F, const int64_t *ksz, const int64_t *osz, int64_t BG) {
  int rank = ns + 2, lp[8], rp[8], op[8];
  for (int i = 0; i < rank; i++) lp[i] = rp[i] = op[i] = i;
  /* lp[0] = batch, lp[1] = feature, lp[2 + d] = spatial; likewise rp (in, out) and op. */
  if (layout == 0) {
    lp[1] = 0; lp[0] = rank - 1; rp[0] = 0; rp[1] = rank - 1;
    op[0] = ns; op[1] = ns + 1;
    for (int d = 0; d < ns; d++) { lp[2 + d] = rp[2 + d] = 1 + d; op[2 + d] = d; }
  } else if (layout == 1) {
    if (rng_next(rng) & 1) { lp[0] = 1; lp[1] = 0; }
    if (rng_next(rng) & 1) { rp[0] = 1; rp[1] = 0; }
    shuffle(rng, op, rank);
  } else {
    shuffle(rng, lp, rank); shuffle(rng, rp, rank); shuffle(rng, op, rank);
  }
  KConvParams p;
  memset(&p, 0, sizeof p);
  int64_t ls[3], ks_[3], os_[3], ld[8], rd[8], od[8], st[3], lo[3], hi[3], wd[3];
  bool rev[3];
  p.dn.nspatial = ns;
  p.dn.in_batch = lp[0]; p.dn.in_feature = lp[1];
  p.dn.k_in_feature = rp[0]; p.dn.k_out_feature = rp[1];
  p.dn.out_batch = op[0]; p.dn.out_feature = op[1];
  for (int d = 0; d < ns; d++) { ls[d] = lp[2 + d]; ks_[d] = rp[2 + d]; os_[d] = op[2 + d]; }
  p.dn.in_spatial = ls; p.dn.k_spatial = ks_; p.dn.out_spatial = os_;
  ld[lp[0]] = B * BG; ld[lp[1]] = KIF; rd[rp[0]] = KIF; rd[rp[1]] = F * BG; od[op[0]] = B; od[op[1]] = F * BG;
  for (int d = 0; d < ns; d++) {
    /* stride: the forward dilation; window dilation: the forward stride. */
    st[d] = rng_int(rng, 1, 2); wd[d] = rng_int(rng, 1, 2);
    lo[d] = rng_int(rng, 0, 2); hi[d] = rng_int(rng, 0, 2); rev[d] = rng_int(rng, 0, 3) == 0;
    rd[ks_[d]] = ksz[d];
    ld[ls[d]] = (osz[d] - 1) * st[d] + (ksz[d] - 1) * wd[d] + 1 - lo[d] - hi[d];
  }
  p.window = (KWindow){ns, NULL, st, lo, hi, NULL, wd, rev};
  p.feature_group_count = 1;
  p.batch_group_count = BG;
  Error err;
  for (int d = 0; d < ns; d++) {
    cr_assert(k_window_out_size(ld[ls[d]], ksz[d], st[d], lo[d], hi[d], 1, wd[d], &od[os_[d]], &err));
    cr_assert_eq(od[os_[d]], osz[d]);
  }
  int64_t nl = prod(rank, ld), nr = prod(rank, rd), no = prod(rank, od);
  KArray L = ka(t, rank, ld, rand_array(rng, t, nl, wide)), R = ka(t, rank, rd, rand_array(rng, t, nr, wide));
  int es = etype_storage_bytes(ot);
  KArray W = ka(ot, rank, od, calloc((size_t)no, (size_t)es)), O = ka(ot, rank, od, calloc((size_t)no, (size_t)es));
  ref_conv(&L, &R, &p, &W);
  cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
  for (int64_t i = 0; i < no * (etype_is_complex(ot) ? 2 : 1); i++) {
    EType rt = ot == ET_C64 ? ET_F32 : ot == ET_C128 ? ET_F64 : ot;
    double a = get_f(rt, O.data, i), b = get_f(rt, W.data, i);
    if (tol < 0) cr_assert_eq(a, b, "%s layout %d ns %d [%lld] %g vs %g", etype_name(ot), layout, ns, (long long)i, a, b);
    else cr_assert(close_enough(a, b, tol, tol), "%s layout %d ns %d [%lld] %g vs %g", etype_name(ot), layout, ns, (long long)i, a, b);
  }
  free(L.data); free(R.data); free(W.data); free(O.data);
}

/* Weight gradients through the K-cut GEMM: 1-3 spatial dims, padding,
 * strides (forward dilation), window dilations (forward stride), reversal,
 * batch (KIF) > 1, odd sizes; f32 and f64 with random values (the sum of
 * K products rounded differently, within a tolerance), small integers in
 * f32 and bf16 -> f32 (exact in every order), c64. */
Test(k_conv, weight_gradient_k_cut) {
  Rng rng = {1313};
  struct { EType t, ot; bool wide; double tol; } types[] = {
    {ET_F32, ET_F32, true, 1e-4}, {ET_F64, ET_F64, true, 1e-11}, {ET_F32, ET_F32, false, -1},
    {ET_BF16, ET_F32, false, -1}, {ET_C64, ET_C64, true, 1e-4},
  };
  for (size_t c = 0; c < sizeof types / sizeof types[0]; c++)
    for (int layout = 0; layout < 3; layout++)
      for (int ns = 1; ns <= 3; ns++) {
        int64_t k1[] = {421}, k2[] = {23, 19}, k3[] = {7, 9, 6}, o1[] = {5}, o2[] = {3, 2}, o3[] = {2, 1, 3};
        const int64_t *ks = ns == 1 ? k1 : ns == 2 ? k2 : k3, *os = ns == 1 ? o1 : ns == 2 ? o2 : o3;
        wgrad_case(&rng, types[c].t, types[c].ot, types[c].wide, types[c].tol, ns, layout, rng_int(&rng, 1, 3),
                   ns == 3 ? 6 : 5, rng_int(&rng, 1, 4), ks, os, 1);
      }
}

/* Enough rows of M (window x batch) for several tiles and enough K for
 * several slabs of partial sums, both builders. */
Test(k_conv, weight_gradient_tiles_and_slabs) {
  Rng rng = {4242};
  int64_t ks[] = {23, 19}, ks_long[] = {41, 37}, os[] = {3, 3};
  for (int layout = 0; layout < 2; layout++) {
    wgrad_case(&rng, ET_F32, ET_F32, true, 1e-4, 2, layout, 130, 5, 1, ks, os, 1);
    wgrad_case(&rng, ET_F32, ET_F32, false, -1, 2, layout, 131, 5, 1, ks, os, 1);
    wgrad_case(&rng, ET_F32, ET_F32, true, 1e-4, 2, layout, 2, 4, 2, ks_long, os, 1);
    wgrad_case(&rng, ET_F64, ET_F64, true, 1e-11, 2, layout, 3, 4, 2, ks_long, os, 1);
  }
}

/* NHWC (any layout the canonical copy makes [B, S..., IF]) 1x1, stride 1,
 * no padding: the input is the patch, one GEMM; floats exact on small
 * integers, s32 through the portable integer gemm; a strided 1x1 and a
 * padded one take the patch path and must agree too. */
Test(k_conv, pointwise_feature_minor) {
  Rng rng = {515};
  EType types[] = {ET_F32, ET_F64, ET_S32, ET_C64};
  for (size_t c = 0; c < sizeof types / sizeof types[0]; c++)
    for (int v = 0; v < 3; v++) {
      EType t = types[c];
      int64_t ld[] = {3, 9, 7, 6}, rd[] = {1, 1, 6, 5}, od[] = {3, v == 1 ? 5 : 9, v == 1 ? 4 : 7, 5};
      if (v == 2) { od[1] = 11; od[2] = 9; }
      int64_t st[] = {v == 1 ? 2 : 1, v == 1 ? 2 : 1}, pad[] = {v == 2 ? 1 : 0, v == 2 ? 1 : 0};
      int64_t nl = prod(4, ld), no = prod(4, od);
      int es = etype_storage_bytes(t);
      KArray L = ka(t, 4, ld, rand_array(&rng, t, nl, false)), R = ka(t, 4, rd, rand_array(&rng, t, 30, false));
      KArray O = ka(t, 4, od, calloc((size_t)no, (size_t)es)), W = ka(t, 4, od, calloc((size_t)no, (size_t)es));
      KConvParams p = {{2, 0, 3, (int64_t[]){1, 2}, 2, 3, (int64_t[]){0, 1}, 0, 3, (int64_t[]){1, 2}},
                       {2, NULL, st, pad, pad, NULL, NULL, NULL}, 1, 1};
      Error err;
      cr_assert(k_conv(&L, &R, &p, &O, &err), "%s", err.msg);
      ref_conv(&L, &R, &p, &W);
      EType rt = t == ET_C64 ? ET_F32 : t; /* values compared: a zero's sign may differ */
      for (int64_t i = 0; i < no * (t == ET_C64 ? 2 : 1); i++)
        cr_assert_eq(get_f(rt, O.data, i), get_f(rt, W.data, i), "%s variant %d [%lld]", etype_name(t), v, (long long)i);
      free(L.data); free(R.data); free(O.data); free(W.data);
    }
}

/* A grouped convolution's weight gradient: batch groups (2-3), each its
 * own K-cut GEMM into its columns of the result; every builder and layout,
 * f32 random and exact, f64, bf16 -> f32 exact.  Groups of fewer than 4
 * batch rows or output features are left to the planar path. */
Test(k_conv, weight_gradient_batch_groups) {
  Rng rng = {777};
  struct { EType t, ot; bool wide; double tol; } types[] = {
    {ET_F32, ET_F32, true, 1e-4}, {ET_F32, ET_F32, false, -1}, {ET_F64, ET_F64, true, 1e-11}, {ET_BF16, ET_F32, false, -1},
  };
  int64_t ks[] = {23, 19}, os[] = {3, 2}, k1[] = {421}, o1[] = {4};
  for (size_t c = 0; c < sizeof types / sizeof types[0]; c++)
    for (int layout = 0; layout < 3; layout++) {
      wgrad_case(&rng, types[c].t, types[c].ot, types[c].wide, types[c].tol, 2, layout, rng_int(&rng, 4, 6), 5,
                 rng_int(&rng, 4, 5), ks, os, rng_int(&rng, 2, 3));
      wgrad_case(&rng, types[c].t, types[c].ot, types[c].wide, types[c].tol, 1, layout, 4, 5, 4, k1, o1, 2);
    }
  /* A depthwise-like one (one feature per group): the planar path. */
  wgrad_case(&rng, ET_F32, ET_F32, true, 1e-4, 2, 1, 1, 5, 1, ks, os, 3);
}
