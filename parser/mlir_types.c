/* MLIR types (tensor<2x3xf32>, tuple<...>, !stablehlo.token) and dense<...>
 * literals, written as HLO shapes and HLO literal text. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/mlir_internal.h"

/* MLIR element type -> HLO spelling; NULL when not an element type. */
static const char *etype_hlo(MState *st, const char *w) {
  static const char *const map[][2] = {
      {"f32", "f32"},   {"i32", "s32"},   /* the common ones first */
      {"index", "s64"}, /* layouts and other integer attributes */
      {"i1", "pred"},   {"i2", "s2"},     {"i4", "s4"},     {"i8", "s8"},     {"i16", "s16"},
      {"i32", "s32"},   {"i64", "s64"},   {"si2", "s2"},    {"si4", "s4"},    {"si8", "s8"},
      {"si16", "s16"},  {"si32", "s32"},  {"si64", "s64"},  {"ui1", "u1"},    {"ui2", "u2"},
      {"ui4", "u4"},    {"ui8", "u8"},    {"ui16", "u16"},  {"ui32", "u32"},  {"ui64", "u64"},
      {"bf16", "bf16"}, {"f16", "f16"},   {"f32", "f32"},   {"f64", "f64"},
      {"f8E5M2", "f8e5m2"}, {"f8E4M3", "f8e4m3"}, {"f8E4M3FN", "f8e4m3fn"},
      {"f8E4M3B11FNUZ", "f8e4m3b11fnuz"}, {"f8E3M4", "f8e3m4"}, {"f8E5M2FNUZ", "f8e5m2fnuz"},
      {"f8E4M3FNUZ", "f8e4m3fnuz"}, {"f8E8M0FNU", "f8e8m0fnu"}, {"f6E2M3FN", "f6e2m3fn"},
      {"f6E3M2FN", "f6e3m2fn"}, {"f4E2M1FN", "f4e2m1fn"},
  };
  (void)st;
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(map[i][0], w) == 0) return map[i][1];
  return NULL;
}

static MType *new_type(MState *st, MTypeKind k) {
  MType *t = arena_alloc(st->arena, sizeof *t);
  if (!t) mlir_fail(st, -1, "out of memory");
  t->kind = k;
  return t;
}

/* An element type: f32, complex<f32>, ... */
static const char *element(MState *st) {
  int64_t off = mlir_off(st);
  if (mlir_accept(st, "complex<")) {
    const char *in = mlir_ident(st);
    mlir_expect(st, ">");
    if (in && strcmp(in, "f32") == 0) return "c64";
    if (in && strcmp(in, "f64") == 0) return "c128";
    mlir_fail(st, off, "complex<%s> is not supported: complex<f32> and complex<f64> are", in ? in : "?");
  }
  if (mlir_peek(st, "!quant.")) mlir_fail(st, off, "quantized element types are not supported");
  const char *w = mlir_ident(st);
  const char *h = w ? etype_hlo(st, w) : NULL;
  if (!h) mlir_fail(st, off, "expected an element type (f32, i32, bf16, ...)%s%s", w ? ", found " : "", w ? w : "");
  return h;
}

/* The intern slot of the plain tensor type whose text (after "tensor<")
 * starts at text: its slot (t NULL when new, len set), or NULL when the text
 * is not plain (encodings, complex<...>, blanks) or too long. */
static struct MTypeSlot *type_slot(MState *st, const char *text) {
  size_t n = 0;
  uint64_t h = 1469598103934665603ull;
  while (text + n < st->end && n < 64 && isalnum((unsigned char)text[n])) h = (h ^ (unsigned char)text[n++]) * 1099511628211ull;
  if (n == 0 || n == 64 || text + n >= st->end || text[n] != '>') return NULL;
  if (2 * (st->ntypes + 1) > st->tcap) {
    int nc = st->tcap ? st->tcap * 2 : 256;
    struct MTypeSlot *nt = arena_alloc_array(st->arena, (size_t)nc, sizeof *nt);
    if (!nt) mlir_fail(st, -1, "out of memory");
    for (int i = 0; i < st->tcap; i++) {
      struct MTypeSlot *o = &st->types[i];
      if (!o->t) continue;
      uint64_t oh = 1469598103934665603ull;
      for (size_t k = 0; k < o->len; k++) oh = (oh ^ (unsigned char)o->text[k]) * 1099511628211ull;
      size_t j = oh & (size_t)(nc - 1);
      while (nt[j].t) j = (j + 1) & (size_t)(nc - 1);
      nt[j] = *o;
    }
    st->types = nt, st->tcap = nc;
  }
  size_t j = h & (size_t)(st->tcap - 1);
  for (;; j = (j + 1) & (size_t)(st->tcap - 1)) {
    struct MTypeSlot *sl = &st->types[j];
    if (!sl->t) {
      sl->len = n;
      return sl;
    }
    if (sl->len == n && memcmp(sl->text, text, n) == 0) return sl;
  }
}

