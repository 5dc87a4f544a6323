/* Vectorised f32 cbrt, bit-identical with glibc's scalar cbrtf.
 *
 * glibc (2.36 and long before) computes cbrtf with its own s_cbrtf.c (Dirk
 * Alboth and Ulrich Drepper, 1997; LGPL-2.1+, the algorithm re-implemented
 * here, no code copied), without an FMA build on x86_64:
 *
 *   |x| = xm 2^xe, xm in [0.5, 1) (frexpf)
 *   u  = 0.492659620528969547 + (0.697570460207922770
 *        - 0.191502161678719066 xm) xm        (double, rounded to float)
 *   t2 = u^3                                   (float)
 *   ym = u (t2 + 2 xm) / (2 t2 + xm) 2^((xe mod 3)/3)   (double, to float)
 *   cbrt(x) = +-ym 2^(xe/3)                    (exact: never subnormal)
 *
 * with xe mod 3 and xe / 3 truncated as C does; +-0, +-Inf and NaN give
 * x + x.  Written as a branch-free loop GCC vectorises; checked bit for bit
 * against libm on all 2^32 inputs for every build (tests/bench/bench_vexpf
 * cbrtB).  The first call compares the kernel with the running libm and
 * uses libm itself if any result differs (k_vcheck.c). */
/* glibc computes without FMA: no a * b + c may be fused here. */
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off", "vect-cost-model=dynamic")
#endif
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/k_internal.h"

#define VC_CBRT2 1.2599210498948731648      /* 2^(1/3) */
#define VC_SQR_CBRT2 1.5874010519681994748  /* 2^(2/3) */

/* c ? a : b as bit masks (m all ones or zero): a ?: would let GCC sink a
 * computation into a branch, which its vectoriser then refuses. */
static inline uint32_t vc_sel32(uint32_t m, uint32_t a, uint32_t b) { return (a & m) | (b & ~m); }
static inline uint64_t vc_sel64(uint64_t m, uint64_t a, uint64_t b) { return (a & m) | (b & ~m); }

#define VCBRT_BODY                                                                          \
  for (int64_t i = 0; i < n; i++) {                                                         \
    float x = in[i];                                                                        \
    uint32_t ix = k_asu32(x), ax = ix & 0x7fffffffu;                                       \
    uint32_t special = 0u - (uint32_t)(ax - 1u >= 0x7f800000u - 1u); /* 0, Inf, NaN */     \
    uint32_t sub = 0u - (uint32_t)(ax < 0x00800000u);                                       \
    /* frexpf(|x|): a subnormal's mantissa as a float, 2^149 times |x| */                   \
    uint32_t sb = k_asu32((float)(int32_t)(ax & 0x7fffffu));                               \
    uint32_t nb = vc_sel32(sub, sb, ax);                                                    \
    int32_t xe = (int32_t)(nb >> 23) - 126 - (int32_t)(sub & 149u);                         \
    float xm = k_asf32((nb & 0x007fffffu) | 0x3f000000u);                                  \
    double xmd = (double)xm;                                                                \
    float u = (float)(0.492659620528969547 +                                                \
                      (0.697570460207922770 - 0.191502161678719066 * xmd) * xmd);           \
    float t2 = u * u * u;                                                                   \
    int32_t r3 = xe % 3; /* -2 .. 2, as C truncates */                                      \
    uint64_t fb = k_asu64(1.0);                                                            \
    fb = vc_sel64(0u - (uint64_t)(r3 == 1), k_asu64(VC_CBRT2), fb);                        \
    fb = vc_sel64(0u - (uint64_t)(r3 == 2), k_asu64(VC_SQR_CBRT2), fb);                    \
    fb = vc_sel64(0u - (uint64_t)(r3 == -1), k_asu64(1.0 / VC_CBRT2), fb);                 \
    fb = vc_sel64(0u - (uint64_t)(r3 == -2), k_asu64(1.0 / VC_SQR_CBRT2), fb);             \
    float ym = (float)((double)u * ((double)t2 + 2.0 * xmd) / (2.0 * (double)t2 + xmd) *    \
                       k_asf64(fb));                                                       \
    /* +-ym 2^(xe / 3): an exponent add, exact */                                           \
    uint32_t yb = k_asu32(ym) + ((uint32_t)(xe / 3) << 23) + (ix & 0x80000000u);           \
    out[i] = k_asf32(vc_sel32(special, k_asu32(x + x), yb));                              \
  }

static void vcbrtf_sse(float *restrict out, const float *restrict in, int64_t n) { VCBRT_BODY }
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void vcbrtf_avx2(float *restrict out,
                                                       const float *restrict in, int64_t n) {
  VCBRT_BODY
}
#ifdef __clang__
#define VC_512 __attribute__((target("avx512f,avx512dq,avx512vl"), min_vector_width(512)))
#else
#define VC_512 __attribute__((target("avx512f,avx512dq,avx512vl,prefer-vector-width=512")))
#endif
VC_512 static void vcbrtf_avx512(float *restrict out, const float *restrict in, int64_t n) {
  VCBRT_BODY
}
#endif

KVEC_ENTRY(k_vcbrtf, vcbrtf_sse, vcbrtf_avx2, vcbrtf_avx512, cbrtf, -10.0f, 10.0f, false, false)
