/* Shared helpers of the elementwise kernels (not a public header). */
#ifndef HLO_KERNELS_K_INTERNAL_H
#define HLO_KERNELS_K_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "layout/etype.h"
#include "layout/etype_convert.h"

/* Runtime dispatch (AVX-512 / AVX2 / baseline) of a hot loop. */
#define K_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))

/* Narrow floats are processed in blocks widened to f32. */
enum { K_BLOCK = 512 };

/* Float types computed through f32 blocks: bf16, f16, f8/f6/f4. */
static inline bool k_is_narrow_float(EType t) {
  return etype_is_float(t) && t != ET_F32 && t != ET_F64;
}

/* Sign-extends (sN) or masks (uN) a value to the type's bit width. */
static inline int64_t k_wrap(int64_t v, int bits, bool is_signed) {
  if (bits >= 64) return v;
  uint64_t m = (UINT64_C(1) << bits) - 1, x = (uint64_t)v & m;
  if (is_signed && (x >> (bits - 1))) x |= ~m;
  return (int64_t)x;
}

#include <math.h>

/* XLA's float max/min (llvm.maximum/minimum): NaN wins, -0 < +0. */
#define FMAXMIN(F, S)                                                           \
  static inline F kmax_##S(F a, F b) {                                         \
    if (a != a) return a;                                                      \
    if (b != b) return b;                                                      \
    return (a > b || (a == b && !signbit(a))) ? a : b;                         \
  }                                                                            \
  static inline F kmin_##S(F a, F b) {                                         \
    if (a != a) return a;                                                      \
    if (b != b) return b;                                                      \
    return (a < b || (a == b && signbit(a))) ? a : b;                          \
  }
FMAXMIN(float, f32)
FMAXMIN(double, f64)

/* k_vmath.c: f32 exp bit-identical with glibc's expf (FMA build on CPUs with
 * FMA and AVX2, as glibc picks), vectorised.  _plain: the non-FMA build. */
void k_vexpf(float *restrict out, const float *restrict in, int64_t n);
void k_vexpf_plain(float *restrict out, const float *restrict in, int64_t n);
/* k_vtanh.c: f32 tanh bit-identical with glibc's tanhf (fdlibm's), vectorised;
 * libm's own when the running libm computes it otherwise.  _build: one
 * build regardless of the CPU's (0 SSE, 1 AVX2, 2 AVX-512), for tests (the
 * caller checks the CPU has it). */
void k_vtanhf(float *restrict out, const float *restrict in, int64_t n);
void k_vtanhf_build(int build, float *restrict out, const float *restrict in, int64_t n);

/* k_vcheck.c: what the vector kernels below share.  k_vec_agrees_with_libm:
 * whether fn gives libm's bits on a spread of inputs (specials, every
 * exponent, dense over [lo, hi]).  k_vec_pick_once: *slot, set by pick() on
 * the first call (atomically: devices' threads may race to it). */
typedef void (*KVecFn)(float *restrict out, const float *restrict in, int64_t n);
bool k_vec_agrees_with_libm(KVecFn fn, float (*libm)(float), float lo, float hi);
KVecFn k_vec_pick_once(KVecFn *slot, KVecFn (*pick)(void));

/* Vectorised f32 math, bit-identical with Debian 12's glibc (2.36), and
 * libm's own results where the running libm computes otherwise.  _build:
 * one build regardless of the CPU's, for tests and tests/bench/bench_vexpf
 * (the caller checks the CPU has it): 0 plain (no FMA), 1 FMA with AVX2,
 * 2 FMA with AVX-512 for the double-precision algorithms (log, sin, cos);
 * 0 SSE, 1 AVX2, 2 AVX-512 for the ones without FMA (expm1, log1p, erf,
 * cbrt). */
void k_vlogf(float *restrict out, const float *restrict in, int64_t n); /* k_vlog.c */
void k_vlogf_build(int build, float *restrict out, const float *restrict in, int64_t n);
void k_vexpm1f(float *restrict out, const float *restrict in, int64_t n); /* k_vexpm1.c */
void k_vexpm1f_build(int build, float *restrict out, const float *restrict in, int64_t n);
void k_vlog1pf(float *restrict out, const float *restrict in, int64_t n); /* k_vlog1p.c */
void k_vlog1pf_build(int build, float *restrict out, const float *restrict in, int64_t n);
void k_vsinf(float *restrict out, const float *restrict in, int64_t n); /* k_vsincos.c */
void k_vsinf_build(int build, float *restrict out, const float *restrict in, int64_t n);
void k_vcosf(float *restrict out, const float *restrict in, int64_t n);
void k_vcosf_build(int build, float *restrict out, const float *restrict in, int64_t n);
void k_verff(float *restrict out, const float *restrict in, int64_t n); /* k_verf.c */
void k_verff_build(int build, float *restrict out, const float *restrict in, int64_t n);
void k_vcbrtf(float *restrict out, const float *restrict in, int64_t n); /* k_vcbrt.c */
void k_vcbrtf_build(int build, float *restrict out, const float *restrict in, int64_t n);
/* k_vpow.c: powf, the same way (builds as for log). */
typedef void (*KVec2Fn)(float *restrict out, const float *restrict x, const float *restrict y,
                        int64_t n);
void k_vpowf(float *restrict out, const float *restrict x, const float *restrict y, int64_t n);
void k_vpowf_build(int build, float *restrict out, const float *restrict x, const float *restrict y,
                   int64_t n);

#endif
