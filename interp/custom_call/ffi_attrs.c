/* The MLIR dictionary of a typed-FFI backend_config, parsed into the call
 * frame's attribute form (see ffi_attrs.h for what is accepted). */
#include "interp/custom_call/ffi_attrs.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deeper nesting than any real config; the bound keeps hostile input off
 * the C stack. */
enum { MAX_DEPTH = 32 };

typedef struct Reader {
  const char *s;
  size_t n, i;
  Arena *arena;
  int64_t base;
  Error *err;
} Reader;

static bool fail_at(Reader *r, size_t at, const char *fmt, const char *what) {
  return error_set(r->err, ERR_INVALID, r->base + (int64_t)at, fmt, what);
}

static bool fail(Reader *r, const char *fmt, const char *what) { return fail_at(r, r->i, fmt, what); }

static void skip_space(Reader *r) {
  while (r->i < r->n && isspace((unsigned char)r->s[r->i])) r->i++;
}

static bool peek(Reader *r, char c) {
  skip_space(r);
  return r->i < r->n && r->s[r->i] == c;
}

static bool eat(Reader *r, char c) {
  if (!peek(r, c)) return false;
  r->i++;
  return true;
}

static bool is_ident_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

/* A bare word at the cursor (identifier, type, keyword); its length. */
static size_t word_len(Reader *r) {
  skip_space(r);
  size_t k = r->i;
  while (k < r->n && is_ident_char(r->s[k])) k++;
  return k - r->i;
}

static bool word_is(Reader *r, const char *w) {
  size_t n = word_len(r), wl = strlen(w);
  return n == wl && memcmp(r->s + r->i, w, wl) == 0;
}

static int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* "text" with MLIR's escapes (\" \\ \n \t and \XX hex) into the arena. */
static bool read_string(Reader *r, XLA_FFI_ByteSpan *out) {
  if (!eat(r, '"')) return fail(r, "expected %s", "a string");
  char *buf = arena_alloc(r->arena, r->n - r->i + 1);
  if (!buf) return fail(r, "%s", "out of memory");
  size_t len = 0;
  while (r->i < r->n && r->s[r->i] != '"') {
    char c = r->s[r->i++];
    if (c == '\\') {
      if (r->i >= r->n) break;
      char e = r->s[r->i++];
      int h = hex_digit(e), l = r->i < r->n ? hex_digit(r->s[r->i]) : -1;
      if (e == 'n') c = '\n';
      else if (e == 't') c = '\t';
      else if (e == '"' || e == '\\') c = e;
      else if (h >= 0 && l >= 0) {
        c = (char)(h * 16 + l);
        r->i++;
      } else
        return fail(r, "bad escape in %s", "a string");
    }
    buf[len++] = c;
  }
  if (!eat(r, '"')) return fail(r, "unterminated %s", "string");
  buf[len] = '\0';
  *out = (XLA_FFI_ByteSpan){buf, len};
  return true;
}

/* An element type name: iN/siN/uiN (N in 1,8,16,32,64), f32, f64. */
static bool read_type(Reader *r, XLA_FFI_DataType *t) {
  size_t n = word_len(r);
  static const struct {
    const char *name;
    XLA_FFI_DataType t;
  } types[] = {
      {"i1", XLA_FFI_DataType_PRED},   {"i8", XLA_FFI_DataType_S8},
      {"i16", XLA_FFI_DataType_S16},   {"i32", XLA_FFI_DataType_S32},
      {"i64", XLA_FFI_DataType_S64},   {"si8", XLA_FFI_DataType_S8},
      {"si16", XLA_FFI_DataType_S16},  {"si32", XLA_FFI_DataType_S32},
      {"si64", XLA_FFI_DataType_S64},  {"ui8", XLA_FFI_DataType_U8},
      {"ui16", XLA_FFI_DataType_U16},  {"ui32", XLA_FFI_DataType_U32},
      {"ui64", XLA_FFI_DataType_U64},  {"f32", XLA_FFI_DataType_F32},
      {"f64", XLA_FFI_DataType_F64},
  };
  for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
    if (strlen(types[k].name) == n && memcmp(r->s + r->i, types[k].name, n) == 0) {
      *t = types[k].t;
      r->i += n;
      return true;
    }
  char what[40];
  snprintf(what, sizeof what, "%.*s", (int)(n ? (n < 32 ? n : 32) : 1), r->s + r->i);
  return fail(r, "type '%s' is not one XLA's FFI passes (i8..i64, ui8..ui64, f32, f64)", what);
}

int ffi_attrs_value_bytes(XLA_FFI_DataType t) {
  switch (t) {
  case XLA_FFI_DataType_PRED: case XLA_FFI_DataType_S8: case XLA_FFI_DataType_U8: return 1;
  case XLA_FFI_DataType_S16: case XLA_FFI_DataType_U16: return 2;
  case XLA_FFI_DataType_S32: case XLA_FFI_DataType_U32: case XLA_FFI_DataType_F32: return 4;
  default: return 8;
  }
}

