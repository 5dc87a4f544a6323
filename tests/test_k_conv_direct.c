/* The direct f32 convolution (kernels/k_conv_direct.c): feature-innermost
 * lhs and result, any kernel layout.  Each case runs with the AVX-512 tile,
 * the AVX2 tile (where the CPU has them) and with the direct path off (the
 * im2col path), and is checked against
 *   - a naive 7-loop convolution in double (every path, within float
 *     rounding of the sum of |products|), and
 *   - for the direct tiles, bit for bit, a scalar emulation of their
 *     arithmetic: per output, segments in order, each a chain of fmaf from
 *     zero over one row of taps (the innermost kernel dim, taps in order)
 *     and, per tap, a range of conv_direct_icb(taps) input features in
 *     order, taps in padding multiplying a zero; the first segment's sum
 *     is the output, later ones are added to it (input-feature ranges
 *     outermost, rows of taps within). */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/k_conv.h"
#include "kernels/k_conv_internal.h"
#include "conv_isas.h"
#include "ktest.h"

typedef struct Case {
  int ns;
  int64_t B, IF, OF;
  int64_t in[3], k[3], st[3], lo[3], hi[3], wd[3];
  bool rev[3];
  int klayout; /* 0: [S..., I, O] (01io); 1: [S..., O, I] (01oi); 2: [O, I, S...] (oi01) */
  bool sfirst; /* lhs and result [S0, B, S1..., F] instead of [B, S..., F] */
  int cmajor; /* [B, F, S...] (NCHW: through copies): 1 lhs and result, 2 lhs, 3 result */
} Case;

static void run_case(const Case *c, Rng *rng) {
  int ns = c->ns, rank = ns + 2;
  KConvParams p;
  memset(&p, 0, sizeof p);
  int64_t ls[3], ks[3], os[3];
  /* Dimension numbers: lhs/result batch, spatial, feature positions. */
  bool lc = c->cmajor == 1 || c->cmajor == 2, oc = c->cmajor == 1 || c->cmajor == 3;
  int bpos = c->sfirst && ns > 0 ? 1 : 0, lf = lc ? 1 : rank - 1, of = oc ? 1 : rank - 1;
  for (int d = 0; d < ns; d++) {
    ls[d] = lc ? 2 + d : c->sfirst && d == 0 ? 0 : 1 + d;
    os[d] = oc ? 2 + d : c->sfirst && d == 0 ? 0 : 1 + d;
  }
  p.dn = (KConvDims){ns, bpos, lf, ls, 0, 0, ks, bpos, of, os};
  if (c->klayout == 0) { p.dn.k_in_feature = ns; p.dn.k_out_feature = ns + 1; }
  if (c->klayout == 1) { p.dn.k_in_feature = ns + 1; p.dn.k_out_feature = ns; }
  if (c->klayout == 2) { p.dn.k_in_feature = 1; p.dn.k_out_feature = 0; }
  for (int d = 0; d < ns; d++) ks[d] = c->klayout == 2 ? 2 + d : d;
  p.window = (KWindow){ns, NULL, c->st, c->lo, c->hi, NULL, c->wd, c->rev};
  p.feature_group_count = p.batch_group_count = 1;
  int64_t ld[5], kd[5], od[5], osz[3];
  Error err;
  for (int d = 0; d < ns; d++)
    cr_assert(k_window_out_size(c->in[d], c->k[d], c->st[d], c->lo[d], c->hi[d], 1, c->wd[d], &osz[d], &err));
  ld[p.dn.in_batch] = od[p.dn.out_batch] = c->B;
  ld[lf] = c->IF;
  od[of] = c->OF;
  kd[p.dn.k_in_feature] = c->IF;
  kd[p.dn.k_out_feature] = c->OF;
  for (int d = 0; d < ns; d++) { ld[ls[d]] = c->in[d]; od[os[d]] = osz[d]; kd[ks[d]] = c->k[d]; }
  int64_t nl = prod(rank, ld), nk = prod(rank, kd), no = prod(rank, od);
  float *x = malloc((size_t)(nl + 1) * 4), *w = malloc((size_t)(nk + 1) * 4);
  for (int64_t i = 0; i < nl; i++) x[i] = (float)(2 * rng_unit(rng) - 1);
  for (int64_t i = 0; i < nk; i++) w[i] = (float)(2 * rng_unit(rng) - 1);
  double *ref = calloc((size_t)no + 1, 8), *mag = calloc((size_t)no + 1, 8);
  float *emu = calloc((size_t)no + 1, 4);
  int64_t lst[5], kst[5], ost[5];
  k_row_major_strides(ld, rank, lst); k_row_major_strides(kd, rank, kst); k_row_major_strides(od, rank, ost);
  int64_t KSP = prod(ns, c->k), OSP = prod(ns, osz);
  /* The naive loops: batch, output positions, output features, taps (in
   * kernel order), input features. */
  for (int64_t b = 0; b < c->B; b++)
    for (int64_t q = 0; q < OSP; q++)
      for (int64_t f = 0; f < c->OF; f++) {
        int64_t o[3], oo = b * ost[p.dn.out_batch] + f * ost[of], t = q;
        for (int d = ns - 1; d >= 0; d--) { o[d] = t % osz[d]; t /= osz[d]; oo += o[d] * ost[os[d]]; }
        double acc = 0, m = 0;
        float e = 0, seg = 0;
        int64_t icb = conv_direct_icb(KSP), kl = ns ? c->k[ns - 1] : 1;
        for (int64_t i0 = 0; i0 < c->IF; i0 += icb)
          for (int64_t tap = 0; tap < KSP; tap++) {
            int64_t kk[3], tt = tap, koff = f * kst[p.dn.k_out_feature], xoff = b * lst[p.dn.in_batch];
            bool in = true;
            for (int d = ns - 1; d >= 0; d--) { kk[d] = tt % c->k[d]; tt /= c->k[d]; }
            for (int d = 0; d < ns; d++) {
              int64_t kw = c->rev[d] ? c->k[d] - 1 - kk[d] : kk[d];
              int64_t pos = o[d] * c->st[d] + kw * c->wd[d] - c->lo[d];
              in = in && pos >= 0 && pos < c->in[d];
              xoff += pos * lst[ls[d]];
              koff += kk[d] * kst[ks[d]];
            }
            if (tap % kl == 0) seg = 0;
            int64_t n = c->IF - i0 < icb ? c->IF - i0 : icb;
            conv_emulate_range(in ? x + xoff + i0 * lst[lf] : x, lst[lf], w + koff + i0 * kst[p.dn.k_in_feature],
                               kst[p.dn.k_in_feature], n, in, &acc, &m, &seg);
            /* A segment ends with its row of taps: stored, or added. */
            if (tap % kl == kl - 1) e = i0 == 0 && tap == kl - 1 ? seg : e + seg;
          }
        ref[oo] = acc; mag[oo] = m; emu[oo] = e;
      }
  KArray L = ka(ET_F32, rank, ld, x), R = ka(ET_F32, rank, kd, w);
  float *out = malloc((size_t)(no + 1) * 4);
  for (int v = 0; v < CONV_NISAS; v++) {
    if (!conv_isa_here(v)) continue;
    for (int64_t i = 0; i < no; i++) out[i] = NAN;
    KArray O = ka(ET_F32, rank, od, out);
    bool ok = conv_with(conv_isas[v], pool_threads(), &L, &R, &p, &O, &err);
    cr_assert(ok, "%s", err.msg);
    for (int64_t i = 0; i < no; i++) {
      cr_assert(fabs(out[i] - ref[i]) <= 1e-5 * mag[i] + 1e-30, "isa %d [%lld] %.9g vs %.9g", conv_isas[v], (long long)i,
                out[i], ref[i]);
      if (conv_isas[v] != CONV_DIRECT_OFF)
        cr_assert(memcmp(&out[i], &emu[i], 4) == 0, "isa %d, ns %d IF %lld OF %lld k %d: [%lld] %.9g, emulated %.9g",
                  conv_isas[v], ns, (long long)c->IF, (long long)c->OF, c->klayout, (long long)i, out[i], emu[i]);
    }
  }
  free(x); free(w); free(ref); free(mag); free(emu); free(out);
}

