/* CMPLX/CMPLXF for every compiler we build with. */
#ifndef HLO_BASE_CMPLX_H
#define HLO_BASE_CMPLX_H

#include <complex.h>
#include <stdbool.h>

/* glibc defines CMPLX/CMPLXF only for compilers it knows to have
 * __builtin_complex (not clang 14, which builds the fuzzers).  C11 lays a
 * complex out as an array of its two parts, so build it that way there. */
#ifndef CMPLXF
static inline float complex cmplx_f32(float re, float im) {
  float complex z;
  ((float *)&z)[0] = re;
  ((float *)&z)[1] = im;
  return z;
}
#define CMPLXF(re, im) cmplx_f32((re), (im))
#endif
#ifndef CMPLX
static inline double complex cmplx_f64(double re, double im) {
  double complex z;
  ((double *)&z)[0] = re;
  ((double *)&z)[1] = im;
  return z;
}
#define CMPLX(re, im) cmplx_f64((re), (im))
#endif

/* The order of complex numbers for maximum/minimum, as the StableHLO spec
 * defines it (XLA's own evaluator refuses complex max/min; JAX's lax.max
 * computes the same order itself): lexicographic on (real, imaginary).  A
 * value with a NaN part wins, as NaN does in float maximum/minimum; of two
 * equal values (-0 == +0 included) the first is taken. */
static inline bool cmplx_has_nan(double re, double im) { return re != re || im != im; }
static inline bool cmplx_lex_less(double ar, double ai, double br, double bi) {
  return ar < br || (ar == br && ai < bi);
}
/* 1 when maximum(a, b) is b (minimum when want_max is false), else 0. */
static inline int cmplx_pick_second(double ar, double ai, double br, double bi, bool want_max) {
  if (cmplx_has_nan(ar, ai)) return 0;
  if (cmplx_has_nan(br, bi)) return 1;
  return want_max ? cmplx_lex_less(ar, ai, br, bi) : cmplx_lex_less(br, bi, ar, ai);
}

#endif