static bool is_float_type(XLA_FFI_DataType t) {
  return t == XLA_FFI_DataType_F32 || t == XLA_FFI_DataType_F64;
}

/* A number token as written: sign, digits, '.', exponent, or 0x hex. */
typedef struct Number {
  size_t at; /* where it starts, for messages */
  bool is_float, is_hex, negative;
  uint64_t mag;  /* integers and hex: the magnitude */
  double f;      /* floats */
} Number;

static bool read_number(Reader *r, Number *num) {
  skip_space(r);
  size_t start = r->i;
  *num = (Number){0};
  num->at = start;
  if (r->i < r->n && (r->s[r->i] == '-' || r->s[r->i] == '+'))
    num->negative = r->s[r->i++] == '-';
  if (r->i + 1 < r->n && r->s[r->i] == '0' && (r->s[r->i + 1] == 'x' || r->s[r->i + 1] == 'X')) {
    r->i += 2;
    size_t digits = 0;
    for (int h; r->i < r->n && (h = hex_digit(r->s[r->i])) >= 0; r->i++, digits++) {
      if (num->mag >> 60) return fail(r, "%s does not fit 64 bits", "hexadecimal number");
      num->mag = num->mag << 4 | (uint64_t)h;
    }
    if (!digits) return fail(r, "expected %s", "hexadecimal digits");
    num->is_hex = true;
    return true;
  }
  size_t k = r->i;
  while (k < r->n && (isdigit((unsigned char)r->s[k]) || r->s[k] == '.' || r->s[k] == 'e' ||
                      r->s[k] == 'E' ||
                      ((r->s[k] == '-' || r->s[k] == '+') && (r->s[k - 1] == 'e' || r->s[k - 1] == 'E'))))
    k++;
  if (k == r->i || !isdigit((unsigned char)r->s[r->i])) {
    r->i = start;
    return fail(r, "expected %s", "a value (number, string, true/false, array<...> or {...})");
  }
  char tok[80];
  size_t len = k - start;
  if (len >= sizeof tok) return fail(r, "%s is too long", "number");
  memcpy(tok, r->s + start, len);
  tok[len] = '\0';
  num->is_float = strpbrk(tok, ".eE") != NULL;
  char *end;
  errno = 0;
  if (num->is_float) num->f = strtod(tok, &end);
  else num->mag = strtoull(tok + (num->negative || tok[0] == '+'), &end, 10);
  if (*end || (errno == ERANGE && !num->is_float)) return fail(r, "bad number '%s'", tok);
  r->i = k;
  return true;
}

/* Stores num as type t at p; false when it cannot be one. */
static bool store_number(Reader *r, const Number *num, XLA_FFI_DataType t, void *p) {
  if (is_float_type(t)) {
    if (num->is_hex) { /* MLIR's bit pattern form (NaN, Inf) */
      if (t == XLA_FFI_DataType_F32) {
        if (num->negative || num->mag > UINT32_MAX) return fail_at(r, num->at, "%s is not an f32 bit pattern", "hex value");
        uint32_t b = (uint32_t)num->mag;
        memcpy(p, &b, 4);
      } else {
        if (num->negative) return fail_at(r, num->at, "%s is not an f64 bit pattern", "hex value");
        memcpy(p, &num->mag, 8);
      }
      return true;
    }
    double v = num->is_float ? num->f : (num->negative ? -(double)num->mag : (double)num->mag);
    if (t == XLA_FFI_DataType_F32) {
      float f = (float)v;
      memcpy(p, &f, 4);
    } else
      memcpy(p, &v, 8);
    return true;
  }
  if (num->is_float) return fail_at(r, num->at, "%s where the type is an integer", "a float");
  if (t == XLA_FFI_DataType_PRED) {
    if (num->negative || num->mag > 1) return fail_at(r, num->at, "%s: i1 holds 0 or 1", "value out of range");
    *(uint8_t *)p = (uint8_t)num->mag;
    return true;
  }
  int bits = ffi_attrs_value_bytes(t) * 8;
  bool is_unsigned = t == XLA_FFI_DataType_U8 || t == XLA_FFI_DataType_U16 ||
                     t == XLA_FFI_DataType_U32 || t == XLA_FFI_DataType_U64;
  uint64_t umax = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  uint64_t neg_max = UINT64_C(1) << (bits - 1); /* magnitude of the least value */
  /* Unsigned: 0 .. 2^N-1.  Signed (iN as MLIR reads it): -2^(N-1) .. 2^N-1,
   * a value past 2^(N-1)-1 wrapping as MLIR's APInt does. */
  if (num->negative ? (is_unsigned || num->mag > neg_max) : num->mag > umax)
    return fail_at(r, num->at, "%s for its type", "integer out of range");
  uint64_t bitsval = num->negative ? (uint64_t)0 - num->mag : num->mag;
  switch (bits) {
  case 8: { uint8_t v = (uint8_t)bitsval; memcpy(p, &v, 1); break; }
  case 16: { uint16_t v = (uint16_t)bitsval; memcpy(p, &v, 2); break; }
  case 32: { uint32_t v = (uint32_t)bitsval; memcpy(p, &v, 4); break; }
  default: memcpy(p, &bitsval, 8); break;
  }
  return true;
}