#define ONES {1, 1, 1}
#define ZEROS {0, 0, 0}

/* Output and input feature counts around the vector widths (16, 8) and
 * the AVX-512 block of 64; widths below the 6-pixel tile. */
Test(k_conv_direct, feature_counts_and_narrow_rows) {
  Rng rng = {7};
  int64_t ofs[] = {1, 17, 63, 65, 130}, ifs[] = {1, 3, 64};
  for (int a = 0; a < 5; a++)
    for (int b = 0; b < 3; b++) {
      Case c = {2, 2, ifs[b], ofs[a], {5, 4 + a % 3}, {3, 3}, ONES, ONES, ONES, ONES, {false}, a % 3, false, 0};
      run_case(&c, &rng);
    }
  for (int64_t wdt = 1; wdt <= 5; wdt++) {
    Case c = {2, 1, 8, 24, {3, wdt}, {2, 2}, ONES, {0, 1}, {1, 0}, ONES, {false}, 0, false, 0};
    run_case(&c, &rng);
  }
}

/* Strides, window dilation, asymmetric and negative padding, reversal
 * (an input gradient's window), batch > 1, 1-d and 3-d, the spatial dim
 * before the batch, several input-feature ranges, NCHW. */
Test(k_conv_direct, windows_and_layouts) {
  Rng rng = {11};
  Case cases[] = {
    {2, 3, 16, 40, {9, 11}, {3, 3}, {2, 2}, {1, 0}, {1, 2}, ONES, {false}, 0, false, 0},
    {2, 2, 12, 33, {10, 9}, {3, 2}, {1, 3}, {2, 0}, {2, 1}, {2, 3}, {false}, 1, false, 0},
    {2, 2, 20, 70, {8, 8}, {3, 3}, ONES, {-1, 2}, {1, -2}, ONES, {true, true}, 1, false, 0},
    {2, 2, 7, 19, {7, 6}, {2, 3}, {2, 1}, ONES, ONES, ONES, {true, false}, 2, true, 0},
    {1, 3, 32, 48, {29}, {5}, {3}, {4}, {2}, {2}, {true}, 0, false, 0},
    {1, 2, 5, 64, {13}, {1}, {1}, {0}, {0}, {1}, {false}, 0, true, 0},
    {3, 2, 9, 21, {4, 5, 6}, {2, 3, 2}, {1, 2, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 2}, {false, true, false}, 2, false, 0},
    /* 45 taps: input features in ranges of 32 (70 = 32 + 32 + 6). */
    {2, 1, 70, 20, {6, 10}, {5, 9}, ONES, {2, 4}, {2, 4}, ONES, {false}, 1, false, 0},
    /* Padding wider than the kernel reach: whole rows of zero taps. */
    {2, 1, 4, 16, {2, 3}, {2, 2}, ONES, {3, 3}, {3, 3}, ONES, {false}, 0, false, 0},
    /* NCHW (the kernel OIHW or HWIO), NCHW -> NHWC, NHWC -> NCHW. */
    {2, 2, 24, 40, {9, 8}, {3, 3}, ONES, ONES, ONES, ONES, {false}, 2, false, 1},
    {2, 3, 5, 17, {6, 7}, {3, 2}, {2, 1}, {1, 0}, {0, 1}, {1, 2}, {true, false}, 0, false, 1},
    {2, 2, 9, 20, {5, 7}, {2, 2}, ONES, ONES, ZEROS, ONES, {false}, 1, false, 2},
    {1, 2, 6, 70, {11}, {3}, {2}, {1}, {1}, {1}, {false}, 0, false, 3},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i], &rng);
}

