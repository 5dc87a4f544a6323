/* Vectorised f32 exp, bit-identical with glibc's scalar expf.
 *
 * The golden tests (and XLA's HloEvaluator, which calls libm) expect libm's
 * results for transcendental ops, so instead of a new polynomial this file
 * evaluates the same algorithm glibc (>= 2.28, from Arm's optimized-routines,
 * MIT) uses for expf, written as a branch-free loop the compiler vectorises:
 *
 *   k = round(x * 32/ln2),  r = x * 32/ln2 - k        (all in double)
 *   exp(x) = 2^(k/32) * (1 + C2 r + C1 r^2 + C0 r^3)  rounded once to float
 *
 * 2^(k/32) comes from a 32-entry table of 2^(i/32) (correctly rounded
 * doubles; the exponent of 2^(k>>5) is added to the table entry's bits).
 * The double-precision evaluation makes the result correctly rounded except
 * in rare near-halfway cases (glibc documents < 0.502 ulp), and identical to
 * glibc's bit for bit, provided the operations are contracted the same way:
 * glibc picks an FMA build of expf at run time on CPUs with FMA and AVX2, and
 * a plain one otherwise; so does k_vexpf.  tests/test_vmath.c compares with
 * the running libm on every float (or a large sample under CTest).
 *
 * Special inputs are selected after the main path, exactly as glibc does:
 * NaN -> x + x (quietened, payload kept), +Inf -> +Inf, -Inf -> +0,
 * x > 0x1.62e42ep6 -> +Inf, x < -0x1.9fe368p6 -> +0; |x| < 88 (including
 * +-0 and denormals, which give 1) take the main path. */
/* The plain build must not contract a*b+c into FMAs on its own (GCC's
 * pragma; clang ignores it and has its own). */
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off", "vect-cost-model=dynamic")
#endif
#include <math.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "kernels/k_internal.h"

/* 2^(i/32) rounded to nearest double, minus i << 47 (so that adding
 * k << 47 for k = 32 q + i gives 2^q * 2^(i/32)); regenerate with
 * scripts/gen-exp2-table.py. */
const uint64_t k_exp2_tab[32] = {
    0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
    0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1,
    0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
    0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585,
    0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
    0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d,
    0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
    0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540,
};

/* glibc's constants: 32/ln2, the round-to-integer shift 1.5*2^52, and the
 * cubic for 2^(r/32) on |r| <= 1/2 (coefficients pre-scaled by 32^-j). */
#define VEXP_INVLN2N (0x1.71547652b82fep+0 * 32)
#define VEXP_SHIFT 0x1.8p+52
#define VEXP_C0 (0x1.c6af84b912394p-5 / 32 / 32 / 32)
#define VEXP_C1 (0x1.ebfce50fac4f3p-3 / 32 / 32)
#define VEXP_C2 (0x1.62e42ff0c52d6p-1 / 32)


/* MA(a, b, c) = a * b + c, fused or not. */
#define VEXP_BODY(MA)                                                                      \
  for (int64_t i = 0; i < n; i++) {                                                        \
    float x = in[i];                                                                       \
    double xd = (double)x;                                                                 \
    double kd = MA(VEXP_INVLN2N, xd, VEXP_SHIFT);                                          \
    uint64_t ki = k_asu64(kd);                                                            \
    kd -= VEXP_SHIFT;                                                                      \
    double r = MA(VEXP_INVLN2N, xd, -kd);                                                  \
    uint64_t t = k_exp2_tab[ki % 32] + (ki << 47);                                           \
    double s = k_asf64(t);                                                                \
    double p = MA(VEXP_C0, r, VEXP_C1);                                                    \
    double r2 = r * r;                                                                     \
    double y = MA(VEXP_C2, r, 1.0);                                                        \
    y = MA(p, r2, y);                                                                      \
    float res = (float)(y * s);                                                            \
    uint32_t ax = k_asu32(x);                                                             \
    bool big = ((ax >> 20) & 0x7ff) >= 0x42b; /* |x| >= 88 or not finite */              \
    float sp = ax == 0xff800000u              ? 0.0f                                       \
               : ((ax >> 20) & 0x7ff) >= 0x7f8 ? x + x                                     \
               : x > 0x1.62e42ep6f             ? (float)INFINITY                           \
               : x < -0x1.9fe368p6f            ? 0.0f                                      \
                                               : res;                                      \
    out[i] = big ? sp : res;                                                               \
  }

#define VEXP_PLAIN(a, b, c) ((a) * (b) + (c))
#define VEXP_FUSED(a, b, c) __builtin_fma((a), (b), (c))

