/* The parser's small tools, shared by the grammar's actions and the
 * builder: error reporting, arena-backed vectors, name tables, strings. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parse_internal.h"

/* ---------------------------------------------------------------------------
 * Errors */

void parse_error(ParseCtx *ctx, int64_t off, const char *fmt, ...) {
  if (ctx->nerrors >= PARSE_MAX_ERRORS) {
    ctx->too_many_errors = true;
    return;
  }
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  diags_add(ctx->diags, off, "%s", buf);
  ctx->nerrors++;
  if (ctx->nerrors >= PARSE_MAX_ERRORS) {
    diags_add(ctx->diags, -1, "too many errors, stopping");
    ctx->too_many_errors = true;
  }
}

void parse_oom(ParseCtx *ctx, int64_t off) {
  if (!ctx->oom) parse_error(ctx, off, "out of memory");
  ctx->oom = true;
}

/* Short printable form of a name for messages. */

/* ---------------------------------------------------------------------------
 * Arena vectors */

void *vec_push_in(ParseCtx *ctx, Arena *arena, Vec *vec, size_t elem_size) {
  if (vec->n == vec->cap) {
    if (vec->cap >= INT_MAX / 2) {
      parse_oom(ctx, -1);
      return NULL;
    }
    int cap = vec->cap ? vec->cap * 2 : 4;
    void *nv = arena_alloc_array(arena, (size_t)cap, elem_size);
    if (!nv) {
      parse_oom(ctx, -1);
      return NULL;
    }
    if (vec->n) memcpy(nv, vec->v, (size_t)vec->n * elem_size);
    vec->v = nv;
    vec->cap = cap;
  }
  return (char *)vec->v + (size_t)vec->n++ * elem_size;
}

void *vec_push(ParseCtx *ctx, Vec *vec, size_t elem_size) {
  return vec_push_in(ctx, ctx->scratch, vec, elem_size);
}

bool vec_push_keep(ParseCtx *ctx, Vec *vec, void *p) {
  void **slot = vec_push_in(ctx, ctx->arena, vec, sizeof(void *));
  if (!slot) return false;
  *slot = p;
  return true;
}

void *ctx_alloc(ParseCtx *ctx, Arena *arena, size_t size, int64_t off) {
  void *p = arena_alloc(arena, size);
  if (!p) parse_oom(ctx, off);
  return p;
}

void *scratch_alloc(ParseCtx *ctx, size_t size) { return ctx_alloc(ctx, ctx->scratch, size, -1); }

/* Everything the grammar built for the last top-level instruction is either
 * copied into the module or garbage now. */
void scratch_reset(ParseCtx *ctx) {
  /* parse_shape_text builds into the caller's arena as both: never free it. */
  if (ctx->scratch == ctx->arena) return;
  if (arena_bytes_reserved(ctx->scratch) == 0) return;
  Arena *fresh = arena_new();
  if (!fresh) return; /* keep growing the old one */
  arena_free(ctx->scratch);
  ctx->scratch = fresh;
  ctx->lit.frames = NULL; /* lived in the scratch arena */
  ctx->lit.cap = ctx->lit.n = 0;
}

#define PUSH_TYPED(ctx, vec, type, val)          \
  do {                                           \
    type *slot_ = vec_push(ctx, vec, sizeof(type)); \
    if (!slot_) return false;                    \
    *slot_ = (val);                              \
    return true;                                 \
  } while (0)

bool vec_push_i64(ParseCtx *ctx, Vec *vec, int64_t x) { PUSH_TYPED(ctx, vec, int64_t, x); }
bool vec_push_ptr(ParseCtx *ctx, Vec *vec, void *p) { PUSH_TYPED(ctx, vec, void *, p); }
bool vec_push_vec(ParseCtx *ctx, Vec *vec, const Vec *e) { PUSH_TYPED(ctx, vec, Vec, *e); }
bool vec_push_str(ParseCtx *ctx, Vec *vec, Str s, int64_t off) {
  PUSH_TYPED(ctx, vec, StrTok, ((StrTok){s, off}));
}
bool vec_push_range(ParseCtx *ctx, Vec *vec, SliceRange r) { PUSH_TYPED(ctx, vec, SliceRange, r); }
bool vec_push_wfield(ParseCtx *ctx, Vec *vec, WindowField f) {
  PUSH_TYPED(ctx, vec, WindowField, f);
}
int64_t *vec_copy_i64(ParseCtx *ctx, Arena *arena, const Vec *v) {
  if (v->n == 0) return NULL;
  int64_t *out = arena_alloc_array(arena, (size_t)v->n, sizeof *out);
  if (!out) {
    parse_oom(ctx, -1);
    return NULL;
  }
  memcpy(out, v->v, (size_t)v->n * sizeof *out);
  return out;
}

bool vec_push_dim(ParseCtx *ctx, Vec *vec, DimTok d) { PUSH_TYPED(ctx, vec, DimTok, d); }
bool vec_push_int_at(ParseCtx *ctx, Vec *vec, int64_t v, int64_t off) {
  PUSH_TYPED(ctx, vec, IntAt, ((IntAt){v, off}));
}

/* ---------------------------------------------------------------------------
 * Name tables */

static uint64_t hash_bytes(const char *s, int64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < n; i++) {
    h ^= (unsigned char)s[i];
    h *= 1099511628211ull;
  }
  return h | 1; /* 0 marks an empty slot */
}

