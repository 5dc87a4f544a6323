/* XlaBuilder library kernels behind the xla_builder.* custom calls:
 * k_einsum (config parsing, XLA's own broadcasting and diagonal rules),
 * k_tridiagonal_solve, k_scramble_philox_key.  Expected values are worked
 * out by hand from XLA's algorithms (matrix.cc, tridiagonal.cc, prng.cc);
 * numpy-derived cases live in testdata/interp-builder-lib/. */
#include <criterion/criterion.h>
#include <math.h>

#include "kernels/k_einsum.h"
#include "kernels/k_rng.h"
#include "kernels/k_tridiagonal.h"
#include "ktest.h"

static void expect_labels(const int *got, int n, const int *want, int nwant) {
  cr_assert_eq(n, nwant);
  for (int i = 0; i < n; i++) cr_expect_eq(got[i], want[i], "label %d: %d != %d", i, got[i], want[i]);
}

Test(k_einsum_parse, implicit_output_and_ellipsis) {
  KEinsumConfig c;
  Error err;
  cr_assert(k_einsum_parse("ba,ac", 2, 2, &c, &err), "%s", err.msg);
  /* Letters occurring once, in ASCII order. */
  expect_labels(c.out, c.nout, (int[]){'b', 'c'}, 2);
  cr_assert(k_einsum_parse("...ij,...jk", 4, 3, &c, &err), "%s", err.msg);
  expect_labels(c.x, c.nx, (int[]){-2, -1, 'i', 'j'}, 4);
  expect_labels(c.y, c.ny, (int[]){-1, 'j', 'k'}, 3);
  expect_labels(c.out, c.nout, (int[]){-2, -1, 'i', 'k'}, 4);
  cr_assert(k_einsum_parse("Ab,bA", 2, 2, &c, &err), "%s", err.msg);
  expect_labels(c.out, c.nout, NULL, 0);
  cr_assert(k_einsum_parse("a...b,b->a...", 3, 1, &c, &err), "%s", err.msg);
  expect_labels(c.x, c.nx, (int[]){'a', -1, 'b'}, 3);
  expect_labels(c.out, c.nout, (int[]){'a', -1}, 2);
}

Test(k_einsum_parse, errors) {
  KEinsumConfig c;
  Error err;
  struct {
    const char *config;
    int xr, yr;
    const char *msg;
  } bad[] = {
      {"ab,bc", 3, 2, "operands have 3 and 2"},       {"a.b,bc->ac", 3, 2, "unsupported \".\""},
      {"a,b,c->a", 1, 1, "one \",\""},         {"ab,bc->a->c", 2, 2, "one \"->\""},
      {"...a...,a->a", 3, 1, "too many ellipses"}, {"...abc,b->b", 2, 1, "too few dimensions"},
      {"a1,b->b", 2, 1, "unexpected character"}, {"ab->b", 2, 0, "one \",\""},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_expect(!k_einsum_parse(bad[i].config, bad[i].xr, bad[i].yr, &c, &err), "%s", bad[i].config);
    cr_expect(strstr(err.msg, bad[i].msg) != NULL, "%s: %s", bad[i].config, err.msg);
  }
}

/* Parses, checks the result dims, runs. */
static void run_einsum(const char *config, EType t, int xr, const int64_t *xd, void *x, int yr,
                       const int64_t *yd, void *y, int rank, const int64_t *dims, void *out) {
  KEinsumConfig c;
  Error err;
  cr_assert(k_einsum_parse(config, xr, yr, &c, &err), "%s", err.msg);
  KArray X = ka(t, xr, xd, x), Y = ka(t, yr, yd, y), O = ka(t, rank, dims, out);
  int got_rank;
  int64_t got[64];
  cr_assert(k_einsum_shape(&c, &X, &Y, &got_rank, got, &err), "%s", err.msg);
  cr_assert_eq(got_rank, rank);
  for (int d = 0; d < rank; d++) cr_assert_eq(got[d], dims[d]);
  cr_assert(k_einsum(&c, &X, &Y, &O, &err), "%s: %s", config, err.msg);
}

/* matrix.cc: a shared letter whose sizes differ is summed away on y's side
 * (x's side when x's size is 1) and stays free on the other. */
Test(k_einsum, xla_size_mismatch_rule) {
  float x[] = {1, 2, 3, 4, 5, 6}, y[] = {10, 100}, out[4];
  run_einsum("ij,jk->ik", ET_F32, 2, (int64_t[]){2, 3}, x, 2, (int64_t[]){1, 2}, y, 2,
             (int64_t[]){2, 2}, out);
  /* (sum_j x[i,j]) * y[0,k] */
  cr_expect(out[0] == 60 && out[1] == 600 && out[2] == 150 && out[3] == 1500);
  float x1[] = {2, 3}, y1[] = {1, 2, 3, 4, 5, 6};
  run_einsum("ij,jk->ik", ET_F32, 2, (int64_t[]){2, 1}, x1, 2, (int64_t[]){3, 2}, y1, 2,
             (int64_t[]){2, 2}, out);
  /* x[i,0] * sum_j y[j,k] */
  cr_expect(out[0] == 18 && out[1] == 24 && out[2] == 27 && out[3] == 36);
}

