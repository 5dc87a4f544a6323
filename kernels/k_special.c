/* Special functions after XlaBuilder's math library (k_special.h).  The
 * algorithms are written once in k_special_impl.h and instantiated here for
 * float and double; NextAfter works on bit patterns and lives here. */
#include "kernels/k_special.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

/* A float expression widened to double by accident would silently change
 * the f32 results: make it a compile error. */
#pragma GCC diagnostic error "-Wdouble-promotion"

/* Lanczos approximation with g = 7 and 9 coefficients (XLA evaluated several
 * (g, n) pairs; this one is the least sensitive to an inaccurate log). */
#define K_LANCZOS_G 7.0
#define K_LANCZOS_BASE 0.99999999999980993227684700473478
enum { K_LANCZOS_N = 8 };
static const double k_lanczos_coef[K_LANCZOS_N] = {
    676.520368121885098567009190444019, -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,   -176.61502916214059906584551354,
    12.507343278686904814458936853,     -0.13857109526572011689554707,
    9.984369578019570859563e-6,         1.50563273514931155834e-7};

/* Hurwitz zeta: N direct terms, M Euler-Maclaurin terms with
 * (2k)! / B_2k for k = M..1 (highest first, for Horner's rule). */
enum { K_ZETA_M = 12, K_ZETA_N = 9 };
static const double k_zeta_coef[K_ZETA_M] = {
    -7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
    1.1646782814350067249e14,  -2.950130727918164224e12, 7.47242496e10,
    -1.8924375803183791606e9,  47900160.0,               -1209600.0,
    30240.0,                   -720.0,                   12.0,
};

/* XLA's igamma series loop has no bound; this one stops after 10^7 terms,
 * which only arguments that cannot converge in the type reach (a so large
 * that a + 1 == a while x / a stays just below 1). */
enum { K_IGAMMA_SERIES_CAP = 10000000 };

#define T float
#define FN(f) f##_f32
#define T_EPS FLT_EPSILON
#include "kernels/k_special_impl.h"
#undef T
#undef FN
#undef T_EPS

#define T double
#define FN(f) f##_f64
#define T_EPS DBL_EPSILON
#include "kernels/k_special_impl.h"
#undef T
#undef FN
#undef T_EPS

KIgammaLimits k_igamma_limits_f32(void) {
  KIgammaLimits lim = {FLT_EPSILON, -logf(FLT_MAX)};
  return lim;
}

float k_igamma_grad_f32(KIgammaGrad which, float a, float x, KIgammaLimits lim) {
  return igamma_grad_local_f32(which, a, x, lim.eps, lim.underflow);
}

double k_igamma_grad_f64(KIgammaGrad which, double a, double x) {
  return igamma_grad_local_f64(which, a, x, DBL_EPSILON, -log(DBL_MAX));
}

/* --- NextAfter ---
 * Neighbouring floats of one sign have neighbouring magnitudes as integers,
 * so stepping is +-1 on the bits: towards zero when the magnitude exceeds
 * the target's or the signs differ, away from it otherwise.  The cases that
 * rule does not cover are taken first: NaN, equal bits, from = +-0. */
uint64_t k_nextafter_bits(const KNextAfterType *t, uint64_t from, bool from_nan, uint64_t to,
                          bool to_nan) {
  uint64_t sign = (uint64_t)1 << (t->bits - 1);
  uint64_t mask = t->bits == 64 ? ~(uint64_t)0 : ((uint64_t)1 << t->bits) - 1;
  if (from_nan || to_nan) return t->nan_bits;
  if (from == to) return to;
  uint64_t from_abs = from & ~sign, to_abs = to & ~sign;
  if (from_abs == 0) return to_abs == 0 ? to : (to & sign) | 1;
  bool towards_zero = from_abs > to_abs || (from & sign) != (to & sign);
  uint64_t r = towards_zero ? from - 1 : from + 1;
  /* fnuz types have no -0 (its pattern is NaN): from the negative value
   * closest to zero towards a non-negative target the step lands on +0. */
  if (t->fnuz && from == (sign | 1) && !(to & sign)) r = 0;
  return r & mask;
}

float k_nextafter_f32(float from, float to) {
  static const KNextAfterType f32 = {32, 0x7fc00000u, false};
  uint32_t f, g;
  memcpy(&f, &from, 4);
  memcpy(&g, &to, 4);
  uint32_t r = (uint32_t)k_nextafter_bits(&f32, f, isnan(from), g, isnan(to));
  float out;
  memcpy(&out, &r, 4);
  return out;
}

double k_nextafter_f64(double from, double to) {
  static const KNextAfterType f64 = {64, 0x7ff8000000000000ull, false};
  uint64_t f, g;
  memcpy(&f, &from, 8);
  memcpy(&g, &to, 8);
  uint64_t r = k_nextafter_bits(&f64, f, isnan(from), g, isnan(to));
  double out;
  memcpy(&out, &r, 8);
  return out;
}
