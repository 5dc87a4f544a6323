#include <math.h>
#include <criterion/criterion.h>

#include "kernels/k_reduce.h"
#include "kernels/k_window.h"
#include "kernels/k_internal.h"
#include "ktest.h"

static const KReduceOp ADD1[] = {K_RED_ADD}, MAX1[] = {K_RED_MAX}, MIN1[] = {K_RED_MIN};

Test(k_reduce, seed_2x3) {
  float x[] = {1, 2, 3, 4, 5, 6}, o0[3], o1[2], zero = 0;
  int64_t d[] = {2, 3}, d0[] = {3}, d1[] = {2};
  KArray X = ka(ET_F32, 2, d, x), O0 = ka(ET_F32, 1, d0, o0), O1 = ka(ET_F32, 1, d1, o1);
  const void *init[] = {&zero};
  KReducer r = {ADD1, NULL, NULL};
  Error err;
  cr_assert(k_reduce(1, &X, init, 1, (int64_t[]){0}, &r, &O0, &err), "%s", err.msg);
  cr_expect(o0[0] == 5 && o0[1] == 7 && o0[2] == 9);
  cr_assert(k_reduce(1, &X, init, 1, (int64_t[]){1}, &r, &O1, &err));
  cr_expect(o1[0] == 6 && o1[1] == 15);
}

Test(k_reduce, seed_4x2x3) {
  int32_t x[24], zero = 0;
  for (int i = 0; i < 24; i++) x[i] = i % 6 + 1;
  int64_t d[] = {4, 2, 3};
  KArray X = ka(ET_S32, 3, d, x);
  const void *init[] = {&zero};
  KReducer r = {ADD1, NULL, NULL};
  Error err;
  int32_t a[6], b[8], c[3], all;
  KArray A = ka(ET_S32, 2, (int64_t[]){2, 3}, a), B = ka(ET_S32, 2, (int64_t[]){4, 2}, b);
  KArray C = ka(ET_S32, 1, (int64_t[]){3}, c), S = ka(ET_S32, 0, NULL, &all);
  cr_assert(k_reduce(1, &X, init, 1, (int64_t[]){0}, &r, &A, &err));
  int32_t wa[] = {4, 8, 12, 16, 20, 24};
  for (int i = 0; i < 6; i++) cr_expect_eq(a[i], wa[i]);
  cr_assert(k_reduce(1, &X, init, 1, (int64_t[]){2}, &r, &B, &err));
  for (int i = 0; i < 8; i++) cr_expect_eq(b[i], i % 2 ? 15 : 6);
  cr_assert(k_reduce(1, &X, init, 2, (int64_t[]){1, 0}, &r, &C, &err));
  cr_expect(c[0] == 20 && c[1] == 28 && c[2] == 36);
  cr_assert(k_reduce(1, &X, init, 3, (int64_t[]){0, 1, 2}, &r, &S, &err));
  cr_expect_eq(all, 84);
}

/* The seed's argmax reducer: (max, argmax, value, index) ->
 * value >= max ? (value, index) : (max, argmax). */
static bool argmax_fn(void *ctx, int nvals, void *const *acc, const void *const *vals, int64_t n, Error *err) {
  (void)ctx; (void)err;
  cr_assert_eq(nvals, 2);
  float *m = acc[0];
  int32_t *am = acc[1];
  const float *v = vals[0];
  const int32_t *vi = vals[1];
  for (int64_t j = 0; j < n; j++)
    if (v[j] >= m[j]) { m[j] = v[j]; am[j] = vi[j]; }
  return true;
}

Test(k_reduce, seed_argmax_variadic) {
  float v[] = {3, 9, 1, 9, 2, 0, 5, 5, 5, 4, 7, 7};
  int32_t k[12];
  for (int i = 0; i < 12; i++) k[i] = i % 6;
  int64_t d[] = {2, 6}, od[] = {2};
  KArray ops[] = {ka(ET_F32, 2, d, v), ka(ET_S32, 2, d, k)};
  float mx[2], minf = -INFINITY;
  int32_t am[2], zero = 0;
  KArray outs[] = {ka(ET_F32, 1, od, mx), ka(ET_S32, 1, od, am)};
  const void *init[] = {&minf, &zero};
  KReducer r = {NULL, argmax_fn, NULL};
  Error err;
  cr_assert(k_reduce(2, ops, init, 1, (int64_t[]){1}, &r, outs, &err), "%s", err.msg);
  /* Sequential application: ties go to the later index. */
  cr_expect(mx[0] == 9 && am[0] == 3);
  cr_expect(mx[1] == 7 && am[1] == 5);
}

/* 2x2 integer matrix product: associative, not commutative. */
static bool matmul_fn(void *ctx, int nvals, void *const *acc, const void *const *vals, int64_t n, Error *err) {
  (void)ctx; (void)err; (void)nvals;
  int32_t *a = acc[0], *b = acc[1], *c = acc[2], *d = acc[3];
  const int32_t *e = vals[0], *f = vals[1], *g = vals[2], *h = vals[3];
  for (int64_t j = 0; j < n; j++) {
    int32_t na = a[j] * e[j] + b[j] * g[j], nb = a[j] * f[j] + b[j] * h[j];
    int32_t nc = c[j] * e[j] + d[j] * g[j], nd = c[j] * f[j] + d[j] * h[j];
    a[j] = na; b[j] = nb; c[j] = nc; d[j] = nd;
  }
  return true;
}

