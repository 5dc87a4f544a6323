/* Vectorised f32 erf, bit-identical with glibc's scalar erff.
 *
 * Debian 12's glibc (2.36) computes erff with fdlibm's s_erff.c (Sun
 * Microsystems, 1993, "permission to use, copy, modify, and distribute ...
 * freely granted"), in single precision, without FMA (x86_64 glibc 2.36 has
 * no FMA build of it); this file evaluates the same algorithm:
 *
 *   |x| < 2^-28:        x + efx x
 *   |x| < 0.84375:      x + x P(x^2) / Q(x^2)
 *   |x| < 1.25:         +-(erx + P(s) / Q(s)),  s = |x| - 1
 *   |x| < 6:            +-(1 - r / |x|),  s = 1 / x^2, R, S rational in s
 *                       (two sets of coefficients, split at 1/0.35), z = |x|
 *                       with the low 12 mantissa bits cleared,
 *                       r = expf(-z^2 - 0.5625) expf((z - |x|)(z + |x|) + R/S)
 *   |x| >= 6:           +-(1 - tiny);  Inf: +-1;  NaN: 1 + 1/x.
 *
 * Every range is computed on a whole vector (GCC's vector extension) and
 * each lane selects its range's result.  The two expf calls go through
 * k_vexpf (kernels/k_vmath.c), which is glibc's expf bit for bit, over a
 * block: so a block is done in three passes (arguments, exps, result).
 * Checked bit for bit against libm on all 2^32 inputs for every build
 * (tests/bench/bench_vexpf erfB).  The first call compares the kernel with
 * the running libm and uses libm itself if any result differs
 * (k_vcheck.c). */
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

/* fdlibm's constants (s_erff.c). */
#define VR_TINY 1e-30f
#define VR_ERX 8.4506291151e-01f
#define VR_EFX 1.2837916613e-01f
#define VR_PP0 1.2837916613e-01f
#define VR_PP1 -3.2504209876e-01f
#define VR_PP2 -2.8481749818e-02f
#define VR_PP3 -5.7702702470e-03f
#define VR_PP4 -2.3763017452e-05f
#define VR_QQ1 3.9791721106e-01f
#define VR_QQ2 6.5022252500e-02f
#define VR_QQ3 5.0813062117e-03f
#define VR_QQ4 1.3249473704e-04f
#define VR_QQ5 -3.9602282413e-06f
#define VR_PA0 -2.3621185683e-03f
#define VR_PA1 4.1485610604e-01f
#define VR_PA2 -3.7220788002e-01f
#define VR_PA3 3.1834661961e-01f
#define VR_PA4 -1.1089469492e-01f
#define VR_PA5 3.5478305072e-02f
#define VR_PA6 -2.1663755178e-03f
#define VR_QA1 1.0642088205e-01f
#define VR_QA2 5.4039794207e-01f
#define VR_QA3 7.1828655899e-02f
#define VR_QA4 1.2617121637e-01f
#define VR_QA5 1.3637083583e-02f
#define VR_QA6 1.1984500103e-02f
#define VR_RA0 -9.8649440333e-03f
#define VR_RA1 -6.9385856390e-01f
#define VR_RA2 -1.0558626175e+01f
#define VR_RA3 -6.2375331879e+01f
#define VR_RA4 -1.6239666748e+02f
#define VR_RA5 -1.8460508728e+02f
#define VR_RA6 -8.1287437439e+01f
#define VR_RA7 -9.8143291473e+00f
#define VR_SA1 1.9651271820e+01f
#define VR_SA2 1.3765776062e+02f
#define VR_SA3 4.3456588745e+02f
#define VR_SA4 6.4538726807e+02f
#define VR_SA5 4.2900814819e+02f
#define VR_SA6 1.0863500214e+02f
#define VR_SA7 6.5702495575e+00f
#define VR_SA8 -6.0424413532e-02f
#define VR_RB0 -9.8649431020e-03f
#define VR_RB1 -7.9928326607e-01f
#define VR_RB2 -1.7757955551e+01f
#define VR_RB3 -1.6063638306e+02f
#define VR_RB4 -6.3756646729e+02f
#define VR_RB5 -1.0250950928e+03f
#define VR_RB6 -4.8351919556e+02f
#define VR_SB1 3.0338060379e+01f
#define VR_SB2 3.2579251099e+02f
#define VR_SB3 1.5367296143e+03f
#define VR_SB4 3.1998581543e+03f
#define VR_SB5 2.5530502930e+03f
#define VR_SB6 4.7452853394e+02f
#define VR_SB7 -2.2440952301e+01f

