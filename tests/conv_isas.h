/* The tile choices the convolution kernel tests run every case with: the
 * AVX-512 and AVX2 direct tiles where the CPU has them, and the tiles off
 * (the im2col / BLAS paths). */
#ifndef HLO_TESTS_CONV_ISAS_H
#define HLO_TESTS_CONV_ISAS_H

#include <math.h>
#include <stdbool.h>

#include "base/thread_pool.h"
#include "kernels/k_conv.h"
#include "kernels/k_conv_internal.h"
#include "kernels/k_movement.h" /* k_row_major_strides, for the tests' strides */

enum { CONV_NISAS = 3 };
static const int conv_isas[CONV_NISAS] = {CONV_DIRECT_AVX512, CONV_DIRECT_AVX2, CONV_DIRECT_OFF};

/* Whether this CPU can run conv_isas[v]. */
static inline bool conv_isa_here(int v) {
  __builtin_cpu_init();
  if (conv_isas[v] == CONV_DIRECT_AVX512) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  if (conv_isas[v] == CONV_DIRECT_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return true;
}

/* k_conv with the tile forced to `isa` and the pool at `threads`; both are
 * put back before it returns. */
static inline bool conv_with(int isa, int threads, const KArray *lhs, const KArray *rhs, const KConvParams *p,
                             KArray *out, Error *err) {
  int saved = pool_threads();
  pool_set_threads(threads);
  conv_direct_force(isa);
  bool ok = k_conv(lhs, rhs, p, out, err);
  conv_direct_force(CONV_DIRECT_AUTO);
  pool_set_threads(saved);
  return ok;
}

/* The direct forward tiles' order for one tap and one range of input
 * features (n of them, x and w strided): each product added to the
 * double reference *acc and magnitude *mag, and fused into the segment's
 * float chain *seg, as the tile does (taps in padding, in false, multiply a zero and never read x). */
static inline void conv_emulate_range(const float *x, int64_t xs, const float *w, int64_t ws, int64_t n, bool in,
                                      double *acc, double *mag, float *seg) {
  for (int64_t i = 0; i < n; i++) {
    float xv = in ? x[i * xs] : 0.0f, wv = w[i * ws];
    *acc += (double)xv * wv;
    *mag += fabs((double)xv * wv);
    *seg = fmaf(xv, wv, *seg);
  }
}

#endif
