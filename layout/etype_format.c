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

/* Each writer puts one value's text at buf and returns its length; a real
 * number takes at most PART_MAX bytes, so that "(re, im)" fits
 * ETYPE_TEXT_MAX. */
enum { PART_MAX = ETYPE_TEXT_MAX / 2 - 2 };

static int put_text(char *buf, const char *text) {
  size_t n = strlen(text);
  memcpy(buf, text, n);
  return (int)n;
}

static int put_nan(char *buf, bool neg, uint64_t payload, uint64_t quiet, bool has_payload) {
  int n = put_text(buf, neg ? "-nan" : "nan");
  if (has_payload && payload != quiet)
    n += snprintf(buf + n, (size_t)(PART_MAX - n), "(0x%" PRIx64 ")", payload);
  return n;
}

static int fmt_f32(char *buf, float v) {
  uint32_t b;
  memcpy(&b, &v, 4);
  if (isnan(v)) return put_nan(buf, b >> 31, b & 0x7fffffu, 0x400000u, true);
  return float_text_f32_roundtrip(buf, v);
}

static int fmt_f64(char *buf, double v) {
  uint64_t b;
  memcpy(&b, &v, 8);
  if (isnan(v)) return put_nan(buf, b >> 63, b & ((UINT64_C(1) << 52) - 1), UINT64_C(1) << 51, true);
  int n = snprintf(buf, PART_MAX, "%.15g", v);
  if (strtod(buf, NULL) != v) n = snprintf(buf, PART_MAX, "%.17g", v);
  return n;
}

static int fmt_small(char *buf, EType t, uint32_t bits) {
  const EFloatFormat *f = etype_float_format(t);
  if (etype_small_is_nan(f, bits)) {
    bool neg = f->is_signed && (bits & f->sign_bit);
    uint32_t mmask = (1u << f->mbits) - 1u;
    return put_nan(buf, neg, bits & mmask, 1u << (f->mbits ? f->mbits - 1 : 0),
                   f->nan == EF_NAN_IEEE);
  }
  /* every narrow float is exactly an f32 (f8e8m0fnu's 2^-127 a subnormal) */
  float v = t == ET_BF16 ? etype_bf16_to_f32((uint16_t)bits)
            : t == ET_F16 ? etype_f16_to_f32((uint16_t)bits)
                          : (float)etype_small_decode(f, bits);
  return float_text_f32_g(buf, v, f->max_digits10);
}

/* "(re, im)" */
static int fmt_complex(char *buf, const char *re, int nre, const char *im, int nim) {
  buf[0] = '(';
  memcpy(buf + 1, re, (size_t)nre);
  memcpy(buf + 1 + nre, ", ", 2);
  memcpy(buf + 3 + nre, im, (size_t)nim);
  buf[3 + nre + nim] = ')';
  return nre + nim + 4;
}

int etype_format_to(char *buf, EType t, const void *elem, bool pred_as_word) {
  switch (t) {
  case ET_PRED: {
    uint8_t b;
    memcpy(&b, elem, 1);
    return put_text(buf, pred_as_word ? (b ? "true" : "false") : (b ? "1" : "0"));
  }
  case ET_U64: {
    uint64_t v;
    memcpy(&v, elem, 8);
    return float_text_u64(buf, v);
  }
  case ET_F32: {
    float v;
    memcpy(&v, elem, 4);
    return fmt_f32(buf, v);
  }
  case ET_F64: {
    double v;
    memcpy(&v, elem, 8);
    return fmt_f64(buf, v);
  }
  case ET_C64: {
    float p[2];
    memcpy(p, elem, 8);
    char re[PART_MAX], im[PART_MAX];
    int nre = fmt_f32(re, p[0]), nim = fmt_f32(im, p[1]);
    return fmt_complex(buf, re, nre, im, nim);
  }
  case ET_C128: {
    double p[2];
    memcpy(p, elem, 16);
    char re[PART_MAX], im[PART_MAX];
    int nre = fmt_f64(re, p[0]), nim = fmt_f64(im, p[1]);
    return fmt_complex(buf, re, nre, im, nim);
  }
  case ET_BF16:
  case ET_F16: {
    uint16_t h;
    memcpy(&h, elem, 2);
    return fmt_small(buf, t, h);
  }
  default: break;
  }
  if (etype_is_float(t)) {
    uint8_t b;
    memcpy(&b, elem, 1);
    return fmt_small(buf, t, b);
  }
  if (etype_is_int(t)) return float_text_i64(buf, etype_load_i64(t, elem));
  return put_text(buf, "?");
}

void etype_format(StrBuf *sb, EType t, const void *elem, bool pred_as_word) {
  char buf[ETYPE_TEXT_MAX];
  sb_append(sb, buf, (size_t)etype_format_to(buf, t, elem, pred_as_word));
}
