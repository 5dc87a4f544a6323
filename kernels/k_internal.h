/* Shared helpers of the elementwise kernels (not a public header). */
#ifndef HLO_KERNELS_K_INTERNAL_H
#define HLO_KERNELS_K_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

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
#include <string.h>

/* XLA's float max/min (llvm.maximum/minimum): NaN wins (a NaN first operand
 * before a NaN second), -0 < +0.  Without branches, so that loops over them
 * vectorise: the compare picks the larger (smaller) value; equal values,
 * whose bits differ only for +0 and -0, combine their bits (AND: +0 wins
 * max; OR: -0 wins min); then a NaN b, then a NaN a, overrides. */
#define FMAXMIN(F, S, AS, FROM)                                                 \
  static inline F kmax_##S(F a, F b) {                                         \
    F r = a > b ? a : b;                                                       \
    r = a == b ? FROM(AS(a) & AS(b)) : r;                                      \
    r = b != b ? b : r;                                                        \
    return a != a ? a : r;                                                     \
  }                                                                            \
  static inline F kmin_##S(F a, F b) {                                         \
    F r = a < b ? a : b;                                                       \
    r = a == b ? FROM(AS(a) | AS(b)) : r;                                      \
    r = b != b ? b : r;                                                        \
    return a != a ? a : r;                                                     \
  }

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

/* Bit casts for the vector math kernels (memcpy: no aliasing questions;
 * compilers emit a plain move). */
static inline uint32_t k_asu32(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}
static inline float k_asf32(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}
static inline uint64_t k_asu64(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}
static inline double k_asf64(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}
FMAXMIN(float, f32, k_asu32, k_asf32)
FMAXMIN(double, f64, k_asu64, k_asf64)

/* 2^(i/32) as doubles minus i << 47: glibc's __exp2f_data.tab, shared by
 * k_vmath.c (exp) and k_vpow.c (pow). */
extern const uint64_t k_exp2_tab[32];

/* k_vcheck.c: what the vector kernels below share.  k_vec_agrees_with_libm:
 * whether fn gives libm's bits on a spread of inputs (specials, every
 * exponent, dense over [lo, hi]).  k_vec_pick_once: *slot, set by pick() on
 * the first call (atomically: devices' threads may race to it). */
typedef void (*KVecFn)(float *restrict out, const float *restrict in, int64_t n);
bool k_vec_agrees_with_libm(KVecFn fn, float (*libm)(float), float lo, float hi);
KVecFn k_vec_pick_once(KVecFn *slot, KVecFn (*pick)(void));

/* A unary kernel with glibc's three builds and the running libm's function.
 * k_vec_run picks once (*picked, atomically) the build this CPU runs as
 * glibc would, checks it against libm, falls back to the plain build, then
 * to libm, and runs it; k_vec_run_build runs one build, for tests. */
typedef struct KVecKernel {
  KVecFn builds[3];      /* 0 plain (SSE), 1 AVX2, 2 AVX-512: KVEC_BUILDS */
  float (*libm)(float);
  float lo, hi;          /* where the self-check looks densely */
  bool fma;              /* builds 1 and 2 are glibc's FMA variants (need FMA and AVX2) */
  bool plain_slower;     /* on a CPU below build 1 libm is faster: build 0 only as fallback */
} KVecKernel;
#if defined(__x86_64__) && defined(__GNUC__)
#define KVEC_BUILDS(plain, avx2, avx512) {plain, avx2, avx512}
#else
#define KVEC_BUILDS(plain, avx2, avx512) {plain, plain, plain}
#endif
/* The three builds NAME_sse, NAME_avx2, NAME_avx512 of a kernel written
 * with GCC vector extensions, made by DEFINE(fn, lanes, pairs, target
 * attribute); pairs: whether KVEC_LANE_LOOP takes two vectors at a time
 * (not with AVX2's 16 registers: the second vector's values spill). */
#if defined(__x86_64__) && defined(__GNUC__)
#define KVEC_LANE_BUILDS(DEFINE, NAME)                                   \
  DEFINE(NAME##_sse, 4, 1, )                                             \
  DEFINE(NAME##_avx2, 8, 0, __attribute__((target("avx2"))))            \
  DEFINE(NAME##_avx512, 16, 1, __attribute__((target("avx512f,avx512dq,avx512vl"))))
#else
#define KVEC_LANE_BUILDS(DEFINE, NAME) DEFINE(NAME##_sse, 4, 1, )
#endif
/* NAME(out, in, n): NAME##_one (W lanes of type NAME##_vf, always inlined)
 * over the array, the tail in a zero-filled vector.  With PAIRS two vectors
 * per iteration: their divisions' latencies overlap (fdlibm's tanhf: 1.5x
 * with AVX-512). */
#define KVEC_LANE_LOOP(NAME, W, PAIRS, TARGET)                                                   \
  TARGET static void NAME(float *restrict out, const float *restrict in, int64_t n) {            \
    int64_t i = 0;                                                                               \
    for (; PAIRS && i + 2 * W <= n; i += 2 * W) {                                                \
      NAME##_vf x, y;                                                                            \
      memcpy(&x, in + i, sizeof x);                                                              \
      memcpy(&y, in + i + W, sizeof y);                                                          \
      x = NAME##_one(x);                                                                         \
      y = NAME##_one(y);                                                                         \
      memcpy(out + i, &x, sizeof x);                                                             \
      memcpy(out + i + W, &y, sizeof y);                                                         \
    }                                                                                            \
    for (; i + W <= n; i += W) {                                                                 \
      NAME##_vf x;                                                                               \
      memcpy(&x, in + i, sizeof x);                                                              \
      x = NAME##_one(x);                                                                         \
      memcpy(out + i, &x, sizeof x);                                                             \
    }                                                                                            \
    if (i < n) {                                                                                 \
      NAME##_vf x = {0};                                                                         \
      memcpy(&x, in + i, (size_t)(n - i) * 4);                                                   \
      x = NAME##_one(x);                                                                         \
      memcpy(out + i, &x, (size_t)(n - i) * 4);                                                  \
    }                                                                                            \
  }
/* Defines PUBLIC (k_vec_run over the builds B0, B1, B2) and PUBLIC_build. */
#define KVEC_ENTRY(PUBLIC, B0, B1, B2, LIBM, LO, HI, FMA, PLAIN_SLOWER)                       \
  static const KVecKernel PUBLIC##_kernel = {KVEC_BUILDS(B0, B1, B2), LIBM, LO, HI, FMA,      \
                                             PLAIN_SLOWER};                                   \
  void PUBLIC(float *restrict out, const float *restrict in, int64_t n) {                     \
    static int picked;                                                                        \
    k_vec_run(&PUBLIC##_kernel, &picked, out, in, n);                                         \
  }                                                                                           \
  void PUBLIC##_build(int build, float *restrict out, const float *restrict in, int64_t n) {  \
    k_vec_run_build(&PUBLIC##_kernel, build, out, in, n);                                     \
  }
void k_vec_run(const KVecKernel *k, int *picked, float *restrict out, const float *restrict in,
               int64_t n);
void k_vec_run_build(const KVecKernel *k, int build, float *restrict out,
                     const float *restrict in, int64_t n);

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
