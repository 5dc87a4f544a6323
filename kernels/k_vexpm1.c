/* Vectorised f32 expm1, bit-identical with glibc's scalar expm1f.
 *
 * Goldens and XLA's HloEvaluator take libm's expm1f.  Debian 12's glibc
 * (2.36) computes it with fdlibm's s_expm1f.c (Sun Microsystems, 1993,
 * "permission to use, copy, modify, and distribute ... freely granted"),
 * in single precision, without FMA (x86_64 glibc 2.36 has no FMA build of
 * it); this file evaluates the same algorithm, as k_vtanh.c does (tanh is
 * built on the same expm1):
 *
 *   x = k ln2 + r (k = 0 for |x| <= ln2/2, +-1 below 1.5 ln2, else
 *     rounded x/ln2; ln2 split hi + lo, the rounding error kept in c)
 *   expm1(r) from a rational approximation in r^2 / 2,
 *   then one of six reconstructions of 2^k (1 + expm1(r)) - 1 chosen by k.
 *
 * Every branch is computed on a whole vector (GCC's vector extension) and
 * each lane selects its branch's result; lanes off the main path
 * (|x| < 2^-25, x >= 88.72, x <= -27 ln2, Inf, NaN) take fdlibm's special
 * results at the end.  Checked bit for bit against libm on all 2^32 inputs
 * for every build (tests/bench/bench_vexpf expm1B).  The first call
 * compares the kernel with the running libm and uses libm itself if any
 * result differs (k_vcheck.c). */
/* glibc computes without FMA: no a * b + c may be fused here. */
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/k_internal.h"

/* fdlibm's constants (s_expm1f.c). */
#define VE_INVLN2 1.4426950216e+00f
#define VE_LN2_HI 6.9313812256e-01f
#define VE_LN2_LO 9.0580006145e-06f
#define VE_Q1 -3.3333335072e-02f
#define VE_Q2 1.5873016091e-03f
#define VE_Q3 -7.9365076090e-05f
#define VE_Q4 4.0082177293e-06f
#define VE_Q5 -2.0109921195e-07f