Test(k_reduce, callback_preserves_order) {
  Rng rng = {7};
  for (int64_t R = 0; R <= 37; R++) {
    int64_t d[] = {3, R}, od[] = {3};
    int32_t *m[4];
    for (int i = 0; i < 4; i++) { m[i] = malloc((size_t)(3 * R + 1) * 4); for (int64_t j = 0; j < 3 * R; j++) m[i][j] = (int32_t)rng_int(&rng, -1, 1); }
    KArray ops[4], outs[4];
    int32_t res[4][3], one = 1, zero = 0;
    const void *init[] = {&one, &zero, &zero, &one};
    for (int i = 0; i < 4; i++) { ops[i] = ka(ET_S32, 2, d, m[i]); outs[i] = ka(ET_S32, 1, od, res[i]); }
    KReducer r = {NULL, matmul_fn, NULL};
    Error err;
    cr_assert(k_reduce(4, ops, init, 1, (int64_t[]){1}, &r, outs, &err));
    for (int row = 0; row < 3; row++) {
      int32_t a = 1, b = 0, c = 0, dd = 1;
      for (int64_t j = 0; j < R; j++) {
        int32_t e = m[0][row * R + j], f = m[1][row * R + j], g = m[2][row * R + j], h = m[3][row * R + j];
        int32_t na = a * e + b * g, nb = a * f + b * h, nc = c * e + dd * g, nd = c * f + dd * h;
        a = na; b = nb; c = nc; dd = nd;
      }
      cr_assert(res[0][row] == a && res[1][row] == b && res[2][row] == c && res[3][row] == dd, "R=%lld", (long long)R);
    }
    for (int i = 0; i < 4; i++) free(m[i]);
  }
}

/* Naive reduce: double (floats) or wrapping int64 sequential accumulation. */
static void ref_reduce(KReduceOp op, EType t, const void *x, int rank, const int64_t *d, const bool *red,
                       double init, int64_t iinit, void *out) {
  int64_t n = prod(rank, d), od[8], nod = 0;
  for (int i = 0; i < rank; i++) if (!red[i]) od[nod++] = d[i];
  int64_t nout = prod((int)nod, od);
  bool flt = etype_is_float(t);
  double *acc = malloc((size_t)(nout + 1) * 8);
  int64_t *iacc = malloc((size_t)(nout + 1) * 8);
  for (int64_t o = 0; o < nout; o++) { acc[o] = init; iacc[o] = iinit; }
  for (int64_t i = 0; i < n; i++) {
    int64_t t2 = i, o = 0, mul = 1;
    for (int k = rank - 1; k >= 0; k--) {
      int64_t c = t2 % d[k];
      t2 /= d[k];
      if (!red[k]) { o += c * mul; mul *= d[k]; }
    }
    if (flt) {
      double v = get_f(t, x, i);
      switch (op) {
      case K_RED_ADD: acc[o] += v; break;
      case K_RED_MUL: acc[o] *= v; break;
      case K_RED_MAX: acc[o] = isnan(acc[o]) || isnan(v) ? NAN : fmax(acc[o], v); break;
      default: acc[o] = isnan(acc[o]) || isnan(v) ? NAN : fmin(acc[o], v); break;
      }
    } else {
      int64_t v = get_i(t, x, i);
      switch (op) {
      case K_RED_ADD: iacc[o] = (int64_t)((uint64_t)iacc[o] + (uint64_t)v); break;
      case K_RED_MUL: iacc[o] = (int64_t)((uint64_t)iacc[o] * (uint64_t)v); break;
      case K_RED_MAX: if (etype_kind(t) == EK_UINT ? (uint64_t)v > (uint64_t)iacc[o] : v > iacc[o]) iacc[o] = v; break;
      case K_RED_MIN: if (etype_kind(t) == EK_UINT ? (uint64_t)v < (uint64_t)iacc[o] : v < iacc[o]) iacc[o] = v; break;
      case K_RED_AND: iacc[o] &= v; break;
      case K_RED_OR: iacc[o] |= v; break;
      default: iacc[o] ^= v; break;
      }
    }
  }
  for (int64_t o = 0; o < nout; o++) {
    if (flt) set_f(t, out, o, acc[o]);
    else set_i(t, out, o, iacc[o]);
  }
  free(acc);
  free(iacc);
}

Test(k_reduce, random_known_ops_all_types) {
  Rng rng = {42};
  EType types[] = {ET_F32, ET_F64, ET_BF16, ET_F16, ET_F8E4M3FN, ET_S8, ET_S16, ET_S32, ET_S64, ET_U8,
                   ET_U16, ET_U32, ET_U64, ET_S4, ET_U4, ET_PRED};
  KReduceOp opsl[] = {K_RED_ADD, K_RED_MUL, K_RED_MAX, K_RED_MIN, K_RED_AND, K_RED_OR, K_RED_XOR};
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
    for (size_t oi = 0; oi < 7; oi++) {
      EType t = types[ti];
      KReduceOp op = opsl[oi];
      bool flt = etype_is_float(t);
      if (flt && op >= K_RED_AND) continue;
      for (int rep = 0; rep < 12; rep++) {
        int rank = (int)rng_int(&rng, 0, 4);
        int64_t d[4], od[4];
        bool red[4];
        int nd = 0, nod = 0;
        int64_t rd[4];
        for (int i = 0; i < rank; i++) {
          d[i] = rng_int(&rng, 0, 4) == 0 ? rng_int(&rng, 0, 1) : rng_int(&rng, 1, 40);
          red[i] = rng_next(&rng) & 1;
          if (red[i]) rd[nd++] = i; else od[nod++] = d[i];
        }
        if (rep == 0 && rank > 0) { d[rank - 1] = 300; } /* long rows */
        if (rank > 0 && red[rank - 1] == false && rep == 0) { red[rank - 1] = true; rd[nd++] = rank - 1; nod--; }
        nod = 0;
        for (int i = 0; i < rank; i++) if (!red[i]) od[nod++] = d[i];
        int64_t n = prod(rank, d);
        if (n > 100000) continue;
        /* Small values keep MUL exact-ish and floats exact. */
        void *x = rand_array(&rng, t, n, !flt && op != K_RED_MUL);
        if (flt && op == K_RED_MUL)
          for (int64_t i = 0; i < n; i++) set_f(t, x, i, rng_int(&rng, 0, 1) ? 1.0 : -1.0);
        int64_t nout = prod(nod, od);
        int es = etype_storage_bytes(t);
        void *want = calloc((size_t)nout + 1, (size_t)es), *got = calloc((size_t)nout + 1, (size_t)es);
        double initd = op == K_RED_MUL || op == K_RED_AND ? 1 : op == K_RED_MAX ? (flt ? -INFINITY : 0) : op == K_RED_MIN ? (flt ? INFINITY : 0) : 0;
        if (!flt && op == K_RED_AND) initd = -1;
        if (t == ET_PRED && op == K_RED_AND) initd = 1;
        char init[16] = {0};
        if (flt) set_f(t, init, 0, initd); else set_i(t, init, 0, (int64_t)initd);
        if (!flt && op == K_RED_MAX) set_i(t, init, 0, etype_kind(t) == EK_SINT ? get_i(t, x, 0) : 0);
        if (!flt && op == K_RED_MIN) set_i(t, init, 0, n ? get_i(t, x, 0) : 0);
        double init_back = flt ? get_f(t, init, 0) : (double)get_i(t, init, 0);
        bool redx[4];
        memcpy(redx, red, sizeof red);
        ref_reduce(op, t, x, rank, d, redx, init_back, flt ? 0 : get_i(t, init, 0), want);
        KArray X = ka(t, rank, d, x), O = ka(t, (int)nod, od, got);
        const void *inits[] = {init};
        KReducer r = {(KReduceOp[]){op}, NULL, NULL};
        Error err;
        cr_assert(k_reduce(1, &X, inits, nd, rd, &r, &O, &err), "%s %s: %s", etype_name(t), k_reduce_op_name(op), err.msg);
        for (int64_t i = 0; i < nout; i++) {
          if (flt) cr_assert(close_enough(get_f(t, got, i), get_f(t, want, i), 1e-5, 1e-5), "%s %s [%lld] %g vs %g",
                             etype_name(t), k_reduce_op_name(op), (long long)i, get_f(t, got, i), get_f(t, want, i));
          else cr_assert_eq(get_i(t, got, i), get_i(t, want, i), "%s %s [%lld]", etype_name(t), k_reduce_op_name(op), (long long)i);
        }
        free(x); free(want); free(got);
      }
    }
}

