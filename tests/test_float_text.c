/* layout/float_text.c against libc: the text hlotools printed before it
 * existed (snprintf "%.6g", read back with strtof, else "%.9g"; the narrow
 * floats widened and printed with snprintf "%.{max_digits10}g") is the
 * oracle, kept here.  Covered: the special values, every power of two and
 * its neighbours, subnormals, values next to 6-digit decimals (the read-back
 * decision at the ends of the rounding interval), exact ties of the 6-digit
 * rounding, millions of random bit patterns, and every bf16, f16 and
 * f8/f6/f4 encoding. */
#include <criterion/criterion.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/etype_convert.h"
#include "layout/float_text.h"

static float from_bits(uint32_t b) {
  float v;
  memcpy(&v, &b, 4);
  return v;
}

/* The algorithm layout/etype_format.c used before float_text.c. */
static void oracle_roundtrip(char *buf, size_t size, float v) {
  snprintf(buf, size, "%.6g", (double)v);
  if (strtof(buf, NULL) != v) snprintf(buf, size, "%.9g", (double)v);
}

static int failures;

static void check_roundtrip(float v) {
  char want[64], got[FLOAT_TEXT_MAX + 1];
  oracle_roundtrip(want, sizeof want, v);
  int n = float_text_f32_roundtrip(got, v);
  got[n] = 0;
  if (strcmp(got, want) && failures++ < 20) {
    uint32_t b;
    memcpy(&b, &v, 4);
    cr_log_error("bits 0x%08" PRIx32 ": got '%s', want '%s'", b, got, want);
  }
}

static void check_g(float v, int precision) {
  char want[64], got[FLOAT_TEXT_MAX + 1];
  snprintf(want, sizeof want, "%.*g", precision, (double)v);
  int n = float_text_f32_g(got, v, precision);
  got[n] = 0;
  if (strcmp(got, want) && failures++ < 20) {
    uint32_t b;
    memcpy(&b, &v, 4);
    cr_log_error("bits 0x%08" PRIx32 " %%.%dg: got '%s', want '%s'", b, precision, got, want);
  }
}

/* Both signs. */
static void check_both(uint32_t mag) {
  check_roundtrip(from_bits(mag));
  check_roundtrip(from_bits(mag | 0x80000000u));
}

/* xorshift64*: deterministic random bit patterns. */
static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint64_t next_random(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1du;
}

Test(float_text, special_values) {
  failures = 0;
  float specials[] = {0.0f,     -0.0f,   INFINITY, -INFINITY,  FLT_MAX,     -FLT_MAX, FLT_MIN,
                      FLT_TRUE_MIN, 1.0f, 0.1f,    1e10f,     3.14159265f, 123456.0f, 1234567.0f,
                      1e-5f,    1e-4f,   999999.5f, 9999995.0f, 0.5f,      100000.0f, 1e6f};
  for (size_t i = 0; i < sizeof specials / sizeof *specials; i++) {
    check_roundtrip(specials[i]);
    check_roundtrip(-specials[i]);
  }
  char buf[FLOAT_TEXT_MAX + 1];
  buf[float_text_f32_roundtrip(buf, -0.0f)] = 0;
  cr_expect_str_eq(buf, "-0");
  buf[float_text_f32_roundtrip(buf, 1e10f)] = 0;
  cr_expect_str_eq(buf, "1e+10");
  buf[float_text_f32_roundtrip(buf, 3.14159265f)] = 0;
  cr_expect_str_eq(buf, "3.14159274");
  buf[float_text_f32_roundtrip(buf, FLT_TRUE_MIN)] = 0;
  cr_expect_str_eq(buf, "1.4013e-45"); /* reads back: the nearest f32 */
  cr_expect_eq(failures, 0);
}

Test(float_text, powers_of_two_and_neighbours) {
  failures = 0;
  for (uint32_t exp = 0; exp < 255; exp++)
    for (int d = -3; d <= 3; d++) {
      int64_t b = ((int64_t)exp << 23) + d;
      if (b > 0 && b < 0x7f800000) check_both((uint32_t)b);
    }
  for (int i = 0; i < 23; i++) check_both(1u << i); /* subnormal powers of two */
  cr_expect_eq(failures, 0);
}

/* The decimal exponent changes at powers of ten. */
Test(float_text, powers_of_ten_and_neighbours) {
  failures = 0;
  for (int j = -46; j <= 39; j++) {
    char text[16];
    snprintf(text, sizeof text, "1e%d", j);
    float f = strtof(text, NULL);
    uint32_t b;
    memcpy(&b, &f, 4);
    for (int d = -8; d <= 8; d++) {
      int64_t n = (int64_t)(b & 0x7fffffffu) + d;
      if (n > 0 && n < 0x7f800000) check_both((uint32_t)n);
    }
  }
  cr_expect_eq(failures, 0);
}

Test(float_text, subnormals) {
  failures = 0;
  for (uint32_t b = 1; b < 0x800000u; b += 61) check_roundtrip(from_bits(b));
  for (uint32_t b = 1; b < 4096; b++) check_both(b);
  for (uint32_t b = 0x800000u - 4096; b <= 0x800000u + 4096; b++) check_both(b);
  cr_expect_eq(failures, 0);
}