static bool read_dict(Reader *r, XLA_FFI_Attrs *out, int depth);

/* array<T: v, ...> or array<T>. */
static bool read_array(Reader *r, XLA_FFI_Array **out) {
  r->i += strlen("array");
  if (!eat(r, '<')) return fail(r, "expected %s", "'<' after array");
  skip_space(r);
  size_t type_at = r->i;
  XLA_FFI_DataType t;
  if (!read_type(r, &t)) return false;
  if (t == XLA_FFI_DataType_PRED)
    return fail_at(r, type_at, "%s are not attributes XLA's FFI passes", "arrays of i1");
  size_t cap = 0, n = 0;
  /* Elements are separated by commas: an upper bound on their count. */
  for (size_t k = r->i; k < r->n && r->s[k] != '>'; k++) cap += r->s[k] == ',';
  cap++;
  int es = ffi_attrs_value_bytes(t);
  char *data = arena_alloc_array(r->arena, cap, (size_t)es);
  if (!data) return fail(r, "%s", "out of memory");
  if (eat(r, ':')) {
    do {
      Number num;
      if (n == cap) return fail(r, "expected %s", "'>'");
      if (!read_number(r, &num) || !store_number(r, &num, t, data + n * (size_t)es)) return false;
      n++;
    } while (eat(r, ','));
  }
  if (!eat(r, '>')) return fail(r, "expected %s", "'>' closing the array");
  XLA_FFI_Array *a = arena_alloc(r->arena, sizeof *a);
  if (!a) return fail(r, "%s", "out of memory");
  *a = (XLA_FFI_Array){t, n, data};
  *out = a;
  return true;
}

/* A scalar: number [':' type], with MLIR's defaults i64 / f64. */
static bool read_scalar(Reader *r, XLA_FFI_Scalar **out) {
  Number num;
  if (!read_number(r, &num)) return false;
  XLA_FFI_DataType t = num.is_float ? XLA_FFI_DataType_F64 : XLA_FFI_DataType_S64;
  if (eat(r, ':') && !read_type(r, &t)) return false;
  XLA_FFI_Scalar *s = arena_alloc(r->arena, sizeof *s);
  void *v = arena_alloc(r->arena, 8);
  if (!s || !v) return fail(r, "%s", "out of memory");
  memset(v, 0, 8);
  if (!store_number(r, &num, t, v)) return false;
  *s = (XLA_FFI_Scalar){t, v};
  *out = s;
  return true;
}

static bool read_bool(Reader *r, bool value, XLA_FFI_Scalar **out) {
  r->i += value ? 4 : 5;
  XLA_FFI_Scalar *s = arena_alloc(r->arena, sizeof *s);
  uint8_t *v = arena_alloc(r->arena, 1);
  if (!s || !v) return fail(r, "%s", "out of memory");
  *v = value;
  *s = (XLA_FFI_Scalar){XLA_FFI_DataType_PRED, v};
  *out = s;
  return true;
}

static bool read_value(Reader *r, XLA_FFI_AttrType *type, void **value, int depth) {
  skip_space(r);
  if (peek(r, '"')) {
    XLA_FFI_ByteSpan *s = arena_alloc(r->arena, sizeof *s);
    if (!s) return fail(r, "%s", "out of memory");
    *type = XLA_FFI_AttrType_STRING;
    *value = s;
    return read_string(r, s);
  }
  if (peek(r, '{')) {
    XLA_FFI_Attrs *d = arena_alloc(r->arena, sizeof *d);
    if (!d) return fail(r, "%s", "out of memory");
    *type = XLA_FFI_AttrType_DICTIONARY;
    *value = d;
    return read_dict(r, d, depth + 1);
  }
  if (word_is(r, "true") || word_is(r, "false")) {
    *type = XLA_FFI_AttrType_SCALAR;
    return read_bool(r, word_is(r, "true"), (XLA_FFI_Scalar **)value);
  }
  if (word_is(r, "array")) {
    *type = XLA_FFI_AttrType_ARRAY;
    return read_array(r, (XLA_FFI_Array **)value);
  }
  if (word_is(r, "dense") || word_is(r, "dense_resource"))
    return fail(r, "%s: XLA's FFI passes arrays written as array<T: ...>",
                "dense<...> tensor attributes are not supported");
  if (peek(r, '#') || peek(r, '!'))
    return fail(r, "%s are not attributes XLA's FFI passes", "dialect attributes");
  *type = XLA_FFI_AttrType_SCALAR;
  return read_scalar(r, (XLA_FFI_Scalar **)value);
}

