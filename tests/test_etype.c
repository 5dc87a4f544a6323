/* Element-type values: encode/decode of every narrow float, convert rules,
 * literal storing and printing.  Expected bit patterns are derived by hand
 * from the formats (sign/exponent/mantissa, bias) and ml_dtypes' rules. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "layout/etype_convert.h"

static uint32_t f32b(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}
static float bf32(uint32_t u) {
  float v;
  memcpy(&v, &u, 4);
  return v;
}

/* Encode one f32 into an 8-bit type through the public convert. */
static uint8_t enc8(EType t, float v) {
  uint8_t out = 0xaa;
  etype_convert_array(t, &out, ET_F32, &v, 1);
  return out;
}
static float dec8(EType t, uint8_t b) {
  float out;
  etype_convert_array(ET_F32, &out, t, &b, 1);
  return out;
}

Test(etype_bf16, round_to_nearest_even) {
  cr_expect_eq(etype_f32_to_bf16(1.0f), 0x3f80);
  cr_expect_eq(etype_f32_to_bf16(bf32(0x3f808000)), 0x3f80); /* tie, even stays */
  cr_expect_eq(etype_f32_to_bf16(bf32(0x3f818000)), 0x3f82); /* tie, odd rounds up */
  cr_expect_eq(etype_f32_to_bf16(bf32(0x3f808001)), 0x3f81); /* above tie */
  cr_expect_eq(etype_f32_to_bf16(bf32(0x7f7fffff)), 0x7f80); /* FLT_MAX -> inf */
  cr_expect_eq(etype_f32_to_bf16(-INFINITY), 0xff80);
  cr_expect_eq(etype_f32_to_bf16(NAN), 0x7fc0);
  cr_expect_eq(etype_f32_to_bf16(-NAN), 0xffc0);
  cr_expect_eq(etype_f32_to_bf16(-0.0f), 0x8000);
  cr_expect_eq(f32b(etype_bf16_to_f32(0x3dcd)), 0x3dcd0000u);
}

Test(etype_f16, rounding_and_range) {
  cr_expect_eq(etype_f32_to_f16(1.0f), 0x3c00);
  cr_expect_eq(etype_f32_to_f16(0.1f), 0x2e66); /* 1.6*2^-4: mantissa 614 */
  cr_expect_eq(etype_f32_to_f16(65504.0f), 0x7bff);
  cr_expect_eq(etype_f32_to_f16(65519.0f), 0x7bff);
  cr_expect_eq(etype_f32_to_f16(65520.0f), 0x7c00);
  cr_expect_eq(etype_f32_to_f16(-65520.0f), 0xfc00);
  cr_expect_eq(etype_f32_to_f16(0x1p-24f), 0x0001);   /* smallest subnormal */
  cr_expect_eq(etype_f32_to_f16(0x1p-25f), 0x0000);   /* tie to even: 0 */
  cr_expect_eq(etype_f32_to_f16(0x1.8p-25f), 0x0001); /* above the tie */
  cr_expect_eq(etype_f32_to_f16(0x3p-24f), 0x0003);
  cr_expect_eq(etype_f32_to_f16(0x1p-14f), 0x0400); /* smallest normal */
  cr_expect_eq(etype_f32_to_f16(-0.0f), 0x8000);
  cr_expect_eq(etype_f32_to_f16(NAN), 0x7e00);
  cr_expect_eq(etype_f32_to_f16(-NAN), 0xfe00);
  cr_expect_eq(etype_f32_to_f16(INFINITY), 0x7c00);
  cr_expect_eq(etype_f16_to_f32(0x7bff), 65504.0f);
  cr_expect_eq(etype_f16_to_f32(0x0001), 0x1p-24f);
  cr_expect_eq(etype_f16_to_f32(0x8400), -0x1p-14f);
  cr_expect(isinf(etype_f16_to_f32(0xfc00)) && etype_f16_to_f32(0xfc00) < 0);
  /* every f16 survives f16 -> f32 -> f16 */
  for (uint32_t b = 0; b < 0x10000; b++) {
    float v = etype_f16_to_f32((uint16_t)b);
    uint16_t back = etype_f32_to_f16(v);
    if (isnan(v)) cr_assert((back & 0x7c00) == 0x7c00 && (back & 0x3ff), "%x", b);
    else cr_assert_eq(back, b, "f16 %04x -> %04x", b, back);
  }
}