Test(k_reduce, float_max_min_nan_and_signed_zero) {
  float x[] = {1, NAN, 3, -0.0f, 0.0f, -0.0f}, o[2], ninf = -INFINITY, pinf = INFINITY;
  int64_t d[] = {2, 3}, od[] = {2};
  KArray X = ka(ET_F32, 2, d, x), O = ka(ET_F32, 1, od, o);
  KReducer r = {MAX1, NULL, NULL};
  Error err;
  cr_assert(k_reduce(1, &X, (const void *[]){&ninf}, 1, (int64_t[]){1}, &r, &O, &err));
  cr_expect(isnan(o[0]));
  cr_expect(o[1] == 0 && !signbit(o[1]));
  KReducer rm = {MIN1, NULL, NULL};
  cr_assert(k_reduce(1, &X, (const void *[]){&pinf}, 1, (int64_t[]){1}, &rm, &O, &err));
  cr_expect(isnan(o[0]));
  cr_expect(o[1] == 0 && signbit(o[1]));
}

Test(k_reduce, empty_and_rank0) {
  float x[1] = {5}, o[3] = {9, 9, 9}, init = 2.5f;
  int64_t d[] = {3, 0}, od[] = {3};
  KArray X = ka(ET_F32, 2, d, x), O = ka(ET_F32, 1, od, o);
  KReducer r = {ADD1, NULL, NULL};
  Error err;
  cr_assert(k_reduce(1, &X, (const void *[]){&init}, 1, (int64_t[]){1}, &r, &O, &err));
  for (int i = 0; i < 3; i++) cr_expect_eq(o[i], 2.5f);
  float s;
  KArray X0 = ka(ET_F32, 0, NULL, x), S = ka(ET_F32, 0, NULL, &s);
  cr_assert(k_reduce(1, &X0, (const void *[]){&init}, 0, NULL, &r, &S, &err));
  cr_expect_eq(s, 7.5f);
  KArray O0 = ka(ET_F32, 1, (int64_t[]){0}, o), X1 = ka(ET_F32, 2, (int64_t[]){0, 4}, x);
  cr_assert(k_reduce(1, &X1, (const void *[]){&init}, 1, (int64_t[]){1}, &r, &O0, &err));
}

Test(k_reduce, f32_sum_rows_and_columns_match_double) {
  Rng rng = {5};
  int64_t R = 257, C = 1031;
  float *x = rand_array(&rng, ET_F32, R * C, true), zero = 0, *rows = malloc((size_t)R * 4), *cols = malloc((size_t)C * 4);
  int64_t d[] = {R, C};
  KArray X = ka(ET_F32, 2, d, x), OR = ka(ET_F32, 1, (int64_t[]){R}, rows), OC = ka(ET_F32, 1, (int64_t[]){C}, cols);
  KReducer r = {ADD1, NULL, NULL};
  Error err;
  cr_assert(k_reduce(1, &X, (const void *[]){&zero}, 1, (int64_t[]){1}, &r, &OR, &err));
  cr_assert(k_reduce(1, &X, (const void *[]){&zero}, 1, (int64_t[]){0}, &r, &OC, &err));
  for (int64_t i = 0; i < R; i++) {
    double s = 0;
    for (int64_t j = 0; j < C; j++) s += x[i * C + j];
    cr_assert(close_enough(rows[i], s, 1e-4, 1e-4));
  }
  for (int64_t j = 0; j < C; j++) {
    float s = 0; /* columns: sequential in f32, bit-exact */
    for (int64_t i = 0; i < R; i++) s += x[i * C + j];
    cr_assert_eq(cols[j], s);
  }
  free(x); free(rows); free(cols);
}

