/* Vectorised f32 sin and cos, bit-identical with glibc's scalar sinf, cosf.
 *
 * As k_vmath.c does for exp, this evaluates the algorithm of the libm the
 * goldens come from: glibc >= 2.28 takes sinf / cosf from Arm's
 * optimized-routines (MIT; glibc's sysdeps/ieee754/flt-32/s_sinf.c,
 * s_cosf.c, s_sincosf.h, sincosf_poly.h, s_sincosf_data.c, Szabolcs Nagy
 * and Wilco Dijkstra), all in double precision:
 *
 *   |x| < 120:  n = round(x * 2/pi) (as x * 2^24 * 2/pi, truncated, plus
 *               2^23, shifted), r = x - n pi/2, |r| <= pi/4
 *   sin x:  n even: +-S(r), n odd: +-C(r); cos x: the other way round,
 *           the signs by n mod 4; S, C the odd / even polynomials of
 *           glibc's table, rounded once to float
 *   |x| < 2^-12: sin x = x, cos x = 1.
 *
 * |x| >= 120, Inf and NaN need glibc's 192-bit reduction or its NaN: those
 * (rare) lanes are left to the scalar sinf / cosf of libm after the vector
 * loop, which is bit-identical by definition.  x86_64 glibc runs an FMA
 * build of sinf / cosf (GCC contracting a * b + c) on CPUs with FMA and AVX2
 * and a plain one otherwise; MA() below is one or the other, so each build
 * matches glibc's on all 2^32 inputs (tests/bench/bench_vexpf sin, cos;
 * sin0 / cos0 under GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA).  The first
 * call checks the chosen build against the running libm and falls back to
 * the plain build, then to libm itself (k_vcheck.c). */
/* The plain build must not contract a*b+c into FMAs on its own. */
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off", "vect-cost-model=dynamic")
#endif
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/k_internal.h"

/* glibc's __sincosf_table[0] (without TOINT_INTRINSICS, as on x86_64). */
#define VS_HPI_INV 0x1.45F306DC9C883p+23 /* 2/pi * 2^24 */
#define VS_HPI 0x1.921FB54442D18p0       /* pi/2 */
#define VS_C0 0x1p0
#define VS_C1 -0x1.ffffffd0c621cp-2
#define VS_C2 0x1.55553e1068f19p-5
#define VS_C3 -0x1.6c087e89a359dp-10
#define VS_C4 0x1.99343027bf8c3p-16
#define VS_S1 -0x1.555545995a603p-3
#define VS_S2 0x1.1107605230bc4p-7
#define VS_S3 -0x1.994eb3774cf24p-13
#define VS_TOP_120 0x42fu   /* top 12 bits of 120.0f */
#define VS_TOP_TINY 0x398u  /* top 12 bits of 0x1p-12f */

/* c ? a : b as bit masks: a ?: would let GCC sink a computation into a
 * branch, which its vectoriser then refuses. */
static inline uint32_t vs_sel32(bool c, uint32_t a, uint32_t b) {
  uint32_t m = 0u - (uint32_t)c;
  return (a & m) | (b & ~m);
}

/* One vectorisable loop: COS 0 for sin, 1 for cos; MA(a, b, c) = a * b + c,
 * fused or not.  Returns whether any lane has |x| >= 120 or is not finite
 * (its out[i] is then left for libm). */
#define VSINCOS_BODY(MA, COS)                                                               \
  uint32_t any_big = 0;                                                                     \
  for (int64_t i = 0; i < n; i++) {                                                         \
    float x = in[i];                                                                        \
    uint32_t ix = k_asu32(x), top = (ix >> 20) & 0x7ff;                                    \
    bool big = top >= VS_TOP_120;                                                           \
    any_big |= big;                                                                         \
    double xd = (double)k_asf32(vs_sel32(big, 0, ix)); /* big lanes: 0 */                  \
    /* n = round(x 2/pi), r = x - n pi/2 */                                                 \
    int32_t q = ((int32_t)(xd * VS_HPI_INV) + 0x800000) >> 24;                              \
    double r = MA(-(double)q, VS_HPI, xd);                                                  \
    double r2 = r * r;                                                                      \
    /* S(r sign): sign -1 for n mod 4 = 1, 2 (glibc's sign[n & 3]) */                       \
    double rs = k_asf64(k_asu64(r) ^ ((uint64_t)(((q + 1) >> 1) & 1) << 63));            \
    double r3 = rs * r2;                                                                    \
    double s1 = MA(r2, VS_S3, VS_S2);                                                       \
    double r7 = r3 * r2;                                                                    \
    double sp = MA(r3, VS_S1, rs);                                                          \
    double sv = MA(r7, s1, sp);                                                             \
    /* C(r), negated for n mod 4 = 2, 3 (glibc's second table) */                          \
    double r4 = r2 * r2;                                                                    \
    double c2 = MA(r2, VS_C4, VS_C3);                                                       \
    double c1 = MA(r2, VS_C1, VS_C0);                                                       \
    double r6 = r4 * r2;                                                                    \
    double cp = MA(r4, VS_C2, c1);                                                          \
    double cv = MA(r6, c2, cp);                                                             \
    cv = k_asf64(k_asu64(cv) ^ ((uint64_t)((q >> 1) & 1) << 63));                         \
    /* C for odd n (sin) / even n (cos); an integer mask: GCC does not vectorise the */   \
    /* bool of q & 1 */                                                                     \
    uint64_t cm = 0u - (uint64_t)(uint32_t)((q ^ COS) & 1);                                 \
    float res = (float)k_asf64((k_asu64(cv) & cm) | (k_asu64(sv) & ~cm));               \
    uint32_t tiny_res = COS ? 0x3f800000u : ix; /* cos 1, sin x */                         \
    /* in xor form: as a select, GCC turns it back into a branch for sin */                \
    uint32_t rb = k_asu32(res), tiny_m = 0u - (uint32_t)(top < VS_TOP_TINY);              \
    out[i] = k_asf32(rb ^ ((rb ^ tiny_res) & tiny_m));                                     \
  }                                                                                         \
  return any_big != 0;

