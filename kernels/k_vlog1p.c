/* Vectorised f32 log1p, bit-identical with glibc's scalar log1pf.
 *
 * Debian 12's glibc (2.36) computes log1pf with fdlibm's s_log1pf.c (Sun
 * Microsystems, 1993, "permission to use, copy, modify, and distribute ...
 * freely granted"), in single precision, without FMA (x86_64 glibc 2.36 has
 * no FMA build of it); this file evaluates the same algorithm:
 *
 *   1 + x = 2^k (1 + f), sqrt(2)/2 <= 1 + f < sqrt(2), with a correction c
 *     for the rounding of 1 + x (k = 0, f = x for -0.2929 < x < 0.41422)
 *   log1p(x) = k ln2_hi - ((hfsq - (s (hfsq + R) + (k ln2_lo + c))) - f)
 *     s = f / (2 + f), hfsq = f^2 / 2, R a polynomial in s^2
 *   (a shorter series when f is tiny: |f| < 2^-20, i.e. hu == 0).
 *
 * Every branch is computed on a whole vector (GCC's vector extension) and
 * each lane selects its branch's result; lanes off the main path (x <= -1,
 * |x| < 2^-29, +Inf, NaN) take fdlibm's special results.  Checked bit for
 * bit against libm on all 2^32 inputs for every build (tests/bench/
 * bench_vexpf log1pB).  The first call compares the kernel with the running
 * libm and uses libm itself if any result differs (k_vcheck.c). */
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

/* fdlibm's constants (s_log1pf.c). */
#define VL_LN2_HI 6.9313812256e-01f
#define VL_LN2_LO 9.0580006145e-06f
#define VL_LP1 6.6666668653e-01f
#define VL_LP2 4.0000000596e-01f
#define VL_LP3 2.8571429849e-01f
#define VL_LP4 2.2222198546e-01f
#define VL_LP5 1.8183572590e-01f
#define VL_LP6 1.5313838422e-01f
#define VL_LP7 1.4798198640e-01f

/* NAME(out, in, n) over vectors of W lanes; the comments follow fdlibm. */
#define VLOG1P_DEFINE(NAME, W, PAIRS, TARGET)                                                       \
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
    const vf zero = {0};                                                                    \
    const vi izero = {0};                                                                   \
    vi hx0 = (vi)x, ax = hx0 & 0x7fffffff;                                                  \
    /* main path: -1 < x < +Inf, |x| >= 2^-29 */                                            \
    vi main_path = (ax >= 0x31000000) & (hx0 < 0x7f800000) & ((hx0 >= 0) | (ax < 0x3f800000)); \
    vf a = NAME##_sel(main_path, x, zero + 0.5f); /* off it: a harmless 0.5 */              \
    vi hx = (vi)a;                                                                          \
    /* -0.2929 < x < 0.41422: k = 0, f = x */                                               \
    vi k0 = (hx < 0x3ed413d7) & ((hx > 0) | (hx <= (int32_t)0xbe95f61fu));                  \
    /* else 1 + x = 2^k u, c the rounding error of 1 + x over it */                         \
    vi big = hx >= 0x5a000000;                                                              \
    vf u = NAME##_sel(big, a, 1.0f + a);                                                    \
    vi hu = (vi)u;                                                                          \
    vi k = (hu >> 23) - 127;                                                                \
    vf c = NAME##_sel(k > 0, 1.0f - (u - a), a - (u - 1.0f)) / u;                           \
    c = NAME##_sel(big, zero, c);                                                           \
    hu &= 0x007fffff;                                                                       \
    vi up = hu < 0x3504f7; /* u below sqrt(2): normalise u, else u/2 */                     \
    vf un = (vf)(hu | NAME##_seli(up, izero + 0x3f800000, izero + 0x3f000000));             \
    k = NAME##_seli(up, k, k + 1);                                                          \
    hu = NAME##_seli(up, hu, (0x00800000 - hu) >> 2);                                       \
    vf f = NAME##_sel(k0, a, un - 1.0f);                                                    \
    k = NAME##_seli(k0, izero, k);                                                          \
    hu = NAME##_seli(k0, izero + 1, hu);                                                    \
    vi kz = k == 0;                                                                         \
    vf kf = __builtin_convertvector(k, vf);                                                 \
    vf hfsq = 0.5f * f * f;                                                                 \
    /* |f| < 2^-20 (hu == 0, never with k = 0 from above) */                                \
    vf r_f0 = NAME##_sel(kz, zero, kf * VL_LN2_HI + (c + kf * VL_LN2_LO));                  \
    vf R0 = hfsq * (1.0f - 0.66666666666666666f * f);                                       \
    vf r_tiny = NAME##_sel(kz, f - R0, kf * VL_LN2_HI - ((R0 - (kf * VL_LN2_LO + c)) - f)); \
    r_tiny = NAME##_sel(f == 0.0f, r_f0, r_tiny);                                           \
    /* the general case */                                                                  \
    vf s = f / (2.0f + f), z = s * s;                                                       \
    vf R = z * (VL_LP1 + z * (VL_LP2 + z * (VL_LP3 + z * (VL_LP4 + z * (VL_LP5 + z * (VL_LP6 + z * VL_LP7)))))); \
    vf r_gen = NAME##_sel(kz, f - (hfsq - s * (hfsq + R)),                                  \
                          kf * VL_LN2_HI - ((hfsq - (s * (hfsq + R) + (kf * VL_LN2_LO + c))) - f)); \
    vf r = NAME##_sel(hu == 0, r_tiny, r_gen);                                              \
    /* off the main path: x <= -1 (-Inf at -1, else NaN), |x| < 2^-29, +Inf, NaN */         \
    vf sp = NAME##_sel(x == -1.0f, zero - (float)INFINITY, (x - x) / (x - x));              \
    sp = NAME##_sel(ax < 0x31000000, NAME##_sel(ax < 0x24800000, x, x - x * x * 0.5f), sp); \
    sp = NAME##_sel(hx0 >= 0x7f800000, x + x, sp);                                          \
    return NAME##_sel(main_path, r, sp);                                                    \
  }                                                                                         \
  KVEC_LANE_LOOP(NAME, W, PAIRS, TARGET)

KVEC_LANE_BUILDS(VLOG1P_DEFINE, vlog1pf)

KVEC_ENTRY(k_vlog1pf, vlog1pf_sse, vlog1pf_avx2, vlog1pf_avx512, log1pf, -0.75f, 3.0f, false, false)
