/* Vectorised f32 log, bit-identical with glibc's scalar logf.
 *
 * As k_vmath.c does for exp, this evaluates the algorithm of the libm the
 * goldens come from rather than a new approximation: glibc >= 2.28 takes
 * logf from Arm's optimized-routines (MIT; glibc's
 * sysdeps/ieee754/flt-32/e_logf.c and e_logf_data.c, Szabolcs Nagy):
 *
 *   x = 2^k z, z in [0x3f330000, 2 * 0x3f330000) as float bits (exact)
 *   c = table centre of z's sixteenth of that range, 1/c and log(c) tabled
 *   r = z/c - 1 = z * (1/c) - 1                       (all in double)
 *   log(x) = k ln2 + log(c) + r + A0 r^4 + A1 r^3 + A2 r^2
 *
 * rounded once to float.  Subnormals are scaled by 2^23 first; x < 0, -Inf
 * and NaN give (x - x) / (x - x), +-0 gives -Inf, +Inf itself.  As for expf,
 * x86_64 glibc runs an FMA build of logf (GCC contracting a * b + c) on CPUs
 * with FMA and AVX2 and a plain one otherwise; the MA() macro below is one
 * or the other, so each build matches glibc's on all 2^32 inputs
 * (tests/bench/bench_vexpf log1 / log2, and log0 under
 * GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA).  The first call checks the
 * chosen build against the running libm and falls back to the plain build,
 * then to libm itself (k_vcheck.c). */
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

/* 1/c and log(c) for the sixteen subintervals (glibc's __logf_data). */
static const double vlog_invc[16] = {
    0x1.661ec79f8f3bep+0, 0x1.571ed4aaf883dp+0, 0x1.49539f0f010bp+0,  0x1.3c995b0b80385p+0,
    0x1.30d190c8864a5p+0, 0x1.25e227b0b8eap+0,  0x1.1bb4a4a1a343fp+0, 0x1.12358f08ae5bap+0,
    0x1.0953f419900a7p+0, 0x1p+0,               0x1.e608cfd9a47acp-1, 0x1.ca4b31f026aap-1,
    0x1.b2036576afce6p-1, 0x1.9c2d163a1aa2dp-1, 0x1.886e6037841edp-1, 0x1.767dcf5534862p-1,
};
static const double vlog_logc[16] = {
    -0x1.57bf7808caadep-2, -0x1.2bef0a7c06ddbp-2, -0x1.01eae7f513a67p-2, -0x1.b31d8a68224e9p-3,
    -0x1.6574f0ac07758p-3, -0x1.1aa2bc79c81p-3,   -0x1.a4e76ce8c0e5ep-4, -0x1.1973c5a611cccp-4,
    -0x1.252f438e10c1ep-5, 0x0p+0,                0x1.aa5aa5df25984p-5,  0x1.c5e53aa362eb4p-4,
    0x1.526e57720db08p-3,  0x1.bc2860d22477p-3,   0x1.1058bc8a07ee1p-2,  0x1.4043057b6ee09p-2,
};
#define VLOG_LN2 0x1.62e42fefa39efp-1
#define VLOG_A0 -0x1.00ea348b88334p-2
#define VLOG_A1 0x1.5575b0be00b6ap-2
#define VLOG_A2 -0x1.ffffef20a4123p-2
#define VLOG_OFF 0x3f330000u


/* c ? a : b as a bit mask: a ?: would let GCC sink a's computation into a
 * branch, which its vectoriser then refuses. */
static inline uint32_t vl_sel(bool c, uint32_t a, uint32_t b) {
  uint32_t m = 0u - (uint32_t)c;
  return (a & m) | (b & ~m);
}

/* What (x - x) / (x - x) gives for x = -Inf on this CPU (x86: -NaN, Arm:
 * +NaN), computed at run time, not folded by the compiler. */
static uint32_t vl_default_nan(void) {
  volatile float inf = INFINITY;
  float x = inf;
  return k_asu32((x - x) / (x - x));
}

