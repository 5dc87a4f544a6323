#include <criterion/criterion.h>

#include "kernels/k_sort.h"
#include "ktest.h"

/* LT on operand 0 as a callback (s32). */
static bool lt_s32_fn(void *ctx, int nops, const void *const *a, const void *const *b, uint8_t *out, int64_t n, Error *err) {
  (void)ctx; (void)nops; (void)err;
  const int32_t *x = a[0], *y = b[0];
  for (int64_t i = 0; i < n; i++) out[i] = x[i] < y[i];
  return true;
}

Test(k_sort, seed_three_operands) {
  int32_t k0[] = {3, 1}, k1[] = {42, 50};
  float k2[] = {-3.0f, 1.1f};
  int64_t d[] = {2};
  KArray ops[] = {ka(ET_S32, 1, d, k0), ka(ET_S32, 1, d, k1), ka(ET_F32, 1, d, k2)};
  int32_t o0[2], o1[2];
  float o2[2];
  KArray outs[] = {ka(ET_S32, 1, d, o0), ka(ET_S32, 1, d, o1), ka(ET_F32, 1, d, o2)};
  Error err;
  KComparator known = {K_CMP_LT, 0, false, NULL, NULL}, cb = {K_CMP_CALLBACK, 0, false, lt_s32_fn, NULL};
  for (int pass = 0; pass < 2; pass++) {
    memset(o0, 0, 8); memset(o1, 0, 8); memset(o2, 0, 8);
    cr_assert(k_sort(3, ops, 0, pass ? &cb : &known, outs, &err), "%s", err.msg);
    cr_expect(o0[0] == 1 && o0[1] == 3);
    cr_expect(o1[0] == 50 && o1[1] == 42);
    cr_expect(o2[0] == 1.1f && o2[1] == -3.0f);
  }
}

Test(k_sort, matrix_rows_and_columns) {
  int32_t x[] = {3, 1, 2, 9, 7, 8}, o[6];
  int64_t d[] = {2, 3};
  KArray X = ka(ET_S32, 2, d, x), O = ka(ET_S32, 2, d, o);
  KComparator lt = {K_CMP_LT, 0, false, NULL, NULL}, gt = {K_CMP_GT, 0, false, NULL, NULL};
  Error err;
  cr_assert(k_sort(1, &X, 1, &lt, &O, &err));
  int32_t w1[] = {1, 2, 3, 7, 8, 9};
  for (int i = 0; i < 6; i++) cr_expect_eq(o[i], w1[i]);
  cr_assert(k_sort(1, &X, 0, &gt, &O, &err));
  int32_t w0[] = {9, 7, 8, 3, 1, 2};
  for (int i = 0; i < 6; i++) cr_expect_eq(o[i], w0[i]);
}

Test(k_sort, float_total_order_and_default) {
  float x[] = {1.0f, -NAN, NAN, -0.0f, INFINITY, 0.0f, -INFINITY, -1.0f}, o[8];
  int32_t ix[8], oi[8];
  for (int i = 0; i < 8; i++) ix[i] = i;
  int64_t d[] = {8};
  KArray ops[] = {ka(ET_F32, 1, d, x), ka(ET_S32, 1, d, ix)}, outs[] = {ka(ET_F32, 1, d, o), ka(ET_S32, 1, d, oi)};
  KComparator tot = {K_CMP_LT, 0, true, NULL, NULL}, flt = {K_CMP_LT, 0, false, NULL, NULL};
  Error err;
  cr_assert(k_sort(2, ops, 0, &tot, outs, &err));
  int32_t want_tot[] = {1, 6, 7, 3, 5, 0, 4, 2}; /* -nan -inf -1 -0 +0 1 inf nan */
  for (int i = 0; i < 8; i++) cr_expect_eq(oi[i], want_tot[i], "total %d", i);
  cr_assert(k_sort(2, ops, 0, &flt, outs, &err));
  int32_t want_flt[] = {6, 7, 3, 5, 0, 4, 1, 2}; /* -0,+0 tie keeps order; NaNs last */
  for (int i = 0; i < 8; i++) cr_expect_eq(oi[i], want_flt[i], "float %d", i);
}