#define VS_PLAIN(a, b, c) ((a) * (b) + (c))
#define VS_FUSED(a, b, c) __builtin_fma((a), (b), (c))

#ifdef __clang__
#define VS_512 __attribute__((target("avx512f,avx512dq,avx512vl,fma"), min_vector_width(512)))
#else
#define VS_512 __attribute__((target("avx512f,avx512dq,avx512vl,fma,prefer-vector-width=512")))
#endif

/* The three builds of one function, and the entry points over them that
 * finish the big lanes with libm's scalar function, block by block. */
#define VSINCOS_DEFINE(NAME, COS, LIBM)                                                     \
  static bool NAME##_plain_loop(float *restrict out, const float *restrict in, int64_t n) { \
    VSINCOS_BODY(VS_PLAIN, COS)                                                             \
  }                                                                                         \
  static void NAME##_run(bool (*loop)(float *restrict, const float *restrict, int64_t),     \
                         float *restrict out, const float *restrict in, int64_t n) {        \
    enum { BLOCK = 1024 };                                                                  \
    for (int64_t at = 0; at < n; at += BLOCK) {                                             \
      int64_t m = n - at < BLOCK ? n - at : BLOCK;                                          \
      if (!loop(out + at, in + at, m)) continue;                                            \
      for (int64_t i = at; i < at + m; i++)                                                 \
        if (((k_asu32(in[i]) >> 20) & 0x7ff) >= VS_TOP_120) out[i] = LIBM(in[i]);          \
    }                                                                                       \
  }                                                                                         \
  static void NAME##_plain(float *restrict out, const float *restrict in, int64_t n) {      \
    NAME##_run(NAME##_plain_loop, out, in, n);                                              \
  }                                                                                         \
  VSINCOS_X86(NAME, COS)

#if defined(__x86_64__) && defined(__GNUC__)
#define VSINCOS_X86(NAME, COS)                                                              \
  __attribute__((target("avx2,fma"))) static bool NAME##_fma_loop(                          \
      float *restrict out, const float *restrict in, int64_t n) {                           \
    VSINCOS_BODY(VS_FUSED, COS)                                                             \
  }                                                                                         \
  VS_512 static bool NAME##_fma512_loop(float *restrict out, const float *restrict in,      \
                                        int64_t n) {                                        \
    VSINCOS_BODY(VS_FUSED, COS)                                                             \
  }                                                                                         \
  static void NAME##_fma(float *restrict out, const float *restrict in, int64_t n) {        \
    NAME##_run(NAME##_fma_loop, out, in, n);                                                \
  }                                                                                         \
  static void NAME##_fma512(float *restrict out, const float *restrict in, int64_t n) {     \
    NAME##_run(NAME##_fma512_loop, out, in, n);                                             \
  }
#else
#define VSINCOS_X86(NAME, COS)
#endif

VSINCOS_DEFINE(vsinf, 0, sinf)
VSINCOS_DEFINE(vcosf, 1, cosf)

/* glibc uses its FMA sinf / cosf when the CPU has FMA and AVX2. */
/* glibc runs its FMA sinf / cosf on CPUs with FMA and AVX2. */
KVEC_ENTRY(k_vsinf, vsinf_plain, vsinf_fma, vsinf_fma512, sinf, -8.0f, 8.0f, true, false)
KVEC_ENTRY(k_vcosf, vcosf_plain, vcosf_fma, vcosf_fma512, cosf, -8.0f, 8.0f, true, false)