/* The diagonal is sized by the first occurrence; indices past a later
 * occurrence's size give 0. */
Test(k_einsum, diagonal_of_unequal_sizes) {
  double x23[] = {1, 2, 3, 4, 5, 6}, one = 1, out[3];
  run_einsum("ii,->i", ET_F64, 2, (int64_t[]){2, 3}, x23, 0, NULL, &one, 1, (int64_t[]){2}, out);
  cr_expect(out[0] == 1 && out[1] == 5);
  run_einsum("ii,->i", ET_F64, 2, (int64_t[]){3, 2}, x23, 0, NULL, &one, 1, (int64_t[]){3}, out);
  cr_expect(out[0] == 1 && out[1] == 4 && out[2] == 0);
}

/* XLA reduces the masked array with an add starting at +0: -0 becomes +0. */
Test(k_einsum, diagonal_turns_negative_zero_positive) {
  double x[] = {-0.0, 1, 2, 3}, one = 1, out[2];
  run_einsum("ii,->i", ET_F64, 2, (int64_t[]){2, 2}, x, 0, NULL, &one, 1, (int64_t[]){2}, out);
  cr_expect(out[0] == 0 && !signbit(out[0]) && out[1] == 3);
  /* Integers go through unchanged (a masked "or" in XLA). */
  int32_t xi[] = {7, 1, 2, -9}, onei = 1, outi[2];
  run_einsum("ii,->i", ET_S32, 2, (int64_t[]){2, 2}, xi, 0, NULL, &onei, 1, (int64_t[]){2}, outi);
  cr_expect(outi[0] == 7 && outi[1] == -9);
}

Test(k_einsum, empty_contraction_and_output_only_label) {
  float x[1], y[1], out[4] = {9, 9, 9, 9};
  run_einsum("ij,jk->ik", ET_F32, 2, (int64_t[]){2, 0}, x, 2, (int64_t[]){0, 2}, y, 2,
             (int64_t[]){2, 2}, out);
  cr_expect(out[0] == 0 && out[1] == 0 && out[2] == 0 && out[3] == 0);
  KEinsumConfig c;
  Error err;
  float a[6] = {0}, b[12] = {0};
  KArray A = ka(ET_F32, 2, (int64_t[]){2, 3}, a), B = ka(ET_F32, 2, (int64_t[]){3, 4}, b);
  int rank;
  int64_t dims[64];
  cr_assert(k_einsum_parse("ab,bc->acz", 2, 2, &c, &err));
  cr_expect(!k_einsum_shape(&c, &A, &B, &rank, dims, &err));
  cr_expect(strstr(err.msg, "output label z is in neither operand") != NULL, "%s", err.msg);
  KArray Bi = ka(ET_S32, 2, (int64_t[]){3, 4}, b);
  cr_assert(k_einsum_parse("ab,bc->ac", 2, 2, &c, &err));
  cr_expect(!k_einsum_shape(&c, &A, &Bi, &rank, dims, &err));
  cr_expect(strstr(err.msg, "different element types") != NULL, "%s", err.msg);
}

/* A = [[2, 1], [4, 3]], rhs = [5, 11] -> x = [2, 1]; Thomas steps:
 * w = 4/2, main'1 = 3 - 2*1 = 1, rhs'1 = 11 - 2*5 = 1, x1 = 1, x0 = (5 - 1)/2.
 * The entries XLA never reads (lower[0], upper[M-1]) are NaN. */
