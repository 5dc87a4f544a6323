/* XlaBuilder's special functions (kernels/k_special.c) against independent
 * references: the tables below are printed by scripts/gen-special.py (mpmath
 * at 40 digits; pasted unchanged), NextAfter against C's nextafter/nextafterf
 * and hand-derived f8e5m2fnuz bit patterns, edge cases by XLA's rules.
 *
 * Tolerances (relative).  The functions are XLA's algorithms, not correctly
 * rounded ones, and their error is set by the size of what they compute on
 * the way:
 *  - IgammaGradA / RandomGammaGrad: ax = exp(a log x - x - lgamma(a)) turns an
 *    absolute rounding error of ~(a + x) eps in its argument into a relative
 *    one, and the derivative sums cancel by up to ~10x in these points
 *    (measured: at most 10 (1 + a + x) eps), so 16 (1 + a + x) eps;
 *  - RegularizedIncompleteBeta: the same through exp(a log x + b log1p(-x)
 *    - lbeta), so 16 (1 + a + b) eps (measured at most 4 (1 + a + b) eps);
 *  - Polygamma: digamma's reflection subtracts pi cot(pi x) from a value of
 *    similar size (about 100 eps lost at x = -0.5 in f64), so 128 eps.
 * eps is FLT_EPSILON for the f32 versions (inputs are exact f32 values, the
 * references are at those values) and DBL_EPSILON for f64. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/k_special.h"

/* scripts/gen-special.py: {a, x, d/da P(a, x)} (mpmath, 40 digits) */
static const double igamma_grad_a_ref[][3] = {
    {0.5, 0.25, -0.797947316783223},
    {0.5, 3.0, -0.04724032644797375},
    {1.0, 1.0, -0.4317297106348987},
    {2.5, 0.75, -0.12667071856555226},
    {2.5, 4.0, -0.14765686908718714},
    {10.0, 8.0, -0.11260572310818615},
    {10.0, 12.0, -0.09717797203717965},
    {0.125, 0.015625, -2.3842183065828007},
    {3.0, 20.0, -9.680603996077357e-07},
    {50.0, 45.0, -0.04554329214012388},
    {0.03125, 0.5, -0.5771829243447743},
    {100.0, 120.0, -0.006213185929140656},
    {1.5, 1.25, -0.36724532823744777},
    {7.0, 0.5, -2.723408662721534e-06},
    {20.0, 21.0, -0.08532202183081486},
};
/* scripts/gen-special.py: {a, x, -(dP/da) / (dP/dx)} (mpmath) */
static const double random_gamma_grad_ref[][3] = {
    {0.5, 0.25, 0.9080144917641113},
    {0.5, 3.0, 2.9129424164403646},
    {1.0, 1.0, 1.1735630272247268},
    {2.5, 0.75, 0.5488344958834237},
    {2.5, 4.0, 1.3396081953658443},
    {10.0, 8.0, 0.9075477177235484},
    {10.0, 12.0, 1.1123294430180883},
    {0.125, 0.015625, 0.4794536637601337},
    {3.0, 20.0, 2.348346064720834},
    {50.0, 45.0, 0.9514101922116238},
    {0.03125, 0.5, 15.293176683224871},
    {100.0, 120.0, 1.0957525107070083},
    {1.5, 1.25, 1.0160482129952082},
    {7.0, 0.5, 0.20690573373103033},
    {20.0, 21.0, 1.0331735499925518},
};
/* scripts/gen-special.py: {n, x, polygamma(n, x)} (mpmath) */
static const double polygamma_ref[][3] = {
    {0.0, 2.5, 0.7031566406452432},
    {0.0, 0.25, -4.2274535333762655},
    {0.0, 30.0, 3.384438132685525},
    {1.0, 0.5, 4.934802200544679},
    {1.0, 3.75, 0.3053398526902531},
    {2.0, 1.25, -1.3277399375369203},
    {3.0, 10.5, 0.0019900862371443544},
    {4.0, 0.375, -3241.6264619437143},
    {5.0, 2.0, 2.081167438133897},
    {6.0, 7.5, -0.0009850308217563826},
    {1.0, -1.5, 9.379246644989124},
    {2.0, -0.75, -124.58699919679619},
    {3.0, -2.25, 1558.4550231887144},
    {4.0, -3.625, -2987.6192308427867},
    {0.0, -0.5, 0.03648997397857652},
    {1.0, 100.0, 0.010050166663333571},
};
/* scripts/gen-special.py: {a, b, x, I_x(a, b)} (mpmath) */
static const double betainc_ref[][4] = {
    {0.5, 0.5, 0.25, 0.3333333333333333},
    {2.0, 3.0, 0.375, 0.481201171875},
    {2.0, 3.0, 0.875, 0.992919921875},
    {10.0, 2.0, 0.9375, 0.8522482719541813},
    {1.0, 1.0, 0.5, 0.5},
    {5.0, 5.0, 0.5, 0.5},
    {0.125, 10.0, 0.015625, 0.8246583003432525},
    {30.0, 40.0, 0.40625, 0.35705680926729333},
    {3.5, 0.75, 0.6875, 0.1914793126255442},
    {100.0, 80.0, 0.5625, 0.5721626371155305},
    {0.5, 20.0, 0.125, 0.9783743486203027},
    {1.5, 1.5, 0.9900000095367432, 0.9983074517783214},
};