/* The encoding after "tensor<dims x T,": #stablehlo.bounds<4, ?> (or the
 * older #mhlo.type_extensions<bounds = [4, ?]>): an integer bound for each
 * '?' dimension, '?' for each static one. */
static void bounds(MState *st, MType *t) {
  int64_t off = mlir_off(st);
  bool mhlo = false;
  if (mlir_accept(st, "#mhlo.type_extensions<")) {
    mhlo = true;
    if (!mlir_accept_word(st, "bounds")) mlir_fail(st, mlir_off(st), "expected 'bounds = [...]'");
    mlir_expect(st, "=");
    mlir_expect(st, "[");
  } else if (!mlir_accept(st, "#stablehlo.bounds<")) {
    mlir_fail(st, off, "tensor encodings other than #stablehlo.bounds<...> (sparsity, ...) are not supported");
  }
  for (int d = 0; d < t->rank; d++) {
    if (d) mlir_expect(st, ",");
    int64_t boff = mlir_off(st), b;
    bool dyn = (t->bounded >> d) & 1;
    if (mlir_accept(st, "?")) {
      if (dyn) mlir_fail(st, boff, "dimension %d is dynamic ('?'): its bound must be an integer", d);
    } else if (mlir_int(st, &b)) {
      if (!dyn) mlir_fail(st, boff, "dimension %d is static: its bound must be '?'", d);
      if (b < 0) mlir_fail(st, boff, "a bound must not be negative");
      t->dims[d] = b;
    } else {
      mlir_fail(st, boff, "expected a bound (an integer or '?') for dimension %d of %d", d, t->rank);
    }
  }
  if (mhlo) mlir_expect(st, "]");
  if (!mlir_peek(st, ">")) mlir_fail(st, mlir_off(st), "the bounds list more dimensions than the tensor's %d", t->rank);
  mlir_expect(st, ">");
}

bool mlir_peek_type(MState *st) {
  return mlir_peek(st, "tensor<") || mlir_peek(st, "tuple<") || mlir_peek(st, "!stablehlo.token");
}

MType *mlir_type(MState *st) {
  int64_t off = mlir_off(st);
  if (++st->depth > MLIR_MAX_DEPTH) mlir_fail(st, off, "types nested too deeply");
  MType *t;
  if (mlir_accept(st, "!stablehlo.token")) {
    t = new_type(st, MT_TOKEN);
  } else if (mlir_accept(st, "tuple<")) {
    t = new_type(st, MT_TUPLE);
    MType *items[256];
    if (!mlir_accept(st, ">")) {
      do {
        if (t->nelems == 256) mlir_fail(st, off, "tuple with more than 256 elements");
        items[t->nelems++] = mlir_type(st);
      } while (mlir_accept(st, ","));
      mlir_expect(st, ">");
    }
    t->elems = arena_alloc_array(st->arena, (size_t)t->nelems + 1, sizeof *t->elems);
    if (!t->elems) mlir_fail(st, -1, "out of memory");
    memcpy(t->elems, items, sizeof items[0] * (size_t)t->nelems);
  } else if (mlir_accept(st, "tensor<")) {
    const char *text = st->p;
    struct MTypeSlot *slot = type_slot(st, text);
    if (slot && slot->t) {
      st->p += slot->len + 1;
      st->depth--;
      return slot->t;
    }
    t = new_type(st, MT_TENSOR);
    int64_t qoff[MLIR_MAX_RANK]; /* where each '?' is, for errors */
    for (;;) {
      mlir_skip(st);
      if (st->p < st->end && *st->p == '?') { /* dynamic: needs a bound below */
        if (t->rank == MLIR_MAX_RANK) mlir_fail(st, off, "rank above %d", MLIR_MAX_RANK);
        qoff[t->rank] = st->p - st->src;
        t->bounded |= 1u << t->rank;
        t->dims[t->rank++] = -1;
        st->p++;
        if (st->p >= st->end || *st->p != 'x') mlir_fail(st, st->p - st->src, "expected 'x' after a dimension");
        st->p++;
        continue;
      }
      if (st->p >= st->end || !isdigit((unsigned char)*st->p)) break;
      int64_t d = 0;
      while (st->p < st->end && isdigit((unsigned char)*st->p)) {
        if (d > (INT64_MAX - 9) / 10) mlir_fail(st, off, "dimension too large");
        d = d * 10 + (*st->p++ - '0');
      }
      if (st->p >= st->end || *st->p != 'x') mlir_fail(st, st->p - st->src, "expected 'x' after a dimension");
      st->p++;
      if (t->rank == MLIR_MAX_RANK) mlir_fail(st, off, "rank above %d", MLIR_MAX_RANK);
      t->dims[t->rank++] = d;
    }
    t->etype = element(st);
    if (mlir_accept(st, ",")) bounds(st, t);
    for (int d = 0; d < t->rank; d++)
      if (t->dims[d] < 0)
        mlir_fail(st, qoff[d], "unbounded dynamic dimension ('?'): only bounded ones are read "
                               "(tensor<?x3xf32, #stablehlo.bounds<4, ?>>, HLO's f32[<=4,3])");
    mlir_expect(st, ">");
    if (slot && st->p - 1 - text == (ptrdiff_t)slot->len) { /* no blanks or comments inside */
      slot->text = text, slot->t = t;
      st->ntypes++;
    }
  } else {
    /* A bare element type stands for a scalar where MLIR allows it. */
    t = new_type(st, MT_TENSOR);
    if (!mlir_peek(st, "complex<") && !(st->p < st->end && isalpha((unsigned char)*st->p)))
      mlir_fail(st, off, "expected a type (tensor<...>, tuple<...>, !stablehlo.token)");
    t->etype = element(st);
  }
  st->depth--;
  return t;
}

