/* Strict JSON reader (interp/io/json.h): recursive descent over the text,
 * each value checked against RFC 8259's grammar as it is read. */
#include "interp/io/json.h"

#include <stdlib.h>
#include <string.h>

typedef struct Reader {
  const char *s;
  size_t n, pos;
  int depth;
  Error *err;
} Reader;

static bool fail(Reader *r, size_t at, const char *what) {
  return error_set(r->err, ERR_RUNTIME, (int64_t)at, "JSON: %s at byte %zu", what, at);
}

static bool oom(Reader *r) { return error_set(r->err, ERR_RUNTIME, -1, "out of memory"); }

static void skip_ws(Reader *r) {
  while (r->pos < r->n && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
                           r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
    r->pos++;
}

static int peek(const Reader *r) { return r->pos < r->n ? (unsigned char)r->s[r->pos] : -1; }

static void free_kids(Json *v) {
  for (size_t i = 0; i < v->nkids; i++) free_kids(&v->kids[i]);
  free(v->kids);
  free(v->key);
  free(v->text);
}

void json_free(Json *v) {
  if (!v) return;
  free_kids(v);
  free(v);
}

const char *json_kind_name(JsonKind k) {
  static const char *const names[] = {"null", "false", "true", "number", "string", "array",
                                      "object"};
  return k <= JSON_OBJECT ? names[k] : "?";
}

const Json *json_member(const Json *v, const char *key) {
  if (!v || v->kind != JSON_OBJECT) return NULL;
  for (size_t i = 0; i < v->nkids; i++)
    if (!strcmp(v->kids[i].key, key)) return &v->kids[i];
  return NULL;
}

static bool literal(Reader *r, const char *word, JsonKind kind, Json *v) {
  size_t len = strlen(word);
  if (r->n - r->pos < len || memcmp(r->s + r->pos, word, len))
    return fail(r, r->pos, "bad literal");
  r->pos += len;
  v->kind = kind;
  return true;
}

static bool is_digit(int c) { return c >= '0' && c <= '9'; }

/* number = [ "-" ] int [ frac ] [ exp ], kept as written. */
static bool number(Reader *r, Json *v) {
  size_t start = r->pos;
  if (peek(r) == '-') r->pos++;
  if (peek(r) == '0') {
    r->pos++;
    if (is_digit(peek(r))) return fail(r, r->pos, "leading zero in a number");
  } else if (is_digit(peek(r))) {
    while (is_digit(peek(r))) r->pos++;
  } else {
    return fail(r, r->pos, "expected a digit");
  }
  if (peek(r) == '.') {
    r->pos++;
    if (!is_digit(peek(r))) return fail(r, r->pos, "expected a digit after '.'");
    while (is_digit(peek(r))) r->pos++;
  }
  if (peek(r) == 'e' || peek(r) == 'E') {
    r->pos++;
    if (peek(r) == '+' || peek(r) == '-') r->pos++;
    if (!is_digit(peek(r))) return fail(r, r->pos, "expected a digit in the exponent");
    while (is_digit(peek(r))) r->pos++;
  }
  v->kind = JSON_NUMBER;
  v->len = r->pos - start;
  if (!(v->text = malloc(v->len + 1))) return oom(r);
  memcpy(v->text, r->s + start, v->len);
  v->text[v->len] = 0;
  return true;
}

static int hex4(const char *p) {
  int x = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
          : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    if (d < 0) return -1;
    x = x * 16 + d;
  }
  return x;
}