/* MA(a, b, c) = a * b + c, fused or not. */
#define VLOG_BODY(MA)                                                                       \
  uint32_t default_nan = vl_default_nan();                                                  \
  for (int64_t i = 0; i < n; i++) {                                                         \
    float x = in[i];                                                                        \
    uint32_t ix = k_asu32(x);                                                              \
    bool special = ix - 0x00800000u >= 0x7f800000u - 0x00800000u; /* < 2^-126, Inf, NaN */ \
    /* subnormals (and the other special lanes, whose result is replaced) scaled */         \
    /* x * 2^23 for a subnormal, in integers: GCC will not if-convert an FP op */          \
    uint32_t scaled = k_asu32((float)(int32_t)(ix & 0x7fffffu)) - ((126u + 23u) << 23);     \
    uint32_t iy = vl_sel(special, scaled, ix);                                              \
    uint32_t tmp = iy - VLOG_OFF;                                                           \
    uint64_t t = (tmp >> 19) % 16; /* 64 bits: GCC gathers doubles by those */            \
    int32_t k = (int32_t)tmp >> 23;                                                         \
    double z = (double)k_asf32(iy - (tmp & 0xff800000u));                                  \
    double r = MA(z, vlog_invc[t], -1.0);                                                   \
    double y0 = MA((double)k, VLOG_LN2, vlog_logc[t]);                                      \
    double r2 = r * r;                                                                      \
    double y = MA(VLOG_A1, r, VLOG_A2);                                                     \
    y = MA(VLOG_A0, r2, y);                                                                 \
    y = MA(y, r2, y0 + r);                                                                  \
    float res = (float)y;                                                                   \
    /* (x - x) / (x - x): NaN quietened, else the CPU's default NaN */                      \
    float invalid = k_asf32(ix * 2 > 0xff000000u ? ix | 0x00400000u : default_nan);       \
    bool bad = (ix >> 31) | (ix * 2 >= 0xff000000u); /* x < 0 or NaN */                    \
    float sp = bad ? invalid : res;                                                         \
    sp = ix == 0x7f800000u ? x : sp;                                                        \
    sp = ix * 2 == 0 ? -(float)INFINITY : sp;                                               \
    out[i] = special ? sp : res;                                                            \
  }

#define VLOG_PLAIN(a, b, c) ((a) * (b) + (c))
#define VLOG_FUSED(a, b, c) __builtin_fma((a), (b), (c))

static void vlogf_plain(float *restrict out, const float *restrict in, int64_t n) {
  VLOG_BODY(VLOG_PLAIN)
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2,fma"))) static void vlogf_fma(float *restrict out,
                                                         const float *restrict in, int64_t n) {
  VLOG_BODY(VLOG_FUSED)
}
#ifdef __clang__
#define VLOG_512 __attribute__((target("avx512f,avx512dq,avx512vl,fma"), min_vector_width(512)))
#else
#define VLOG_512 __attribute__((target("avx512f,avx512dq,avx512vl,fma,prefer-vector-width=512")))
#endif
VLOG_512 static void vlogf_fma512(float *restrict out, const float *restrict in, int64_t n) {
  VLOG_BODY(VLOG_FUSED)
}
#endif

/* Without AVX2 the table lookups are emulated gathers and the plain build
 * is slower than libm's scalar loop (5.7 vs 4.2 ns per element here): it is
 * then only the fallback for a libm that runs its plain build on an FMA
 * CPU (plain_slower). */
/* glibc runs its FMA logf on CPUs with FMA and AVX2.  Without AVX2 the
 * table lookups are emulated gathers and the plain build is slower than
 * libm's loop (5.7 vs 4.2 ns per element here): it is then only the
 * fallback for a libm that runs its plain build on an FMA CPU. */
KVEC_ENTRY(k_vlogf, vlogf_plain, vlogf_fma, vlogf_fma512, logf, 0.25f, 4.0f, true, true)