Test(etype_f8, e4m3fn) {
  cr_expect_eq(enc8(ET_F8E4M3FN, 1.0f), 0x38);
  cr_expect_eq(enc8(ET_F8E4M3FN, 448.0f), 0x7e);
  cr_expect_eq(enc8(ET_F8E4M3FN, 464.0f), 0x7e); /* tie, even */
  cr_expect_eq(enc8(ET_F8E4M3FN, 465.0f), 0x7f); /* overflow -> NaN */
  cr_expect_eq(enc8(ET_F8E4M3FN, 1e6f), 0x7f);
  cr_expect_eq(enc8(ET_F8E4M3FN, -1e6f), 0xff);
  cr_expect_eq(enc8(ET_F8E4M3FN, INFINITY), 0x7f);
  cr_expect_eq(enc8(ET_F8E4M3FN, -INFINITY), 0xff);
  cr_expect_eq(enc8(ET_F8E4M3FN, NAN), 0x7f);
  cr_expect_eq(enc8(ET_F8E4M3FN, 0x1p-9f), 0x01);
  cr_expect_eq(enc8(ET_F8E4M3FN, 0x1p-10f), 0x00); /* tie to even */
  cr_expect_eq(enc8(ET_F8E4M3FN, -0.0f), 0x80);
  cr_expect_eq(dec8(ET_F8E4M3FN, 0x7e), 448.0f);
  cr_expect(isnan(dec8(ET_F8E4M3FN, 0xff)));
  cr_expect_eq(dec8(ET_F8E4M3FN, 0x78), 256.0f); /* exponent 1111 is a number */
}

Test(etype_f8, e5m2_e4m3_e3m4) {
  cr_expect_eq(enc8(ET_F8E5M2, 1.0f), 0x3c);
  cr_expect_eq(enc8(ET_F8E5M2, 57344.0f), 0x7b);
  cr_expect_eq(enc8(ET_F8E5M2, 61439.0f), 0x7b);
  cr_expect_eq(enc8(ET_F8E5M2, 61440.0f), 0x7c); /* tie, odd -> up -> inf */
  cr_expect_eq(enc8(ET_F8E5M2, NAN), 0x7e);
  cr_expect_eq(enc8(ET_F8E5M2, -INFINITY), 0xfc);
  cr_expect_eq(dec8(ET_F8E5M2, 0x01), 0x1p-16f);
  cr_expect_eq(enc8(ET_F8E4M3, 240.0f), 0x77);
  cr_expect_eq(enc8(ET_F8E4M3, 248.0f), 0x78); /* inf */
  cr_expect_eq(enc8(ET_F8E4M3, 1.0f), 0x38);
  cr_expect_eq(enc8(ET_F8E4M3, NAN), 0x7c);
  cr_expect_eq(dec8(ET_F8E4M3, 0x01), 0x1p-9f);
  cr_expect_eq(enc8(ET_F8E3M4, 15.5f), 0x6f);
  cr_expect_eq(enc8(ET_F8E3M4, 1.0f), 0x30);
  cr_expect_eq(enc8(ET_F8E3M4, 16.0f), 0x70);
  cr_expect_eq(enc8(ET_F8E3M4, NAN), 0x78);
  cr_expect_eq(dec8(ET_F8E3M4, 0x01), 0x1p-6f);
}

