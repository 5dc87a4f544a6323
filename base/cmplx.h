/* CMPLX/CMPLXF for every compiler we build with. */
#ifndef HLO_BASE_CMPLX_H
#define HLO_BASE_CMPLX_H

#include <complex.h>

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

#endif
