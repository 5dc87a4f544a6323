/* The MLIR reader's lexing: a cursor over the text with small accept/expect
 * helpers (parser/mlir_internal.h).  MLIR's token set is small enough that
 * the recursive-descent reader asks for the token it expects next. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/mlir_internal.h"

void mlir_fail(MState *st, int64_t off, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->errmsg, sizeof st->errmsg, fmt, ap);
  va_end(ap);
  st->erroff = off;
  longjmp(st->fail, 1);
}

void mlir_skip(MState *st) {
  for (;;) {
    while (st->p < st->end && (*st->p == ' ' || *st->p == '\t' || *st->p == '\n' || *st->p == '\r'))
      st->p++;
    if (st->end - st->p >= 2 && st->p[0] == '/' && st->p[1] == '/') {
      while (st->p < st->end && *st->p != '\n') st->p++;
      continue;
    }
    return;
  }
}

int64_t mlir_off(MState *st) {
  mlir_skip(st);
  return st->p - st->src;
}

bool mlir_peek(MState *st, const char *s) {
  mlir_skip(st);
  size_t n = strlen(s);
  return (size_t)(st->end - st->p) >= n && memcmp(st->p, s, n) == 0;
}

bool mlir_accept(MState *st, const char *s) {
  if (!mlir_peek(st, s)) return false;
  st->p += strlen(s);
  return true;
}

static bool id_char(char c) {
  return isalnum((unsigned char)c) || c == '_' || c == '.' || c == '$' || c == '-';
}

bool mlir_accept_word(MState *st, const char *w) {
  if (!mlir_peek(st, w)) return false;
  size_t n = strlen(w);
  if (st->p + n < st->end && id_char(st->p[n])) return false;
  st->p += n;
  return true;
}

/* What the cursor is at, for "expected X, found Y". */
static void found(MState *st, char *buf, size_t cap) {
  if (st->p >= st->end) {
    snprintf(buf, cap, "the end of the file");
    return;
  }
  size_t n = 0;
  while (st->p + n < st->end && n < 20 && st->p[n] != '\n' && (n == 0 || id_char(st->p[n]) == id_char(st->p[0])))
    n++;
  snprintf(buf, cap, "'%.*s'", (int)n, st->p);
}

void mlir_expect(MState *st, const char *s) {
  if (mlir_accept(st, s)) return;
  char f[64];
  found(st, f, sizeof f);
  mlir_fail(st, mlir_off(st), "expected '%s', found %s", s, f);
}

StrBuf *mlir_sb(MState *st) {
  if (st->nsbs == st->sbcap) {
    int nc = st->sbcap ? st->sbcap * 2 : 16;
    StrBuf **n = realloc(st->sbs, sizeof *n * (size_t)nc);
    if (!n) mlir_fail(st, -1, "out of memory");
    st->sbs = n;
    st->sbcap = nc;
  }
  StrBuf *sb = arena_alloc(st->arena, sizeof *sb);
  if (!sb) mlir_fail(st, -1, "out of memory");
  sb_init(sb);
  st->sbs[st->nsbs++] = sb;
  return sb;
}

char *mlir_strdup(MState *st, const char *s, size_t n) {
  char *r = arena_strndup(st->arena, s, n);
  if (!r) mlir_fail(st, -1, "out of memory");
  return r;
}

char *mlir_fmt(MState *st, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof buf) mlir_fail(st, -1, "a name or attribute is too long");
  return mlir_strdup(st, buf, (size_t)n);
}

const char *mlir_ident(MState *st) {
  mlir_skip(st);
  const char *b = st->p;
  if (b >= st->end || !(isalpha((unsigned char)*b) || *b == '_')) return NULL;
  while (st->p < st->end && id_char(*st->p)) st->p++;
  return mlir_strdup(st, b, (size_t)(st->p - b));
}