Test(k_reduce, errors) {
  float x[6] = {0}, o[3], init = 0;
  int64_t d[] = {2, 3}, od[] = {3};
  KArray X = ka(ET_F32, 2, d, x), O = ka(ET_F32, 1, od, o);
  KReducer rx = {(KReduceOp[]){K_RED_XOR}, NULL, NULL}, ra = {ADD1, NULL, NULL};
  Error err;
  cr_expect_not(k_reduce(1, &X, (const void *[]){&init}, 1, (int64_t[]){0}, &rx, &O, &err));
  cr_expect_not(k_reduce(1, &X, (const void *[]){&init}, 1, (int64_t[]){2}, &ra, &O, &err));
  cr_expect_not(k_reduce(1, &X, (const void *[]){&init}, 1, (int64_t[]){1}, &ra, &O, &err));
  cr_expect_not(k_reduce(1, &X, (const void *[]){&init}, 2, (int64_t[]){0, 0}, &ra, &O, &err));
  float cx[12] = {0}, co[6], cinit[2] = {0, 0};
  KArray C = ka(ET_C64, 2, d, cx), OCx = ka(ET_C64, 1, od, co);
  cr_expect_not(k_reduce(1, &C, (const void *[]){cinit}, 1, (int64_t[]){0}, &rx, &OCx, &err));
}

/* Complex maximum/minimum: StableHLO's lexicographic order on (re, im);
 * a NaN part wins. */
Test(k_reduce, complex_max_min_lexicographic) {
  float x[] = {1, 2, 4, -1, 4, -3, /* row 1 */ 0, 9, NAN, 0, 2, 2};
  float o[4], init[2] = {-100, 0};
  int64_t d[] = {2, 3}, od[] = {2};
  KArray X = ka(ET_C64, 2, d, x), O = ka(ET_C64, 1, od, o);
  KReducer rmax = {MAX1, NULL, NULL};
  Error err;
  cr_assert(k_reduce(1, &X, (const void *[]){init}, 1, (int64_t[]){1}, &rmax, &O, &err), "%s",
            err.msg);
  cr_expect(o[0] == 4 && o[1] == -1, "row 0: (%g, %g)", o[0], o[1]);
  cr_expect(isnan(o[2]) && o[3] == 0, "row 1: (%g, %g)", o[2], o[3]);
  KReducer rmin = {(KReduceOp[]){K_RED_MIN}, NULL, NULL};
  float big[2] = {100, 0};
  x[6 + 2] = 7; /* row 1 without NaN: (0,9), (7,0), (2,2) */
  cr_assert(k_reduce(1, &X, (const void *[]){big}, 1, (int64_t[]){1}, &rmin, &O, &err), "%s",
            err.msg);
  cr_expect(o[0] == 1 && o[1] == 2, "row 0: (%g, %g)", o[0], o[1]);
  cr_expect(o[2] == 0 && o[3] == 9, "row 1: (%g, %g)", o[2], o[3]);
}

/* ----------------------------------------------------------- reduce-window */

Test(k_reduce_window, seed_min_valid_and_same) {
  float x[] = {10000, 1000, 100, 10, 1}, fmaxv = 3.4028235e38f;
  int64_t d[] = {5};
  KArray X = ka(ET_F32, 1, d, x);
  KReducer r = {MIN1, NULL, NULL};
  Error err;
  float v[2], s[3];
  KArray V = ka(ET_F32, 1, (int64_t[]){2}, v), S = ka(ET_F32, 1, (int64_t[]){3}, s);
  KWindow wv = {1, (int64_t[]){3}, (int64_t[]){2}, NULL, NULL, NULL, NULL, NULL};
  cr_assert(k_reduce_window(1, &X, (const void *[]){&fmaxv}, &wv, &r, &V, &err), "%s", err.msg);
  cr_expect(v[0] == 100 && v[1] == 1);
  KWindow ws = {1, (int64_t[]){3}, (int64_t[]){2}, (int64_t[]){1}, (int64_t[]){1}, NULL, NULL, NULL};
  cr_assert(k_reduce_window(1, &X, (const void *[]){&fmaxv}, &ws, &r, &S, &err), "%s", err.msg);
  cr_expect(s[0] == 1000 && s[1] == 10 && s[2] == 1);
}

Test(k_reduce_window, seed_max_4x6_2x3) {
  float x[24], ninf = -INFINITY, o[4];
  for (int i = 0; i < 24; i++) x[i] = (float)((i * 7) % 24);
  int64_t d[] = {4, 6};
  KArray X = ka(ET_F32, 2, d, x), O = ka(ET_F32, 2, (int64_t[]){2, 2}, o);
  KReducer r = {MAX1, NULL, NULL};
  KWindow w = {2, (int64_t[]){2, 3}, (int64_t[]){2, 3}, NULL, NULL, NULL, NULL, NULL};
  Error err;
  cr_assert(k_reduce_window(1, &X, (const void *[]){&ninf}, &w, &r, &O, &err));
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++) {
      float m = -INFINITY;
      for (int i = 0; i < 2; i++) for (int j = 0; j < 3; j++) m = fmaxf(m, x[(2 * a + i) * 6 + 3 * b + j]);
      cr_expect_eq(o[a * 2 + b], m);
    }
}

/* Naive reduce-window over doubles / int64. */
static void ref_rw(KReduceOp op, EType t, const void *x, int rank, const int64_t *d, const KWindow *w,
                   const int64_t *od, double init, void *out) {
  int64_t nout = prod(rank, od), nw = prod(rank, w->size);
  for (int64_t o = 0; o < nout; o++) {
    int64_t oi[4], t2 = o;
    for (int k = rank - 1; k >= 0; k--) { oi[k] = t2 % od[k]; t2 /= od[k]; }
    double acc = init;
    int64_t iacc = (int64_t)init;
    for (int64_t wi = 0; wi < nw; wi++) {
      int64_t ki[4], t3 = wi, flat = 0;
      bool ok = true;
      for (int k = rank - 1; k >= 0; k--) { ki[k] = t3 % w->size[k]; t3 /= w->size[k]; }
      for (int k = 0; k < rank; k++) {
        int64_t pos = oi[k] * w->stride[k] + ki[k] * w->window_dilation[k] - w->pad_lo[k];
        if (pos < 0 || pos % w->base_dilation[k] || pos / w->base_dilation[k] >= d[k]) { ok = false; break; }
        flat = flat * d[k] + pos / w->base_dilation[k];
      }
      if (!ok) continue;
      if (etype_is_float(t)) {
        double v = get_f(t, x, flat);
        acc = op == K_RED_ADD ? acc + v : op == K_RED_MAX ? fmax(acc, v) : fmin(acc, v);
      } else {
        int64_t v = get_i(t, x, flat);
        iacc = op == K_RED_ADD ? (int64_t)((uint64_t)iacc + (uint64_t)v) : op == K_RED_MAX ? (v > iacc ? v : iacc) : (v < iacc ? v : iacc);
      }
    }
    if (etype_is_float(t)) set_f(t, out, o, acc); else set_i(t, out, o, iacc);
  }
}

