/* compare: six directions x FLOAT / TOTALORDER / SIGNED / UNSIGNED.
 * TOTALORDER orders floats by their bits read as sign-magnitude integers:
 * -NaN < -Inf < ... < -0 < +0 < ... < Inf < NaN. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include <complex.h>
#include <string.h>

#include "kernels/k_internal.h"
#include "kernels/kernels.h"

bool k_cmp_dir_lookup(const char *name, KCmpDir *dir) {
  static const char *const names[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
  for (int i = 0; i < 6; i++)
    if (strcmp(names[i], name) == 0) return *dir = (KCmpDir)i, true;
  return false;
}

bool k_cmp_type_lookup(const char *name, KCmpType *ct) {
  static const char *const names[] = {"FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED"};
  for (int i = 0; i < 4; i++)
    if (strcmp(names[i], name) == 0) return *ct = (KCmpType)(i + 1), true;
  return false;
}

/* One loop per direction over values produced by LA(i) / LB(i). */
#define CMP_LOOPS(O, N, LA, LB)                                                   \
  switch (dir) {                                                                  \
  case KCMP_EQ: for (int64_t i = 0; i < (N); i++) O[i] = LA(i) == LB(i); break;   \
  case KCMP_NE: for (int64_t i = 0; i < (N); i++) O[i] = LA(i) != LB(i); break;   \
  case KCMP_LT: for (int64_t i = 0; i < (N); i++) O[i] = LA(i) < LB(i); break;    \
  case KCMP_LE: for (int64_t i = 0; i < (N); i++) O[i] = LA(i) <= LB(i); break;   \
  case KCMP_GT: for (int64_t i = 0; i < (N); i++) O[i] = LA(i) > LB(i); break;    \
  case KCMP_GE: for (int64_t i = 0; i < (N); i++) O[i] = LA(i) >= LB(i); break;   \
  }

#define VX(i) x[i]
#define VY(i) y[i]
#define TYPED_CMP(NAME, T)                                                                \
  static void NAME(KCmpDir dir, uint8_t *restrict o, const T *x, const T *y, int64_t n) { \
    CMP_LOOPS(o, n, VX, VY)                                                               \
  }
TYPED_CMP(cmp_i8, int8_t)
TYPED_CMP(cmp_u8, uint8_t)
TYPED_CMP(cmp_i16, int16_t)
TYPED_CMP(cmp_u16, uint16_t)
TYPED_CMP(cmp_i32, int32_t)
TYPED_CMP(cmp_u32, uint32_t)
TYPED_CMP(cmp_i64, int64_t)
TYPED_CMP(cmp_u64, uint64_t)
TYPED_CMP(cmp_f32, float)
TYPED_CMP(cmp_f64, double)

/* Sign-magnitude bits -> two's complement key, for a float of `bits` width
 * held in the low bits of v. */
static inline int64_t total_key(uint64_t v, int bits) {
  int64_t s = k_wrap((int64_t)v, bits, true);
  uint64_t mag = bits >= 64 ? INT64_MAX : (UINT64_C(1) << (bits - 1)) - 1;
  return s < 0 ? (int64_t)((uint64_t)s ^ mag) : s;
}

static void cmp_total(KCmpDir dir, EType t, uint8_t *restrict o, const void *a, const void *b, int64_t n) {
  int64_t x[K_BLOCK], y[K_BLOCK];
  int bits = etype_bits(t), sz = etype_storage_bytes(t);
  bool is_unsigned_fmt = t == ET_F8E8M0FNU;
  for (int64_t at = 0; at < n; at += K_BLOCK) {
    int64_t m = n - at < K_BLOCK ? n - at : K_BLOCK;
    const unsigned char *pa = (const unsigned char *)a + at * sz, *pb = (const unsigned char *)b + at * sz;
    for (int64_t i = 0; i < m; i++) {
      uint64_t u = 0, v = 0;
      memcpy(&u, pa + i * sz, (size_t)sz); /* little-endian host */
      memcpy(&v, pb + i * sz, (size_t)sz);
      x[i] = is_unsigned_fmt ? (int64_t)u : total_key(u, bits);
      y[i] = is_unsigned_fmt ? (int64_t)v : total_key(v, bits);
    }
    uint8_t *oo = o + at;
    CMP_LOOPS(oo, m, VX, VY)
  }
}

