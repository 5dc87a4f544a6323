/* Software float formats: bf16, f16 and every f8/f6/f4 variant.
 * Encoding follows ml_dtypes' ConvertImpl (round to nearest even from the
 * exact source value, overflow to the type's "infinity" which is NaN for the
 * fn/fnuz types and the largest finite value for the MX f6/f4 types); bf16
 * and f16 from f32 follow Eigen's float_to_bfloat16_rtne/float_to_half_rtne
 * (NaN -> quiet NaN keeping the sign, payload dropped). */
#include <math.h>
#include <string.h>

#include "layout/etype_convert.h"

#define FMT(e, m, b, s, n, max, inf, qnan, sbit, d10) {e, m, b, s, n, max, inf, qnan, sbit, d10}

static const EFloatFormat fmt_f16 = FMT(5, 10, 15, true, EF_NAN_IEEE, 0x7bff, 0x7c00, 0x7e00, 0x8000, 5);
static const EFloatFormat fmt_bf16 = FMT(8, 7, 127, true, EF_NAN_IEEE, 0x7f7f, 0x7f80, 0x7fc0, 0x8000, 4);
static const EFloatFormat fmt_f32 =
    FMT(8, 23, 127, true, EF_NAN_IEEE, 0x7f7fffff, 0x7f800000, 0x7fc00000, 0x80000000u, 9);
/* f64 does not fit 32-bit fields; only ebits/mbits/bias/max_digits10 are meaningful. */
static const EFloatFormat fmt_f64 = FMT(11, 52, 1023, true, EF_NAN_IEEE, 0, 0, 0, 0, 17);
static const EFloatFormat fmt_e5m2 = FMT(5, 2, 15, true, EF_NAN_IEEE, 0x7b, 0x7c, 0x7e, 0x80, 2);
static const EFloatFormat fmt_e4m3 = FMT(4, 3, 7, true, EF_NAN_IEEE, 0x77, 0x78, 0x7c, 0x80, 3);
static const EFloatFormat fmt_e4m3fn = FMT(4, 3, 7, true, EF_NAN_FN, 0x7e, 0x7f, 0x7f, 0x80, 3);
static const EFloatFormat fmt_e4m3b11fnuz = FMT(4, 3, 11, true, EF_NAN_FNUZ, 0x7f, 0x80, 0x80, 0x80, 3);
static const EFloatFormat fmt_e3m4 = FMT(3, 4, 3, true, EF_NAN_IEEE, 0x6f, 0x70, 0x78, 0x80, 3);
static const EFloatFormat fmt_e5m2fnuz = FMT(5, 2, 16, true, EF_NAN_FNUZ, 0x7f, 0x80, 0x80, 0x80, 2);
static const EFloatFormat fmt_e4m3fnuz = FMT(4, 3, 8, true, EF_NAN_FNUZ, 0x7f, 0x80, 0x80, 0x80, 3);
static const EFloatFormat fmt_e8m0fnu = FMT(8, 0, 127, false, EF_NAN_E8M0, 0xfe, 0xff, 0xff, 0, 2);
/* MX types: "infinity" is the largest value and "quiet NaN" the -0 pattern. */
static const EFloatFormat fmt_f6e2m3fn = FMT(2, 3, 1, true, EF_NAN_NONE, 0x1f, 0x1f, 0x20, 0x20, 3);
static const EFloatFormat fmt_f6e3m2fn = FMT(3, 2, 3, true, EF_NAN_NONE, 0x1f, 0x1f, 0x20, 0x20, 2);
static const EFloatFormat fmt_f4e2m1fn = FMT(2, 1, 1, true, EF_NAN_NONE, 0x7, 0x7, 0x8, 0x8, 2);

const EFloatFormat *etype_float_format(EType t) {
  switch (t) {
  case ET_F16: return &fmt_f16;
  case ET_BF16: return &fmt_bf16;
  case ET_F32: return &fmt_f32;
  case ET_F64: return &fmt_f64;
  case ET_F8E5M2: return &fmt_e5m2;
  case ET_F8E4M3: return &fmt_e4m3;
  case ET_F8E4M3FN: return &fmt_e4m3fn;
  case ET_F8E4M3B11FNUZ: return &fmt_e4m3b11fnuz;
  case ET_F8E3M4: return &fmt_e3m4;
  case ET_F8E5M2FNUZ: return &fmt_e5m2fnuz;
  case ET_F8E4M3FNUZ: return &fmt_e4m3fnuz;
  case ET_F8E8M0FNU: return &fmt_e8m0fnu;
  case ET_F6E2M3FN: return &fmt_f6e2m3fn;
  case ET_F6E3M2FN: return &fmt_f6e3m2fn;
  case ET_F4E2M1FN: return &fmt_f4e2m1fn;
  default: return NULL;
  }
}

static inline uint32_t f32_bits(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}
static inline float bits_f32(uint32_t u) {
  float v;
  memcpy(&v, &u, 4);
  return v;
}

