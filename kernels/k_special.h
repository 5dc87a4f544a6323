/* Special functions as XlaBuilder's math library computes them
 * (xla/hlo/builder/lib/math.cc): the same series, continued fractions,
 * constants, thresholds and operation order, in f32 for f32 (XLA upcasts
 * bf16/f16 to f32 and rounds the result once) and in f64 for f64.  Every
 * function is total: out-of-domain arguments give what XLA gives (NaN, inf,
 * 0), never a trap.  These are what the custom calls
 * `xla_builder.math.{IgammaGradA,RandomGammaGrad,Polygamma,
 * RegularizedIncompleteBeta,NextAfter}` compute (interp/custom_call/builder_math.c).
 *
 * Elementary functions (log, exp, sin, pow, ...) are C libm's, so results can
 * differ from XLA's CPU backend (which emits its own approximations) in the
 * last bits; the algorithms around them are XLA's. */
#ifndef HLO_KERNELS_K_SPECIAL_H
#define HLO_KERNELS_K_SPECIAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

/* log|Gamma(x)| by Lanczos' approximation (g = 7, 9 terms) with Euler's
 * reflection below 1/2; +inf at +-inf and at the poles. */
float k_lgamma_f32(float x);
double k_lgamma_f64(double x);

/* digamma(x) = d/dx log Gamma(x) from the same Lanczos sum; -inf at 0, NaN at
 * the negative integers. */
float k_digamma_f32(float x);
double k_digamma_f64(double x);

/* Hurwitz zeta(x, q) = sum_{k>=0} (q + k)^-x by Euler-Maclaurin (10 direct
 * terms, 12 Bernoulli terms); inf at x = 1, NaN for x < 1. */
float k_zeta_f32(float x, float q);
double k_zeta_f64(double x, double q);

/* polygamma(n, x) = d^n/dx^n digamma(x): digamma for n = 0, else
 * (-1)^(n+1) n! zeta(n+1, x), with the reflection formula for x < 0 and
 * n <= 4.  NaN when n is not a natural number. */
float k_polygamma_f32(float n, float x);
double k_polygamma_f64(double n, double x);

/* d/da of the regularized lower incomplete gamma P(a, x) (IgammaGradA), or
 * the implicit-reparameterization derivative of a Gamma(a, 1) sample x with
 * respect to a, -(dP/da) / (dP/dx) (RandomGammaGrad). */
typedef enum { K_IGAMMA_GRAD_A, K_RANDOM_GAMMA_GRAD } KIgammaGrad;

/* XLA takes the convergence epsilon and the underflow bound -log(max finite)
 * from the operands' own type even when it computes in f32 (f16: eps 2^-10,
 * bound -11.09), so the f32 version is told them; k_igamma_limits_f32 gives
 * them for f32 itself. */
typedef struct KIgammaLimits {
  float eps;       /* machine epsilon of the operand type */
  float underflow; /* -log(largest finite value), rounded to the operand type */
} KIgammaLimits;
KIgammaLimits k_igamma_limits_f32(void);

float k_igamma_grad_f32(KIgammaGrad which, float a, float x, KIgammaLimits lim);
double k_igamma_grad_f64(KIgammaGrad which, double a, double x);

/* Regularized incomplete beta I_x(a, b) of n element triples by the modified
 * Lentz continued fraction.  As in XLA the fraction runs in lockstep over the
 * whole array and stops when every element has converged (or after 200 / 600
 * iterations), so an element's last bits depend on its neighbours.  NaN when
 * a <= 0, b <= 0, x < 0 or x > 1.  False (out of memory) with err. */
bool k_betainc_f32(const float *a, const float *b, const float *x, float *out, int64_t n,
                   Error *err);
bool k_betainc_f64(const double *a, const double *b, const double *x, double *out, int64_t n,
                   Error *err);

/* nextafter on the bit patterns of a `bits`-wide float type with a sign bit
 * in its top bit: the neighbour of `from` towards `to`; `to` when they are
 * equal (bit for bit) or both zero; the smallest subnormal signed like `to`
 * from +-0; nan_bits when either is NaN.  fnuz types (no -0) step from the
 * negative value closest to zero up to +0. */
typedef struct KNextAfterType {
  int bits;
  uint64_t nan_bits;
  bool fnuz;
} KNextAfterType;
uint64_t k_nextafter_bits(const KNextAfterType *t, uint64_t from, bool from_nan, uint64_t to,
                          bool to_nan);
float k_nextafter_f32(float from, float to);
double k_nextafter_f64(double from, double to);

#endif