/* Empty batch or positions (nothing to compute), and input features 0
 * (every output 0; not the direct path). */
Test(k_conv_direct, empty_dims) {
  Rng rng = {3};
  Case cases[] = {
    {2, 0, 8, 16, {5, 5}, {3, 3}, ONES, ONES, ONES, ONES, {false}, 0, false, 0},
    {2, 2, 8, 16, {0, 5}, {1, 3}, ONES, ZEROS, ZEROS, ONES, {false}, 0, false, 0},
    {2, 2, 0, 16, {4, 5}, {3, 3}, ONES, ONES, ONES, ONES, {false}, 0, false, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_case(&cases[i], &rng);
}

/* bf16 operands are converted to f32 by the generic path, which then runs
 * the direct tiles on its canonical copies: the same bytes as f32 operands
 * holding the same (bf16-exact) values, through the in-place call. */
Test(k_conv_direct, bf16_operands_through_the_generic_path) {
  Rng rng = {5};
  int64_t ld[4] = {2, 7, 9, 24}, kd[4] = {3, 3, 24, 40}, od[4] = {2, 7, 9, 40};
  int64_t nl = prod(4, ld), nk = prod(4, kd), no = prod(4, od);
  float *x = malloc((size_t)nl * 4), *w = malloc((size_t)nk * 4), *o1 = malloc((size_t)no * 4), *o2 = malloc((size_t)no * 4);
  uint16_t *xb = malloc((size_t)nl * 2), *wb = malloc((size_t)nk * 2);
  for (int64_t i = 0; i < nl; i++) x[i] = (float)(2 * rng_unit(&rng) - 1);
  for (int64_t i = 0; i < nk; i++) w[i] = (float)(2 * rng_unit(&rng) - 1);
  k_cvt(ET_BF16, xb, ET_F32, x, nl); k_cvt(ET_F32, x, ET_BF16, xb, nl);
  k_cvt(ET_BF16, wb, ET_F32, w, nk); k_cvt(ET_F32, w, ET_BF16, wb, nk);
  KConvParams p;
  memset(&p, 0, sizeof p);
  p.dn = (KConvDims){2, 0, 3, (int64_t[]){1, 2}, 2, 3, (int64_t[]){0, 1}, 0, 3, (int64_t[]){1, 2}};
  p.window = (KWindow){2, NULL, NULL, (int64_t[]){1, 1}, (int64_t[]){1, 1}, NULL, NULL, NULL};
  p.feature_group_count = p.batch_group_count = 1;
  Error err;
  KArray L = ka(ET_F32, 4, ld, x), R = ka(ET_F32, 4, kd, w), O1 = ka(ET_F32, 4, od, o1);
  KArray Lb = ka(ET_BF16, 4, ld, xb), Rb = ka(ET_BF16, 4, kd, wb), O2 = ka(ET_F32, 4, od, o2);
  __builtin_cpu_init();
  conv_direct_force(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? CONV_DIRECT_AVX2 : CONV_DIRECT_OFF);
  bool ok1 = k_conv(&L, &R, &p, &O1, &err), ok2 = ok1 && k_conv(&Lb, &Rb, &p, &O2, &err);
  conv_direct_force(CONV_DIRECT_AUTO);
  cr_assert(ok1 && ok2, "%s", err.msg);
  cr_expect(memcmp(o1, o2, (size_t)no * 4) == 0);
  free(x); free(w); free(o1); free(o2); free(xb); free(wb);
}
