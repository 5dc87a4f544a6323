/* Vectorised f32 tanh, bit-identical with glibc's scalar tanhf.
 *
 * Goldens and XLA's HloEvaluator take libm's tanhf, so, as k_vmath.c does
 * for exp, this file runs the algorithm of the libm we ship against rather
 * than a new approximation: Debian 12's glibc (2.36) uses fdlibm's
 * s_tanhf.c over fdlibm's s_expm1f.c, in single precision, without FMA:
 *
 *   |x| >= 1:  tanh = 1 - 2 / (expm1(2|x|) + 2)
 *   |x| <  1:  tanh = -t / (t + 2),  t = expm1(-2|x|)
 *   expm1(a):  a = k ln2 + r (hi/lo split), rational approximation of r,
 *              then one of six reconstructions chosen by k.
 *
 * Here every branch is computed on a whole vector (GCC's vector extension:
 * the auto-vectoriser will not if-convert this much control flow) and each
 * lane selects its branch's result.  Lanes off the main path
 * (|x| < 2^-55, |x| >= 22, NaN, Inf, 0) work on a harmless stand-in and take
 * fdlibm's special results at the end.  Checked bit for bit against libm on
 * all 2^32 inputs for every build (tests/bench/bench_vexpf tanh).
 *
 * Another libm may compute tanhf otherwise (glibc 2.41 made it correctly
 * rounded), so the first call compares this kernel with the running
 * libm on a spread of inputs and uses libm itself if any result differs:
 * the results stay libm's wherever hlotools runs. */
/* glibc computes without FMA: no a * b + c may be fused here (GCC's
 * pragma; clang ignores it and has its own). */
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
#define VT_INVLN2 1.4426950216e+00f
#define VT_LN2_HI 6.9313812256e-01f
#define VT_LN2_LO 9.0580006145e-06f
#define VT_Q1 -3.3333335072e-02f
#define VT_Q2 1.5873016091e-03f
#define VT_Q3 -7.9365076090e-05f
#define VT_Q4 4.0082177293e-06f
#define VT_Q5 -2.0109921195e-07f

/* NAME(out, in, n) over vectors of W lanes; the comments follow fdlibm. */
#define VTANH_DEFINE(NAME, W, PAIRS, TARGET)                                                \
  typedef float NAME##_vf __attribute__((vector_size(W * 4)));                              \
  typedef int32_t NAME##_vi __attribute__((vector_size(W * 4)));                            \
  typedef uint32_t NAME##_vu __attribute__((vector_size(W * 4)));                           \
  TARGET static inline NAME##_vf NAME##_sel(NAME##_vi m, NAME##_vf a, NAME##_vf b) {        \
    return (NAME##_vf)(((NAME##_vi)a & m) | ((NAME##_vi)b & ~m));                           \
  }                                                                                         \
  TARGET static inline NAME##_vi NAME##_seli(NAME##_vi m, NAME##_vi a, NAME##_vi b) {       \
    return (a & m) | (b & ~m);                                                              \
  }                                                                                         \
  TARGET static inline __attribute__((always_inline)) NAME##_vf NAME##_one(NAME##_vf x) {   \
    typedef NAME##_vf vf;                                                                   \
    typedef NAME##_vi vi;                                                                   \
    typedef NAME##_vu vu;                                                                   \
    const vf zero = {0};                                                                    \
    const vi izero = {0};                                                                   \
    vu jx = (vu)x, ix = jx & 0x7fffffffu;                                                   \
    vi neg = (vi)jx < 0;                                                                    \
    vi main_path = (ix >= 0x24000000u) & (ix < 0x41b00000u); /* 2^-55 <= |x| < 22 */        \
    vf ax = (vf)NAME##_seli(main_path, (vi)ix, izero + 0x3f000000); /* |x|, else 0.5 */     \
    vi big = ax >= 1.0f;                                                                    \
    /* expm1f(a), a = 2|x| or -2|x| (exact) */                                              \
    vf a = NAME##_sel(big, zero + 2.0f, zero - 2.0f) * ax;                                  \
    vu ha = (vu)a & 0x7fffffffu;                                                            \
    vi kr = __builtin_convertvector(VT_INVLN2 * a + NAME##_sel(big, zero + 0.5f, zero - 0.5f), \
                                    vi);                                                    \
    /* k = 0 for |a| <= ln2/2, -1 below 1.5 ln2, else rounded a/ln2; fdlibm's k = +1      \
     * branch never runs here (|x| >= 1 makes a = 2|x| >= 2), so it is left out */          \
    vi k = NAME##_seli((vi)(ha <= 0x3eb17218u), izero,                                      \
                       NAME##_seli((vi)(ha < 0x3f851592u), izero - 1, kr));                \
    vf tk = __builtin_convertvector(k, vf);                                                 \
    vf hi = a - tk * VT_LN2_HI, lo = tk * VT_LN2_LO; /* k = 0: hi = a, lo = 0 */            \
    vf xr = hi - lo, c = (hi - xr) - lo;                                                    \
    vf hfx = 0.5f * xr, hxs = xr * hfx;                                                     \
    vf r1 = 1.0f + hxs * (VT_Q1 + hxs * (VT_Q2 + hxs * (VT_Q3 + hxs * (VT_Q4 + hxs * VT_Q5)))); \
    vf t = 3.0f - r1 * hfx;                                                                 \
    vf e = hxs * ((r1 - t) / (6.0f - xr * t));                                              \
    vf em_k0 = xr - (xr * e - hxs);                                                         \
    vf e2 = (xr * (e - c) - c) - hxs;                                                       \
    vf em_m1 = 0.5f * (xr - e2) - 0.5f;                                                     \
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
    em = NAME##_sel(k == -1, em_m1, em);                                                    \
    em = NAME##_sel(k == 0, em_k0, em);                                                     \
    em = NAME##_sel((vi)(ha < 0x33000000u), a, em); /* |a| < 2^-25: a */                    \
    /* tanh from it, then the sign */                                                       \
    vf q = NAME##_sel(big, zero + 2.0f, -em) / (em + 2.0f);                                 \
    vf z = NAME##_sel(big, 1.0f - q, q);                                                    \
    vf r = NAME##_sel(neg, -z, z);                                                          \
    /* off the main path: x (0), x (1 + x) (tiny), +-1 (big), 1/x +- 1 (Inf, NaN) */        \
    vf one_s = NAME##_sel(neg, zero - 1.0f, zero + 1.0f);                                   \
    vf sp = NAME##_sel((vi)(ix == 0u), x, x * (1.0f + x));                                  \
    sp = NAME##_sel((vi)(ix >= 0x41b00000u), one_s, sp);                                    \
    /* fdlibm's 1/x +- 1 without a division: +-1 for Inf, x quieted for NaN */              \
    vf inf_nan = NAME##_sel((vi)(ix == 0x7f800000u), one_s, x + x);                         \
    sp = NAME##_sel((vi)(ix >= 0x7f800000u), inf_nan, sp);                                  \
    return NAME##_sel(main_path, r, sp);                                                    \
  }                                                                                         \
  KVEC_LANE_LOOP(NAME, W, PAIRS, TARGET)

