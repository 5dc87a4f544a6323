/* Storing literal values with the HLO text parser's range rules. */
#include <math.h>
#include <string.h>

#include "layout/etype_convert.h"

static bool int_range(EType t, int64_t *lo, uint64_t *hi) {
  int bits = etype_bits(t);
  switch (etype_kind(t)) {
  case EK_PRED: *lo = 0, *hi = 1; return true;
  case EK_SINT:
    *lo = bits == 64 ? INT64_MIN : -(int64_t)(UINT64_C(1) << (bits - 1));
    *hi = (UINT64_C(1) << (bits - 1)) - 1;
    return true;
  case EK_UINT:
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    return true;
  default: return false;
  }
}

static void store_raw_int(EType t, uint64_t v, void *dst) {
  switch (etype_storage_bytes(t)) {
  case 1: { uint8_t x = (uint8_t)v; memcpy(dst, &x, 1); break; }
  case 2: { uint16_t x = (uint16_t)v; memcpy(dst, &x, 2); break; }
  case 4: { uint32_t x = (uint32_t)v; memcpy(dst, &x, 4); break; }
  case 8: memcpy(dst, &v, 8); break;
  default: break;
  }
}

/* Rounds v into float type t; false when a finite v overflows. */
static bool store_real_float(EType t, double v, void *dst) {
  if (t == ET_F64) {
    memcpy(dst, &v, 8);
    return true;
  }
  if (t == ET_F32 || t == ET_BF16 || t == ET_F16) {
    float f = (float)v;
    if (isfinite(v) && !isfinite(f)) return false;
    if (t == ET_F32) {
      memcpy(dst, &f, 4);
      return true;
    }
    uint16_t h = t == ET_BF16 ? etype_f32_to_bf16(f) : etype_f32_to_f16(f);
    memcpy(dst, &h, 2);
    if (!isfinite(v)) return true;
    return (h & 0x7fffu) < (t == ET_BF16 ? 0x7f80u : 0x7c00u);
  }
  const EFloatFormat *fmt = etype_float_format(t);
  if (!fmt) return false;
  bool overflow = false;
  uint32_t bits = etype_small_encode(fmt, v, &overflow);
  uint8_t b = (uint8_t)bits;
  memcpy(dst, &b, 1);
  if (!isfinite(v)) return true;
  /* a finite value must stay a number: overflow, or a type without the
   * value (negative or zero e8m0) */
  return !overflow && !etype_small_is_nan(fmt, bits);
}

bool etype_store_float(EType t, double v, void *dst) {
  if (etype_is_float(t)) return store_real_float(t, v, dst);
  if (etype_is_complex(t)) return etype_store_complex(t, v, 0.0, dst);
  return false;
}

bool etype_store_complex(EType t, double re, double im, void *dst) {
  if (t == ET_C128) {
    double p[2] = {re, im};
    memcpy(dst, p, 16);
    return true;
  }
  if (t == ET_C64) {
    float p[2] = {(float)re, (float)im};
    memcpy(dst, p, 8);
    return !((isfinite(re) && !isfinite(p[0])) || (isfinite(im) && !isfinite(p[1])));
  }
  return false;
}

bool etype_store_int(EType t, int64_t v, void *dst) {
  int64_t lo;
  uint64_t hi;
  if (int_range(t, &lo, &hi)) {
    if (v < lo || (v > 0 && (uint64_t)v > hi)) return false;
    store_raw_int(t, (uint64_t)v, dst);
    return true;
  }
  if (etype_is_float(t) || etype_is_complex(t)) return etype_store_float(t, (double)v, dst);
  return false;
}

bool etype_store_uint(EType t, uint64_t v, void *dst) {
  int64_t lo;
  uint64_t hi;
  if (int_range(t, &lo, &hi)) {
    if (v > hi) return false;
    store_raw_int(t, v, dst);
    return true;
  }
  if (etype_is_float(t) || etype_is_complex(t)) return etype_store_float(t, (double)v, dst);
  return false;
}

bool etype_store_nan(EType t, bool negative, uint64_t payload, void *dst) {
  if (etype_is_complex(t)) {
    EType part = t == ET_C64 ? ET_F32 : ET_F64;
    char re[8];
    if (!etype_store_nan(part, negative, payload, re)) return false;
    memset(dst, 0, (size_t)etype_storage_bytes(t));
    memcpy(dst, re, (size_t)etype_storage_bytes(part));
    return true;
  }
  if (t == ET_F64) {
    uint64_t mask = (UINT64_C(1) << 52) - 1;
    if (payload > mask) return false;
    uint64_t b = (UINT64_C(0x7ff) << 52) | (payload ? payload : UINT64_C(1) << 51);
    if (negative) b |= UINT64_C(1) << 63;
    memcpy(dst, &b, 8);
    return true;
  }
  const EFloatFormat *f = etype_float_format(t);
  if (!f || f->nan == EF_NAN_NONE) return false;
  if (f->nan != EF_NAN_IEEE) {
    /* one NaN pattern only, no payloads */
    if (payload) return false;
    uint32_t b = f->qnan_bits;
    if (negative && f->nan == EF_NAN_FN) b |= f->sign_bit;
    store_raw_int(t, b, dst);
    return true;
  }
  uint32_t mmask = (1u << f->mbits) - 1u;
  if (payload > mmask) return false;
  uint32_t b = ((((1u << f->ebits) - 1u) << f->mbits)) | (payload ? (uint32_t)payload : 1u << (f->mbits - 1));
  if (negative) b |= f->sign_bit;
  store_raw_int(t, b, dst);
  return true;
}