enum { VERF_BLOCK = 512 };

/* NAME(out, in, n) over vectors of W lanes; the comments follow fdlibm. */
#define VERF_DEFINE(NAME, W, PAIRS, TARGET) /* (its own loop: PAIRS unused) */               \
  typedef float NAME##_vf __attribute__((vector_size(W * 4)));                             \
  typedef int32_t NAME##_vi __attribute__((vector_size(W * 4)));                           \
  TARGET static inline NAME##_vf NAME##_sel(NAME##_vi m, NAME##_vf a, NAME##_vf b) {        \
    return (NAME##_vf)(((NAME##_vi)a & m) | ((NAME##_vi)b & ~m));                           \
  }                                                                                         \
  /* Pass 1: the result of every lane not needing expf into res, the two */                \
  /* expf arguments of the others (harmless values elsewhere) into e1, e2. */               \
  TARGET static void NAME##_args(NAME##_vf x, NAME##_vf *res, NAME##_vf *e1, NAME##_vf *e2) { \
    typedef NAME##_vf vf;                                                                   \
    typedef NAME##_vi vi;                                                                   \
    const vf zero = {0};                                                                    \
    vi hx = (vi)x, ix = hx & 0x7fffffff;                                                    \
    vi neg = hx < 0;                                                                        \
    vf ax = (vf)ix;                                                                         \
    /* |x| < 0.84375 */                                                                     \
    vf z = x * x;                                                                           \
    vf r = VR_PP0 + z * (VR_PP1 + z * (VR_PP2 + z * (VR_PP3 + z * VR_PP4)));                 \
    vf s = 1.0f + z * (VR_QQ1 + z * (VR_QQ2 + z * (VR_QQ3 + z * (VR_QQ4 + z * VR_QQ5))));    \
    vf y_small = x + x * (r / s);                                                           \
    vf y_tiny = NAME##_sel(ix < 0x04000000, 0.0625f * (16.0f * x + (16.0f * VR_EFX) * x),   \
                           x + VR_EFX * x);                                                 \
    /* 0.84375 <= |x| < 1.25 */                                                             \
    vf sm = ax - 1.0f;                                                                      \
    vf P = VR_PA0 + sm * (VR_PA1 + sm * (VR_PA2 + sm * (VR_PA3 + sm * (VR_PA4 + sm * (VR_PA5 + sm * VR_PA6))))); \
    vf Q = 1.0f + sm * (VR_QA1 + sm * (VR_QA2 + sm * (VR_QA3 + sm * (VR_QA4 + sm * (VR_QA5 + sm * VR_QA6))))); \
    vf y_mid = NAME##_sel(neg, -VR_ERX - P / Q, VR_ERX + P / Q);                            \
    /* 1.25 <= |x| < 6: the expf arguments (|x| clamped into the range elsewhere) */      \
    vi far = (ix >= 0x3fa00000) & (ix < 0x40c00000);                                        \
    vf xa = NAME##_sel(far, ax, zero + 2.0f);                                               \
    vf sf = 1.0f / (xa * xa);                                                               \
    vf Ra = VR_RA0 + sf * (VR_RA1 + sf * (VR_RA2 + sf * (VR_RA3 + sf * (VR_RA4 + sf * (VR_RA5 + sf * (VR_RA6 + sf * VR_RA7)))))); \
    vf Sa = 1.0f + sf * (VR_SA1 + sf * (VR_SA2 + sf * (VR_SA3 + sf * (VR_SA4 + sf * (VR_SA5 + sf * (VR_SA6 + sf * (VR_SA7 + sf * VR_SA8))))))); \
    vf Rb = VR_RB0 + sf * (VR_RB1 + sf * (VR_RB2 + sf * (VR_RB3 + sf * (VR_RB4 + sf * (VR_RB5 + sf * VR_RB6))))); \
    vf Sb = 1.0f + sf * (VR_SB1 + sf * (VR_SB2 + sf * (VR_SB3 + sf * (VR_SB4 + sf * (VR_SB5 + sf * (VR_SB6 + sf * VR_SB7)))))); \
    vi near = ix < 0x4036DB6E; /* |x| < 1/0.35 */                                           \
    vf R = NAME##_sel(near, Ra, Rb), S = NAME##_sel(near, Sa, Sb);                          \
    vf zf = (vf)((vi)xa & (int32_t)0xfffff000u);                                            \
    *e1 = -zf * zf - 0.5625f;                                                               \
    *e2 = (zf - xa) * (zf + xa) + R / S;                                                    \
    /* the rest: |x| >= 6, Inf, NaN */                                                      \
    vf y_big = NAME##_sel(neg, VR_TINY - 1.0f + zero, 1.0f - VR_TINY + zero);               \
    vf y_nonfinite = NAME##_sel(neg, zero - 1.0f, zero + 1.0f) + 1.0f / x;                  \
    vf y = NAME##_sel(ix >= 0x7f800000, y_nonfinite, y_big);                                \
    y = NAME##_sel(ix < 0x3fa00000, y_mid, y);                                              \
    y = NAME##_sel(ix < 0x3f580000, y_small, y);                                            \
    y = NAME##_sel(ix < 0x31800000, y_tiny, y);                                             \
    *res = y;                                                                               \
  }                                                                                         \
  /* Pass 3: r = e1 e2, +-(1 - r / |x|) on the lanes that needed expf. */                  \
  TARGET static NAME##_vf NAME##_finish(NAME##_vf x, NAME##_vf res, NAME##_vf e1,           \
                                        NAME##_vf e2) {                                     \
    typedef NAME##_vf vf;                                                                   \
    typedef NAME##_vi vi;                                                                   \
    vi hx = (vi)x, ix = hx & 0x7fffffff;                                                    \
    vf ax = (vf)ix;                                                                         \
    vf r = e1 * e2;                                                                         \
    vf y = NAME##_sel(hx < 0, r / ax - 1.0f, 1.0f - r / ax);                                \
    return NAME##_sel((ix >= 0x3fa00000) & (ix < 0x40c00000), y, res);                      \
  }                                                                                         \
  TARGET static void NAME(float *restrict out, const float *restrict in, int64_t n) {       \
    float e1[VERF_BLOCK], e2[VERF_BLOCK], x1[VERF_BLOCK], x2[VERF_BLOCK];                   \
    for (int64_t at = 0; at < n; at += VERF_BLOCK) {                                        \
      int64_t m = n - at < VERF_BLOCK ? n - at : VERF_BLOCK;                                \
      int64_t mv = (m + W - 1) / W * W; /* whole vectors; the tail zero-filled */           \
      for (int64_t i = 0; i < mv; i += W) {                                                 \
        NAME##_vf x = {0}, res, a1, a2;                                                     \
        memcpy(&x, in + at + i, (size_t)(m - i < W ? m - i : W) * 4);                       \
        NAME##_args(x, &res, &a1, &a2);                                                     \
        memcpy(x1 + i, &res, sizeof res);                                                   \
        memcpy(x2 + i, &a1, sizeof a1);                                                     \
        memcpy(e2 + i, &a2, sizeof a2);                                                     \
      }                                                                                     \
      k_vexpf(e1, x2, mv);                                                                  \
      k_vexpf(x2, e2, mv);                                                                  \
      for (int64_t i = 0; i < mv; i += W) {                                                 \
        NAME##_vf x = {0}, res, a1, a2;                                                     \
        memcpy(&x, in + at + i, (size_t)(m - i < W ? m - i : W) * 4);                       \
        memcpy(&res, x1 + i, sizeof res);                                                   \
        memcpy(&a1, e1 + i, sizeof a1);                                                     \
        memcpy(&a2, x2 + i, sizeof a2);                                                     \
        x = NAME##_finish(x, res, a1, a2);                                                  \
        memcpy(out + at + i, &x, (size_t)(m - i < W ? m - i : W) * 4);                      \
      }                                                                                     \
    }                                                                                       \
  }

KVEC_LANE_BUILDS(VERF_DEFINE, verff)

KVEC_ENTRY(k_verff, verff_sse, verff_avx2, verff_avx512, erff, -4.0f, 4.0f, false, false)