Test(etype_f8, fnuz) {
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, 240.0f), 0x7f);
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, 1.0f), 0x40);
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, 256.0f), 0x80); /* overflow -> NaN */
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, NAN), 0x80);
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, -NAN), 0x80);
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, INFINITY), 0x80);
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, -0.0f), 0x00); /* unsigned zero */
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, -0x1p-20f), 0x00); /* underflow to +0 */
  cr_expect_eq(enc8(ET_F8E4M3FNUZ, -1.0f), 0xc0);
  cr_expect(isnan(dec8(ET_F8E4M3FNUZ, 0x80)));
  cr_expect_eq(enc8(ET_F8E5M2FNUZ, 57344.0f), 0x7f);
  cr_expect_eq(enc8(ET_F8E5M2FNUZ, 1.0f), 0x40);
  cr_expect_eq(enc8(ET_F8E5M2FNUZ, NAN), 0x80);
  cr_expect_eq(enc8(ET_F8E4M3B11FNUZ, 30.0f), 0x7f);
  cr_expect_eq(enc8(ET_F8E4M3B11FNUZ, 1.0f), 0x58);
  cr_expect_eq(enc8(ET_F8E4M3B11FNUZ, 0x1p-13f), 0x01);
  cr_expect_eq(enc8(ET_F8E4M3B11FNUZ, 32.0f), 0x80);
}

Test(etype_f8, e8m0fnu) {
  cr_expect_eq(enc8(ET_F8E8M0FNU, 1.0f), 0x7f);
  cr_expect_eq(enc8(ET_F8E8M0FNU, 0x1p127f), 0xfe);
  cr_expect_eq(enc8(ET_F8E8M0FNU, 0x1p-127f), 0x00);
  cr_expect_eq(enc8(ET_F8E8M0FNU, 0.0f), 0xff);  /* no zero: NaN */
  cr_expect_eq(enc8(ET_F8E8M0FNU, -1.0f), 0xff); /* unsigned: NaN */
  cr_expect_eq(enc8(ET_F8E8M0FNU, NAN), 0xff);
  cr_expect_eq(enc8(ET_F8E8M0FNU, INFINITY), 0xff);
  cr_expect_eq(enc8(ET_F8E8M0FNU, 1.4f), 0x7f);
  cr_expect_eq(enc8(ET_F8E8M0FNU, 1.5f), 0x80); /* tie: 1.1b rounds up to 2 */
  cr_expect_eq(enc8(ET_F8E8M0FNU, 3.0f), 0x81);
  cr_expect_eq(dec8(ET_F8E8M0FNU, 0x80), 2.0f);
  cr_expect_eq(dec8(ET_F8E8M0FNU, 0x00), 0x1p-127f);
  cr_expect(isnan(dec8(ET_F8E8M0FNU, 0xff)));
}

