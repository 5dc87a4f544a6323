#include <criterion/criterion.h>

#include "kernels/k_dot.h"
#include "ktest.h"

static bool dot(const KArray *l, const KArray *r, int nb, const int64_t *lb, const int64_t *rb, int nc,
                const int64_t *lc, const int64_t *rc, KArray *o, Error *err) {
  KDotDims d = {nb, lb, rb, nc, lc, rc};
  return k_dot(l, r, &d, o, err);
}

Test(k_dot, seed_contracting_example) {
  float l[] = {1, 2, 3, 4, 5, 6}, r[] = {1, 1, 1, 2, 2, 2}, o[4];
  int64_t ld[] = {2, 3}, od[] = {2, 2};
  KArray L = ka(ET_F32, 2, ld, l), R = ka(ET_F32, 2, ld, r), O = ka(ET_F32, 2, od, o);
  Error err;
  int64_t c1[] = {1};
  cr_assert(dot(&L, &R, 0, NULL, NULL, 1, c1, c1, &O, &err), "%s", err.msg);
  float want[] = {6, 12, 15, 30};
  for (int i = 0; i < 4; i++) cr_expect_eq(o[i], want[i]);
}

Test(k_dot, seed_batch_example) {
  float l[] = {1, 2, 3, 4, 5, 6, 7, 8}, r[] = {1, 0, 0, 1, 1, 0, 0, 1}, o[8];
  int64_t d[] = {2, 2, 2};
  KArray L = ka(ET_F32, 3, d, l), R = ka(ET_F32, 3, d, r), O = ka(ET_F32, 3, d, o);
  Error err;
  int64_t b[] = {0}, lc[] = {2}, rc[] = {1};
  cr_assert(dot(&L, &R, 1, b, b, 1, lc, rc, &O, &err), "%s", err.msg);
  for (int i = 0; i < 8; i++) cr_expect_eq(o[i], l[i]);
}

Test(k_dot, vector_matrix_forms) {
  double v[] = {1, 2, 3}, m[] = {1, 2, 3, 4, 5, 6}; /* m: [2,3] */
  int64_t vd[] = {3}, md[] = {2, 3}, od[] = {2};
  double s, mv[2];
  Error err;
  int64_t c0[] = {0}, c1[] = {1};
  KArray V = ka(ET_F64, 1, vd, v), M = ka(ET_F64, 2, md, m), S = ka(ET_F64, 0, NULL, &s), MV = ka(ET_F64, 1, od, mv);
  cr_assert(dot(&V, &V, 0, NULL, NULL, 1, c0, c0, &S, &err));
  cr_expect_eq(s, 14);
  cr_assert(dot(&M, &V, 0, NULL, NULL, 1, c1, c0, &MV, &err));
  cr_expect_eq(mv[0], 14);
  cr_expect_eq(mv[1], 32);
}

/* Naive reference over arbitrary dimension numbers, accumulating in
 * double (floats), long double complex pairs (complex), or wrapping uint64. */
typedef struct { int nb, nc; int64_t lb[4], rb[4], lc[4], rc[4]; } Dn;