static int span_cmp(const XLA_FFI_ByteSpan *a, const XLA_FFI_ByteSpan *b) {
  size_t n = a->len < b->len ? a->len : b->len;
  int c = memcmp(a->ptr, b->ptr, n);
  return c ? c : (a->len > b->len) - (a->len < b->len);
}

typedef struct Entry {
  XLA_FFI_ByteSpan *name;
  XLA_FFI_AttrType type;
  void *value;
} Entry;

static int entry_cmp(const void *a, const void *b) {
  return span_cmp(((const Entry *)a)->name, ((const Entry *)b)->name);
}

/* Sorts the entries by name into *out; a name twice is an error. */
static bool finish_dict(Reader *r, Entry *e, size_t n, XLA_FFI_Attrs *out) {
  if (n > 1) qsort(e, n, sizeof *e, entry_cmp);
  for (size_t k = 1; k < n; k++)
    if (span_cmp(e[k - 1].name, e[k].name) == 0) {
      char what[80];
      snprintf(what, sizeof what, "%.*s", (int)(e[k].name->len < 64 ? e[k].name->len : 64),
               e[k].name->ptr);
      return fail(r, "attribute '%s' is given twice", what);
    }
  size_t m = n ? n : 1;
  out->types = arena_alloc_array(r->arena, m, sizeof *out->types);
  out->names = arena_alloc_array(r->arena, m, sizeof *out->names);
  out->attrs = arena_alloc_array(r->arena, m, sizeof *out->attrs);
  if (!out->types || !out->names || !out->attrs) return fail(r, "%s", "out of memory");
  for (size_t k = 0; k < n; k++) {
    out->types[k] = e[k].type;
    out->names[k] = e[k].name;
    out->attrs[k] = e[k].value;
  }
  out->struct_size = XLA_FFI_Attrs_STRUCT_SIZE;
  out->extension_start = NULL;
  out->size = (int64_t)n;
  return true;
}

static bool read_dict(Reader *r, XLA_FFI_Attrs *out, int depth) {
  if (depth > MAX_DEPTH) return fail(r, "%s", "dictionaries nested too deep");
  if (!eat(r, '{')) return fail(r, "expected %s", "'{'");
  size_t cap = 8, n = 0;
  Entry *e = malloc(cap * sizeof *e);
  bool ok = e != NULL || fail(r, "%s", "out of memory");
  if (ok && !eat(r, '}')) {
    do {
      if (n == cap) {
        Entry *g = realloc(e, 2 * cap * sizeof *e);
        if (!g) {
          ok = fail(r, "%s", "out of memory");
          break;
        }
        e = g;
        cap *= 2;
      }
      XLA_FFI_ByteSpan *name = arena_alloc(r->arena, sizeof *name);
      if (!name) {
        ok = fail(r, "%s", "out of memory");
        break;
      }
      size_t wl = word_len(r);
      if (peek(r, '"')) {
        if (!(ok = read_string(r, name))) break;
      } else if (wl && !isdigit((unsigned char)r->s[r->i])) {
        *name = (XLA_FFI_ByteSpan){arena_strndup(r->arena, r->s + r->i, wl), wl};
        if (!name->ptr) {
          ok = fail(r, "%s", "out of memory");
          break;
        }
        r->i += wl;
      } else {
        ok = fail(r, "expected %s", "an attribute name");
        break;
      }
      if (!eat(r, '=')) {
        ok = fail(r, "expected %s", "'=' after the attribute name (unit attributes are not "
                                    "passed by XLA's FFI)");
        break;
      }
      e[n].name = name;
      if (!(ok = read_value(r, &e[n].type, &e[n].value, depth))) break;
      n++;
    } while (eat(r, ','));
    if (ok && !eat(r, '}')) ok = fail(r, "expected %s", "',' or '}'");
  }
  if (ok) ok = finish_dict(r, e, n, out);
  free(e);
  return ok;
}

bool ffi_attrs_parse(const char *text, size_t len, Arena *arena, int64_t base,
                     XLA_FFI_Attrs *out, Error *err) {
  Reader r = {text, len, 0, arena, base, err};
  skip_space(&r);
  if (r.i == r.n) return finish_dict(&r, NULL, 0, out);
  if (!read_dict(&r, out, 0)) return false;
  skip_space(&r);
  return r.i == r.n || fail(&r, "unexpected %s after the dictionary", "text");
}