#define ROWS(t) ((int)(sizeof(t) / sizeof((t)[0])))

static void expect_close(const char *what, int row, double got, double want, double tol) {
  double err = fabs(got - want) / fabs(want);
  cr_expect(err <= tol, "%s row %d: got %.17g, want %.17g (relative error %.3g > %.3g)", what, row,
            got, want, err, tol);
}

Test(special, igamma_grad_a_matches_mpmath) {
  KIgammaLimits lim = k_igamma_limits_f32();
  for (int i = 0; i < ROWS(igamma_grad_a_ref); i++) {
    const double *r = igamma_grad_a_ref[i];
    double scale = 16 * (1 + r[0] + r[1]);
    expect_close("IgammaGradA f32", i,
                 k_igamma_grad_f32(K_IGAMMA_GRAD_A, (float)r[0], (float)r[1], lim), r[2],
                 scale * FLT_EPSILON);
    expect_close("IgammaGradA f64", i, k_igamma_grad_f64(K_IGAMMA_GRAD_A, r[0], r[1]), r[2],
                 scale * DBL_EPSILON);
  }
}

Test(special, random_gamma_grad_matches_mpmath) {
  KIgammaLimits lim = k_igamma_limits_f32();
  for (int i = 0; i < ROWS(random_gamma_grad_ref); i++) {
    const double *r = random_gamma_grad_ref[i];
    double scale = 16 * (1 + r[0] + r[1]);
    expect_close("RandomGammaGrad f32", i,
                 k_igamma_grad_f32(K_RANDOM_GAMMA_GRAD, (float)r[0], (float)r[1], lim), r[2],
                 scale * FLT_EPSILON);
    expect_close("RandomGammaGrad f64", i, k_igamma_grad_f64(K_RANDOM_GAMMA_GRAD, r[0], r[1]),
                 r[2], scale * DBL_EPSILON);
  }
}

Test(special, polygamma_matches_mpmath) {
  for (int i = 0; i < ROWS(polygamma_ref); i++) {
    const double *r = polygamma_ref[i];
    expect_close("Polygamma f32", i, k_polygamma_f32((float)r[0], (float)r[1]), r[2],
                 128 * FLT_EPSILON);
    expect_close("Polygamma f64", i, k_polygamma_f64(r[0], r[1]), r[2], 128 * DBL_EPSILON);
  }
}

/* All rows in one call, as one array: the Lentz loop runs in lockstep until
 * the slowest element converges; every element must still be accurate. */
Test(special, betainc_matches_mpmath) {
  enum { N = ROWS(betainc_ref) };
  float a32[N], b32[N], x32[N], y32[N];
  double a64[N], b64[N], x64[N], y64[N];
  for (int i = 0; i < N; i++) {
    a64[i] = betainc_ref[i][0], b64[i] = betainc_ref[i][1], x64[i] = betainc_ref[i][2];
    a32[i] = (float)a64[i], b32[i] = (float)b64[i], x32[i] = (float)x64[i];
  }
  Error err;
  cr_assert(k_betainc_f32(a32, b32, x32, y32, N, &err), "%s", err.msg);
  cr_assert(k_betainc_f64(a64, b64, x64, y64, N, &err), "%s", err.msg);
  for (int i = 0; i < N; i++) {
    double scale = 16 * (1 + a64[i] + b64[i]);
    expect_close("RegularizedIncompleteBeta f32", i, y32[i], betainc_ref[i][3],
                 scale * FLT_EPSILON);
    expect_close("RegularizedIncompleteBeta f64", i, y64[i], betainc_ref[i][3],
                 scale * DBL_EPSILON);
  }
  /* Alone, an element stops at its own convergence: the same value to within
   * the tolerance. */
  for (int i = 0; i < N; i++) {
    double y;
    cr_assert(k_betainc_f64(&a64[i], &b64[i], &x64[i], &y, 1, &err));
    expect_close("RegularizedIncompleteBeta f64 alone", i, y, betainc_ref[i][3],
                 16 * (1 + a64[i] + b64[i]) * DBL_EPSILON);
  }
  cr_expect(k_betainc_f64(a64, b64, x64, y64, 0, &err), "an empty array is fine");
}

