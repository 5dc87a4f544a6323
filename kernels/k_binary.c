/* Elementwise binary ops.  One typed loop per (op, type) with the op switch
 * outside the loops, so f32/f64/int add, multiply, ... auto-vectorise. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include <complex.h>
#include <math.h>
#include <string.h>

#include "base/cmplx.h"
#include "kernels/k_internal.h"
#include "kernels/kernels.h"


static const char *const binary_names[KB_COUNT] = {
#define KOP(id, name) [KB_##id] = name,
    K_BINARY_OPS(KOP)
#undef KOP
};

const char *k_binary_name(KBinaryOp op) { return (unsigned)op < KB_COUNT ? binary_names[op] : "?"; }

bool k_binary_lookup(const char *name, KBinaryOp *op) {
  for (int i = 0; i < KB_COUNT; i++)
    if (strcmp(binary_names[i], name) == 0) return *op = (KBinaryOp)i, true;
  return false;
}

EType k_binary_result_type(KBinaryOp op, EType t) {
  bool fl = etype_is_float(t), cx = etype_is_complex(t), in = etype_is_int(t), pr = t == ET_PRED;
  switch (op) {
  case KB_ADD: case KB_MUL: case KB_MAX: case KB_MIN: return fl || cx || in || pr ? t : ET_INVALID;
  case KB_SUB: case KB_DIV: case KB_POW: return fl || cx || in ? t : ET_INVALID;
  case KB_REM: return fl || in ? t : ET_INVALID;
  case KB_ATAN2: return fl || cx ? t : ET_INVALID;
  case KB_AND: case KB_OR: case KB_XOR: return in || pr ? t : ET_INVALID;
  case KB_SHL: case KB_SHR_ARITH: case KB_SHR_LOGICAL: return in ? t : ET_INVALID;
  case KB_COMPLEX: return t == ET_F32 ? ET_C64 : t == ET_F64 ? ET_C128 : ET_INVALID;
  default: return ET_INVALID;
  }
}

#define LOOP(EXPR)                               \
  do {                                           \
    for (int64_t i = 0; i < n; i++) o[i] = (__typeof__(o[i]))(EXPR); \
  } while (0)

/* Built for AVX-512, AVX2 and the baseline (K_CLONES): one IEEE operation
 * per element or a libm call, so every build gives the same bits. */