Test(etype_mx, f6_f4_saturate) {
  static const float f4_vals[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
  for (int b = 0; b < 8; b++) {
    cr_expect_eq(dec8(ET_F4E2M1FN, (uint8_t)b), f4_vals[b]);
    cr_expect_eq(dec8(ET_F4E2M1FN, (uint8_t)(b | 8)), -f4_vals[b]);
  }
  cr_expect(signbit(dec8(ET_F4E2M1FN, 0x8)));
  cr_expect_eq(enc8(ET_F4E2M1FN, 7.0f), 0x7);
  cr_expect_eq(enc8(ET_F4E2M1FN, 100.0f), 0x7);
  cr_expect_eq(enc8(ET_F4E2M1FN, INFINITY), 0x7);
  cr_expect_eq(enc8(ET_F4E2M1FN, -INFINITY), 0xf);
  cr_expect_eq(enc8(ET_F4E2M1FN, NAN), 0x8); /* ml_dtypes: NaN -> the -0 pattern */
  cr_expect_eq(enc8(ET_F4E2M1FN, -NAN), 0x0);
  cr_expect_eq(enc8(ET_F4E2M1FN, 0.25f), 0x0); /* tie to even */
  cr_expect_eq(enc8(ET_F4E2M1FN, 0.75f), 0x2);
  cr_expect_eq(enc8(ET_F4E2M1FN, 5.0f), 0x6);  /* tie between 4 and 6 -> 4 (even) */
  cr_expect_eq(enc8(ET_F6E2M3FN, 7.5f), 0x1f);
  cr_expect_eq(enc8(ET_F6E2M3FN, 1e9f), 0x1f);
  cr_expect_eq(enc8(ET_F6E2M3FN, -1e9f), 0x3f);
  cr_expect_eq(dec8(ET_F6E2M3FN, 0x01), 0.125f);
  cr_expect_eq(enc8(ET_F6E3M2FN, 28.0f), 0x1f);
  cr_expect_eq(enc8(ET_F6E3M2FN, 1.0f), 0x0c);
  cr_expect_eq(dec8(ET_F6E3M2FN, 0x01), 0.0625f);
}

/* Every bit pattern of every narrow type survives narrow -> f32 -> narrow,
 * values are strictly increasing along the positive patterns. */
Test(etype_roundtrip, all_patterns) {
  static const EType types[] = {ET_F8E5M2, ET_F8E4M3, ET_F8E4M3FN, ET_F8E4M3B11FNUZ,
                                ET_F8E3M4, ET_F8E5M2FNUZ, ET_F8E4M3FNUZ, ET_F8E8M0FNU,
                                ET_F6E2M3FN, ET_F6E3M2FN, ET_F4E2M1FN};
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++) {
    EType t = types[k];
    int n = 1 << etype_bits(t);
    float prev = -INFINITY;
    for (int b = 0; b < n; b++) {
      float v = dec8(t, (uint8_t)b);
      uint8_t back = enc8(t, v);
      if (isnan(v)) {
        cr_assert(isnan(dec8(t, back)), "%s %02x", etype_name(t), b);
        continue;
      }
      cr_assert_eq(back, b, "%s %02x -> %g -> %02x", etype_name(t), b, (double)v, back);
      bool positive_half = t == ET_F8E8M0FNU || b < n / 2;
      if (positive_half && !isinf(v)) {
        cr_assert(v > prev, "%s not increasing at %02x", etype_name(t), b);
        prev = v;
      }
    }
  }
}

Test(etype_convert, float_to_int_saturates) {
  float src[] = {300.5f, -300.0f, NAN, -1.9f, 1.9f, INFINITY, -INFINITY};
  int8_t s8[7];
  etype_convert_array(ET_S8, s8, ET_F32, src, 7);
  int8_t want_s8[] = {127, -128, 0, -1, 1, 127, -128};
  for (int i = 0; i < 7; i++) cr_expect_eq(s8[i], want_s8[i], "s8[%d]", i);
  uint8_t u8[7];
  etype_convert_array(ET_U8, u8, ET_F32, src, 7);
  uint8_t want_u8[] = {255, 0, 0, 0, 1, 255, 0};
  for (int i = 0; i < 7; i++) cr_expect_eq(u8[i], want_u8[i], "u8[%d]", i);
  int8_t s4[7];
  etype_convert_array(ET_S4, s4, ET_F32, src, 7);
  int8_t want_s4[] = {7, -8, 0, -1, 1, 7, -8};
  for (int i = 0; i < 7; i++) cr_expect_eq(s4[i], want_s4[i], "s4[%d]", i);
  double big[] = {1e300, -1e300, 9.3e18};
  int64_t s64[3];
  etype_convert_array(ET_S64, s64, ET_F64, big, 3);
  cr_expect_eq(s64[0], INT64_MAX);
  cr_expect_eq(s64[1], INT64_MIN);
  cr_expect_eq(s64[2], INT64_MAX);
  uint64_t u64[1];
  etype_convert_array(ET_U64, u64, ET_F64, big, 1);
  cr_expect_eq(u64[0], UINT64_MAX);
}