/* XLA: NaN when either argument is NaN, x < 0 or a <= 0 (even at x = 0);
 * 0 at x = 0 otherwise. */
Test(special, igamma_grads_edges) {
  KIgammaLimits lim = k_igamma_limits_f32();
  KIgammaGrad which[] = {K_IGAMMA_GRAD_A, K_RANDOM_GAMMA_GRAD};
  for (int w = 0; w < 2; w++) {
    KIgammaGrad k = which[w];
    cr_expect(isnan(k_igamma_grad_f64(k, NAN, 1)) && isnan(k_igamma_grad_f64(k, 1, NAN)));
    cr_expect(isnan(k_igamma_grad_f64(k, 0, 1)) && isnan(k_igamma_grad_f64(k, -1, 1)));
    cr_expect(isnan(k_igamma_grad_f64(k, 1, -0.5)) && isnan(k_igamma_grad_f64(k, 0, 0)));
    cr_expect(k_igamma_grad_f64(k, 2, 0) == 0 && k_igamma_grad_f64(k, 2, -0.0) == 0);
    cr_expect(isnan(k_igamma_grad_f32(k, NAN, 1, lim)) && isnan(k_igamma_grad_f32(k, 1, -1, lim)));
    cr_expect(isnan(k_igamma_grad_f32(k, -2, 1, lim)) && k_igamma_grad_f32(k, 3, 0, lim) == 0);
  }
  /* Far in the upper tail dP/da underflows to (nearly) 0 through ax, while
   * the sample derivative stays finite. */
  cr_expect(fabs(k_igamma_grad_f64(K_IGAMMA_GRAD_A, 2, 800)) < 1e-300);
  cr_expect(isfinite(k_igamma_grad_f64(K_RANDOM_GAMMA_GRAD, 2, 800)));
}

/* Polygamma is NaN unless n is a natural number; digamma's and zeta's poles
 * as XLA: -inf at x = 0 for n = 0, NaN at negative integers, +inf for odd n
 * (zeta(even, q <= 0 integer)), NaN for even n >= 2. */
Test(special, polygamma_edges) {
  double bad_n[] = {1.5, -1, -0.5, NAN};
  for (int i = 0; i < 4; i++) {
    cr_expect(isnan(k_polygamma_f64(bad_n[i], 2.0)), "n = %g", bad_n[i]);
    cr_expect(isnan(k_polygamma_f32((float)bad_n[i], 2.0f)), "n = %g", bad_n[i]);
  }
  cr_expect(k_polygamma_f64(0, 0) == -INFINITY && k_polygamma_f32(0, 0) == -INFINITY);
  cr_expect(isnan(k_polygamma_f64(0, -3)) && isnan(k_polygamma_f32(0, -1)));
  cr_expect(k_polygamma_f64(1, 0) == INFINITY && k_polygamma_f64(3, -2) == INFINITY);
  cr_expect(isnan(k_polygamma_f64(2, 0)) && isnan(k_polygamma_f32(2, -1)));
  cr_expect(isnan(k_polygamma_f64(1, NAN)));
  /* zeta(x, q) itself: inf at x = 1, NaN for x < 1; lgamma at the poles. */
  cr_expect(k_zeta_f64(1, 2) == INFINITY && isnan(k_zeta_f64(0.5, 2)));
  cr_expect(fabs(k_zeta_f64(2, 1) - M_PI * M_PI / 6) <= 4 * DBL_EPSILON);
  cr_expect(k_lgamma_f64(0) == INFINITY && k_lgamma_f64(-2) == INFINITY &&
            k_lgamma_f64(-INFINITY) == INFINITY && k_lgamma_f32(INFINITY) == INFINITY);
  cr_expect(fabs(k_lgamma_f64(0.5) - 0.5 * log(M_PI)) <= 8 * DBL_EPSILON);
  cr_expect(fabs(k_digamma_f64(1) + 0.57721566490153286) <= 8 * DBL_EPSILON);
}