static void vexpf_plain(float *restrict out, const float *restrict in, int64_t n) {
  VEXP_BODY(VEXP_PLAIN)
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void vexpf_fma(float *restrict out,
                                                         const float *restrict in, int64_t n) {
  VEXP_BODY(VEXP_FUSED)
}
/* AVX-512, written out: the auto-vectorised loop looks the table up with
 * gathers, the slowest part of it.  Here the 32 entries live in four
 * registers and two two-source permutes (bits 0-3 of the index) and a blend
 * (bit 4) replace each gather; the arithmetic is the same operations in the
 * same order (fmsub(a, b, c) is fma(a, b, -c), rounded once). */
#define VEXP_512 __attribute__((target("avx512f,avx512dq,avx512vl,fma")))
VEXP_512 static inline __m512d vexp_pd8(__m512d xd, const __m512d tab[4]) {
  const __m512d invln2n = _mm512_set1_pd(VEXP_INVLN2N), shift = _mm512_set1_pd(VEXP_SHIFT);
  __m512d kd = _mm512_fmadd_pd(invln2n, xd, shift);
  __m512i ki = _mm512_castpd_si512(kd);
  kd = _mm512_sub_pd(kd, shift);
  __m512d r = _mm512_fmsub_pd(invln2n, xd, kd);
  __m512d lo = _mm512_permutex2var_pd(tab[0], ki, tab[1]); /* entries 0-15 */
  __m512d hi = _mm512_permutex2var_pd(tab[2], ki, tab[3]); /* entries 16-31 */
  __mmask8 upper = _mm512_test_epi64_mask(ki, _mm512_set1_epi64(16));
  __m512i t = _mm512_castpd_si512(_mm512_mask_blend_pd(upper, lo, hi));
  __m512d s = _mm512_castsi512_pd(_mm512_add_epi64(t, _mm512_slli_epi64(ki, 47)));
  __m512d p = _mm512_fmadd_pd(_mm512_set1_pd(VEXP_C0), r, _mm512_set1_pd(VEXP_C1));
  __m512d r2 = _mm512_mul_pd(r, r);
  __m512d y = _mm512_fmadd_pd(_mm512_set1_pd(VEXP_C2), r, _mm512_set1_pd(1.0));
  y = _mm512_fmadd_pd(p, r2, y);
  return _mm512_mul_pd(y, s);
}

VEXP_512 static void vexpf_fma512(float *restrict out, const float *restrict in, int64_t n) {
  __m512d tab[4];
  for (int j = 0; j < 4; j++) tab[j] = _mm512_loadu_pd((const double *)(k_exp2_tab + 8 * j));
  const __m512i exp_field = _mm512_set1_epi32(0x7ff);
  for (int64_t i = 0; i < n; i += 16) {
    __mmask16 lanes = (__mmask16)(n - i >= 16 ? 0xffffu : (1u << (n - i)) - 1);
    __m512 x = _mm512_maskz_loadu_ps(lanes, in + i);
    __m512d x0 = _mm512_cvtps_pd(_mm512_castps512_ps256(x));
    __m512d x1 = _mm512_cvtps_pd(_mm512_extractf32x8_ps(x, 1));
    __m256 r0 = _mm512_cvtpd_ps(vexp_pd8(x0, tab)), r1 = _mm512_cvtpd_ps(vexp_pd8(x1, tab));
    __m512 res = _mm512_insertf32x8(_mm512_castps256_ps512(r0), r1, 1);
    __m512i ax = _mm512_castps_si512(x);
    __m512i e = _mm512_and_si512(_mm512_srli_epi32(ax, 20), exp_field);
    __mmask16 big = _mm512_cmpge_epu32_mask(e, _mm512_set1_epi32(0x42b)); /* |x| >= 88, Inf, NaN */
    if (big) { /* VEXP_BODY's choices, the first that holds winning */
      const __m512 zero = _mm512_setzero_ps();
      __mmask16 under = _mm512_cmp_ps_mask(x, _mm512_set1_ps(-0x1.9fe368p6f), _CMP_LT_OQ);
      __mmask16 over = _mm512_cmp_ps_mask(x, _mm512_set1_ps(0x1.62e42ep6f), _CMP_GT_OQ);
      __mmask16 nan_inf = _mm512_cmpge_epu32_mask(e, _mm512_set1_epi32(0x7f8));
      __mmask16 minus_inf = _mm512_cmpeq_epi32_mask(ax, _mm512_set1_epi32((int)0xff800000u));
      __m512 sp = _mm512_mask_mov_ps(res, under, zero);
      sp = _mm512_mask_mov_ps(sp, over, _mm512_set1_ps((float)INFINITY));
      sp = _mm512_mask_mov_ps(sp, nan_inf, _mm512_add_ps(x, x));
      sp = _mm512_mask_mov_ps(sp, minus_inf, zero);
      res = _mm512_mask_mov_ps(res, big, sp);
    }
    _mm512_mask_storeu_ps(out + i, lanes, res);
  }
}
#endif

typedef void (*VexpFn)(float *restrict, const float *restrict, int64_t);

static VexpFn vexpf_pick(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  /* glibc uses its FMA expf when the CPU has FMA and AVX2. */
  if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2")) {
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
        __builtin_cpu_supports("avx512vl"))
      return vexpf_fma512;
    return vexpf_fma;
  }
#endif
  return vexpf_plain;
}

void k_vexpf(float *restrict out, const float *restrict in, int64_t n) {
  static VexpFn fn;
  VexpFn f = __atomic_load_n(&fn, __ATOMIC_RELAXED);
  if (!f) {
    f = vexpf_pick();
    __atomic_store_n(&fn, f, __ATOMIC_RELAXED);
  }
  f(out, in, n);
}

void k_vexpf_plain(float *restrict out, const float *restrict in, int64_t n) {
  vexpf_plain(out, in, n);
}