static size_t put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) {
    o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 0x3F));
    o[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | (cp >> 12 & 0x3F));
  o[2] = (char)(0x80 | (cp >> 6 & 0x3F)), o[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* A \uXXXX escape at r->pos (just past the 'u'), a surrogate pair taken
 * whole; the code point into *cp. */
static bool unicode_escape(Reader *r, unsigned *cp) {
  size_t at = r->pos - 2;
  int hi = r->n - r->pos >= 4 ? hex4(r->s + r->pos) : -1;
  if (hi < 0) return fail(r, at, "bad \\u escape");
  r->pos += 4;
  if (hi >= 0xDC00 && hi <= 0xDFFF) return fail(r, at, "lone low surrogate in \\u escape");
  if (hi < 0xD800 || hi > 0xDBFF) {
    *cp = (unsigned)hi;
    return true;
  }
  int lo = r->n - r->pos >= 6 && r->s[r->pos] == '\\' && r->s[r->pos + 1] == 'u'
               ? hex4(r->s + r->pos + 2) : -1;
  if (lo < 0xDC00 || lo > 0xDFFF) return fail(r, at, "high surrogate without its low half");
  r->pos += 6;
  *cp = 0x10000 + (((unsigned)hi - 0xD800) << 10) + ((unsigned)lo - 0xDC00);
  return true;
}

/* A string at r->pos (its opening quote), unescaped into a new buffer. */
static bool string(Reader *r, char **out, size_t *outlen) {
  size_t start = r->pos++;
  /* The unescaped text is never longer than the escaped one. */
  size_t end = r->pos;
  while (end < r->n && r->s[end] != '"') end += r->s[end] == '\\' ? 2 : 1;
  if (end >= r->n) return fail(r, start, "unterminated string");
  char *o = malloc(end - r->pos + 1);
  if (!o) return oom(r);
  size_t k = 0;
  while (r->s[r->pos] != '"') {
    unsigned char c = (unsigned char)r->s[r->pos];
    if (c < 0x20) {
      free(o);
      return fail(r, r->pos, "control character in a string");
    }
    if (c != '\\') {
      o[k++] = (char)c;
      r->pos++;
      continue;
    }
    char e = r->s[r->pos + 1];
    r->pos += 2;
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *hit = e ? strchr(from, e) : NULL;
    if (hit) {
      o[k++] = to[hit - from];
    } else if (e == 'u') {
      unsigned cp = 0;
      if (!unicode_escape(r, &cp)) {
        free(o);
        return false;
      }
      k += put_utf8(o + k, cp);
    } else {
      free(o);
      return fail(r, r->pos - 2, "bad escape in a string");
    }
  }
  r->pos++;
  o[k] = 0;
  *out = o;
  *outlen = k;
  return true;
}

static bool value(Reader *r, Json *v);

static bool push(Reader *r, Json *parent, size_t *cap, Json *kid) {
  if (parent->nkids == *cap) {
    size_t nc = *cap ? *cap * 2 : 4;
    Json *k = realloc(parent->kids, nc * sizeof *k);
    if (!k) return oom(r);
    parent->kids = k;
    *cap = nc;
  }
  parent->kids[parent->nkids++] = *kid;
  return true;
}

/* An array or object at r->pos (its opening bracket). */
static bool container(Reader *r, Json *v, bool object) {
  char close = object ? '}' : ']';
  v->kind = object ? JSON_OBJECT : JSON_ARRAY;
  if (++r->depth > JSON_MAX_DEPTH) return fail(r, r->pos, "nested too deeply");
  r->pos++;
  skip_ws(r);
  size_t cap = 0;
  if (peek(r) == close) {
    r->pos++;
    r->depth--;
    return true;
  }
  for (;;) {
    Json kid = {0};
    skip_ws(r);
    if (object) {
      size_t kat = r->pos, klen;
      if (peek(r) != '"') return fail(r, r->pos, "expected a key string");
      if (!string(r, &kid.key, &klen)) return false;
      const char *bad = strlen(kid.key) != klen ? "\\u0000 in a key"
                        : json_member(v, kid.key) ? "duplicate key" : NULL;
      if (bad) {
        free(kid.key);
        return fail(r, kat, bad);
      }
      skip_ws(r);
      if (peek(r) != ':') {
        free(kid.key);
        return fail(r, r->pos, "expected ':'");
      }
      r->pos++;
      skip_ws(r);
    }
    if (object && v->nkids >= JSON_MAX_MEMBERS) {
      free(kid.key);
      return fail(r, r->pos, "too many members in an object");
    }
    if (!value(r, &kid) || !push(r, v, &cap, &kid)) {
      free_kids(&kid);
      return false;
    }
    skip_ws(r);
    int c = peek(r);
    r->pos++;
    if (c == close) break;
    if (c != ',')
      return fail(r, r->pos - 1, object ? "expected ',' or '}'" : "expected ',' or ']'");
  }
  r->depth--;
  return true;
}

static bool value(Reader *r, Json *v) {
  skip_ws(r);
  v->offset = (int64_t)r->pos;
  switch (peek(r)) {
    case '{': return container(r, v, true);
    case '[': return container(r, v, false);
    case '"': v->kind = JSON_STRING; return string(r, &v->text, &v->len);
    case 't': return literal(r, "true", JSON_TRUE, v);
    case 'f': return literal(r, "false", JSON_FALSE, v);
    case 'n': return literal(r, "null", JSON_NULL, v);
    case -1: return fail(r, r->pos, "unexpected end of text");
    default: return number(r, v);
  }
}

bool json_parse(const char *s, size_t n, Json **out, Error *err) {
  Reader r = {s, n, 0, 0, err};
  *out = NULL;
  if (n > JSON_MAX_BYTES) return fail(&r, JSON_MAX_BYTES, "text too long");
  if (memchr(s, 0, n)) return fail(&r, (size_t)((const char *)memchr(s, 0, n) - s), "NUL byte");
  Json *v = calloc(1, sizeof *v);
  if (!v) return oom(&r);
  bool ok = value(&r, v);
  if (ok) {
    skip_ws(&r);
    if (r.pos != n) ok = fail(&r, r.pos, "text after the value");
  }
  if (!ok) {
    json_free(v);
    return false;
  }
  *out = v;
  return true;
}