Test(etype_convert, int_wrap_and_pred) {
  int32_t src[] = {9, 17, -1, 256, 0};
  int8_t s4[5];
  etype_convert_array(ET_S4, s4, ET_S32, src, 5);
  cr_expect_eq(s4[0], -7);
  cr_expect_eq(s4[1], 1);
  cr_expect_eq(s4[2], -1);
  uint8_t u4[5];
  etype_convert_array(ET_U4, u4, ET_S32, src, 5);
  cr_expect_eq(u4[0], 9);
  cr_expect_eq(u4[1], 1);
  cr_expect_eq(u4[2], 15);
  uint8_t u8[5];
  etype_convert_array(ET_U8, u8, ET_S32, src, 5);
  cr_expect_eq(u8[3], 0);
  cr_expect_eq(u8[2], 255);
  uint8_t p[5];
  etype_convert_array(ET_PRED, p, ET_S32, src, 5);
  cr_expect(p[0] == 1 && p[3] == 1 && p[4] == 0);
  float f[] = {NAN, 0.0f, -0.0f, 0.5f};
  etype_convert_array(ET_PRED, p, ET_F32, f, 4);
  cr_expect(p[0] == 1 && p[1] == 0 && p[2] == 0 && p[3] == 1);
  uint64_t umax = UINT64_MAX;
  float fu;
  etype_convert_array(ET_F32, &fu, ET_U64, &umax, 1);
  cr_expect_eq(fu, 0x1p64f);
  int64_t i24 = (1 << 24) + 1;
  etype_convert_array(ET_F32, &fu, ET_S64, &i24, 1);
  cr_expect_eq(fu, 16777216.0f);
  uint16_t bf;
  int32_t i257 = 257;
  etype_convert_array(ET_BF16, &bf, ET_S32, &i257, 1);
  cr_expect_eq(bf, 0x4380); /* 257 -> 256 (tie to even) */
}

Test(etype_convert, complex) {
  float c[] = {1.5f, -2.0f};
  float re;
  etype_convert_array(ET_F32, &re, ET_C64, c, 1);
  cr_expect_eq(re, 1.5f);
  double c2[2];
  etype_convert_array(ET_C128, c2, ET_C64, c, 1);
  cr_expect(c2[0] == 1.5 && c2[1] == -2.0);
  float r = 3.0f, cc[2];
  etype_convert_array(ET_C64, cc, ET_F32, &r, 1);
  cr_expect(cc[0] == 3.0f && cc[1] == 0.0f);
  int32_t ci;
  etype_convert_array(ET_S32, &ci, ET_C64, c, 1);
  cr_expect_eq(ci, 1);
}

Test(etype_convert, long_arrays_cross_blocks) {
  enum { N = 1000 };
  static float src[N], back[N];
  static uint16_t mid[N];
  for (int i = 0; i < N; i++) src[i] = (float)(i % 512) - 256.0f;
  etype_convert_array(ET_BF16, mid, ET_F32, src, N);
  etype_convert_array(ET_F32, back, ET_BF16, mid, N);
  for (int i = 0; i < N; i++) cr_assert_eq(back[i], src[i], "%d", i); /* |x| <= 256 fits 8 bits */
}

Test(etype_store, ranges) {
  uint8_t b[16];
  cr_expect(etype_store_int(ET_S4, -8, b) && (int8_t)b[0] == -8);
  cr_expect(!etype_store_int(ET_S4, -9, b));
  cr_expect(!etype_store_int(ET_U4, 16, b));
  cr_expect(etype_store_int(ET_U4, 15, b) && b[0] == 15);
  cr_expect(!etype_store_int(ET_PRED, 2, b));
  cr_expect(!etype_store_int(ET_U8, -1, b));
  cr_expect(etype_store_uint(ET_U64, UINT64_MAX, b));
  cr_expect(!etype_store_uint(ET_S64, (uint64_t)INT64_MAX + 1, b));
  cr_expect(etype_store_int(ET_S64, INT64_MIN, b));
  uint16_t h;
  cr_expect(etype_store_float(ET_F16, 65519, &h) && h == 0x7bff);
  cr_expect(!etype_store_float(ET_F16, 65520, &h));
  cr_expect(etype_store_float(ET_F16, -INFINITY, &h) && h == 0xfc00);
  cr_expect(etype_store_float(ET_F8E4M3FN, 464, b) && b[0] == 0x7e);
  cr_expect(!etype_store_float(ET_F8E4M3FN, 480, b));
  cr_expect(!etype_store_float(ET_F4E2M1FN, 7, b)); /* rounds past 6 */
  cr_expect(!etype_store_float(ET_F8E8M0FNU, 0, b));
  cr_expect(!etype_store_float(ET_F32, 1e39, b));
  cr_expect(etype_store_float(ET_F32, 3.4028235e38, b));
  cr_expect(!etype_store_float(ET_S32, 1.0, b));
  cr_expect(etype_store_int(ET_F32, 3, b));
  float c[2];
  cr_expect(etype_store_complex(ET_C64, 1.0, -2.0, c) && c[0] == 1.0f && c[1] == -2.0f);
  cr_expect(etype_store_float(ET_C64, 4.0, c) && c[0] == 4.0f && c[1] == 0.0f);
}