Test(k_tridiagonal, hand_system_both_forms_nan_in_unread_entries) {
  EType types[] = {ET_F32, ET_F64, ET_BF16, ET_C64};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    EType t = types[k];
    int es = etype_storage_bytes(t);
    int64_t dd[] = {1, 2}, rd[] = {1, 2}, d3[] = {3, 2}, rd2[] = {2, 1};
    char lo[2 * 16], mn[2 * 16], up[2 * 16], rhs[2 * 16], x[2 * 16], dg[6 * 16];
    memset(lo, 0, sizeof lo), memset(mn, 0, sizeof mn), memset(up, 0, sizeof up);
    memset(rhs, 0, sizeof rhs), memset(dg, 0, sizeof dg);
    double vals[][2] = {{NAN, 4}, {2, 3}, {1, NAN}, {5, 11}};
    char *bufs[] = {lo, mn, up, rhs};
    for (int b = 0; b < 4; b++)
      for (int i = 0; i < 2; i++) {
        if (etype_is_complex(t)) {
          double v[2] = {vals[b][i], 0};
          k_cvt(t, bufs[b] + i * es, ET_C128, v, 1);
        } else {
          set_f(t, bufs[b], i, vals[b][i]);
        }
      }
    KArray L = ka(t, 2, dd, lo), Mn = ka(t, 2, dd, mn), U = ka(t, 2, dd, up);
    KArray R = ka(t, 2, rd, rhs), X = ka(t, 2, rd, x);
    KTridiagonal s = {{&L, &Mn, &U}, {0, 0, 0}, false};
    Error err;
    cr_assert(k_tridiagonal_solve(&s, &R, &X, &err), "%s: %s", etype_name(t), err.msg);
    cr_expect(get_f(t, x, 0) == 2 && get_f(t, x, 1) == 1, "%s: %g %g", etype_name(t),
              get_f(t, x, 0), get_f(t, x, 1));
    /* Two-operand form: rows upper, main, lower; rhs [M, R]. */
    memcpy(dg, up, 2 * (size_t)es);
    memcpy(dg + 2 * es, mn, 2 * (size_t)es);
    memcpy(dg + 4 * es, lo, 2 * (size_t)es);
    KArray D = ka(t, 2, d3, dg), R2 = ka(t, 2, rd2, rhs), X2 = ka(t, 2, rd2, x);
    KTridiagonal s2 = {{&D, &D, &D}, {2, 1, 0}, true};
    memset(x, 0, sizeof x);
    cr_assert(k_tridiagonal_solve(&s2, &R2, &X2, &err), "%s: %s", etype_name(t), err.msg);
    cr_expect(get_f(t, x, 0) == 2 && get_f(t, x, 1) == 1, "%s (2 operands)", etype_name(t));
  }
}

/* Batch dims: main's must be rhs's or 1, lower's and upper's main's or 1. */
Test(k_tridiagonal, batch_broadcasting_rules) {
  float one[2] = {1, 1}, two[4] = {1, 1, 1, 1}, rhs[4] = {1, 2, 3, 4}, x[4];
  int64_t d1[] = {1, 1, 2}, d2[] = {2, 1, 2}, rd[] = {2, 1, 2};
  KArray B1 = ka(ET_F32, 3, d1, one), B2 = ka(ET_F32, 3, d2, two);
  KArray R = ka(ET_F32, 3, rd, rhs), X = ka(ET_F32, 3, rd, x);
  Error err;
  /* lower broadcast from 1 to main's 2: fine (x = rhs with identity A). */
  float z[2] = {0, 0};
  KArray Z = ka(ET_F32, 3, d1, z);
  KTridiagonal ok = {{&Z, &B2, &Z}, {0, 0, 0}, false};
  cr_assert(k_tridiagonal_solve(&ok, &R, &X, &err), "%s", err.msg);
  cr_expect(x[0] == 1 && x[1] == 2 && x[2] == 3 && x[3] == 4);
  /* main of batch 1 with lower of batch 2: XLA's update of main' fails. */
  KTridiagonal bad = {{&B2, &B1, &B1}, {0, 0, 0}, false};
  cr_expect(!k_tridiagonal_solve(&bad, &R, &X, &err));
  cr_expect(strstr(err.msg, "must be 1 or the main diagonal's") != NULL, "%s", err.msg);
  /* No equations. */
  int64_t d0[] = {1, 0}, r0[] = {3, 0};
  KArray E = ka(ET_F32, 2, d0, z), RE = ka(ET_F32, 2, r0, z), XE = ka(ET_F32, 2, r0, x);
  KTridiagonal empty = {{&E, &E, &E}, {0, 0, 0}, false};
  cr_expect(!k_tridiagonal_solve(&empty, &RE, &XE, &err));
  /* Integers are not solved. */
  int32_t ii[2] = {1, 1};
  KArray Ia = ka(ET_S32, 2, (int64_t[]){1, 2}, ii), RI = ka(ET_S32, 2, (int64_t[]){1, 2}, ii);
  KTridiagonal ints = {{&Ia, &Ia, &Ia}, {0, 0, 0}, false};
  cr_expect(!k_tridiagonal_solve(&ints, &RI, &RI, &err));
  cr_expect(strstr(err.msg, "only float and complex") != NULL, "%s", err.msg);
}

/* Values from the Python Philox-4x32 in scripts/gen-builder-lib.py, which
 * checks itself against Random123's known-answer vectors. */
Test(k_scramble_philox_key, known_answers) {
  cr_expect_eq(k_scramble_philox_key(0), 16103252647613272195ull);
  cr_expect_eq(k_scramble_philox_key(1), 5021939587448326713ull);
  cr_expect_eq(k_scramble_philox_key(42), 6022327574815263983ull);
  cr_expect_eq(k_scramble_philox_key(0x123456789ABCDEF0ull), 12212996845050011061ull);
}