static void reference(const KArray *l, const KArray *r, const Dn *dn, EType ot, void *out, int64_t *odims, int *orank) {
  bool lu[8] = {0}, ru[8] = {0};
  for (int i = 0; i < dn->nb; i++) { lu[dn->lb[i]] = true; ru[dn->rb[i]] = true; }
  for (int i = 0; i < dn->nc; i++) { lu[dn->lc[i]] = true; ru[dn->rc[i]] = true; }
  int lf[8], rf[8], nlf = 0, nrf = 0;
  for (int i = 0; i < l->rank; i++) if (!lu[i]) lf[nlf++] = i;
  for (int i = 0; i < r->rank; i++) if (!ru[i]) rf[nrf++] = i;
  int orr = 0;
  for (int i = 0; i < dn->nb; i++) odims[orr++] = l->dims[dn->lb[i]];
  for (int i = 0; i < nlf; i++) odims[orr++] = l->dims[lf[i]];
  for (int i = 0; i < nrf; i++) odims[orr++] = r->dims[rf[i]];
  *orank = orr;
  int64_t cd[4];
  for (int i = 0; i < dn->nc; i++) cd[i] = l->dims[dn->lc[i]];
  int64_t nout = prod(orr, odims), ncon = prod(dn->nc, cd);
  int64_t lst[8], rst[8];
  int64_t s = 1;
  for (int i = l->rank - 1; i >= 0; i--) { lst[i] = s; s *= l->dims[i]; }
  s = 1;
  for (int i = r->rank - 1; i >= 0; i--) { rst[i] = s; s *= r->dims[i]; }
  bool cpx = etype_is_complex(ot), isint = !etype_is_float(ot) && !cpx;
  int les = etype_storage_bytes(l->etype), res_ = etype_storage_bytes(r->etype);
  for (int64_t o = 0; o < nout; o++) {
    int64_t oi[12], t = o;
    for (int i = orr - 1; i >= 0; i--) { oi[i] = t % odims[i]; t /= odims[i]; }
    int64_t lbase = 0, rbase = 0;
    for (int i = 0; i < dn->nb; i++) { lbase += oi[i] * lst[dn->lb[i]]; rbase += oi[i] * rst[dn->rb[i]]; }
    for (int i = 0; i < nlf; i++) lbase += oi[dn->nb + i] * lst[lf[i]];
    for (int i = 0; i < nrf; i++) rbase += oi[dn->nb + nlf + i] * rst[rf[i]];
    double acc = 0, acci = 0;
    uint64_t iacc = 0;
    for (int64_t c = 0; c < ncon; c++) {
      int64_t ci[4], tt = c, li = lbase, ri = rbase;
      for (int i = dn->nc - 1; i >= 0; i--) { ci[i] = tt % cd[i]; tt /= cd[i]; }
      for (int i = 0; i < dn->nc; i++) { li += ci[i] * lst[dn->lc[i]]; ri += ci[i] * rst[dn->rc[i]]; }
      if (isint) {
        iacc += (uint64_t)get_i(l->etype, l->data, li) * (uint64_t)get_i(r->etype, r->data, ri);
      } else if (cpx) {
        double a[2] = {0, 0}, b[2] = {0, 0};
        if (etype_is_complex(l->etype)) k_cvt(ET_C128, a, l->etype, (char *)l->data + li * les, 1);
        else a[0] = get_f(l->etype, l->data, li);
        if (etype_is_complex(r->etype)) k_cvt(ET_C128, b, r->etype, (char *)r->data + ri * res_, 1);
        else b[0] = get_f(r->etype, r->data, ri);
        acc += a[0] * b[0] - a[1] * b[1];
        acci += a[0] * b[1] + a[1] * b[0];
      } else {
        acc += get_f(l->etype, l->data, li) * get_f(r->etype, r->data, ri);
      }
    }
    if (isint) set_i(ot, out, o, (int64_t)iacc);
    else if (cpx) {
      double v[2] = {acc, acci};
      k_cvt(ot, (char *)out + o * etype_storage_bytes(ot), ET_C128, v, 1);
    } else set_f(ot, out, o, acc);
  }
}

/* Random dimension numbers: nb batch, nc contracting, some free dims, all
 * shuffled into random positions of each operand. */