void mlir_type_hlo(StrBuf *sb, const MType *t) {
  if (t->kind == MT_TOKEN) {
    sb_puts(sb, "token[]");
  } else if (t->kind == MT_TUPLE) {
    sb_putc(sb, '(');
    for (int i = 0; i < t->nelems; i++) {
      if (i) sb_puts(sb, ", ");
      mlir_type_hlo(sb, t->elems[i]);
    }
    sb_putc(sb, ')');
  } else {
    sb_puts(sb, t->etype);
    sb_putc(sb, '[');
    for (int i = 0; i < t->rank; i++) {
      char d[24];
      int n = 0;
      uint64_t v = (uint64_t)t->dims[i];
      do d[n++] = (char)('0' + v % 10); while ((v /= 10));
      if (i) sb_putc(sb, ',');
      if ((t->bounded >> i) & 1) sb_puts(sb, "<=");
      while (n) sb_putc(sb, d[--n]);
    }
    sb_putc(sb, ']');
  }
}

bool mlir_type_eq(const MType *a, const MType *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == MT_TOKEN) return true;
  if (a->kind == MT_TUPLE) {
    if (a->nelems != b->nelems) return false;
    for (int i = 0; i < a->nelems; i++)
      if (!mlir_type_eq(a->elems[i], b->elems[i])) return false;
    return true;
  }
  return strcmp(a->etype, b->etype) == 0 && a->rank == b->rank && a->bounded == b->bounded &&
         memcmp(a->dims, b->dims, sizeof a->dims[0] * (size_t)a->rank) == 0;
}

int64_t mlir_type_elems(const MType *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++) {
    if (t->dims[i] != 0 && n > INT64_MAX / t->dims[i]) return -1;
    n *= t->dims[i];
  }
  return n;
}

/* ---- dense<...> literals ---- */

static bool is_float(const char *e) { return e[0] == 'f' || e[0] == 'b'; }
static bool is_complex(const char *e) { return e[0] == 'c'; }

static double half_to_double(uint16_t h, bool bf) {
  if (bf) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return s ? -v : v;
}

static void put_double(StrBuf *sb, double v) {
  if (isnan(v)) sb_puts(sb, signbit(v) ? "-nan" : "nan");
  else if (isinf(v)) sb_puts(sb, v < 0 ? "-inf" : "inf");
  else sb_printf(sb, "%.17g", v);
}

/* Bits of one float element (from a 0x... literal or a hex blob) as text. */
static void put_float_bits(MState *st, StrBuf *sb, const char *e, uint64_t bits, int64_t off) {
  if (strcmp(e, "f32") == 0 || strcmp(e, "c64") == 0) {
    uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, 4);
    put_double(sb, f);
  } else if (strcmp(e, "f64") == 0 || strcmp(e, "c128") == 0) {
    double d;
    memcpy(&d, &bits, 8);
    put_double(sb, d);
  } else if (strcmp(e, "f16") == 0 || strcmp(e, "bf16") == 0) {
    put_double(sb, half_to_double((uint16_t)bits, e[0] == 'b'));
  } else {
    mlir_fail(st, off, "hexadecimal %s values are not supported yet: write them as decimals", e);
  }
}