static void cmp_narrow(KCmpDir dir, EType t, uint8_t *restrict o, const void *a, const void *b, int64_t n) {
  float x[K_BLOCK], y[K_BLOCK];
  int sz = etype_storage_bytes(t);
  for (int64_t at = 0; at < n; at += K_BLOCK) {
    int64_t m = n - at < K_BLOCK ? n - at : K_BLOCK;
    etype_convert_array(ET_F32, x, t, (const char *)a + at * sz, m);
    etype_convert_array(ET_F32, y, t, (const char *)b + at * sz, m);
    cmp_f32(dir, o + at, x, y, m);
  }
}

bool k_compare(KCmpDir dir, KCmpType ct, EType t, uint8_t *restrict o, const void *a, const void *b,
               int64_t n, Error *err) {
  ETypeKind k = etype_kind(t);
  if (ct == KCMP_DEFAULT)
    ct = k == EK_FLOAT || k == EK_COMPLEX ? KCMP_FLOAT : k == EK_SINT ? KCMP_SIGNED : KCMP_UNSIGNED;
  bool ok = (ct == KCMP_FLOAT && (k == EK_FLOAT || k == EK_COMPLEX)) ||
            (ct == KCMP_TOTALORDER && k == EK_FLOAT) || (ct == KCMP_SIGNED && k == EK_SINT) ||
            (ct == KCMP_UNSIGNED && (k == EK_UINT || k == EK_PRED));
  if (k == EK_COMPLEX && dir != KCMP_EQ && dir != KCMP_NE) ok = false;
  if (!ok || (unsigned)dir > KCMP_GE)
    return error_set(err, ERR_RUNTIME, -1, "compare of element type %s with this direction/type is not defined",
                     etype_name(t));
  if (n <= 0) return true;
  if (ct == KCMP_TOTALORDER) {
    cmp_total(dir, t, o, a, b, n);
    return true;
  }
  switch (t) {
  case ET_PRED: case ET_U1: case ET_U2: case ET_U4: case ET_U8: cmp_u8(dir, o, a, b, n); return true;
  case ET_S1: case ET_S2: case ET_S4: case ET_S8: cmp_i8(dir, o, a, b, n); return true;
  case ET_S16: cmp_i16(dir, o, a, b, n); return true;
  case ET_U16: cmp_u16(dir, o, a, b, n); return true;
  case ET_S32: cmp_i32(dir, o, a, b, n); return true;
  case ET_U32: cmp_u32(dir, o, a, b, n); return true;
  case ET_S64: cmp_i64(dir, o, a, b, n); return true;
  case ET_U64: cmp_u64(dir, o, a, b, n); return true;
  case ET_F32: cmp_f32(dir, o, a, b, n); return true;
  case ET_F64: cmp_f64(dir, o, a, b, n); return true;
  case ET_C64: case ET_C128: {
    /* EQ/NE on both parts */
    int parts = 2;
    const void *pa = a, *pb = b;
    for (int64_t i = 0; i < n; i++) {
      bool eq;
      if (t == ET_C64) {
        const float *x = (const float *)pa + parts * i, *y = (const float *)pb + parts * i;
        eq = x[0] == y[0] && x[1] == y[1];
      } else {
        const double *x = (const double *)pa + parts * i, *y = (const double *)pb + parts * i;
        eq = x[0] == y[0] && x[1] == y[1];
      }
      o[i] = (uint8_t)(dir == KCMP_EQ ? eq : !eq);
    }
    return true;
  }
  default: cmp_narrow(dir, t, o, a, b, n); return true;
  }
}