static bool add_f32_fn(void *ctx, int nvals, void *const *acc, const void *const *vals, int64_t n, Error *err) {
  (void)ctx; (void)nvals; (void)err;
  float *a = acc[0];
  const float *v = vals[0];
  for (int64_t j = 0; j < n; j++) a[j] += v[j];
  return true;
}

Test(k_reduce_window, random_against_reference) {
  Rng rng = {11};
  EType types[] = {ET_F32, ET_F64, ET_BF16, ET_S32, ET_S8, ET_U16, ET_S64};
  KReduceOp opsl[] = {K_RED_ADD, K_RED_MAX, K_RED_MIN};
  for (int rep = 0; rep < 300; rep++) {
    EType t = types[rep % 7];
    KReduceOp op = opsl[(rep / 7) % 3];
    int rank = (int)rng_int(&rng, 1, 3);
    int64_t d[4], sz[4], st[4], lo[4], hi[4], bd[4], wd[4], od[4];
    for (int k = 0; k < rank; k++) {
      d[k] = rng_int(&rng, 0, 7); sz[k] = rng_int(&rng, 1, 3); st[k] = rng_int(&rng, 1, 3);
      lo[k] = rng_int(&rng, -1, 2); hi[k] = rng_int(&rng, -1, 2); bd[k] = rng_int(&rng, 1, 2); wd[k] = rng_int(&rng, 1, 2);
    }
    KWindow w = {rank, sz, st, lo, hi, bd, wd, NULL};
    Error err;
    for (int k = 0; k < rank; k++) cr_assert(k_window_out_size(d[k], sz[k], st[k], lo[k], hi[k], bd[k], wd[k], &od[k], &err));
    int64_t n = prod(rank, d), nout = prod(rank, od);
    void *x = rand_array(&rng, t, n, false);
    int es = etype_storage_bytes(t);
    void *want = calloc((size_t)nout + 1, (size_t)es), *got = calloc((size_t)nout + 1, (size_t)es);
    double initd = op == K_RED_ADD ? 0 : op == K_RED_MAX ? (etype_kind(t) == EK_UINT ? 0 : -100) : 100;
    char init[16];
    if (etype_is_float(t)) set_f(t, init, 0, initd); else set_i(t, init, 0, (int64_t)initd);
    ref_rw(op, t, x, rank, d, &w, od, initd, want);
    KArray X = ka(t, rank, d, x), O = ka(t, rank, od, got);
    KReducer r = {(KReduceOp[]){op}, NULL, NULL};
    cr_assert(k_reduce_window(1, &X, (const void *[]){init}, &w, &r, &O, &err), "%s", err.msg);
    for (int64_t i = 0; i < nout; i++) {
      if (etype_is_float(t)) cr_assert_eq(get_f(t, got, i), get_f(t, want, i), "rep %d", rep);
      else cr_assert_eq(get_i(t, got, i), get_i(t, want, i), "rep %d", rep);
    }
    if (t == ET_F32 && op == K_RED_ADD) { /* the callback path agrees */
      void *got2 = calloc((size_t)nout + 1, 4);
      KArray O2 = ka(t, rank, od, got2);
      KReducer rc = {NULL, add_f32_fn, NULL};
      cr_assert(k_reduce_window(1, &X, (const void *[]){init}, &w, &rc, &O2, &err));
      cr_assert(memcmp(got, got2, (size_t)nout * 4) == 0);
      free(got2);
    }
    free(x); free(want); free(got);
  }
}

Test(k_reduce_window, variadic_argmax_callback) {
  float v[] = {1, 5, 2, 5, 0, 3};
  int32_t k[] = {0, 1, 2, 3, 4, 5};
  int64_t d[] = {6}, od[] = {2};
  KArray ops[] = {ka(ET_F32, 1, d, v), ka(ET_S32, 1, d, k)};
  float mx[2], minf = -INFINITY;
  int32_t am[2], zero = -1;
  KArray outs[] = {ka(ET_F32, 1, od, mx), ka(ET_S32, 1, od, am)};
  KWindow w = {1, (int64_t[]){4}, (int64_t[]){2}, NULL, NULL, NULL, NULL, NULL};
  KReducer r = {NULL, argmax_fn, NULL};
  Error err;
  cr_assert(k_reduce_window(2, ops, (const void *[]){&minf, &zero}, &w, &r, outs, &err), "%s", err.msg);
  cr_expect(mx[0] == 5 && am[0] == 3); /* window [1,5,2,5]: last max under >= */
  cr_expect(mx[1] == 5 && am[1] == 3); /* window [2,5,0,3] */
}

/* ----------------------------------------------------- select-and-scatter */

Test(k_select_and_scatter, overlapping_windows_add) {
  /* Both windows [1,9,3] and [9,3,2] select 9: scatter-add gives 2 + 6. */
  float x[] = {1, 9, 3, 2}, src[] = {2, 6}, o[4], zero = 0;
  KArray X = ka(ET_F32, 1, (int64_t[]){4}, x), S = ka(ET_F32, 1, (int64_t[]){2}, src), O = ka(ET_F32, 1, (int64_t[]){4}, o);
  KSelect sel = {K_SEL_GE, NULL, NULL};
  KReducer sc = {ADD1, NULL, NULL};
  KWindow w = {1, (int64_t[]){3}, (int64_t[]){1}, NULL, NULL, NULL, NULL, NULL};
  Error err;
  cr_assert(k_select_and_scatter(&X, &sel, &S, &zero, &w, &sc, &O, &err), "%s", err.msg);
  cr_expect(o[0] == 0 && o[1] == 8 && o[2] == 0 && o[3] == 0);
}