static int ebytes(const char *e) {
  if (strcmp(e, "pred") == 0) return 1;
  if (is_complex(e)) return e[1] == '6' ? 8 : 16;
  const char *d = e + strspn(e, "abcdfsu");
  int bits = atoi(d);
  if (e[0] == 'f' && e[1] == '8') return 1;
  return bits >= 8 ? bits / 8 : -1;
}

/* One scalar element of the literal's body at the cursor, as HLO text. */
static void element_value(MState *st, StrBuf *sb, const char *e) {
  int64_t off = mlir_off(st);
  if (mlir_accept(st, "(")) { /* complex (re, im) */
    if (!is_complex(e)) mlir_fail(st, off, "a complex value for a %s literal", e);
    sb_putc(sb, '(');
    element_value(st, sb, e[1] == '6' ? "f32" : "f64");
    mlir_expect(st, ",");
    sb_puts(sb, ", ");
    element_value(st, sb, e[1] == '6' ? "f32" : "f64");
    mlir_expect(st, ")");
    sb_putc(sb, ')');
    return;
  }
  if (mlir_accept_word(st, "true") || mlir_accept_word(st, "false")) {
    if (strcmp(e, "pred") != 0) mlir_fail(st, off, "a boolean value for a %s literal", e);
    sb_puts(sb, st->p[-1] == 'e' && st->p[-2] == 'u' ? "true" : "false");
    return;
  }
  const char *b = st->p;
  if (st->end - b > 2 && b[0] == '0' && b[1] == 'x') {
    int64_t v;
    mlir_int(st, &v);
    if (is_float(e) || is_complex(e)) put_float_bits(st, sb, e, (uint64_t)v, off);
    else sb_printf(sb, "%lld", (long long)v);
    return;
  }
  const char *q = b;
  if (q < st->end && (*q == '-' || *q == '+')) q++;
  while (q < st->end && (isalnum((unsigned char)*q) || *q == '.' || ((*q == '-' || *q == '+') && (q[-1] == 'e' || q[-1] == 'E'))))
    q++;
  if (q == b) mlir_fail(st, off, "expected a literal value");
  char tok[64];
  if (q - b >= (ptrdiff_t)sizeof tok) mlir_fail(st, off, "literal value too long");
  memcpy(tok, b, (size_t)(q - b));
  tok[q - b] = 0;
  char *endp;
  double v = strtod(tok, &endp);
  if (*endp) mlir_fail(st, off, "'%s' is not a number", tok);
  if (strcmp(e, "pred") == 0) {
    if (v != 0 && v != 1) mlir_fail(st, off, "'%s' is not a boolean", tok);
    sb_puts(sb, v != 0 ? "true" : "false");
  } else if (!is_float(e) && !is_complex(e) && (strchr(tok, '.') || strchr(tok, 'e') || strchr(tok, 'n') || strchr(tok, 'i'))) {
    mlir_fail(st, off, "'%s' is not an integer for a %s literal", tok, e);
  } else if (is_complex(e)) {
    sb_printf(sb, "(%s, 0)", tok);
  } else {
    sb_puts(sb, tok);
  }
  st->p = q;
}

/* A nested [...] body: dimension by dimension against the type. */
static void nested(MState *st, StrBuf *sb, const MType *t, int dim) {
  int64_t off = mlir_off(st);
  if (dim == t->rank) {
    element_value(st, sb, t->etype);
    return;
  }
  mlir_expect(st, "[");
  sb_putc(sb, '{');
  int64_t n = 0;
  if (!mlir_peek(st, "]")) {
    do {
      if (n) sb_putc(sb, ',');
      if (++n > t->dims[dim]) break;
      nested(st, sb, t, dim + 1);
    } while (mlir_accept(st, ","));
  }
  if (n != t->dims[dim])
    mlir_fail(st, off, "dense literal: dimension %d has %lld elements, the type %s has %lld", dim,
              (long long)n, "says", (long long)t->dims[dim]);
  mlir_expect(st, "]");
  sb_putc(sb, '}');
}