static void random_case(Rng *rng, EType lt, EType rt, EType ot, bool wide, double rtol) {
  int nb = (int)rng_int(rng, 0, 2), nc = (int)rng_int(rng, 0, 2), nlf = (int)rng_int(rng, 0, 2), nrf = (int)rng_int(rng, 0, 2);
  int lr = nb + nc + nlf, rr = nb + nc + nrf;
  int lperm[8], rperm[8];
  for (int i = 0; i < lr; i++) lperm[i] = i;
  for (int i = 0; i < rr; i++) rperm[i] = i;
  for (int i = lr - 1; i > 0; i--) { int j = (int)rng_int(rng, 0, i), t = lperm[i]; lperm[i] = lperm[j]; lperm[j] = t; }
  for (int i = rr - 1; i > 0; i--) { int j = (int)rng_int(rng, 0, i), t = rperm[i]; rperm[i] = rperm[j]; rperm[j] = t; }
  Dn dn = {nb, nc, {0}, {0}, {0}, {0}};
  int64_t ld[8], rd[8];
  /* Logical role k: batch k<nb, contracting nb<=k<nb+nc, free after. */
  for (int k = 0; k < nb; k++) { int64_t s = rng_int(rng, 1, 3); dn.lb[k] = lperm[k]; dn.rb[k] = rperm[k]; ld[lperm[k]] = s; rd[rperm[k]] = s; }
  for (int k = 0; k < nc; k++) { int64_t s = rng_int(rng, 1, 9); dn.lc[k] = lperm[nb + k]; dn.rc[k] = rperm[nb + k]; ld[lperm[nb + k]] = s; rd[rperm[nb + k]] = s; }
  for (int k = 0; k < nlf; k++) ld[lperm[nb + nc + k]] = rng_int(rng, 1, 7);
  for (int k = 0; k < nrf; k++) rd[rperm[nb + nc + k]] = rng_int(rng, 1, 7);
  KArray L = ka(lt, lr, ld, rand_array(rng, lt, prod(lr, ld), wide));
  KArray R = ka(rt, rr, rd, rand_array(rng, rt, prod(rr, rd), wide));
  int64_t od[12];
  int orank;
  void *want = calloc(30000, 16);
  reference(&L, &R, &dn, ot, want, od, &orank);
  int64_t n = prod(orank, od);
  void *got = calloc((size_t)n + 1, 16);
  KArray O = ka(ot, orank, od, got);
  Error err;
  KDotDims d = {nb, dn.lb, dn.rb, nc, dn.lc, dn.rc};
  cr_assert(k_dot(&L, &R, &d, &O, &err), "%s", err.msg);
  int es = etype_storage_bytes(ot);
  for (int64_t i = 0; i < n; i++) {
    if (etype_is_float(ot)) {
      cr_assert(close_enough(get_f(ot, got, i), get_f(ot, want, i), rtol, rtol), "%s x %s -> %s elem %lld: %g vs %g",
                etype_name(lt), etype_name(rt), etype_name(ot), (long long)i, get_f(ot, got, i), get_f(ot, want, i));
    } else if (etype_is_complex(ot)) {
      double a[2], b[2];
      k_cvt(ET_C128, a, ot, (char *)got + i * es, 1);
      k_cvt(ET_C128, b, ot, (char *)want + i * es, 1);
      cr_assert(close_enough(a[0], b[0], rtol, rtol) && close_enough(a[1], b[1], rtol, rtol));
    } else {
      cr_assert_eq(get_i(ot, got, i), get_i(ot, want, i), "%s elem %lld", etype_name(ot), (long long)i);
    }
  }
  free(L.data); free(R.data); free(want); free(got);
}