Test(k_select_and_scatter, seed_2d_nonoverlapping_max) {
  /* 4x6 operand, 2x3 windows, stride 2x3 (the seed's first figure shape). */
  int32_t x[24] = {7, 2, 5, 3, 10, 2, 3, 8, 9, 3, 4, 2, 1, 5, 7, 5, 6, 3, 2, 6, 8, 1, 3, 11};
  int32_t src[4] = {2, 6, 3, 1}, o[24], zero = 0;
  KArray X = ka(ET_S32, 2, (int64_t[]){4, 6}, x), S = ka(ET_S32, 2, (int64_t[]){2, 2}, src), O = ka(ET_S32, 2, (int64_t[]){4, 6}, o);
  KSelect sel = {K_SEL_GE, NULL, NULL};
  KReducer sc = {ADD1, NULL, NULL};
  KWindow w = {2, (int64_t[]){2, 3}, (int64_t[]){2, 3}, NULL, NULL, NULL, NULL, NULL};
  Error err;
  cr_assert(k_select_and_scatter(&X, &sel, &S, &zero, &w, &sc, &O, &err), "%s", err.msg);
  int32_t want[24] = {0};
  want[1 * 6 + 2] = 2;  /* 9 */
  want[0 * 6 + 4] = 6;  /* 10 */
  want[3 * 6 + 2] = 3;  /* 8 */
  want[3 * 6 + 5] = 1;  /* 11 */
  for (int i = 0; i < 24; i++) cr_expect_eq(o[i], want[i], "elem %d", i);
}

static bool sel_ge_cb(void *ctx, const void *a, const void *b, uint8_t *out, int64_t n, Error *err) {
  (void)ctx; (void)err;
  const double *x = a, *y = b;
  for (int64_t i = 0; i < n; i++) out[i] = x[i] >= y[i];
  return true;
}

Test(k_select_and_scatter, random_with_padding_against_reference) {
  Rng rng = {3};
  for (int rep = 0; rep < 200; rep++) {
    int rank = (int)rng_int(&rng, 1, 2);
    int64_t d[2], sz[2], st[2], lo[2], hi[2], od[2];
    for (int k = 0; k < rank; k++) {
      d[k] = rng_int(&rng, 1, 7); sz[k] = rng_int(&rng, 1, 3); st[k] = rng_int(&rng, 1, 3);
      lo[k] = rng_int(&rng, 0, 1); hi[k] = rng_int(&rng, 0, 1);
    }
    KWindow w = {rank, sz, st, lo, hi, NULL, NULL, NULL};
    Error err;
    for (int k = 0; k < rank; k++) cr_assert(k_window_out_size(d[k], sz[k], st[k], lo[k], hi[k], 1, 1, &od[k], &err));
    int64_t n = prod(rank, d), ns = prod(rank, od);
    double *x = rand_array(&rng, ET_F64, n, false), *src = rand_array(&rng, ET_F64, ns, false);
    double *want = calloc((size_t)n, 8), *got = calloc((size_t)n, 8), *got2 = calloc((size_t)n, 8), init = 0.5;
    for (int64_t i = 0; i < n; i++) want[i] = init;
    for (int64_t p = 0; p < ns; p++) {
      int64_t oi[2], t = p;
      for (int k = rank - 1; k >= 0; k--) { oi[k] = t % od[k]; t /= od[k]; }
      int64_t best = -1;
      for (int64_t wi = 0; wi < prod(rank, sz); wi++) {
        int64_t ki[2], t3 = wi, flat = 0;
        bool ok = true;
        for (int k = rank - 1; k >= 0; k--) { ki[k] = t3 % sz[k]; t3 /= sz[k]; }
        for (int k = 0; k < rank; k++) {
          int64_t pos = oi[k] * st[k] + ki[k] - lo[k];
          if (pos < 0 || pos >= d[k]) { ok = false; break; }
          flat = flat * d[k] + pos;
        }
        if (!ok) continue;
        if (best < 0 || !(x[best] >= x[flat])) best = flat;
      }
      if (best >= 0) want[best] += src[p];
    }
    KArray X = ka(ET_F64, rank, d, x), S = ka(ET_F64, rank, od, src), O = ka(ET_F64, rank, d, got), O2 = ka(ET_F64, rank, d, got2);
    KSelect sel = {K_SEL_GE, NULL, NULL}, selcb = {K_SEL_NONE, sel_ge_cb, NULL};
    KReducer sc = {ADD1, NULL, NULL};
    cr_assert(k_select_and_scatter(&X, &sel, &S, &init, &w, &sc, &O, &err), "%s", err.msg);
    cr_assert(k_select_and_scatter(&X, &selcb, &S, &init, &w, &sc, &O2, &err), "%s", err.msg);
    for (int64_t i = 0; i < n; i++) { cr_assert_eq(got[i], want[i]); cr_assert_eq(got2[i], want[i]); }
    free(x); free(src); free(want); free(got); free(got2);
  }
}

/* The vectorised f32 row max/min (integer keys) against a sequential XLA
 * maximum/minimum: every row length 0..300, -0/+0 mixes, infinities, NaN
 * placed anywhere (then the payload of the NaN the generic path picks). */