#define FLOAT_BINARY(NAME, F, S, SFX)                                                              \
  K_CLONES static void NAME(KBinaryOp op, F *restrict o, const F *restrict a, const F *restrict b, int64_t n) { \
    switch (op) {                                                                                  \
    case KB_ADD: LOOP(a[i] + b[i]); break;                                                         \
    case KB_SUB: LOOP(a[i] - b[i]); break;                                                         \
    case KB_MUL: LOOP(a[i] * b[i]); break;                                                         \
    case KB_DIV: LOOP(a[i] / b[i]); break;                                                         \
    case KB_REM: LOOP(fmod##S(a[i], b[i])); break;                                                 \
    case KB_MAX: LOOP(kmax_##SFX(a[i], b[i])); break;                                              \
    case KB_MIN: LOOP(kmin_##SFX(a[i], b[i])); break;                                              \
    case KB_POW: LOOP(pow##S(a[i], b[i])); break;                                                  \
    case KB_ATAN2: LOOP(atan2##S(a[i], b[i])); break;                                              \
    default: break;                                                                                \
    }                                                                                              \
  }
FLOAT_BINARY(binary_f32_libm, float, f, f32)
FLOAT_BINARY(binary_f64, double, , f64)

/* One operand a scalar s (first or second): the same IEEE operation per
 * element as FLOAT_BINARY with that operand repeated, without the repeated
 * copy to read. */
#define FLOAT_BINARY_SCALAR(NAME, F, SFX)                                                          \
  K_CLONES static void NAME(KBinaryOp op, F *restrict o, const F *restrict a, F s, bool s_first,   \
                            int64_t n) {                                                           \
    switch (op) {                                                                                  \
    case KB_ADD: LOOP(a[i] + s); break;                                                            \
    case KB_SUB: if (s_first) LOOP(s - a[i]); else LOOP(a[i] - s); break;                          \
    case KB_MUL: LOOP(a[i] * s); break;                                                            \
    case KB_DIV: if (s_first) LOOP(s / a[i]); else LOOP(a[i] / s); break;                          \
    case KB_MAX: if (s_first) LOOP(kmax_##SFX(s, a[i])); else LOOP(kmax_##SFX(a[i], s)); break;    \
    case KB_MIN: if (s_first) LOOP(kmin_##SFX(s, a[i])); else LOOP(kmin_##SFX(a[i], s)); break;    \
    default: break;                                                                                \
    }                                                                                              \
  }
FLOAT_BINARY_SCALAR(binary_scalar_f32, float, f32)
FLOAT_BINARY_SCALAR(binary_scalar_f64, double, f64)

bool k_binary_scalar_takes(KBinaryOp op, EType t) {
  return (t == ET_F32 || t == ET_F64) && (op == KB_ADD || op == KB_SUB || op == KB_MUL ||
                                          op == KB_DIV || op == KB_MAX || op == KB_MIN);
}

void k_binary_scalar(KBinaryOp op, EType t, void *restrict out, const void *a, const void *s,
                     bool s_first, int64_t n) {
  if (t == ET_F32) {
    float v;
    memcpy(&v, s, sizeof v);
    binary_scalar_f32(op, out, a, v, s_first, n);
  } else if (t == ET_F64) {
    double v;
    memcpy(&v, s, sizeof v);
    binary_scalar_f64(op, out, a, v, s_first, n);
  }
}

/* f32 pow through k_vpowf: vectorised, and bit for bit libm's
 * (kernels/k_vpow.c). */
static void binary_f32(KBinaryOp op, float *restrict o, const float *restrict a,
                       const float *restrict b, int64_t n) {
  if (op == KB_POW) k_vpowf(o, a, b, n);
  else binary_f32_libm(op, o, a, b, n);
}

#define COMPLEX_BINARY(NAME, C, R, S, MK)                                                               \
  static C cpow_##S##_xla(C a, C b) {                                                               \
    if (b == 0) return 1;                                                                           \
    if (a == 0 && cimag##S(b) == 0 && creal##S(b) > 0) return 0;                                    \
    return cpow##S(a, b);                                                                           \
  }                                                                                                 \
  /* XLA's HloEvaluator: atan2(y, x) = -i * log((x + i*y) / sqrt(x*x + y*y)). */                  \
  static C catan2_##S##_xla(C y, C x) {                                                             \
    C iy = MK(-cimag##S(y), creal##S(y));                                                     \
    C l = clog##S((x + iy) / csqrt##S(x * x + y * y));                                              \
    return MK(cimag##S(l), -creal##S(l));                                                     \
  }                                                                                                 \
  static void NAME(KBinaryOp op, C *restrict o, const C *restrict a, const C *restrict b, int64_t n) { \
    switch (op) {                                                                                   \
    case KB_ADD: LOOP(a[i] + b[i]); break;                                                          \
    case KB_SUB: LOOP(a[i] - b[i]); break;                                                          \
    case KB_MUL: LOOP(a[i] * b[i]); break;                                                          \
    case KB_DIV: LOOP(a[i] / b[i]); break;                                                          \
    case KB_POW: LOOP(cpow_##S##_xla(a[i], b[i])); break;                                           \
    case KB_ATAN2: LOOP(catan2_##S##_xla(a[i], b[i])); break;                                       \
    /* base/cmplx.h: StableHLO's lexicographic order, NaN wins */                                   \
    case KB_MAX: LOOP(cmplx_pick_second(creal##S(a[i]), cimag##S(a[i]), creal##S(b[i]),             \
                                        cimag##S(b[i]), true) ? b[i] : a[i]); break;                \
    case KB_MIN: LOOP(cmplx_pick_second(creal##S(a[i]), cimag##S(a[i]), creal##S(b[i]),             \
                                        cimag##S(b[i]), false) ? b[i] : a[i]); break;               \
    default: break;                                                                                 \
    }                                                                                               \
  }
COMPLEX_BINARY(binary_c64, float complex, float, f, CMPLXF)
COMPLEX_BINARY(binary_c128, double complex, double, , CMPLX)

/* ---- integers.  T storage, U unsigned twin, UW unsigned type wide enough
 * that arithmetic does not promote to int, TMIN the storage minimum. ---- */
#define IS_NEG(v) ((v) < 0)
#define NEVER_NEG(v) 0

static inline uint64_t ipow_u64(uint64_t base, uint64_t e) {
  uint64_t r = 1;
  while (e) {
    if (e & 1) r *= base;
    base *= base;
    e >>= 1;
  }
  return r;
}

/* Cloned for AVX2 / AVX-512: their per-lane shifts (vpsllv/vpsrlv) vectorise
 * shift-left/shift-right-logical, which SSE2 cannot. */
#define INT_BINARY(NAME, T, U, UW, SIGNED, ISNEG, TMIN)                                             \
  K_CLONES static void NAME(KBinaryOp op, T *restrict o, const T *restrict a, const T *restrict b, int64_t n, \
                   int w) {                                                                         \
    uint64_t mask = w >= 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;                                  \
    switch (op) {                                                                                   \
    case KB_ADD: LOOP((T)(U)((UW)(U)a[i] + (UW)(U)b[i])); break;                                    \
    case KB_SUB: LOOP((T)(U)((UW)(U)a[i] - (UW)(U)b[i])); break;                                    \
    case KB_MUL: LOOP((T)(U)((UW)(U)a[i] * (UW)(U)b[i])); break;                                    \
    case KB_DIV:                                                                                    \
      LOOP(b[i] == 0 ? (T)(U)~(U)0                                                                  \
           : (SIGNED && a[i] == TMIN && ISNEG(b[i]) && b[i] == (T)(U)~(U)0) ? a[i]                 \
                                                                             : (T)(a[i] / b[i]));   \
      break;                                                                                        \
    case KB_REM:                                                                                    \
      LOOP(b[i] == 0 ? a[i] : (SIGNED && ISNEG(b[i]) && b[i] == (T)(U)~(U)0) ? (T)0 : (T)(a[i] % b[i])); \
      break;                                                                                        \
    case KB_MAX: LOOP(a[i] >= b[i] ? a[i] : b[i]); break;                                           \
    case KB_MIN: LOOP(a[i] <= b[i] ? a[i] : b[i]); break;                                           \
    case KB_AND: LOOP((T)(a[i] & b[i])); break;                                                     \
    case KB_OR: LOOP((T)(a[i] | b[i])); break;                                                      \
    case KB_XOR: LOOP((T)(a[i] ^ b[i])); break;                                                     \
    case KB_SHL: LOOP((U)b[i] >= (unsigned)w ? (T)0 : (T)(U)((UW)(U)a[i] << (U)b[i])); break;       \
    case KB_SHR_LOGICAL:                                                                            \
      LOOP((U)b[i] >= (unsigned)w ? (T)0 : (T)(U)(((uint64_t)(U)a[i] & mask) >> (U)b[i]));          \
      break;                                                                                        \
    case KB_SHR_ARITH:                                                                              \
      for (int64_t i = 0; i < n; i++) {                                                             \
        int64_t s = k_wrap((int64_t)(uint64_t)(U)a[i], w, true);                                    \
        int64_t r = (U)b[i] >= (unsigned)w ? (s < 0 ? -1 : 0) : s >> (U)b[i];                       \
        o[i] = (T)(U)(uint64_t)r;                                                                   \
      }                                                                                             \
      break;                                                                                        \
    case KB_POW:                                                                                    \
      LOOP(ISNEG(b[i]) ? (T)(a[i] == 1) : (T)(U)ipow_u64((uint64_t)(U)a[i], (uint64_t)(U)b[i]));    \
      break;                                                                                        \
    default: break;                                                                                 \
    }                                                                                               \
    if (w < (int)(8 * sizeof(T)))                                                                   \
      for (int64_t i = 0; i < n; i++) o[i] = (T)k_wrap((int64_t)o[i], w, SIGNED);                   \
  }
INT_BINARY(binary_s8, int8_t, uint8_t, uint32_t, true, IS_NEG, INT8_MIN)
INT_BINARY(binary_s16, int16_t, uint16_t, uint32_t, true, IS_NEG, INT16_MIN)
INT_BINARY(binary_s32, int32_t, uint32_t, uint32_t, true, IS_NEG, INT32_MIN)
INT_BINARY(binary_s64, int64_t, uint64_t, uint64_t, true, IS_NEG, INT64_MIN)
INT_BINARY(binary_u8, uint8_t, uint8_t, uint32_t, false, NEVER_NEG, 0)
INT_BINARY(binary_u16, uint16_t, uint16_t, uint32_t, false, NEVER_NEG, 0)
INT_BINARY(binary_u32, uint32_t, uint32_t, uint32_t, false, NEVER_NEG, 0)
INT_BINARY(binary_u64, uint64_t, uint64_t, uint64_t, false, NEVER_NEG, 0)

static void binary_pred(KBinaryOp op, uint8_t *restrict o, const uint8_t *a, const uint8_t *b, int64_t n) {
  switch (op) {
  case KB_ADD: case KB_MAX: case KB_OR: LOOP((uint8_t)((a[i] | b[i]) != 0)); break;
  case KB_MUL: case KB_MIN: case KB_AND: LOOP((uint8_t)((a[i] & b[i]) != 0)); break;
  case KB_XOR: LOOP((uint8_t)((a[i] != 0) ^ (b[i] != 0))); break;
  default: break;
  }
}

static void binary_narrow(KBinaryOp op, EType t, void *restrict out, const void *a, const void *b,
                          int64_t n) {
  float x[K_BLOCK], y[K_BLOCK], r[K_BLOCK];
  int sz = etype_storage_bytes(t);
  for (int64_t at = 0; at < n; at += K_BLOCK) {
    int64_t m = n - at < K_BLOCK ? n - at : K_BLOCK;
    etype_convert_array(ET_F32, x, t, (const char *)a + at * sz, m);
    etype_convert_array(ET_F32, y, t, (const char *)b + at * sz, m);
    binary_f32(op, r, x, y, m);
    etype_convert_array(t, (char *)out + at * sz, ET_F32, r, m);
  }
}

bool k_binary(KBinaryOp op, EType t, void *restrict out, const void *a, const void *b, int64_t n,
              Error *err) {
  if (k_binary_result_type(op, t) == ET_INVALID)
    return error_set(err, ERR_RUNTIME, -1, "%s is not defined for element type %s", k_binary_name(op),
                     etype_name(t));
  if (n <= 0) return true;
  if (op == KB_COMPLEX) {
    if (t == ET_F32) {
      float *o = out;
      const float *x = a, *y = b;
      for (int64_t i = 0; i < n; i++) o[2 * i] = x[i], o[2 * i + 1] = y[i];
    } else {
      double *o = out;
      const double *x = a, *y = b;
      for (int64_t i = 0; i < n; i++) o[2 * i] = x[i], o[2 * i + 1] = y[i];
    }
    return true;
  }
  int w = etype_bits(t);
  switch (t) {
  case ET_PRED: binary_pred(op, out, a, b, n); return true;
  case ET_F32: binary_f32(op, out, a, b, n); return true;
  case ET_F64: binary_f64(op, out, a, b, n); return true;
  case ET_C64: binary_c64(op, out, a, b, n); return true;
  case ET_C128: binary_c128(op, out, a, b, n); return true;
  case ET_S1: case ET_S2: case ET_S4: case ET_S8: binary_s8(op, out, a, b, n, w); return true;
  case ET_S16: binary_s16(op, out, a, b, n, w); return true;
  case ET_S32: binary_s32(op, out, a, b, n, w); return true;
  case ET_S64: binary_s64(op, out, a, b, n, w); return true;
  case ET_U1: case ET_U2: case ET_U4: case ET_U8: binary_u8(op, out, a, b, n, w); return true;
  case ET_U16: binary_u16(op, out, a, b, n, w); return true;
  case ET_U32: binary_u32(op, out, a, b, n, w); return true;
  case ET_U64: binary_u64(op, out, a, b, n, w); return true;
  default: binary_narrow(op, t, out, a, b, n); return true;
  }
}