Test(k_dot, random_all_types) {
  Rng rng = {0x1234567};
  struct { EType l, r, o; bool wide; double rtol; } cases[] = {
    {ET_F32, ET_F32, ET_F32, true, 1e-5}, {ET_F64, ET_F64, ET_F64, true, 1e-12},
    {ET_F32, ET_F32, ET_F32, false, 0}, {ET_C64, ET_C64, ET_C64, true, 1e-5},
    {ET_C128, ET_C128, ET_C128, true, 1e-12}, {ET_S32, ET_S32, ET_S32, true, 0},
    {ET_S8, ET_S8, ET_S32, false, 0}, {ET_S8, ET_S8, ET_S8, true, 0}, {ET_U8, ET_U8, ET_U32, true, 0},
    {ET_S64, ET_S64, ET_S64, true, 0}, {ET_U64, ET_U64, ET_U64, true, 0}, {ET_S16, ET_S16, ET_S16, true, 0},
    {ET_S4, ET_S4, ET_S4, true, 0}, {ET_U4, ET_U4, ET_U4, true, 0}, {ET_PRED, ET_PRED, ET_PRED, false, 0},
    {ET_BF16, ET_BF16, ET_F32, false, 0}, {ET_BF16, ET_BF16, ET_BF16, false, 0},
    {ET_F16, ET_F16, ET_F16, false, 0}, {ET_F16, ET_F16, ET_F32, true, 1e-3},
    {ET_F8E4M3FN, ET_F8E4M3FN, ET_F32, false, 0}, {ET_F8E5M2, ET_F8E5M2, ET_BF16, false, 0},
    {ET_S8, ET_S8, ET_F32, false, 0}, {ET_BF16, ET_F32, ET_F32, false, 0}, {ET_F32, ET_F32, ET_F64, true, 1e-6},
    {ET_C64, ET_F32, ET_C64, false, 0},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
    for (int rep = 0; rep < 60; rep++) random_case(&rng, cases[c].l, cases[c].r, cases[c].o, cases[c].wide, cases[c].rtol);
}

Test(k_dot, larger_f32_against_reference) {
  Rng rng = {99};
  for (int rep = 0; rep < 4; rep++) {
    int64_t M = rng_int(&rng, 30, 90), K = rng_int(&rng, 30, 90), N = rng_int(&rng, 30, 90);
    int64_t ld[] = {K, M}, rd[] = {N, K}, od[] = {M, N}; /* both transposed */
    float *l = rand_array(&rng, ET_F32, M * K, true), *r = rand_array(&rng, ET_F32, N * K, true), *o = malloc((size_t)(M * N) * 4);
    KArray L = ka(ET_F32, 2, ld, l), R = ka(ET_F32, 2, rd, r), O = ka(ET_F32, 2, od, o);
    int64_t lc[] = {0}, rc[] = {1};
    Error err;
    cr_assert(dot(&L, &R, 0, NULL, NULL, 1, lc, rc, &O, &err));
    for (int64_t i = 0; i < M; i++)
      for (int64_t j = 0; j < N; j++) {
        double s = 0;
        for (int64_t k = 0; k < K; k++) s += (double)l[k * M + i] * r[j * K + k];
        cr_assert(close_enough(o[i * N + j], s, 1e-4, 1e-4));
      }
    free(l); free(r); free(o);
  }
}

/* Batch dims that are not leading and merged free/contracting dims: the
 * attention shapes, which the BLAS path takes in place (strided gemm per
 * batch, no copy), against the naive reference; f32, f64 and c64. */
Test(k_dot, attention_shapes_strided_in_place) {
  Rng rng = {4242};
  EType types[] = {ET_F32, ET_F64, ET_C64};
  for (int t = 0; t < 3; t++)
    for (int rep = 0; rep < 6; rep++) {
      EType et = types[t];
      int64_t B = rng_int(&rng, 1, 3), Q = rng_int(&rng, 1, 9), Kv = rng_int(&rng, 1, 9), H = rng_int(&rng, 1, 4),
              D = rng_int(&rng, 1, 9), E = rng_int(&rng, 1, 3);
      Dn dn;
      int64_t ld[5], rd[5];
      int lr, rr;
      switch (rep % 3) {
      case 0: /* bqhd,bkhd->bhqk */
        dn = (Dn){2, 1, {0, 2}, {0, 2}, {3}, {3}};
        ld[0] = B; ld[1] = Q; ld[2] = H; ld[3] = D; rd[0] = B; rd[1] = Kv; rd[2] = H; rd[3] = D; lr = rr = 4;
        break;
      case 1: /* bhqk,bkhd->bhqd */
        dn = (Dn){2, 1, {0, 1}, {0, 2}, {3}, {1}};
        ld[0] = B; ld[1] = H; ld[2] = Q; ld[3] = Kv; rd[0] = B; rd[1] = Kv; rd[2] = H; rd[3] = D; lr = rr = 4;
        break;
      default: /* qhde,khde->hqk: two contracting dims merged, batch in the middle */
        dn = (Dn){1, 2, {1}, {1}, {2, 3}, {2, 3}};
        ld[0] = Q; ld[1] = H; ld[2] = D; ld[3] = E; rd[0] = Kv; rd[1] = H; rd[2] = D; rd[3] = E; lr = rr = 4;
        break;
      }
      KArray L = ka(et, lr, ld, rand_array(&rng, et, prod(lr, ld), true));
      KArray R = ka(et, rr, rd, rand_array(&rng, et, prod(rr, rd), true));
      int64_t od[12];
      int orank;
      void *want = calloc(30000, 16);
      reference(&L, &R, &dn, et, want, od, &orank);
      int64_t n = prod(orank, od);
      void *got = calloc((size_t)n + 1, 16);
      KArray O = ka(et, orank, od, got);
      Error err;
      KDotDims d = {dn.nb, dn.lb, dn.rb, dn.nc, dn.lc, dn.rc};
      cr_assert(k_dot(&L, &R, &d, &O, &err), "%s", err.msg);
      int es = etype_storage_bytes(et);
      for (int64_t i = 0; i < n; i++) {
        if (et == ET_C64) {
          double a[2], b[2];
          k_cvt(ET_C128, a, et, (char *)got + i * es, 1);
          k_cvt(ET_C128, b, et, (char *)want + i * es, 1);
          cr_assert(close_enough(a[0], b[0], 1e-5, 1e-5) && close_enough(a[1], b[1], 1e-5, 1e-5), "case %d elem %lld", rep % 3, (long long)i);
        } else {
          cr_assert(close_enough(get_f(et, got, i), get_f(et, want, i), 1e-5, 1e-5), "%s case %d elem %lld: %g vs %g",
                    etype_name(et), rep % 3, (long long)i, get_f(et, got, i), get_f(et, want, i));
        }
      }
      free(L.data); free(R.data); free(want); free(got);
    }
}

Test(k_dot, integer_wraps_in_result_width) {
  int32_t l[] = {INT32_MAX, 2}, r[] = {2, 1}, o;
  int64_t d[] = {2};
  int64_t c[] = {0};
  KArray L = ka(ET_S32, 1, d, l), R = ka(ET_S32, 1, d, r), O = ka(ET_S32, 0, NULL, &o);
  Error err;
  cr_assert(dot(&L, &R, 0, NULL, NULL, 1, c, c, &O, &err));
  cr_expect_eq(o, (int32_t)((uint32_t)INT32_MAX * 2u + 2u)); /* wraps to 0 */
  int8_t a[] = {127, 127}, b[] = {127, 127};
  int32_t w;
  KArray A = ka(ET_S8, 1, d, a), B = ka(ET_S8, 1, d, b), W = ka(ET_S32, 0, NULL, &w);
  cr_assert(dot(&A, &B, 0, NULL, NULL, 1, c, c, &W, &err));
  cr_expect_eq(w, 2 * 127 * 127); /* s8 x s8 -> s32 does not wrap at 8 bits */
}

Test(k_dot, nan_inf_and_negative_zero) {
  float l[] = {INFINITY, 1}, r[] = {0, 1}, o;
  int64_t d[] = {2}, c[] = {0};
  KArray L = ka(ET_F32, 1, d, l), R = ka(ET_F32, 1, d, r), O = ka(ET_F32, 0, NULL, &o);
  Error err;
  cr_assert(dot(&L, &R, 0, NULL, NULL, 1, c, c, &O, &err));
  cr_expect(isnan(o));
  float z[] = {NAN, 0};
  KArray Z = ka(ET_F32, 1, d, z);
  cr_assert(dot(&Z, &R, 0, NULL, NULL, 1, c, c, &O, &err));
  cr_expect(isnan(o));
}

Test(k_dot, empty_dimensions) {
  float l[1] = {0}, r[1] = {0}, o[6];
  int64_t ld[] = {2, 0}, rd[] = {0, 3}, od[] = {2, 3};
  for (int i = 0; i < 6; i++) o[i] = 42;
  KArray L = ka(ET_F32, 2, ld, l), R = ka(ET_F32, 2, rd, r), O = ka(ET_F32, 2, od, o);
  int64_t lc[] = {1}, rc[] = {0};
  Error err;
  cr_assert(dot(&L, &R, 0, NULL, NULL, 1, lc, rc, &O, &err), "%s", err.msg);
  for (int i = 0; i < 6; i++) cr_expect_eq(o[i], 0.0f);
  int32_t il[1], ir[1], io[6];
  KArray IL = ka(ET_S32, 2, ld, il), IR = ka(ET_S32, 2, rd, ir), IO = ka(ET_S32, 2, od, io);
  cr_assert(dot(&IL, &IR, 0, NULL, NULL, 1, lc, rc, &IO, &err));
  for (int i = 0; i < 6; i++) cr_expect_eq(io[i], 0);
  int64_t ed[] = {0, 3};
  KArray E = ka(ET_F32, 2, ed, o), L2 = ka(ET_F32, 2, (int64_t[]){0, 4}, l), R2 = ka(ET_F32, 2, (int64_t[]){4, 3}, r);
  cr_assert(dot(&L2, &R2, 0, NULL, NULL, 1, lc, rc, &E, &err));
}

Test(k_dot, errors_not_crashes) {
  float l[6] = {0}, r[6] = {0}, o[9];
  int64_t ld[] = {2, 3}, rd[] = {3, 2}, od[] = {2, 2};
  KArray L = ka(ET_F32, 2, ld, l), R = ka(ET_F32, 2, rd, r), O = ka(ET_F32, 2, od, o);
  Error err;
  int64_t bad[] = {5}, c0[] = {0}, c1[] = {1};
  cr_expect_not(dot(&L, &R, 0, NULL, NULL, 1, bad, c0, &O, &err));
  cr_expect_not(dot(&L, &R, 0, NULL, NULL, 1, c0, c0, &O, &err)); /* 2 vs 3 */
  cr_expect(strstr(err.msg, "differ") != NULL, "%s", err.msg);
  cr_expect_not(dot(&L, &R, 0, NULL, NULL, 2, (int64_t[]){1, 1}, (int64_t[]){0, 0}, &O, &err));
  KArray Obad = ka(ET_F32, 2, (int64_t[]){2, 3}, o);
  cr_expect_not(dot(&L, &R, 0, NULL, NULL, 1, c1, c0, &Obad, &err));
  KArray C = ka(ET_C64, 2, ld, l), Oi = ka(ET_F32, 2, od, o);
  cr_expect_not(dot(&C, &R, 0, NULL, NULL, 1, c1, c0, &Oi, &err));
  KArray Os = ka(ET_S32, 2, od, o);
  cr_expect_not(dot(&L, &R, 0, NULL, NULL, 1, c1, c0, &Os, &err));
}