Test(k_reduce, f32_row_max_min_keys_match_sequential) {
  Rng rng = {7};
  for (int len = 0; len <= 300; len++)
    for (int kind = 0; kind < 4; kind++) {
      float x[300], o, init = kind == 3 ? 0.0f : -INFINITY;
      for (int i = 0; i < len; i++) {
        int c = (int)rng_int(&rng, 0, 9);
        x[i] = c == 0 ? -0.0f : c == 1 ? 0.0f : c == 2 && kind >= 1 ? -INFINITY
             : c == 3 && kind >= 1 ? INFINITY : (float)(rng_unit(&rng) * 200 - 100);
        if (kind == 2) x[i] = -0.0f + (c < 5 ? 0.0f : -0.0f);
      }
      if (kind == 1 && len > 0) {
        uint32_t nanbits = 0x7fc00000u | (uint32_t)len;
        memcpy(&x[rng_int(&rng, 0, len - 1)], &nanbits, 4);
      }
      int64_t d[] = {1, len}, od[] = {1};
      KArray X = ka(ET_F32, 2, d, x), O = ka(ET_F32, 1, od, &o);
      for (int mx = 0; mx < 2; mx++) {
        float want = mx ? init : (kind == 3 ? 0.0f : INFINITY);
        for (int i = 0; i < len; i++) want = mx ? kmax_f32(want, x[i]) : kmin_f32(want, x[i]);
        KReducer r = {(KReduceOp[]){mx ? K_RED_MAX : K_RED_MIN}, NULL, NULL};
        Error err;
        float in0 = mx ? init : (kind == 3 ? 0.0f : INFINITY);
        cr_assert(k_reduce(1, &X, (const void *[]){&in0}, 1, (int64_t[]){1}, &r, &O, &err));
        uint32_t a, b;
        memcpy(&a, &o, 4);
        memcpy(&b, &want, 4);
        cr_assert_eq(a, b, "len %d kind %d %s: %a vs %a", len, kind, mx ? "max" : "min", (double)o,
                     (double)want);
      }
    }
}

/* Reductions long enough to be cut into blocks (more than 16384 elements per
 * output, kernels/k_reduce.h): a full reduction, a few long rows, per-feature
 * sums over a long batch, reduced runs with a kept one between them.  Small
 * integer data make every float partial sum exact, so any order gives the
 * exact value, which the naive reference computes in double / int64; the
 * narrow types round that value once.  Checks each block's identity start
 * and the combination (ints wrap, max/min/and/or/xor exact). */
Test(k_reduce, long_reductions_exact_in_every_shape) {
  static const struct { int rank; int64_t d[4]; int nr; int64_t r[3]; } shapes[] = {
      {1, {35001}, 1, {0}},          {2, {3, 20000}, 1, {1}},     {2, {20000, 5}, 1, {0}},
      {3, {90, 7, 200}, 2, {0, 2}},  {4, {2, 42, 3, 400}, 2, {1, 3}}, {2, {130, 260}, 2, {0, 1}},
  };
  static const EType types[] = {ET_F32, ET_F64, ET_BF16, ET_F16, ET_S32, ET_S8, ET_U16, ET_S64, ET_U8,
                                ET_U32, ET_PRED};
  Rng rng = {99};
  for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++)
    for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
      for (KReduceOp op = K_RED_ADD; op <= K_RED_XOR; op++) {
        EType t = types[ti];
        bool flt = etype_is_float(t);
        if (flt && op > K_RED_MIN) continue;
        int rank = shapes[si].rank;
        const int64_t *d = shapes[si].d;
        bool red[4] = {false};
        int64_t od[4];
        int nod = 0;
        for (int k = 0; k < shapes[si].nr; k++) red[shapes[si].r[k]] = true;
        for (int i = 0; i < rank; i++) if (!red[i]) od[nod++] = d[i];
        int64_t n = prod(rank, d), nout = prod(nod, od);
        void *x = rand_array(&rng, t, n, !flt);
        if (flt && op != K_RED_ADD) /* +-1: exact products; 1..4 with a few -3s for max/min */
          for (int64_t i = 0; i < n; i++)
            set_f(t, x, i, op == K_RED_MUL ? (rng_int(&rng, 0, 1) ? 1.0 : -1.0) : (double)rng_int(&rng, -3, 4));
        if (flt && op == K_RED_ADD && t == ET_F16) /* |sums| stay far below f16's 65504 */
          for (int64_t i = 0; i < n; i++) set_f(t, x, i, (double)rng_int(&rng, -1, 1));
        int es = etype_storage_bytes(t);
        char init[16] = {0};
        double initd = op == K_RED_MUL ? 1 : op == K_RED_MAX ? -INFINITY : op == K_RED_MIN ? INFINITY : 0;
        int64_t initi = op == K_RED_MUL || (op == K_RED_AND && t == ET_PRED) ? 1 : op == K_RED_AND ? -1 : 0;
        if (!flt && op == K_RED_MAX) initi = etype_kind(t) == EK_SINT ? get_i(t, x, 0) : 0;
        if (!flt && op == K_RED_MIN) initi = get_i(t, x, 0);
        if (flt) set_f(t, init, 0, initd); else set_i(t, init, 0, initi);
        void *want = calloc((size_t)nout, (size_t)es), *got = calloc((size_t)nout, (size_t)es);
        ref_reduce(op, t, x, rank, d, red, initd, initi, want);
        KArray X = ka(t, rank, d, x), O = ka(t, nod, od, got);
        KReducer r = {(KReduceOp[]){op}, NULL, NULL};
        Error err;
        cr_assert(k_reduce(1, &X, (const void *[]){init}, shapes[si].nr, shapes[si].r, &r, &O, &err),
                  "%s: %s", etype_name(t), err.msg);
        cr_assert(memcmp(got, want, (size_t)(nout * es)) == 0, "shape %zu %s %s: first output %g, want %g", si,
                  etype_name(t), k_reduce_op_name(op), get_f(t, got, 0), get_f(t, want, 0));
        free(x); free(want); free(got);
      }
}

/* Where the blocks are more accurate than the serial order, by hand: the
 * init value 2^24 plus 20000 ones summed over the major dimension.  In the
 * serial order every 2^24 + 1 rounds back to 2^24 (ties to even), giving
 * 2^24; in blocks of 16384 the ones sum exactly to 16384 and 3616 first,
 * and 2^24 + 16384 + 3616 = 16797216 is exact in f32.  A NaN in the last
 * block still wins a max. */
