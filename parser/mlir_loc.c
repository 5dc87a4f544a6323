/* Where an MLIR op came from in the user's program: its trailing loc(...)
 * resolved to a file location, for the "f.py:12:8: note: from here" line
 * under a diagnostic (docs/stablehlo.md, "Locations").
 *
 * Only diagnostics need it, so it reads the text again at the op's offset
 * instead of keeping every op's location during the conversion.  JAX's
 * forms:
 *   loc("f.py":3:4)                          a file location
 *   loc("jit(f)/jit(main)/add"(#loc2))       a name with a child location
 *   loc(callsite(#loc1 at #loc2))            callee (innermost frame) at caller
 *   loc(fused[#loc1, "x"(#loc3)])            several; the first that resolves
 *   loc(unknown), #loc5 aliases defined by "#loc5 = loc(...)" lines. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "parser/mlir.h"

typedef struct {
  const char *src, *end;
  int depth; /* of alias and nesting, against cycles */
} LocText;

static const char *blanks(const LocText *t, const char *p) {
  while (p < t->end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

static bool starts(const LocText *t, const char *p, const char *s) {
  size_t n = strlen(s);
  return (size_t)(t->end - p) >= n && memcmp(p, s, n) == 0;
}

/* Past a "..." string at p (p at the quote), or NULL. */
static const char *past_string(const LocText *t, const char *p) {
  for (p++; p < t->end && *p != '"'; p++)
    if (*p == '\\') p++;
  return p < t->end ? p + 1 : NULL;
}

/* Past a balanced group at p ((, [, {, <), or NULL. */
static const char *past_group(const LocText *t, const char *p) {
  int d = 0;
  for (; p < t->end; p++) {
    if (*p == '"') {
      if (!(p = past_string(t, p))) return NULL;
      p--;
    } else if (*p == '(' || *p == '[' || *p == '{' || *p == '<') {
      d++;
    } else if (*p == ')' || *p == ']' || *p == '}' || (*p == '>' && p[-1] != '-')) {
      if (--d == 0) return p + 1;
    }
  }
  return NULL;
}

static bool resolve(LocText *t, const char *p, char *buf, size_t cap);

/* The definition "#name = loc(...)" of an alias at the start of a line. */
static bool resolve_alias(LocText *t, const char *name, size_t n, char *buf, size_t cap) {
  for (const char *q = t->src; q < t->end; q++) {
    if ((q == t->src || q[-1] == '\n') && (size_t)(t->end - q) > n && memcmp(q, name, n) == 0 &&
        !(isalnum((unsigned char)q[n]) || q[n] == '_')) {
      const char *v = blanks(t, q + n);
      if (v < t->end && *v == '=') {
        v = blanks(t, v + 1);
        if (starts(t, v, "loc(")) return resolve(t, v + 4, buf, cap);
      }
    }
  }
  return false;
}

/* One location at p (inside loc(...)) into buf as FILE:LINE:COL. */
static bool resolve(LocText *t, const char *p, char *buf, size_t cap) {
  if (++t->depth > 32) return false;
  bool ok = false;
  p = blanks(t, p);
  if (p >= t->end) {
  } else if (*p == '#') {
    const char *b = p++;
    while (p < t->end && (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '$')) p++;
    ok = resolve_alias(t, b, (size_t)(p - b), buf, cap);
  } else if (*p == '"') {
    const char *e = past_string(t, p);
    if (e) {
      const char *q = blanks(t, e);
      int line, col, used = 0;
      if (q < t->end && *q == '(') {
        ok = resolve(t, q + 1, buf, cap); /* a name: its child */
      } else if (q < t->end && *q == ':' && sscanf(q, ":%d:%d%n", &line, &col, &used) == 2 && used > 0) {
        snprintf(buf, cap, "%.*s:%d:%d", (int)(e - p - 2), p + 1, line, col);
        ok = true;
      }
    }
  } else if (starts(t, p, "callsite(")) {
    const char *a = p + 9;
    ok = resolve(t, a, buf, cap); /* the callee first, then the caller */
    for (const char *q = blanks(t, a); !ok && q && q < t->end && *q != ')'; q = blanks(t, q)) {
      if ((q[-1] == ' ' || q[-1] == '\n' || q[-1] == ')') && (starts(t, q, "at ") || starts(t, q, "at\n"))) {
        ok = resolve(t, q + 2, buf, cap);
        break;
      }
      if (*q == '"') q = past_string(t, q);
      else if (*q == '(' || *q == '[' || *q == '<' || *q == '{') q = past_group(t, q);
      else q++;
    }
  } else if (starts(t, p, "fused")) {
    const char *q = blanks(t, p + 5);
    if (q < t->end && *q == '<') q = past_group(t, q); /* fused<"metadata">[...] */
    q = q ? blanks(t, q) : NULL;
    if (q && q < t->end && *q == '[') {
      q++;
      while (!ok && q && (q = blanks(t, q)) < t->end && *q != ']') {
        ok = resolve(t, q, buf, cap);
        /* on to the next element: past this one and its comma */
        while (q && q < t->end && *q != ',' && *q != ']') {
          if (*q == '"') q = past_string(t, q);
          else if (*q == '(' || *q == '[' || *q == '<' || *q == '{') q = past_group(t, q);
          else q++;
        }
        if (q && q < t->end && *q == ',') q++;
      }
    }
  }
  t->depth--;
  return ok;
}

bool mlir_loc_of(const char *src, size_t len, int64_t off, char *buf, size_t cap) {
  if (off < 0 || (size_t)off >= len || cap == 0) return false;
  LocText t = {src, src + len, 0};
  /* Not an op: a "#loc3 = loc(...)" definition line. */
  const char *ls = src + off;
  while (ls > src && ls[-1] != '\n') ls--;
  if (*blanks(&t, ls) == '#') return false;
  /* The op's trailing loc(...): the first at bracket depth <= 0 before a
   * line break at depth <= 0 (an op with regions spans lines inside its
   * braces).  Depth may go below 0 when off points inside the op. */
  int d = 0;
  for (const char *p = src + off; p < t.end; p++) {
    char c = *p;
    if (c == '"') {
      if (!(p = past_string(&t, p))) return false;
      p--;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (d <= 0 && c == '(' && p - src >= 3 && memcmp(p - 3, "loc", 3) == 0 &&
          (p - src == 3 || !(isalnum((unsigned char)p[-4]) || p[-4] == '_' || p[-4] == '.')))
        return resolve(&t, p + 1, buf, cap);
      d++;
    } else if (c == ')' || c == ']' || c == '}' || (c == '>' && p > src && p[-1] != '-')) {
      d--;
    } else if (c == '\n' && d <= 0) {
      return false;
    }
  }
  return false;
}
