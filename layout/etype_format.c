/* Printing element values as XLA's literal printer does (xla/util.cc
 * RoundTripFpToString): f32/f64 try %.{digits10}g and fall back to
 * %.{max_digits10}g when that does not read back; narrower floats are widened
 * and printed with %.{max_digits10}g of their type; NaNs print "nan"/"-nan"
 * plus "(0x..)" when the type has payloads and the payload is not the default
 * quiet one.
 * f32, the narrow floats and integers go through layout/float_text.c, which
 * writes the same text without snprintf/strtof (a result can have millions
 * of elements).  f64 keeps snprintf + strtod: exact f64 digits need much
 * wider integers than f32's 152 bits, and f64 results are rare and small. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout/etype_convert.h"
#include "layout/float_text.h"

static void put_nan(StrBuf *sb, bool neg, uint64_t payload, uint64_t quiet, bool has_payload) {
  sb_puts(sb, neg ? "-nan" : "nan");
  if (has_payload && payload != quiet) sb_printf(sb, "(0x%" PRIx64 ")", payload);
}

static void fmt_f32(StrBuf *sb, float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  if (isnan(v)) {
    put_nan(sb, b >> 31, b & 0x7fffffu, 0x400000u, true);
    return;
  }
  char buf[FLOAT_TEXT_MAX];
  sb_append(sb, buf, (size_t)float_text_f32_roundtrip(buf, v));
}

static void fmt_f64(StrBuf *sb, double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  if (isnan(v)) {
    put_nan(sb, b >> 63, b & ((UINT64_C(1) << 52) - 1), UINT64_C(1) << 51, true);
    return;
  }
  char buf[64];
  snprintf(buf, sizeof buf, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
  sb_puts(sb, buf);
}

static void fmt_small(StrBuf *sb, EType t, uint32_t bits) {
  const EFloatFormat *f = etype_float_format(t);
  if (etype_small_is_nan(f, bits)) {
    bool neg = f->is_signed && (bits & f->sign_bit);
    uint32_t mmask = (1u << f->mbits) - 1u;
    put_nan(sb, neg, bits & mmask, 1u << (f->mbits ? f->mbits - 1 : 0), f->nan == EF_NAN_IEEE);
    return;
  }
  /* every narrow float is exactly an f32 (f8e8m0fnu's 2^-127 a subnormal) */
  float v = t == ET_BF16 ? etype_bf16_to_f32((uint16_t)bits)
            : t == ET_F16 ? etype_f16_to_f32((uint16_t)bits)
                          : (float)etype_small_decode(f, bits);
  char buf[FLOAT_TEXT_MAX];
  sb_append(sb, buf, (size_t)float_text_f32_g(buf, v, f->max_digits10));
}

void etype_format(StrBuf *sb, EType t, const void *elem, bool pred_as_word) {
  switch (t) {
  case ET_PRED: {
    uint8_t b;
    memcpy(&b, elem, 1);
    sb_puts(sb, pred_as_word ? (b ? "true" : "false") : (b ? "1" : "0"));
    return;
  }
  case ET_U64: {
    uint64_t v;
    memcpy(&v, elem, 8);
    char buf[FLOAT_TEXT_MAX];
    sb_append(sb, buf, (size_t)float_text_u64(buf, v));
    return;
  }
  case ET_F32: {
    float v;
    memcpy(&v, elem, 4);
    fmt_f32(sb, v);
    return;
  }
  case ET_F64: {
    double v;
    memcpy(&v, elem, 8);
    fmt_f64(sb, v);
    return;
  }
  case ET_C64: {
    float p[2];
    memcpy(p, elem, 8);
    sb_putc(sb, '(');
    fmt_f32(sb, p[0]);
    sb_puts(sb, ", ");
    fmt_f32(sb, p[1]);
    sb_putc(sb, ')');
    return;
  }
  case ET_C128: {
    double p[2];
    memcpy(p, elem, 16);
    sb_putc(sb, '(');
    fmt_f64(sb, p[0]);
    sb_puts(sb, ", ");
    fmt_f64(sb, p[1]);
    sb_putc(sb, ')');
    return;
  }
  case ET_BF16:
  case ET_F16: {
    uint16_t h;
    memcpy(&h, elem, 2);
    fmt_small(sb, t, h);
    return;
  }
  default: break;
  }
  if (etype_is_float(t)) {
    uint8_t b;
    memcpy(&b, elem, 1);
    fmt_small(sb, t, b);
    return;
  }
  if (etype_is_int(t)) {
    char buf[FLOAT_TEXT_MAX];
    sb_append(sb, buf, (size_t)float_text_i64(buf, etype_load_i64(t, elem)));
    return;
  }
  sb_puts(sb, "?");
}