/* Hex blob "0x...": little-endian raw elements, all of them or one (splat). */
static void hex_blob(MState *st, StrBuf *sb, const MAttr *a, const MType *t, const char *hex, bool *splat) {
  size_t nhex = strlen(hex);
  int eb = ebytes(t->etype);
  if (eb < 1) mlir_fail(st, a->body_off, "hexadecimal %s literals are not supported yet", t->etype);
  if (nhex % 2) mlir_fail(st, a->body_off, "odd number of hexadecimal digits");
  size_t nbytes = nhex / 2;
  int64_t want = mlir_type_elems(t);
  if (want < 0 || (nbytes != (size_t)eb && nbytes != (size_t)want * (size_t)eb))
    mlir_fail(st, a->body_off, "hexadecimal literal has %zu bytes; %s needs %lld (or %d for a splat)", nbytes,
              t->etype, (long long)want * eb, eb);
  int64_t count = nbytes == (size_t)eb ? 1 : want;
  *splat = count == 1 && t->rank > 0 && want != 1;
  int64_t stride[MLIR_MAX_RANK];
  int64_t s = 1;
  for (int d = t->rank - 1; d >= 0; d--) stride[d] = s, s *= t->dims[d];
  int open = (count == 1) ? 0 : t->rank;
  for (int d = 0; d < open; d++) sb_putc(sb, '{');
  for (int64_t i = 0; i < count; i++) {
    if (i && open) {
      int closes = 0;
      for (int d = t->rank - 1; d > 0 && i % stride[d - 1] == 0; d--) closes++;
      for (int c = 0; c < closes; c++) sb_putc(sb, '}');
      sb_putc(sb, ',');
      for (int c = 0; c < closes; c++) sb_putc(sb, '{');
    }
    int parts = is_complex(t->etype) ? 2 : 1, pb = eb / parts;
    if (parts == 2) sb_putc(sb, '(');
    for (int part = 0; part < parts; part++) {
      uint64_t bits = 0;
      for (int k = pb - 1; k >= 0; k--) {
        const char *h = hex + 2 * ((size_t)i * (size_t)eb + (size_t)part * (size_t)pb + (size_t)k);
        unsigned hi = isdigit((unsigned char)h[0]) ? (unsigned)(h[0] - '0') : (unsigned)(tolower(h[0]) - 'a' + 10);
        unsigned lo = isdigit((unsigned char)h[1]) ? (unsigned)(h[1] - '0') : (unsigned)(tolower(h[1]) - 'a' + 10);
        bits = bits << 8 | (hi << 4 | lo);
      }
      if (part) sb_puts(sb, ", ");
      const char *e = t->etype;
      if (strcmp(e, "pred") == 0) sb_puts(sb, bits ? "true" : "false");
      else if (is_float(e) || is_complex(e)) put_float_bits(st, sb, e, bits, a->body_off);
      else if (e[0] == 'u') sb_printf(sb, "%llu", (unsigned long long)bits);
      else {
        int sh = 64 - pb * 8;
        sb_printf(sb, "%lld", (long long)((int64_t)(bits << sh) >> sh));
      }
    }
    if (parts == 2) sb_putc(sb, ')');
  }
  for (int d = 0; d < open; d++) sb_putc(sb, '}');
}

void mlir_dense_hlo(MState *st, StrBuf *sb, const MAttr *a, const MType *t, bool *splat) {
  *splat = false;
  if (t->kind != MT_TENSOR) mlir_fail(st, a->offset, "a dense literal needs a tensor type");
  /* Re-read the body with the cursor. */
  const char *save_p = st->p, *save_end = st->end;
  st->p = a->body;
  st->end = a->body + a->body_len;
  mlir_skip(st);
  if (st->p < st->end && *st->p == '"') {
    const char *hex = mlir_string(st);
    if (strncmp(hex, "0x", 2) != 0) mlir_fail(st, a->body_off, "expected a hexadecimal string \"0x...\"");
    for (const char *h = hex + 2; *h; h++)
      if (!isxdigit((unsigned char)*h)) mlir_fail(st, a->body_off, "'%c' is not a hexadecimal digit", *h);
    hex_blob(st, sb, a, t, hex + 2, splat);
  } else if (t->rank > 0 && !(st->p < st->end && *st->p == '[')) {
    *splat = mlir_type_elems(t) != 1;
    if (!*splat) for (int d = 0; d < t->rank; d++) sb_putc(sb, '{');
    element_value(st, sb, t->etype);
    if (!*splat) for (int d = 0; d < t->rank; d++) sb_putc(sb, '}');
  } else {
    nested(st, sb, t, 0);
  }
  mlir_skip(st);
  if (st->p != st->end) mlir_fail(st, st->p - st->src, "unexpected text in a dense literal");
  st->p = save_p;
  st->end = save_end;
}
