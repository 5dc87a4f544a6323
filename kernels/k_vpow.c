/* Vectorised f32 pow, bit-identical with glibc's scalar powf.
 *
 * As k_vmath.c does for exp, this evaluates the algorithm of the libm the
 * goldens come from: glibc >= 2.28 takes powf from Arm's optimized-routines
 * (MIT; glibc's sysdeps/ieee754/flt-32/e_powf.c, e_powf_log2_data.c,
 * e_exp2f_data.c, Szabolcs Nagy), all in double precision:
 *
 *   log2 x = k + log2(c) + P(z/c - 1)   (x = 2^k z as in logf, 16-entry
 *                                        table of 1/c, log2 c; quintic P)
 *   x^y = 2^(y log2 x): 2^(k/32) from the 32-entry table of expf (with the
 *         sign of the result added to its bits) times a cubic in the rest,
 *         rounded once to float.
 *
 * The vector loop takes x > 0 normal, or x < 0 normal with y an integer
 * (the sign then y's parity), y finite and non-zero, |y log2 x| < 126; the
 * other lanes (zeros, subnormals, Inf, NaN, x < 0 with y not an integer,
 * overflow and underflow) are left to libm's scalar powf after the loop,
 * bit-identical by definition.  x86_64 glibc runs an FMA build of powf
 * (GCC contracting a * b + c) on CPUs with FMA and AVX2 and a plain one
 * otherwise; MA() below is one or the other.  There are 2^64 input pairs,
 * so tests/test_vmath.c and bench_vexpf pow compare samples (every x bit
 * pattern against spreads of y).  The first call checks the chosen build
 * against the running libm and falls back to the plain build, then to libm
 * itself. */
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

/* 1/c and log2(c) for the sixteen subintervals (glibc's __powf_log2_data). */
static const double vp_invc[16] = {
    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0,  0x1.3c995b0b80385p+0,
    0x1.30d190c8864a5p+0, 0x1.25e227b0b8eap+0,  0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,
    0x1.0953f419900a7p+0, 0x1p+0,               0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,
    0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1,
};
static const double vp_logc[16] = {
    -0x1.efec65b963019p-2, -0x1.b0b6832d4fca4p-2, -0x1.7418b0a1fb77bp-2, -0x1.39de91a6dcf7bp-2,
    -0x1.01d9bf3f2b631p-2, -0x1.97c1d1b3b7afp-3,  -0x1.2f9e393af3c9fp-3, -0x1.960cbbf788d5cp-4,
    -0x1.a6f9db6475fcep-5, 0x0p+0,                0x1.338ca9f24f53dp-4,  0x1.476a9543891bap-3,
    0x1.e840b4ac4e4d2p-3,  0x1.40645f0c6651cp-2,  0x1.88e9c2c1b9ff8p-2,  0x1.ce0a44eb17bccp-2,
};
#define VP_A0 0x1.27616c9496e0bp-2
#define VP_A1 -0x1.71969a075c67ap-2
#define VP_A2 0x1.ec70a6ca7baddp-2
#define VP_A3 -0x1.7154748bef6c8p-1
#define VP_A4 0x1.71547652ab82bp0
#define VP_OFF 0x3f330000u

#define VP_SHIFT (0x1.8p+52 / 32)
#define VP_C0 0x1.c6af84b912394p-5
#define VP_C1 0x1.ebfce50fac4f3p-3
#define VP_C2 0x1.62e42ff0c52d6p-1


/* One vectorisable loop; MA(a, b, c) = a * b + c, fused or not.  Returns
 * whether any lane is left for libm: its out[i] is then NaN. */