float etype_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return bits_f32(sign | 0x7f800000u | (m << 13));
  if (e == 0) {
    float v = (float)m * 0x1p-24f;
    return bits_f32(f32_bits(v) | sign);
  }
  return bits_f32(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t etype_f32_to_f16(float v) {
  uint32_t x = f32_bits(v);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  x &= 0x7fffffffu;
  if (x >= 0x7f800000u) return (uint16_t)(sign | (x > 0x7f800000u ? 0x7e00u : 0x7c00u));
  if (x >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520: inf */
  if (x < 0x38800000u) {
    /* Result is subnormal or zero: let the FPU round by adding 0.5f, which
     * puts the f16 subnormal grid on float's last mantissa bits. */
    float f = bits_f32(x) + 0.5f;
    return (uint16_t)(sign | (uint16_t)(f32_bits(f) - 0x3f000000u));
  }
  uint32_t odd = (x >> 13) & 1u;
  x += 0xc8000fffu + odd; /* rebias exponent (-112 << 23) and round */
  return (uint16_t)(sign | (uint16_t)(x >> 13));
}

bool etype_small_is_nan(const EFloatFormat *f, uint32_t bits) {
  uint32_t mag = bits & ((1u << (f->ebits + f->mbits)) - 1u);
  switch (f->nan) {
  case EF_NAN_IEEE: return (mag >> f->mbits) == (1u << f->ebits) - 1u && (mag & ((1u << f->mbits) - 1u));
  case EF_NAN_FN: return mag == (1u << (f->ebits + f->mbits)) - 1u;
  case EF_NAN_FNUZ: return bits == f->sign_bit;
  case EF_NAN_E8M0: return bits == 0xffu;
  case EF_NAN_NONE: return false;
  }
  return false;
}

double etype_small_decode(const EFloatFormat *f, uint32_t bits) {
  int width = f->ebits + f->mbits;
  uint32_t mag = bits & ((1u << width) - 1u);
  bool sign = f->is_signed && (bits & f->sign_bit);
  uint32_t e = mag >> f->mbits, m = mag & ((1u << f->mbits) - 1u);
  if (etype_small_is_nan(f, bits)) return sign ? -(double)NAN : (double)NAN;
  if (f->nan == EF_NAN_E8M0) return ldexp(1.0, (int)bits - 127);
  if (f->nan == EF_NAN_IEEE && e == (1u << f->ebits) - 1u) return sign ? -(double)INFINITY : (double)INFINITY;
  double v = e == 0 ? ldexp((double)m, 1 - f->bias - f->mbits)
                    : ldexp((double)((1u << f->mbits) | m), (int)e - f->bias - f->mbits);
  return sign ? -v : v;
}

static inline uint32_t negate_bits(const EFloatFormat *f, uint32_t r) {
  if (f->nan == EF_NAN_FNUZ && (r & ~f->sign_bit) == 0) return r; /* no -0; NaN is NaN */
  return r ^ f->sign_bit;
}

uint32_t etype_small_encode(const EFloatFormat *f, double v, bool *overflow) {
  if (overflow) *overflow = false;
  uint64_t b;
  memcpy(&b, &v, 8);
  bool sign = (b >> 63) != 0;
  uint64_t abs = b & ~(UINT64_C(1) << 63);
  if (isnan(v)) return sign ? negate_bits(f, f->qnan_bits) : f->qnan_bits;
  if (!f->is_signed && sign && abs != 0) return f->qnan_bits;
  if (isinf(v)) return sign ? negate_bits(f, f->inf_bits) : f->inf_bits;
  if (abs == 0) {
    if (f->nan == EF_NAN_E8M0) return f->qnan_bits; /* no zero */
    return sign ? negate_bits(f, 0) : 0;
  }
  int uexp;
  uint64_t mant;
  uint64_t bexp = abs >> 52, frac = abs & ((UINT64_C(1) << 52) - 1);
  if (bexp != 0) {
    uexp = (int)bexp - 1023;
    mant = (UINT64_C(1) << 52) | frac;
  } else {
    int shift = __builtin_clzll(frac) - 12 + 1;
    mant = frac << shift;
    uexp = (1 - 1023) - shift;
  }
  int base = uexp + f->bias - 1; /* biased exponent - 1: the implicit bit adds the 1 back */
  int denorm = base < 0 ? -base : 0;
  int shift = 52 - f->mbits + denorm;
  if (shift > 54) shift = 54;
  /* round to nearest even at bit `shift` */
  mant += ((mant >> shift) & 1u) + (UINT64_C(1) << (shift - 1)) - 1u;
  uint64_t wide = (mant >> shift) + ((uint64_t)(base > 0 ? base : 0) << f->mbits);
  uint32_t r;
  if (wide > f->max_bits) {
    if (overflow) *overflow = true;
    r = f->inf_bits;
  } else {
    r = (uint32_t)wide;
  }
  return sign ? negate_bits(f, r) : r;
}
