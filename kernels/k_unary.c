/* Elementwise unary ops.  One typed loop per (op, type): the op switch sits
 * outside the loops.  Narrow floats are widened to f32 in blocks, computed,
 * and rounded back. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include <complex.h>
#include <math.h>
#include <string.h>

#include "base/cmplx.h"
#include "kernels/k_internal.h"
#include "kernels/kernels.h"

static const char *const unary_names[KU_COUNT] = {
#define KOP(id, name) [KU_##id] = name,
    K_UNARY_OPS(KOP)
#undef KOP
};

const char *k_unary_name(KUnaryOp op) { return (unsigned)op < KU_COUNT ? unary_names[op] : "?"; }

bool k_unary_lookup(const char *name, KUnaryOp *op) {
  for (int i = 0; i < KU_COUNT; i++)
    if (strcmp(unary_names[i], name) == 0) return *op = (KUnaryOp)i, true;
  return false;
}

EType k_unary_result_type(KUnaryOp op, EType t) {
  bool fl = etype_is_float(t), cx = etype_is_complex(t), in = etype_is_int(t);
  EType real_of = t == ET_C64 ? ET_F32 : ET_F64;
  switch (op) {
  case KU_IS_FINITE: return fl ? ET_PRED : ET_INVALID;
  case KU_REAL: case KU_IMAG: return fl ? t : cx ? real_of : ET_INVALID;
  case KU_ABS: return fl || in ? t : cx ? real_of : ET_INVALID;
  case KU_NOT: return in || t == ET_PRED ? t : ET_INVALID;
  case KU_POPCNT: case KU_CLZ: return in ? t : ET_INVALID;
  case KU_NEGATE: case KU_SIGN: return fl || cx || in ? t : ET_INVALID;
  case KU_CEIL: case KU_FLOOR: case KU_ROUND_AFZ: case KU_ROUND_EVEN: case KU_CBRT: case KU_ERF:
    return fl ? t : ET_INVALID;
  case KU_COS: case KU_SIN: case KU_TAN: case KU_EXP: case KU_EXPM1: case KU_LOG: case KU_LOG1P:
  case KU_LOGISTIC: case KU_RSQRT: case KU_SQRT: case KU_TANH:
    return fl || cx ? t : ET_INVALID;
  default: return ET_INVALID;
  }
}

#define LOOP(EXPR)                               \
  do {                                           \
    for (int64_t i = 0; i < n; i++) o[i] = (__typeof__(o[i]))(EXPR); \
  } while (0)

/* ---- real floats: F = float/double, S = libm suffix ---- */
/* Round half to even: the builtin where the compiler has it (GCC, clang >=
 * 15), else nearbyint, which rounds so in the default rounding mode (the
 * library never changes it). */
#if defined(__has_builtin)
#if __has_builtin(__builtin_roundeven)
#define K_HAVE_ROUNDEVEN 1
#endif
#elif defined(__GNUC__) && __GNUC__ >= 10
#define K_HAVE_ROUNDEVEN 1
#endif
#ifdef K_HAVE_ROUNDEVEN
#define K_ROUNDEVEN(x) __builtin_roundeven(x)
#define K_ROUNDEVENf(x) __builtin_roundevenf(x)
#else
#define K_ROUNDEVEN(x) nearbyint(x)
#define K_ROUNDEVENf(x) nearbyintf(x)
#endif