/* NaN when a <= 0, b <= 0, x < 0 or x > 1; exact 0 and 1 at the ends. */
Test(special, betainc_edges) {
  double a[] = {0, -1, 1, 1, 1, 1, 2, 2, 0.5};
  double b[] = {1, 1, 0, 1, 1, 1, 3, 3, 0.5};
  double x[] = {0.5, 0.5, 0.5, -0.25, 1.25, NAN, 0, 1, 0.5};
  enum { N = sizeof a / sizeof a[0] };
  double y[N];
  float a32[N], b32[N], x32[N], y32[N];
  for (int i = 0; i < N; i++) a32[i] = (float)a[i], b32[i] = (float)b[i], x32[i] = (float)x[i];
  Error err;
  cr_assert(k_betainc_f64(a, b, x, y, N, &err) && k_betainc_f32(a32, b32, x32, y32, N, &err));
  for (int i = 0; i < 6; i++) cr_expect(isnan(y[i]) && isnan(y32[i]), "row %d", i);
  cr_expect(y[6] == 0 && y32[6] == 0, "x = 0: %g %g", y[6], (double)y32[6]);
  cr_expect(y[7] == 1 && y32[7] == 1, "x = 1: %g %g", y[7], (double)y32[7]);
  cr_expect(fabs(y[8] - 0.5) <= 4 * DBL_EPSILON, "I_0.5(0.5, 0.5) = %.17g", y[8]);
}

static uint32_t bits32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static uint64_t bits64(double f) {
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}

/* Bit for bit C's nextafter on every pair of these values (zeros of both
 * signs, subnormals, the normal boundary, the largest finite values, inf);
 * NaN in either argument gives the default quiet NaN 0x7fc00000 (XLA's
 * constant) where C would pass a NaN operand through. */
Test(special, nextafter_matches_c) {
  float v32[] = {0.0f, -0.0f, 0x1p-149f, -0x1p-149f, 0x1p-126f, -0x1p-126f, 0x1.fffffcp-127f,
                 1.0f, -1.0f, 1.5f, FLT_MAX, -FLT_MAX, INFINITY, -INFINITY, 3.0e-39f};
  double v64[] = {0.0, -0.0, 0x1p-1074, -0x1p-1074, DBL_MIN, -DBL_MIN, 1.0, -1.0, 0.1,
                  DBL_MAX, -DBL_MAX, INFINITY, -INFINITY, 1e-310};
  int n32 = sizeof v32 / sizeof v32[0], n64 = sizeof v64 / sizeof v64[0];
  for (int i = 0; i < n32; i++)
    for (int j = 0; j < n32; j++)
      cr_expect(bits32(k_nextafter_f32(v32[i], v32[j])) == bits32(nextafterf(v32[i], v32[j])),
                "nextafterf(%a, %a)", (double)v32[i], (double)v32[j]);
  for (int i = 0; i < n64; i++)
    for (int j = 0; j < n64; j++)
      cr_expect(bits64(k_nextafter_f64(v64[i], v64[j])) == bits64(nextafter(v64[i], v64[j])),
                "nextafter(%a, %a)", v64[i], v64[j]);
  cr_expect(bits32(k_nextafter_f32(NAN, 1)) == 0x7fc00000u);
  cr_expect(bits32(k_nextafter_f32(1, -NAN)) == 0x7fc00000u);
  cr_expect(bits64(k_nextafter_f64(-NAN, -NAN)) == 0x7ff8000000000000ull);
}

/* f8e5m2fnuz (bias 16, 2 mantissa bits, NaN = 0x80, no -0), by hand:
 * 0x01 = 2^-17 the smallest subnormal, 0x81 its negative, 0x40 = 1.0,
 * 0x3f = 0.875 its lower neighbour, 0x7f = 57344 the largest. */
Test(special, nextafter_fnuz_by_hand) {
  KNextAfterType e5m2fnuz = {8, 0x80, true};
  struct { uint8_t from, to, want; } cases[] = {
      {0x81, 0x40, 0x00}, /* -2^-17 towards 1: +0, since -0 would be NaN */
      {0x81, 0x00, 0x00}, /* towards 0 */
      {0x81, 0xc0, 0x82}, /* towards -1: away from zero */
      {0x00, 0xc0, 0x81}, /* 0 towards -1: the smallest negative */
      {0x00, 0x40, 0x01}, {0x01, 0x00, 0x00},
      {0x40, 0xc0, 0x3f}, /* signs differ: towards zero */
      {0x40, 0x41, 0x41}, {0x7f, 0x7f, 0x7f},
      {0x7f, 0x40, 0x7e},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    cr_expect(k_nextafter_bits(&e5m2fnuz, cases[i].from, false, cases[i].to, false) ==
                  cases[i].want,
              "case %zu", i);
  cr_expect(k_nextafter_bits(&e5m2fnuz, 0x80, true, 0x40, false) == 0x80);
}