/* Reference: stable insertion sort by double/int64 key. */
static int64_t cmp_key(EType t, const void *p, int64_t a, int64_t b, bool desc) {
  if (etype_is_float(t)) {
    double x = get_f(t, p, a), y = get_f(t, p, b);
    return desc ? (x > y) - (x < y) : (x < y) - (x > y);
  }
  int64_t x = get_i(t, p, a), y = get_i(t, p, b);
  if (etype_kind(t) == EK_UINT) return desc ? ((uint64_t)x > (uint64_t)y) - ((uint64_t)x < (uint64_t)y) : ((uint64_t)x < (uint64_t)y) - ((uint64_t)x > (uint64_t)y);
  return desc ? (x > y) - (x < y) : (x < y) - (x > y);
}

Test(k_sort, random_known_against_reference) {
  Rng rng = {123};
  EType types[] = {ET_F32, ET_F64, ET_BF16, ET_F16, ET_S32, ET_S8, ET_U8, ET_U64, ET_S64, ET_PRED, ET_S4};
  for (int rep = 0; rep < 220; rep++) {
    EType t = types[rep % 11];
    int rank = (int)rng_int(&rng, 1, 3);
    int64_t d[3];
    for (int i = 0; i < rank; i++) d[i] = rng_int(&rng, 0, 6);
    int64_t dim = rng_int(&rng, 0, rank - 1);
    if (rep % 5 == 0) { rank = 1; d[0] = rng_int(&rng, 60, 700); dim = 0; }
    int64_t n = prod(rank, d);
    void *x = rand_array(&rng, t, n, true);
    int32_t *pay = malloc((size_t)(n + 1) * 4), *op = malloc((size_t)(n + 1) * 4);
    for (int64_t i = 0; i < n; i++) pay[i] = (int32_t)i;
    int es = etype_storage_bytes(t);
    void *o = malloc((size_t)(n + 1) * (size_t)es);
    bool desc = rng_next(&rng) & 1;
    KArray ops[] = {ka(t, rank, d, x), ka(ET_S32, rank, d, pay)}, outs[] = {ka(t, rank, d, o), ka(ET_S32, rank, d, op)};
    KComparator c = {desc ? K_CMP_GT : K_CMP_LT, 0, true, NULL, NULL};
    Error err;
    cr_assert(k_sort(2, ops, dim, &c, outs, &err), "%s", err.msg);
    /* Each sorted line: payload is a permutation of the line, keys ordered, ties by payload. */
    int64_t outer = 1, inner = 1, len = d[dim];
    for (int i = 0; i < dim; i++) outer *= d[i];
    for (int i = (int)dim + 1; i < rank; i++) inner *= d[i];
    for (int64_t a = 0; a < outer; a++)
      for (int64_t b = 0; b < inner; b++)
        for (int64_t i = 0; i < len; i++) {
          int64_t pos = (a * len + i) * inner + b;
          int64_t src = op[pos];
          cr_assert(memcmp((char *)o + pos * es, (char *)x + src * es, (size_t)es) == 0);
          cr_assert_eq((src / inner) % len == ((src / inner) % len), true);
          if (i > 0) {
            int64_t prev = op[pos - inner];
            int64_t c2 = cmp_key(t, x, prev, src, desc);
            cr_assert(c2 > 0 || (c2 == 0 && prev < src), "%s rep %d not ordered/stable", etype_name(t), rep);
          }
        }
    free(x); free(pay); free(op); free(o);
  }
}

/* Lexicographic comparator on (f64 key0 ascending, s32 key1 descending). */
static bool lex_fn(void *ctx, int nops, const void *const *a, const void *const *b, uint8_t *out, int64_t n, Error *err) {
  (void)ctx; (void)err;
  cr_assert_eq(nops, 3);
  const double *x = a[0], *y = b[0];
  const int32_t *p = a[1], *q = b[1];
  for (int64_t i = 0; i < n; i++) out[i] = x[i] < y[i] || (x[i] == y[i] && p[i] > q[i]);
  return true;
}