/* K_CLONES: as k_binary.c's float loops, exact operations or libm calls. */
#define FLOAT_UNARY(NAME, F, S)                                                          \
  K_CLONES static void NAME(KUnaryOp op, F *restrict o, const F *restrict x, int64_t n) {         \
    switch (op) {                                                                        \
    case KU_ABS: LOOP(fabs##S(x[i])); break;                                             \
    case KU_CEIL: LOOP(ceil##S(x[i])); break;                                            \
    case KU_COS: LOOP(cos##S(x[i])); break;                                              \
    case KU_SIN: LOOP(sin##S(x[i])); break;                                              \
    case KU_TAN: LOOP(tan##S(x[i])); break;                                              \
    case KU_EXP: LOOP(exp##S(x[i])); break;                                              \
    case KU_EXPM1: LOOP(expm1##S(x[i])); break;                                          \
    case KU_FLOOR: LOOP(floor##S(x[i])); break;                                          \
    case KU_REAL: LOOP(x[i]); break;                                                     \
    case KU_IMAG: LOOP((F)0); break;                                                     \
    case KU_LOG: LOOP(log##S(x[i])); break;                                              \
    case KU_LOG1P: LOOP(log1p##S(x[i])); break;                                          \
    case KU_LOGISTIC: LOOP((F)1 / ((F)1 + exp##S(-x[i]))); break;                        \
    case KU_NEGATE: LOOP(-x[i]); break;                                                  \
    case KU_RSQRT: LOOP((F)1 / sqrt##S(x[i])); break;                                    \
    case KU_SIGN: LOOP(x[i] > 0 ? (F)1 : x[i] < 0 ? (F)-1 : x[i]); break;                \
    case KU_SQRT: LOOP(sqrt##S(x[i])); break;                                            \
    case KU_CBRT: LOOP(cbrt##S(x[i])); break;                                            \
    case KU_TANH: LOOP(tanh##S(x[i])); break;                                            \
    case KU_ERF: LOOP(erf##S(x[i])); break;                                              \
    case KU_ROUND_AFZ: LOOP(round##S(x[i])); break;                                      \
    case KU_ROUND_EVEN: LOOP(K_ROUNDEVEN##S(x[i])); break;                               \
    default: break;                                                                      \
    }                                                                                    \
  }
FLOAT_UNARY(unary_f32_libm, float, f)
FLOAT_UNARY(unary_f64, double, )

/* f32 exp (and logistic, built on it), tanh, log, log1p, expm1, sin, cos, erf
 * and cbrt through the vector kernels: bit for bit libm's (kernels/k_vmath.c,
 * k_vtanh.c, k_vlog.c, k_vlog1p.c, k_vexpm1.c, k_vsincos.c, k_verf.c,
 * k_vcbrt.c). */
static const KVecFn vector_f32[KU_COUNT] = {
    [KU_EXP] = k_vexpf,     [KU_TANH] = k_vtanhf, [KU_LOG] = k_vlogf,
    [KU_LOG1P] = k_vlog1pf, [KU_EXPM1] = k_vexpm1f, [KU_SIN] = k_vsinf,
    [KU_COS] = k_vcosf,     [KU_ERF] = k_verff,   [KU_CBRT] = k_vcbrtf,
};

static void unary_f32(KUnaryOp op, float *restrict o, const float *restrict x, int64_t n) {
  if (vector_f32[op]) {
    vector_f32[op](o, x, n);
  } else if (op == KU_LOGISTIC) {
    float t[K_BLOCK], e[K_BLOCK];
    for (int64_t at = 0; at < n; at += K_BLOCK) {
      int64_t m = n - at < K_BLOCK ? n - at : K_BLOCK;
      for (int64_t i = 0; i < m; i++) t[i] = -x[at + i];
      k_vexpf(e, t, m);
      for (int64_t i = 0; i < m; i++) o[at + i] = 1.0f / (1.0f + e[i]);
    }
  } else {
    unary_f32_libm(op, o, x, n);
  }
}

/* ---- complex: C = complex type, R = real type, S = suffix ---- */

/* log1p(z) = log|z + 1| + i*arg(z + 1). Forming 1 + z first (clog(z + 1))
 * drops the real part of a small z entirely (log1p(1e-13 + 0i) came out 0),
 * so the modulus term is computed the way XLA does to keep it:
 *   - |z + 1| between 1/2 and BIG: 0.5*log1p(x*(x + 2) + y*y), i.e.
 *     log((x+1)^2 + y^2)/2 without the cancelling "+1 ... -1";
 *   - |z + 1| < 1/2 (where x*(x + 2) would cancel against -1) or > BIG (where
 *     the squares overflow): log(m) + 0.5*log1p((n/m)^2) with m, n the larger
 *     and smaller of |x + 1| and |y|, exact since x + 1 is exact there.
 * BIG keeps the squares finite (about sqrt(max) / 4). */
#define COMPLEX_LOG1P(NAME, C, R, S, MAKE, BIG)                                               \
  static inline C NAME(C z) {                                                                 \
    R x = creal##S(z), y = cimag##S(z), xp1 = x + (R)1;                                       \
    R ax = fabs##S(xp1), ay = fabs##S(y);                                                     \
    R m = ax > ay ? ax : ay, sm = ax > ay ? ay : ax, re;                                      \
    if (isinf(m)) re = (R)INFINITY;                                                           \
    else if (m == 0) re = -(R)INFINITY;                                                       \
    else if (m < (R)0.5 || m > (R)(BIG)) {                                                    \
      R q = sm / m;                                                                           \
      re = log##S(m) + (R)0.5 * log1p##S(q * q);                                              \
    } else                                                                                    \
      re = (R)0.5 * log1p##S(x * (x + (R)2) + y * y);                                         \
    return MAKE(re, atan2##S(y, xp1));                                                        \
  }
COMPLEX_LOG1P(clog1pf_accurate, float complex, float, f, CMPLXF, 4.0e18)
COMPLEX_LOG1P(clog1p_accurate, double complex, double, , CMPLX, 3.0e153)

/* expm1(z) = (e^x - 1)cos y - 2 sin^2(y/2) + i e^x sin y: cexp(z) - 1 loses
 * the real part of a small z the same way. A zero imaginary part stays zero
 * (e^x * 0 would be NaN for x = inf). */
#define COMPLEX_EXPM1(NAME, C, R, S, MAKE)                                                    \
  static inline C NAME(C z) {                                                                 \
    R x = creal##S(z), y = cimag##S(z), h = sin##S(y * (R)0.5);                               \
    R re = y == 0 ? expm1##S(x) : expm1##S(x) * cos##S(y) - (R)2 * h * h;                     \
    return MAKE(re, y == 0 ? y : exp##S(x) * sin##S(y));                                      \
  }
COMPLEX_EXPM1(cexpm1f_accurate, float complex, float, f, CMPLXF)
COMPLEX_EXPM1(cexpm1_accurate, double complex, double, , CMPLX)

#define COMPLEX_UNARY(NAME, C, R, S)                                                          \
  static void NAME(KUnaryOp op, void *restrict out, const C *restrict x, int64_t n) {         \
    C *o = (C *)out;                                                                          \
    R *r = (R *)out;                                                                          \
    switch (op) {                                                                             \
    case KU_ABS: for (int64_t i = 0; i < n; i++) r[i] = cabs##S(x[i]); break;                 \
    case KU_REAL: for (int64_t i = 0; i < n; i++) r[i] = creal##S(x[i]); break;               \
    case KU_IMAG: for (int64_t i = 0; i < n; i++) r[i] = cimag##S(x[i]); break;               \
    case KU_COS: LOOP(ccos##S(x[i])); break;                                                  \
    case KU_SIN: LOOP(csin##S(x[i])); break;                                                  \
    case KU_TAN: LOOP(ctan##S(x[i])); break;                                                  \
    case KU_EXP: LOOP(cexp##S(x[i])); break;                                                  \
    case KU_EXPM1: LOOP(cexpm1##S##_accurate(x[i])); break;                                   \
    case KU_LOG: LOOP(clog##S(x[i])); break;                                                  \
    case KU_LOG1P: LOOP(clog1p##S##_accurate(x[i])); break;                                   \
    case KU_LOGISTIC: LOOP((R)1 / ((R)1 + cexp##S(-x[i]))); break;                            \
    case KU_NEGATE: LOOP(-x[i]); break;                                                       \
    case KU_RSQRT: LOOP((R)1 / csqrt##S(x[i])); break;                                        \
    case KU_SQRT: LOOP(csqrt##S(x[i])); break;                                                \
    case KU_TANH: LOOP(ctanh##S(x[i])); break;                                                \
    case KU_SIGN: LOOP(x[i] == 0 ? (C)0 : x[i] / cabs##S(x[i])); break;                       \
    default: break;                                                                           \
    }                                                                                         \
  }
COMPLEX_UNARY(unary_c64, float complex, float, f)
COMPLEX_UNARY(unary_c128, double complex, double, )

/* ---- integers: T storage type, U its unsigned twin, W bit width ---- */
#define IS_NEG(v) ((v) < 0)
#define NEVER_NEG(v) 0

static inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
static inline int bitlen64(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }

#define INT_UNARY(NAME, T, U, SIGNED, ISNEG)                                                          \
  static void NAME(KUnaryOp op, T *restrict o, const T *restrict x, int64_t n, int w) {        \
    uint64_t mask = w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;                             \
    switch (op) {                                                                              \
    case KU_NEGATE: LOOP((T)(U)(0u - (U)x[i])); break;                                         \
    case KU_ABS: LOOP(ISNEG(x[i]) ? (T)(U)(0u - (U)x[i]) : x[i]); break;                \
    case KU_SIGN: LOOP((T)((x[i] > 0) - ISNEG(x[i]))); break;                                   \
    case KU_NOT: LOOP((T)(U)~(U)x[i]); break;                                                  \
    case KU_POPCNT: LOOP((T)popcount64((uint64_t)(U)x[i] & mask)); break;                      \
    case KU_CLZ: LOOP((T)(w - bitlen64((uint64_t)(U)x[i] & mask))); break;                     \
    default: break;                                                                            \
    }                                                                                          \
    if (w < (int)(8 * sizeof(T)))                                                              \
      for (int64_t i = 0; i < n; i++) o[i] = (T)k_wrap((int64_t)o[i], w, SIGNED);              \
  }
INT_UNARY(unary_s8, int8_t, uint8_t, true, IS_NEG)
INT_UNARY(unary_s16, int16_t, uint16_t, true, IS_NEG)
INT_UNARY(unary_s32, int32_t, uint32_t, true, IS_NEG)
INT_UNARY(unary_s64, int64_t, uint64_t, true, IS_NEG)
INT_UNARY(unary_u8, uint8_t, uint8_t, false, NEVER_NEG)
INT_UNARY(unary_u16, uint16_t, uint16_t, false, NEVER_NEG)
INT_UNARY(unary_u32, uint32_t, uint32_t, false, NEVER_NEG)
INT_UNARY(unary_u64, uint64_t, uint64_t, false, NEVER_NEG)

static void unary_narrow(KUnaryOp op, EType t, EType rt, void *restrict out, const void *restrict in,
                         int64_t n) {
  float a[K_BLOCK], r[K_BLOCK];
  int sz = etype_storage_bytes(t), rsz = etype_storage_bytes(rt);
  for (int64_t at = 0; at < n; at += K_BLOCK) {
    int64_t m = n - at < K_BLOCK ? n - at : K_BLOCK;
    etype_convert_array(ET_F32, a, t, (const char *)in + at * sz, m);
    if (op == KU_IS_FINITE) {
      uint8_t *o = (uint8_t *)out + at;
      for (int64_t i = 0; i < m; i++) o[i] = (uint8_t)isfinite(a[i]);
      continue;
    }
    unary_f32(op, r, a, m);
    etype_convert_array(rt, (char *)out + at * rsz, ET_F32, r, m);
  }
}

bool k_unary(KUnaryOp op, EType t, void *restrict out, const void *restrict in, int64_t n, Error *err) {
  EType rt = k_unary_result_type(op, t);
  if (rt == ET_INVALID)
    return error_set(err, ERR_RUNTIME, -1, "%s is not defined for element type %s", k_unary_name(op),
                     etype_name(t));
  if (n <= 0) return true;
  int w = etype_bits(t);
  switch (t) {
  case ET_PRED: { /* only `not` */
    uint8_t *o = out;
    const uint8_t *x = in;
    LOOP((uint8_t)!x[i]);
    return true;
  }
  case ET_F32:
    if (op == KU_IS_FINITE) {
      uint8_t *o = out;
      const float *x = in;
      LOOP((uint8_t)isfinite(x[i]));
    } else {
      unary_f32(op, out, in, n);
    }
    return true;
  case ET_F64:
    if (op == KU_IS_FINITE) {
      uint8_t *o = out;
      const double *x = in;
      LOOP((uint8_t)isfinite(x[i]));
    } else {
      unary_f64(op, out, in, n);
    }
    return true;
  case ET_C64: unary_c64(op, out, in, n); return true;
  case ET_C128: unary_c128(op, out, in, n); return true;
  case ET_S1: case ET_S2: case ET_S4: case ET_S8: unary_s8(op, out, in, n, w); return true;
  case ET_S16: unary_s16(op, out, in, n, w); return true;
  case ET_S32: unary_s32(op, out, in, n, w); return true;
  case ET_S64: unary_s64(op, out, in, n, w); return true;
  case ET_U1: case ET_U2: case ET_U4: case ET_U8: unary_u8(op, out, in, n, w); return true;
  case ET_U16: unary_u16(op, out, in, n, w); return true;
  case ET_U32: unary_u32(op, out, in, n, w); return true;
  case ET_U64: unary_u64(op, out, in, n, w); return true;
  default:
    if (k_is_narrow_float(t)) {
      unary_narrow(op, t, rt, out, in, n);
      return true;
    }
    return error_set(err, ERR_RUNTIME, -1, "%s is not defined for element type %s", k_unary_name(op),
                     etype_name(t));
  }
}