Test(k_reduce, blocked_sum_beats_serial_rounding) {
  int64_t d[] = {20000, 2}, od[] = {2};
  float *x = malloc(20000 * 2 * sizeof *x), o[2], init = 16777216.0f;
  for (int i = 0; i < 40000; i++) x[i] = 1.0f;
  KArray X = ka(ET_F32, 2, d, x), O = ka(ET_F32, 1, od, o);
  KReducer r = {ADD1, NULL, NULL};
  Error err;
  cr_assert(k_reduce(1, &X, (const void *[]){&init}, 1, (int64_t[]){0}, &r, &O, &err));
  cr_expect(o[0] == 16797216.0f && o[1] == 16797216.0f, "%.1f %.1f", (double)o[0], (double)o[1]);
  x[2 * 19999 + 1] = NAN;
  float ninf = -INFINITY;
  cr_assert(k_reduce(1, &X, (const void *[]){&ninf}, 1, (int64_t[]){0}, &(KReducer){MAX1, NULL, NULL}, &O, &err));
  cr_expect(o[0] == 1.0f && isnan(o[1]));
  free(x);
}

/* Sums over a major dimension into a short kept inner one (add_rows: per-
 * feature sums) and a long one (whole rows): bit for bit the serial f32 /
 * f64 fold of each output, in index order, computed here directly. */
Test(k_reduce, major_sums_match_serial_bits) {
  static const int64_t shapes[][3] = {{5, 3000, 37}, {1, 2000, 256}, {3, 700, 300}, {1, 16384, 2}};
  Rng rng = {11};
  for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
    int64_t a = shapes[si][0], r = shapes[si][1], k = shapes[si][2], n = a * r * k;
    for (int f64 = 0; f64 < 2; f64++) {
      EType t = f64 ? ET_F64 : ET_F32;
      void *x = rand_array(&rng, t, n, true), *o = calloc((size_t)(a * k), 8);
      double zero = 0;
      KArray X = ka(t, 3, shapes[si], x), O = ka(t, 2, (int64_t[]){a, k}, o);
      Error err;
      cr_assert(k_reduce(1, &X, (const void *[]){&zero}, 1, (int64_t[]){1}, &(KReducer){ADD1, NULL, NULL}, &O,
                         &err), "%s", err.msg);
      for (int64_t i = 0; i < a * k; i++) {
        int64_t p = i / k, q = i % k;
        float sf = 0;
        double sd = 0;
        for (int64_t j = 0; j < r; j++) {
          if (f64) sd += ((const double *)x)[(p * r + j) * k + q];
          else sf += ((const float *)x)[(p * r + j) * k + q];
        }
        if (f64) cr_assert_eq(((double *)o)[i], sd, "shape %zu f64 [%lld]", si, (long long)i);
        else cr_assert_eq(((float *)o)[i], sf, "shape %zu f32 [%lld]", si, (long long)i);
      }
      free(x);
      free(o);
    }
  }
}

/* The blocks start from each op's identity: with every element (and the
 * init) at the value the identity must not disturb -- the type's least for
 * max, its greatest for min, all ones for and, -0.0 for a float sum, 1 for
 * a product -- the result is that value exactly, so a wrong identity (0 for
 * a signed max, +0.0 for a float sum, ...) shows. */
Test(k_reduce, block_identities_at_type_limits) {
  static const EType types[] = {ET_S8, ET_S16, ET_S32, ET_S64, ET_U8, ET_U16, ET_U32, ET_U64, ET_PRED,
                                ET_F32, ET_F64};
  static const int64_t shapes[][2] = {{1, 20000}, {20000, 3}};
  for (size_t ti = 0; ti < sizeof types / sizeof *types; ti++)
    for (KReduceOp op = K_RED_ADD; op <= K_RED_XOR; op++)
      for (int si = 0; si < 2; si++) {
        EType t = types[ti];
        bool flt = etype_is_float(t), sgn = etype_kind(t) == EK_SINT;
        if (flt && op > K_RED_MIN) continue;
        int es = etype_storage_bytes(t), bits = 8 * es;
        unsigned char v[8] = {0};
        if (flt) {
          double d = op == K_RED_ADD ? -0.0 : op == K_RED_MUL ? 1.0 : op == K_RED_MAX ? -INFINITY : INFINITY;
          set_f(t, v, 0, d);
        } else {
          uint64_t u = 0; /* add, or, xor */
          if (op == K_RED_MUL) u = 1;
          if (op == K_RED_AND) u = t == ET_PRED ? 1 : ~(uint64_t)0;
          if (op == K_RED_MAX) u = sgn ? (uint64_t)1 << (bits - 1) : 0;
          if (op == K_RED_MIN) u = t == ET_PRED ? 1 : sgn ? ((uint64_t)1 << (bits - 1)) - 1 : ~(uint64_t)0;
          for (int b = 0; b < es; b++) v[b] = (unsigned char)(u >> (8 * b)); /* little-endian storage */
        }
        int64_t n = shapes[si][0] * shapes[si][1], nout = si ? 3 : 1;
        unsigned char *x = malloc((size_t)(n * es)), o[3 * 8];
        for (int64_t i = 0; i < n; i++) memcpy(x + i * es, v, (size_t)es);
        KArray X = ka(t, si ? 2 : 1, si ? shapes[si] : &shapes[si][1], x);
        KArray O = ka(t, si ? 1 : 0, (int64_t[]){3}, o);
        Error err;
        cr_assert(k_reduce(1, &X, (const void *[]){v}, 1, (int64_t[]){0}, &(KReducer){(KReduceOp[]){op}, NULL, NULL},
                           &O, &err), "%s %s: %s", etype_name(t), k_reduce_op_name(op), err.msg);
        for (int64_t i = 0; i < nout; i++)
          cr_assert(memcmp(o + i * es, v, (size_t)es) == 0, "%s %s shape %d: output %lld is not the limit value",
                    etype_name(t), k_reduce_op_name(op), si, (long long)i);
        free(x);
      }
}