KVEC_LANE_BUILDS(VTANH_DEFINE, vtanhf)

typedef void (*VtanhFn)(float *restrict, const float *restrict, int64_t);

static void libm_tanhf(float *restrict out, const float *restrict in, int64_t n) {
  for (int64_t i = 0; i < n; i++) out[i] = tanhf(in[i]);
}

/* Whether fn gives libm's bits on a spread of inputs: every range and
 * reconstruction of the algorithm, where another libm's rounding would
 * show. */
static bool agrees_with_libm(VtanhFn fn) {
  enum { N = 4096 };
  float x[N], a[N]; /* on the stack: devices' threads may pick at once */
  for (int i = 0; i < N; i++) { /* +-2^-30 .. +-2^5, densely in [-1, 1] */
    float m = 1.0f + (float)(i % 512) / 512.0f;
    int p = -30 + (i / 8) % 36;
    x[i] = ldexpf(m, p) * (i % 2 ? -1.0f : 1.0f);
  }
  fn(a, x, N);
  for (int i = 0; i < N; i++) {
    float l = tanhf(x[i]);
    if (memcmp(&l, &a[i], 4)) return false;
  }
  return true;
}

static VtanhFn vtanhf_pick(void) {
  VtanhFn fn = vtanhf_sse;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
      __builtin_cpu_supports("avx512vl"))
    fn = vtanhf_avx512;
  else if (__builtin_cpu_supports("avx2"))
    fn = vtanhf_avx2;
#endif
  return agrees_with_libm(fn) ? fn : libm_tanhf;
}

void k_vtanhf(float *restrict out, const float *restrict in, int64_t n) {
  static VtanhFn fn;
  VtanhFn f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
  if (!f) {
    f = vtanhf_pick();
    __atomic_store_n(&fn, f, __ATOMIC_RELEASE);
  }
  f(out, in, n);
}

void k_vtanhf_build(int build, float *restrict out, const float *restrict in, int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (build == 2) vtanhf_avx512(out, in, n);
  else if (build == 1) vtanhf_avx2(out, in, n);
  else vtanhf_sse(out, in, n);
#else
  (void)build;
  vtanhf_sse(out, in, n);
#endif
}
