/* _xla_send_recv_source_target_pairs (interp/collective/send_recv_pairs.h). */
#include "interp/collective/send_recv_pairs.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The value of `key` in the raw frontend_attributes text
 * {k1="v1", k2={...}, ...}: a quoted string (its contents) or, as XLA's
 * parser also accepts, a brace-balanced {...} block (all of it).  Keys and
 * values are matched whole, so a key inside another attribute's value or a
 * longer key sharing the prefix is not taken.  False when absent; *bad when
 * the text around the key is malformed. */
static bool attr_value(const char *s, const char *key, const char **v, const char **vend,
                       bool *bad) {
  size_t klen = strlen(key);
  *bad = false;
  const char *p = s;
  while (*p && *p != '{') p++;
  if (*p) p++;
  for (;;) {
    while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t' || *p == '\r') p++;
    if (!*p || *p == '}') return false;
    const char *k = p;
    while (*p && *p != '=' && *p != '}' && *p != ',') p++;
    if (*p != '=') return (*bad = true), false;
    const char *kend = p;
    while (kend > k && kend[-1] == ' ') kend--;
    p++;
    while (*p == ' ') p++;
    const char *val = p, *end;
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && p[1]) p++;
      if (*p != '"') return (*bad = true), false;
      val++;
      end = p++;
    } else if (*p == '{') {
      int depth = 0;
      do {
        if (*p == '{') depth++;
        else if (*p == '}') depth--;
        p++;
      } while (*p && depth > 0);
      if (depth) return (*bad = true), false;
      end = p;
    } else {
      while (*p && *p != ',' && *p != '}') p++;
      end = p;
    }
    if ((size_t)(kend - k) == klen && strncmp(k, key, klen) == 0) {
      *v = val;
      *vend = end;
      return true;
    }
  }
}

bool send_recv_pairs(const Instr *in, int64_t (*pairs)[2], int *n, Error *err) {
  *n = 0;
  const Attr *a = ir_attr(in, ATTR_FRONTEND_ATTRIBUTES);
  const char *s = a && (a->kind == AV_RAW || a->kind == AV_STRING) ? a->v.s : NULL;
  const char *key = "_xla_send_recv_source_target_pairs";
  const char *p = NULL, *end = NULL;
  bool malformed = false;
  if (!s || !attr_value(s, key, &p, &end, &malformed)) {
    if (!malformed) return true;
    return error_set(err, ERR_RUNTIME, in->offset,
                     "malformed %s frontend attribute", key);
  }
  /* {{s,t},{s,t},...}: each inner group exactly two ids. */
  int depth = 0, ningroup = 0;
  for (; p < end; p++) {
    bool bad = false;
    if (*p == '{') {
      bad = depth == 2;
      depth++;
      ningroup = 0;
    } else if (*p == '}') {
      bad = depth == 0 || (depth == 2 && ningroup != 2);
      if (!bad && depth == 2) (*n)++;
      depth--;
    } else if (isdigit((unsigned char)*p)) {
      bad = depth != 2 || ningroup == 2;
      if (!bad && *n == SEND_RECV_MAX_PAIRS)
        return error_set(err, ERR_RUNTIME, in->offset, "more than %d pairs",
                         SEND_RECV_MAX_PAIRS);
      if (!bad) {
        char *stop;
        pairs[*n][ningroup++] = strtoll(p, &stop, 10);
        p = stop - 1;
      }
    } else {
      bad = *p != ',' && *p != ' ';
    }
    if (bad) {
      *n = 0;
      return error_set(err, ERR_RUNTIME, in->offset,
                       "%s must hold pairs {{source,target},...}", key);
    }
  }
  if (depth != 0) {
    *n = 0;
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s must hold pairs {{source,target},...}", key);
  }
  return true;
}