const char *mlir_sigil_name(MState *st, char sigil) {
  mlir_skip(st);
  if (st->p >= st->end || *st->p != sigil) return NULL;
  const char *b = st->p++;
  if (st->p < st->end && *st->p == '"') { /* @"quoted name" */
    st->p++;
    while (st->p < st->end && *st->p != '"' && *st->p != '\n') st->p++;
    if (st->p >= st->end || *st->p != '"') mlir_fail(st, b - st->src, "unterminated quoted name");
    st->p++;
  } else {
    while (st->p < st->end && id_char(*st->p)) st->p++;
  }
  if (st->p == b + 1) mlir_fail(st, b - st->src, "expected a name after '%c'", sigil);
  /* %0#1: a result of a multi-result op */
  if (sigil == '%' && st->p < st->end && *st->p == '#') {
    st->p++;
    const char *d = st->p;
    while (st->p < st->end && isdigit((unsigned char)*st->p)) st->p++;
    if (st->p == d) mlir_fail(st, d - st->src, "expected a result number after '#'");
  }
  return mlir_strdup(st, b, (size_t)(st->p - b));
}

bool mlir_int(MState *st, int64_t *v) {
  mlir_skip(st);
  const char *q = st->p;
  bool neg = false;
  if (q < st->end && *q == '-') neg = true, q++;
  if (q >= st->end || !isdigit((unsigned char)*q)) return false;
  uint64_t x = 0;
  if (st->end - q > 2 && q[0] == '0' && q[1] == 'x') {
    q += 2;
    while (q < st->end && isxdigit((unsigned char)*q)) {
      x = x * 16 + (uint64_t)(isdigit((unsigned char)*q) ? *q - '0' : (tolower(*q) - 'a' + 10));
      q++;
    }
  } else {
    while (q < st->end && isdigit((unsigned char)*q)) {
      if (x > (UINT64_MAX - 9) / 10) mlir_fail(st, st->p - st->src, "integer too large");
      x = x * 10 + (uint64_t)(*q - '0');
      q++;
    }
  }
  if (q < st->end && (*q == '.' || *q == 'e' || *q == 'E')) return false; /* a float */
  st->p = q;
  *v = neg ? -(int64_t)x : (int64_t)x;
  return true;
}

const char *mlir_string(MState *st) {
  mlir_skip(st);
  if (st->p >= st->end || *st->p != '"') return NULL;
  const char *b = ++st->p;
  while (st->p < st->end && *st->p != '"') {
    if (*st->p == '\\' && st->p + 1 < st->end) st->p++;
    st->p++;
  }
  if (st->p >= st->end) mlir_fail(st, b - 1 - st->src, "unterminated string");
  const char *r = mlir_strdup(st, b, (size_t)(st->p - b));
  st->p++;
  return r;
}

void mlir_skip_group(MState *st) {
  mlir_skip(st);
  char stack[MLIR_MAX_DEPTH * 4];
  int n = 0;
  int64_t start = st->p - st->src;
  /* Characters that matter here; runs of the others are skipped in a tight
   * loop (function bodies are skipped whole in the first pass). */
  static const bool special[256] = {['"'] = 1, ['('] = 1, [')'] = 1, ['['] = 1, [']'] = 1,
                                    ['{'] = 1, ['}'] = 1, ['<'] = 1, ['>'] = 1};
  do {
    if (n > 0)
      while (st->p < st->end && !special[(unsigned char)*st->p]) st->p++;
    if (st->p >= st->end) mlir_fail(st, start, "unbalanced brackets: the file ends inside this group");
    char c = *st->p++;
    if (c == '"') {
      while (st->p < st->end && *st->p != '"') st->p += (*st->p == '\\') ? 2 : 1;
      if (st->p >= st->end) mlir_fail(st, start, "unterminated string");
      st->p++;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (n == (int)sizeof stack) mlir_fail(st, start, "brackets nested too deeply");
      stack[n++] = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
    } else if (c == ')' || c == ']' || c == '}' || c == '>') {
      if (c == '>' && st->p - 2 >= st->src && st->p[-2] == '-') continue; /* "->" */
      if (n == 0 || stack[n - 1] != c) mlir_fail(st, st->p - 1 - st->src, "unbalanced '%c'", c);
      n--;
    } else if (n == 0) {
      mlir_fail(st, start, "expected a bracketed group");
    }
  } while (n > 0);
}

void mlir_skip_loc(MState *st) {
  if (mlir_peek(st, "loc(")) {
    st->p += 3;
    mlir_skip_group(st);
  }
}