Test(etype_store, nans) {
  uint16_t h;
  cr_expect(etype_store_nan(ET_BF16, false, 0, &h) && h == 0x7fc0);
  cr_expect(etype_store_nan(ET_BF16, false, 1, &h) && h == 0x7f81);
  cr_expect(etype_store_nan(ET_BF16, true, 0x7f, &h) && h == 0xffff);
  cr_expect(!etype_store_nan(ET_BF16, false, 0x80, &h));
  float f;
  cr_expect(etype_store_nan(ET_F32, false, 0, &f) && f32b(f) == 0x7fc00000u);
  cr_expect(etype_store_nan(ET_F32, true, 5, &f) && f32b(f) == 0xff800005u);
  uint8_t b;
  cr_expect(etype_store_nan(ET_F8E4M3FN, true, 0, &b) && b == 0xff);
  cr_expect(!etype_store_nan(ET_F8E4M3FN, false, 1, &b));
  cr_expect(etype_store_nan(ET_F8E4M3FNUZ, true, 0, &b) && b == 0x80);
  cr_expect(etype_store_nan(ET_F8E5M2, false, 1, &b) && b == 0x7d);
  cr_expect(!etype_store_nan(ET_F4E2M1FN, false, 0, &b));
  cr_expect(!etype_store_nan(ET_S32, false, 0, &f));
}

static void expect_fmt(EType t, const void *v, bool word, const char *want) {
  StrBuf sb;
  sb_init(&sb);
  etype_format(&sb, t, v, word);
  cr_expect_str_eq(sb.data, want, "%s", etype_name(t));
  sb_free(&sb);
}
static void expect_f32(float v, const char *want) { expect_fmt(ET_F32, &v, false, want); }

Test(etype_format, floats) {
  expect_f32(0.1f, "0.1");
  expect_f32(3.14159265f, "3.14159274");
  expect_f32(1e10f, "1e+10");
  expect_f32(1.0f, "1");
  expect_f32(-0.0f, "-0");
  expect_f32(123456.0f, "123456");
  expect_f32(1234567.0f, "1234567");
  expect_f32(INFINITY, "inf");
  expect_f32(-INFINITY, "-inf");
  expect_f32(NAN, "nan");
  expect_f32(-NAN, "-nan");
  expect_f32(bf32(0x7f800001), "nan(0x1)");
  expect_f32(bf32(0x7fc00001), "nan(0x400001)");
  double d = 0.1;
  expect_fmt(ET_F64, &d, false, "0.1");
  d = 1.0 / 3.0;
  expect_fmt(ET_F64, &d, false, "0.33333333333333331");
  uint16_t h = 0x3dcd; /* bf16(0.1) = 0.10009765625 */
  expect_fmt(ET_BF16, &h, false, "0.1001");
  h = 0x2e66; /* f16(0.1) = 0.0999755859375 */
  expect_fmt(ET_F16, &h, false, "0.099976");
  h = 0x7f81;
  expect_fmt(ET_BF16, &h, false, "nan(0x1)");
  h = 0xffc0;
  expect_fmt(ET_BF16, &h, false, "-nan");
  uint8_t b = 0x7b; /* e5m2 57344, 2 digits */
  expect_fmt(ET_F8E5M2, &b, false, "5.7e+04");
  b = 0x7e;
  expect_fmt(ET_F8E4M3FN, &b, false, "448");
  b = 0x80;
  expect_fmt(ET_F8E4M3FNUZ, &b, false, "-nan");
  b = 0x07;
  expect_fmt(ET_F4E2M1FN, &b, false, "6");
  float c[2] = {1.0f, -2.5f};
  expect_fmt(ET_C64, c, false, "(1, -2.5)");
}