/* NAME(out, in, n) over vectors of W lanes; the comments follow fdlibm. */
#define VEXPM1_DEFINE(NAME, W, PAIRS, TARGET)                                                       \
  typedef float NAME##_vf __attribute__((vector_size(W * 4)));                             \
  typedef int32_t NAME##_vi __attribute__((vector_size(W * 4)));                           \
  typedef uint32_t NAME##_vu __attribute__((vector_size(W * 4)));                          \
  TARGET static inline NAME##_vf NAME##_sel(NAME##_vi m, NAME##_vf a, NAME##_vf b) {        \
    return (NAME##_vf)(((NAME##_vi)a & m) | ((NAME##_vi)b & ~m));                           \
  }                                                                                         \
  TARGET static inline NAME##_vi NAME##_seli(NAME##_vi m, NAME##_vi a, NAME##_vi b) {       \
    return (a & m) | (b & ~m);                                                              \
  }                                                                                         \
  TARGET static inline __attribute__((always_inline)) NAME##_vf NAME##_one(NAME##_vf x) {                                         \
    typedef NAME##_vf vf;                                                                   \
    typedef NAME##_vi vi;                                                                   \
    typedef NAME##_vu vu;                                                                   \
    const vf zero = {0};                                                                    \
    const vi izero = {0};                                                                   \
    vu jx = (vu)x, hx = jx & 0x7fffffffu;                                                   \
    vi neg = (vi)jx < 0;                                                                    \
    /* main path: 2^-25 <= |x|, x < 0x42b17218 (88.72..) or x > -27 ln2 */                  \
    vi main_path = (hx >= 0x33000000u) & NAME##_seli(neg, (vi)(hx < 0x4195b844u),          \
                                                     (vi)(hx < 0x42b17218u));               \
    vf a = NAME##_sel(main_path, x, zero + 0.5f); /* off it: a harmless 0.5 */              \
    vu ha = (vu)a & 0x7fffffffu;                                                            \
    vi kr = __builtin_convertvector(VE_INVLN2 * a + NAME##_sel(neg, zero - 0.5f, zero + 0.5f), \
                                    vi);                                                    \
    /* k = 0 for |a| <= ln2/2, +-1 below 1.5 ln2, else rounded a/ln2 */                     \
    vi k = NAME##_seli((vi)(ha <= 0x3eb17218u), izero,                                      \
                       NAME##_seli((vi)(ha < 0x3f851592u),                                  \
                                   NAME##_seli(neg, izero - 1, izero + 1), kr));            \
    vf tk = __builtin_convertvector(k, vf);                                                 \
    vf hi = a - tk * VE_LN2_HI, lo = tk * VE_LN2_LO; /* k = 0: hi = a, lo = 0 */            \
    vf xr = hi - lo, c = (hi - xr) - lo;                                                    \
    vf hfx = 0.5f * xr, hxs = xr * hfx;                                                     \
    vf r1 = 1.0f + hxs * (VE_Q1 + hxs * (VE_Q2 + hxs * (VE_Q3 + hxs * (VE_Q4 + hxs * VE_Q5)))); \
    vf t = 3.0f - r1 * hfx;                                                                 \
    vf e = hxs * ((r1 - t) / (6.0f - xr * t));                                              \
    vf em_k0 = xr - (xr * e - hxs);                                                         \
    vf e2 = (xr * (e - c) - c) - hxs;                                                       \
    vf em_m1 = 0.5f * (xr - e2) - 0.5f;                                                     \
    vf em_p1 = NAME##_sel(xr < -0.25f, -2.0f * (e2 - (xr + 0.5f)), 1.0f + 2.0f * (xr - e2)); \
    vu kbits = (vu)k << 23; /* k added to an exponent */                                    \
    vf em_far = (vf)((vu)(1.0f - (e2 - xr)) + kbits) - 1.0f;                                \
    vi ks = NAME##_seli(k < 2, izero + 2, NAME##_seli(k > 22, izero + 22, k));              \
    vf t23 = (vf)(0x3f800000u - ((izero + 0x1000000) >> ks)); /* 1 - 2^-k */                \
    vf em_lt23 = (vf)((vu)(t23 - (e2 - xr)) + kbits);                                       \
    vi kt = NAME##_seli(k < 23, izero + 23, NAME##_seli(k > 56, izero + 56, k));            \
    vf tk23 = (vf)((vu)(0x7f - kt) << 23); /* 2^-k */                                       \
    vf em_ge23 = (vf)((vu)((xr - (e2 + tk23)) + 1.0f) + kbits);                             \
    vf em = NAME##_sel(k < 23, em_lt23, em_ge23);                                           \
    em = NAME##_sel((k <= -2) | (k > 56), em_far, em);                                      \
    em = NAME##_sel(k == 1, em_p1, em);                                                     \
    em = NAME##_sel(k == -1, em_m1, em);                                                    \
    em = NAME##_sel(k == 0, em_k0, em);                                                     \
    /* off the main path: x (|x| < 2^-25), NaN quietened, +Inf (x > 88.72, +Inf), */        \
    /* -1 (x <= -27 ln2, -Inf) */                                                           \
    vf sp = NAME##_sel(neg, zero - 1.0f, zero + (float)INFINITY);                           \
    sp = NAME##_sel((vi)(hx > 0x7f800000u), x + x, sp);                                     \
    sp = NAME##_sel((vi)(hx < 0x33000000u), x, sp);                                         \
    return NAME##_sel(main_path, em, sp);                                                   \
  }                                                                                         \
  KVEC_LANE_LOOP(NAME, W, PAIRS, TARGET)

KVEC_LANE_BUILDS(VEXPM1_DEFINE, vexpm1f)

KVEC_ENTRY(k_vexpm1f, vexpm1f_sse, vexpm1f_avx2, vexpm1f_avx512, expm1f, -2.0f, 2.0f, false, false)