Test(k_sort, callback_lexicographic_stable) {
  Rng rng = {55};
  for (int rep = 0; rep < 60; rep++) {
    int64_t d[2] = {rng_int(&rng, 1, 4), rng_int(&rng, 0, 70)};
    int64_t n = d[0] * d[1];
    double *k0 = rand_array(&rng, ET_F64, n, false);
    int32_t *k1 = malloc((size_t)(n + 1) * 4), *pay = malloc((size_t)(n + 1) * 4);
    for (int64_t i = 0; i < n; i++) { k1[i] = (int32_t)rng_int(&rng, 0, 2); pay[i] = (int32_t)i; }
    double *o0 = malloc((size_t)(n + 1) * 8);
    int32_t *o1 = malloc((size_t)(n + 1) * 4), *o2 = malloc((size_t)(n + 1) * 4);
    KArray ops[] = {ka(ET_F64, 2, d, k0), ka(ET_S32, 2, d, k1), ka(ET_S32, 2, d, pay)};
    KArray outs[] = {ka(ET_F64, 2, d, o0), ka(ET_S32, 2, d, o1), ka(ET_S32, 2, d, o2)};
    KComparator c = {K_CMP_CALLBACK, 0, false, lex_fn, NULL};
    Error err;
    cr_assert(k_sort(3, ops, 1, &c, outs, &err), "%s", err.msg);
    for (int64_t r = 0; r < d[0]; r++)
      for (int64_t i = 0; i < d[1]; i++) {
        int64_t pos = r * d[1] + i, src = o2[pos];
        cr_assert(src / d[1] == r && o0[pos] == k0[src] && o1[pos] == k1[src]);
        if (i > 0) {
          int64_t prev = o2[pos - 1];
          bool before = k0[prev] < k0[src] || (k0[prev] == k0[src] && (k1[prev] > k1[src] || (k1[prev] == k1[src] && prev < src)));
          cr_assert(before, "rep %d row %lld pos %lld", rep, (long long)r, (long long)i);
        }
      }
    free(k0); free(k1); free(pay); free(o0); free(o1); free(o2);
  }
}

Test(k_sort, large_f32_single_row) {
  Rng rng = {9};
  int64_t n = 200000;
  float *x = rand_array(&rng, ET_F32, n, true), *o = malloc((size_t)n * 4);
  KArray X = ka(ET_F32, 1, &n, x), O = ka(ET_F32, 1, &n, o);
  KComparator c = {K_CMP_LT, 0, false, NULL, NULL};
  Error err;
  cr_assert(k_sort(1, &X, 0, &c, &O, &err));
  for (int64_t i = 1; i < n; i++) cr_assert(o[i - 1] <= o[i]);
  free(x); free(o);
}

Test(k_sort, errors_and_empty) {
  float x[4] = {0}, o[4];
  int64_t d[] = {4}, z[] = {0};
  KArray X = ka(ET_F32, 1, d, x), O = ka(ET_F32, 1, d, o), C = ka(ET_C64, 1, (int64_t[]){2}, x), OC = ka(ET_C64, 1, (int64_t[]){2}, o);
  KComparator c = {K_CMP_LT, 0, false, NULL, NULL}, bad = {K_CMP_LT, 3, false, NULL, NULL};
  Error err;
  cr_expect_not(k_sort(1, &X, 1, &c, &O, &err));
  cr_expect_not(k_sort(1, &X, 0, &bad, &O, &err));
  cr_expect_not(k_sort(1, &C, 0, &c, &OC, &err));
  KArray E = ka(ET_F32, 1, z, x), EO = ka(ET_F32, 1, z, o);
  cr_expect(k_sort(1, &E, 0, &c, &EO, &err));
}

Test(k_topk, largest_ties_by_lower_index_and_nan) {
  float x[] = {1, 5, 3, 5, NAN, 2, 7, 7, 0, -1}, v[6];
  int32_t ix[6];
  int64_t d[] = {2, 5}, od[] = {2, 3};
  KArray X = ka(ET_F32, 2, d, x), V = ka(ET_F32, 2, od, v), IX = ka(ET_S32, 2, od, ix);
  Error err;
  cr_assert(k_topk(&X, 3, true, &V, &IX, &err), "%s", err.msg);
  cr_expect(isnan(v[0]) && ix[0] == 4);
  cr_expect(v[1] == 5 && ix[1] == 1 && v[2] == 5 && ix[2] == 3);
  cr_expect(v[3] == 7 && ix[3] == 1 && v[4] == 7 && ix[4] == 2 && v[5] == 2 && ix[5] == 0);
  cr_assert(k_topk(&X, 3, false, &V, &IX, &err));
  cr_expect(v[0] == 1 && ix[0] == 0 && v[1] == 3 && ix[1] == 2 && v[2] == 5 && ix[2] == 1);
  int32_t ii[] = {4, -2, 9, -2}, iv[2];
  KArray II = ka(ET_S32, 1, (int64_t[]){4}, ii), IV = ka(ET_S32, 1, (int64_t[]){2}, iv), IIX = ka(ET_S32, 1, (int64_t[]){2}, ix);
  cr_assert(k_topk(&II, 2, true, &IV, &IIX, &err));
  cr_expect(iv[0] == 9 && ix[0] == 2 && iv[1] == 4 && ix[1] == 0);
  cr_expect_not(k_topk(&II, 5, true, &IV, &IIX, &err));
}