Test(etype_format, ints_and_pred) {
  int8_t s4 = -8;
  expect_fmt(ET_S4, &s4, false, "-8");
  uint64_t u = UINT64_MAX;
  expect_fmt(ET_U64, &u, false, "18446744073709551615");
  int64_t s = INT64_MIN;
  expect_fmt(ET_S64, &s, false, "-9223372036854775808");
  uint8_t p = 1;
  expect_fmt(ET_PRED, &p, true, "true");
  expect_fmt(ET_PRED, &p, false, "1");
  p = 0;
  expect_fmt(ET_PRED, &p, true, "false");
}

/* etype_convert_array's vectorised 16-bit float loops against the scalar
 * helpers (whose values the tests above check by hand): every f16/bf16 bit
 * pattern to f32, and f32 patterns to f16/bf16 on a stride through all of
 * them plus every pattern near the boundaries of the formats' cases. */
static void check_f32_to_16(const uint32_t *bits, int64_t n) {
  static float f[1 << 12];
  static uint16_t h[1 << 12], b[1 << 12];
  for (int64_t at = 0; at < n; at += 1 << 12) {
    int64_t m = n - at < (1 << 12) ? n - at : (1 << 12);
    for (int64_t i = 0; i < m; i++) f[i] = bf32(bits[at + i]);
    etype_convert_array(ET_F16, h, ET_F32, f, m);
    etype_convert_array(ET_BF16, b, ET_F32, f, m);
    for (int64_t i = 0; i < m; i++) {
      cr_assert_eq(h[i], etype_f32_to_f16(f[i]), "f16 of 0x%08x", bits[at + i]);
      cr_assert_eq(b[i], etype_f32_to_bf16(f[i]), "bf16 of 0x%08x", bits[at + i]);
    }
  }
}

Test(etype_f16, array_loops_match_scalar_helpers) {
  static uint16_t all[1 << 16];
  static float f[1 << 16], g[1 << 16];
  for (int i = 0; i < 1 << 16; i++) all[i] = (uint16_t)i;
  etype_convert_array(ET_F32, f, ET_F16, all, 1 << 16);
  etype_convert_array(ET_F32, g, ET_BF16, all, 1 << 16);
  for (int i = 0; i < 1 << 16; i++) {
    cr_assert_eq(f32b(f[i]), f32b(etype_f16_to_f32((uint16_t)i)), "f16 0x%04x", i);
    cr_assert_eq(f32b(g[i]), f32b(etype_bf16_to_f32((uint16_t)i)), "bf16 0x%04x", i);
  }
  static uint32_t bits[1 << 16];
  int64_t n = 0;
  for (uint64_t u = 0; u < (1ull << 32); u += 65521) {
    bits[n++] = (uint32_t)u;
    if (n == 1 << 16) { check_f32_to_16(bits, n); n = 0; }
  }
  static const uint32_t edges[] = {0x00000000u, 0x33000000u, 0x387fe000u, 0x38800000u, 0x477fe000u,
                                   0x477ff000u, 0x7f7f0000u, 0x7f800000u, 0x7fc00000u};
  for (size_t e = 0; e < sizeof edges / sizeof *edges; e++)
    for (uint32_t d = 0; d < 8192; d++)
      for (uint32_t s = 0; s < 2; s++) {
        bits[n++] = ((edges[e] - 4096u + d) & 0x7fffffffu) | (s << 31);
        if (n == 1 << 16) { check_f32_to_16(bits, n); n = 0; }
      }
  check_f32_to_16(bits, n);
}