#define VPOW_BODY(MA)                                                                       \
  uint32_t any_scalar = 0;                                                                  \
  for (int64_t i = 0; i < n; i++) {                                                         \
    float yv = b[i];                                                                        \
    uint32_t ix = k_asu32(a[i]), iy = k_asu32(yv);                                        \
    uint32_t ax = ix & 0x7fffffffu;                                                         \
    uint32_t normal = ax - 0x00800000u < 0x7f800000u - 0x00800000u;                         \
    uint32_t y_ok = 2 * iy - 1 < 2u * 0x7f800000u - 1; /* y finite, non-zero */            \
    /* for x < 0, y must be an integer and its parity gives the sign (glibc's */           \
    /* checkint); all in 0/1 integers, which GCC keeps branch-free */                      \
    uint32_t e = (iy >> 23) & 0xff;                                                         \
    uint32_t in_range = (e >= 0x7f) & (e <= 0x7f + 23);                                     \
    uint32_t sh = (0x7f + 23 - e) & (0u - in_range); /* 0 out of range */                   \
    uint32_t frac = (iy & ((UINT32_C(1) << sh) - 1)) != 0;                                  \
    uint32_t odd = in_range & (frac ^ 1) & ((iy >> sh) & 1);                                  \
    uint32_t is_int = (e > 0x7f + 23) | (in_range & (frac ^ 1));                              \
    uint32_t neg = ix >> 31;                                                                \
    uint32_t vec = y_ok & normal & ((neg ^ 1) | is_int);                                      \
    uint64_t sign_bias = (uint64_t)(neg & odd) << 16;                                       \
    uint32_t vm = 0u - vec;                                                                 \
    uint32_t lx = (ax & vm) | (0x3f800000u & ~vm); /* other lanes: 1 */                     \
    /* log2 |x| */                                                                          \
    uint32_t tmp = lx - VP_OFF;                                                             \
    uint64_t t = (tmp >> 19) % 16; /* 64 bits: GCC gathers doubles by those */            \
    uint32_t top = tmp & 0xff800000u;                                                       \
    double z = (double)k_asf32(lx - top);                                                  \
    double k = (double)((int32_t)top >> 23);                                                \
    double r = MA(z, vp_invc[t], -1.0);                                                     \
    double y0 = vp_logc[t] + k;                                                             \
    double r2 = r * r;                                                                      \
    double y = MA(VP_A0, r, VP_A1);                                                         \
    double p = MA(VP_A2, r, VP_A3);                                                         \
    double r4 = r2 * r2;                                                                    \
    double q = MA(VP_A4, r, y0);                                                            \
    q = MA(p, r2, q);                                                                       \
    y = MA(y, r4, q);                                                                       \
    double yl = (double)yv * y;                                                             \
    uint32_t big = ((k_asu64(yl) >> 47) & 0xffff) >= (k_asu64(126.0) >> 47);             \
    uint32_t to_libm = (vec ^ 1) | big;                                                     \
    any_scalar |= to_libm;                                                                  \
    double xd = k_asf64(k_asu64(yl) & ((uint64_t)to_libm - 1)); /* those: 0 */            \
    /* 2^xd */                                                                              \
    double kd = xd + VP_SHIFT;                                                              \
    uint64_t ki = k_asu64(kd);                                                             \
    kd -= VP_SHIFT;                                                                         \
    double rr = xd - kd;                                                                    \
    double s = k_asf64(k_exp2_tab[ki % 32] + ((ki + sign_bias) << 47));                   \
    double zz = MA(VP_C0, rr, VP_C1);                                                       \
    double rr2 = rr * rr;                                                                   \
    double w = MA(VP_C2, rr, 1.0);                                                          \
    w = MA(zz, rr2, w);                                                                     \
    /* lanes left to libm marked NaN, which no lane of the loop gives otherwise */         \
    uint32_t mark = 0u - to_libm, res = k_asu32((float)(w * s));                           \
    o[i] = k_asf32((res & ~mark) | (0x7fc00000u & mark));                                  \
  }                                                                                         \
  return any_scalar != 0;

#define VP_PLAIN(a, b, c) ((a) * (b) + (c))
#define VP_FUSED(a, b, c) __builtin_fma((a), (b), (c))

typedef bool (*VpowLoop)(float *restrict, const float *restrict, const float *restrict, int64_t);

static bool vpow_plain_loop(float *restrict o, const float *restrict a, const float *restrict b,
                            int64_t n) {
  VPOW_BODY(VP_PLAIN)
}
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static bool vpow_fma_loop(float *restrict o,
                                                             const float *restrict a,
                                                             const float *restrict b, int64_t n) {
  VPOW_BODY(VP_FUSED)
}
#ifdef __clang__
#define VP_512 __attribute__((target("avx512f,avx512dq,avx512vl,fma"), min_vector_width(512)))
#else
#define VP_512 __attribute__((target("avx512f,avx512dq,avx512vl,fma,prefer-vector-width=512")))
#endif
VP_512 static bool vpow_fma512_loop(float *restrict o, const float *restrict a,
                                    const float *restrict b, int64_t n) {
  VPOW_BODY(VP_FUSED)
}
#endif