/* Floats around 6-digit decimals: where the 6-digit text is just inside or
 * just outside the rounding interval. */
Test(float_text, next_to_six_digit_decimals) {
  failures = 0;
  for (int i = 0; i < 80000; i++) {
    uint64_t r = next_random();
    int digits = 100000 + (int)(r % 900000);
    int exp10 = (int)((r >> 32) % 84) - 45 - 5;
    char text[32];
    snprintf(text, sizeof text, "%de%d", digits, exp10);
    float f = strtof(text, NULL);
    uint32_t b;
    memcpy(&b, &f, 4);
    for (int d = -2; d <= 2; d++) {
      int64_t n = (int64_t)(b & 0x7fffffffu) + d;
      if (n > 0 && n < 0x7f800000) check_roundtrip(from_bits((uint32_t)n));
    }
  }
  cr_expect_eq(failures, 0);
}

/* Exact ties of the 6-digit (and 9-digit) rounding: integers ending in 5 and
 * binary fractions with few bits. */
Test(float_text, rounding_ties) {
  failures = 0;
  for (uint32_t i = 1000005; i < (1u << 24); i += 70) check_roundtrip((float)i);
  for (uint32_t i = 1; i < (1u << 20); i += 7) {
    check_roundtrip((float)i / 1024.0f);
    check_roundtrip((float)i * 1024.0f);
  }
  cr_expect_eq(failures, 0);
}

Test(float_text, random_bit_patterns) {
  failures = 0;
  for (int i = 0; i < 2000000; i++) {
    uint32_t b = (uint32_t)next_random();
    if ((b & 0x7f800000u) == 0x7f800000u) continue; /* NaN/inf: not digits */
    check_roundtrip(from_bits(b));
  }
  cr_expect_eq(failures, 0);
}

Test(float_text, every_precision) {
  failures = 0;
  for (int i = 0; i < 100000; i++) {
    uint32_t b = (uint32_t)next_random();
    if ((b & 0x7f800000u) == 0x7f800000u) continue;
    for (int p = 1; p <= 9; p++) check_g(from_bits(b), p);
  }
  cr_expect_eq(failures, 0);
}

Test(float_text, every_bf16_and_f16) {
  failures = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    float bf = etype_bf16_to_f32((uint16_t)h), f16 = etype_f16_to_f32((uint16_t)h);
    if (!isnan(bf)) check_g(bf, 4);
    if (!isnan(f16)) check_g(f16, 5);
  }
  cr_expect_eq(failures, 0);
}

/* Every encoding of every narrow float through etype_format, NaNs included,
 * against the old snprintf of the decoded double. */
Test(float_text, every_f8_f6_f4) {
  EType types[] = {ET_F8E5M2,     ET_F8E4M3,     ET_F8E4M3FN, ET_F8E4M3B11FNUZ,
                   ET_F8E3M4,     ET_F8E5M2FNUZ, ET_F8E4M3FNUZ, ET_F8E8M0FNU,
                   ET_F6E2M3FN,   ET_F6E3M2FN,   ET_F4E2M1FN};
  for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
    const EFloatFormat *f = etype_float_format(types[t]);
    int width = f->ebits + f->mbits + (f->is_signed ? 1 : 0);
    for (uint32_t b = 0; b < (1u << width); b++) {
      uint8_t byte = (uint8_t)b;
      StrBuf sb;
      sb_init(&sb);
      etype_format(&sb, types[t], &byte, false);
      if (etype_small_is_nan(f, b)) {
        cr_expect(strstr(sb.data, "nan") != NULL, "%s 0x%02x: '%s'", etype_name(types[t]), b,
                  sb.data);
      } else {
        char want[64];
        snprintf(want, sizeof want, "%.*g", f->max_digits10, etype_small_decode(f, b));
        cr_expect_str_eq(sb.data, want, "%s 0x%02x", etype_name(types[t]), b);
      }
      sb_free(&sb);
    }
  }
}

Test(float_text, integers) {
  char want[32], got[FLOAT_TEXT_MAX + 1];
  int64_t edge[] = {0, 1, -1, 9, 10, -10, 99, 100, INT64_MAX, INT64_MIN, INT32_MIN, INT32_MAX};
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
    snprintf(want, sizeof want, "%" PRId64, edge[i]);
    got[float_text_i64(got, edge[i])] = 0;
    cr_expect_str_eq(got, want);
  }
  got[float_text_u64(got, UINT64_MAX)] = 0;
  cr_expect_str_eq(got, "18446744073709551615");
  for (int i = 0; i < 100000; i++) {
    uint64_t r = next_random() >> (next_random() % 64);
    snprintf(want, sizeof want, "%" PRIu64, r);
    got[float_text_u64(got, r)] = 0;
    cr_expect_str_eq(got, want);
    snprintf(want, sizeof want, "%" PRId64, (int64_t)r);
    got[float_text_i64(got, (int64_t)r)] = 0;
    cr_expect_str_eq(got, want);
  }
}