static NameEntry *names_find(const NameTable *t, const char *key, int64_t len, uint64_t h) {
  size_t mask = t->cap - 1;
  for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
    NameEntry *e = &t->slots[i];
    if (e->hash == 0) return e;
    if (e->hash == h && e->len == len && memcmp(e->key, key, (size_t)len) == 0) return e;
  }
}

void *names_get(const NameTable *t, const char *key, int64_t len) {
  if (!t->cap) return NULL;
  NameEntry *e = names_find(t, key, len, hash_bytes(key, len));
  return e->hash ? e->value : NULL;
}

static bool names_grow(NameTable *t) {
  size_t cap = t->cap ? t->cap * 2 : 64;
  NameEntry *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  NameTable nt = {slots, cap, 0};
  for (size_t i = 0; i < t->cap; i++) {
    NameEntry *e = &t->slots[i];
    if (e->hash) {
      *names_find(&nt, e->key, e->len, e->hash) = *e;
      nt.count++;
    }
  }
  free(t->slots);
  *t = nt;
  return true;
}

bool names_put(NameTable *t, const char *key, int64_t len, void *value) {
  if ((t->count + 1) * 10 > t->cap * 7 && !names_grow(t)) return false;
  uint64_t h = hash_bytes(key, len);
  NameEntry *e = names_find(t, key, len, h);
  if (!e->hash) t->count++;
  *e = (NameEntry){key, len, h, value};
  return true;
}

void names_free(NameTable *t) {
  free(t->slots);
  memset(t, 0, sizeof *t);
}

/* ---------------------------------------------------------------------------
 * Strings */

const char *ctx_strdup(ParseCtx *ctx, Str s) {
  char *p = arena_strndup(ctx->arena, s.p ? s.p : "", (size_t)s.n);
  if (!p) parse_oom(ctx, -1);
  return p ? p : "";
}

const char *ctx_source_text(ParseCtx *ctx, int64_t first, int64_t last) {
  if (first < 0 || last < first || (size_t)last > ctx->len) return "";
  return ctx_strdup(ctx, (Str){ctx->src + first, last - first});
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)(c | 0x20);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static size_t put_utf8(char *out, uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xc0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3f));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xe0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    out[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  out[0] = (char)(0xf0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  out[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* Decodes "..." with C escapes as absl::CUnescape does.  The lexer has
 * checked the escape syntax; values that do not fit a byte (or a Unicode
 * code point) are errors here. */
const char *ctx_unescape(ParseCtx *ctx, Str s, int64_t off) {
  const char *p = s.p + 1, *end = s.p + s.n - 1;
  char *out = arena_alloc(ctx->arena, (size_t)s.n + 1);
  if (!out) {
    parse_oom(ctx, off);
    return "";
  }
  size_t k = 0;
  while (p < end) {
    if (*p != '\\') {
      out[k++] = *p++;
      continue;
    }
    const char *esc = p++;
    char c = *p++;
    switch (c) {
    case 'n': out[k++] = '\n'; break;
    case 't': out[k++] = '\t'; break;
    case 'r': out[k++] = '\r'; break;
    case 'a': out[k++] = '\a'; break;
    case 'b': out[k++] = '\b'; break;
    case 'f': out[k++] = '\f'; break;
    case 'v': out[k++] = '\v'; break;
    case '"': case '\\': case '\'': case '?': out[k++] = c; break;
    case 'x': {
      uint32_t v = 0;
      while (p < end && hexval(*p) >= 0) {
        v = v * 16 + (uint32_t)hexval(*p++);
        if (v > 0xff) break;
      }
      if (v > 0xff) {
        parse_error(ctx, off + (esc - s.p), "hex escape out of range in string");
        return "";
      }
      out[k++] = (char)v;
      break;
    }
    case 'u': case 'U': {
      int n = c == 'u' ? 4 : 8;
      uint32_t v = 0;
      for (int i = 0; i < n; i++) v = v * 16 + (uint32_t)hexval(*p++);
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
        parse_error(ctx, off + (esc - s.p), "invalid Unicode escape in string");
        return "";
      }
      k += put_utf8(out + k, v);
      break;
    }
    default: { /* octal, 1-3 digits */
      uint32_t v = (uint32_t)(c - '0');
      for (int i = 0; i < 2 && p < end && *p >= '0' && *p <= '7'; i++)
        v = v * 8 + (uint32_t)(*p++ - '0');
      if (v > 0xff) {
        parse_error(ctx, off + (esc - s.p), "octal escape out of range in string");
        return "";
      }
      out[k++] = (char)v;
      break;
    }
    }
  }
  out[k] = '\0';
  return out;
}

double num_to_double(Num n) {
  if (n.kind == NUM_NAN) return n.neg ? -(double)NAN : (double)NAN;
  return n.v;
}


/* ---------------------------------------------------------------------------
 * Integer text inside DXD / PAD tokens */

int64_t parse_int_text(ParseCtx *ctx, const char *p, const char *end, int64_t off, bool *ok) {
  bool neg = p < end && *p == '-';
  if (neg) p++;
  int64_t v = 0;
  if (p == end) *ok = false;
  for (; p < end; p++) {
    if (*p < '0' || *p > '9' || __builtin_mul_overflow(v, 10, &v) ||
        __builtin_add_overflow(v, *p - '0', &v)) {
      *ok = false;
      break;
    }
  }
  if (!*ok) {
    parse_error(ctx, off, "integer out of range");
    return 0;
  }
  return neg ? -v : v;
}