static void vpow_run(VpowLoop loop, float *restrict o, const float *restrict a,
                     const float *restrict b, int64_t n) {
  enum { BLOCK = 1024 };
  for (int64_t at = 0; at < n; at += BLOCK) {
    int64_t m = n - at < BLOCK ? n - at : BLOCK;
    if (!loop(o + at, a + at, b + at, m)) continue;
    for (int64_t i = at; i < at + m; i++)
      if (o[i] != o[i]) /* NaN: left to libm */
        o[i] = powf(a[i], b[i]);
  }
}

static void vpow_plain(float *restrict o, const float *restrict a, const float *restrict b,
                       int64_t n) {
  vpow_run(vpow_plain_loop, o, a, b, n);
}
#if defined(__x86_64__) && defined(__GNUC__)
static void vpow_fma(float *restrict o, const float *restrict a, const float *restrict b,
                     int64_t n) {
  vpow_run(vpow_fma_loop, o, a, b, n);
}
static void vpow_fma512(float *restrict o, const float *restrict a, const float *restrict b,
                        int64_t n) {
  vpow_run(vpow_fma512_loop, o, a, b, n);
}
#endif
static void vpow_libm(float *restrict o, const float *restrict a, const float *restrict b,
                      int64_t n) {
  for (int64_t i = 0; i < n; i++) o[i] = powf(a[i], b[i]);
}

/* Whether fn gives libm's bits on a spread of pairs: x over every exponent
 * of both signs and densely over [0, 4], y over small fractions, integers
 * of both parities, and every exponent. */
static bool vpow_agrees_with_libm(KVec2Fn fn) {
  enum { N = 4096 };
  float x[N], y[N], got[N]; /* on the stack: devices' threads may pick at once */
  for (int i = 0; i < N; i++) {
    uint32_t u = (uint32_t)i * (UINT32_C(1) << 20) + (uint32_t)i * 2654435761u % (1u << 20);
    if (i % 3 == 0) memcpy(&x[i], &u, 4);
    else x[i] = (float)(i % 997) / 249.0f * (i % 2 ? -1.0f : 1.0f);
    if (i % 4 == 0) y[i] = (float)(i % 9) - 4.0f;
    else if (i % 4 == 1) y[i] = ((float)(i % 101) - 50.0f) / 8.0f;
    else if (i % 4 == 2) memcpy(&y[i], &u, 4), y[i] = y[i] * 0.0f + (float)(i % 31) * 0.37f;
    else {
      uint32_t v = u ^ 0x5bd1e995u;
      memcpy(&y[i], &v, 4);
    }
  }
  fn(got, x, y, N);
  for (int i = 0; i < N; i++) {
    float want = powf(x[i], y[i]);
    if (memcmp(&want, &got[i], 4)) return false;
  }
  return true;
}

static KVec2Fn vpow_build_fn(int build) {
#if defined(__x86_64__) && defined(__GNUC__)
  if (build == 2) return vpow_fma512;
  if (build == 1) return vpow_fma;
#endif
  (void)build;
  return vpow_plain;
}

/* glibc uses its FMA powf when the CPU has FMA and AVX2; without AVX2 the
 * table lookups are emulated gathers, so libm's loop is used then (the
 * plain build remains the fallback for a libm that runs its plain powf on
 * an FMA CPU). */
static KVec2Fn vpow_pick(void) {
  KVec2Fn fn = vpow_libm;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2"))
    fn = vpow_build_fn(__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                               __builtin_cpu_supports("avx512vl")
                           ? 2
                           : 1);
#endif
  if (fn == vpow_libm || vpow_agrees_with_libm(fn)) return fn;
  if (vpow_agrees_with_libm(vpow_plain)) return vpow_plain;
  return vpow_libm;
}

void k_vpowf(float *restrict out, const float *restrict x, const float *restrict y, int64_t n) {
  static KVec2Fn fn;
  KVec2Fn f = __atomic_load_n(&fn, __ATOMIC_ACQUIRE);
  if (!f) {
    f = vpow_pick();
    __atomic_store_n(&fn, f, __ATOMIC_RELEASE);
  }
  f(out, x, y, n);
}

void k_vpowf_build(int build, float *restrict out, const float *restrict x, const float *restrict y,
                   int64_t n) {
  vpow_build_fn(build)(out, x, y, n);
}
