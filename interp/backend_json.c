/* Key lookups in a custom call's JSON backend_config (interp/backend_json.h). */
#include "interp/backend_json.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

char *backend_json_text(const Instr *in, bool *oom) {
  const Attr *a = ir_attr(in, ATTR_BACKEND_CONFIG);
  *oom = false;
  if (!a || (a->kind != AV_STRING_OR_RAW && a->kind != AV_STRING) || !a->v.s) return NULL;
  size_t len = strlen(a->v.s);
  char *s = malloc(len + 1), *w = s;
  if (!s) {
    *oom = true;
    return NULL;
  }
  for (const char *r = a->v.s; *r; r++)
    if (!(*r == '\\' && r[1] == '"')) *w++ = *r; /* \" -> " */
  *w = 0;
  return s;
}

static const char *skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

static const char *value_of(const char *s, const char *key) {
  size_t n = strlen(key);
  for (const char *p = strchr(s, '"'); p; p = strchr(p + 1, '"')) {
    if (strncmp(p + 1, key, n) || p[1 + n] != '"') continue;
    const char *q = skip_ws(p + 2 + n);
    if (*q == ':') return skip_ws(q + 1);
  }
  return NULL;
}

/* protobuf's JSON name of a field: "conv_result_scale" -> "convResultScale"
 * (an underscore dropped, the letter after it upper-cased). */
static void json_name(const char *key, char *out, size_t size) {
  size_t k = 0;
  for (const char *p = key; *p && k + 1 < size; p++) {
    if (*p == '_' && p[1] >= 'a' && p[1] <= 'z') {
      out[k++] = (char)(p[1] - 'a' + 'A');
      p++;
    } else if (*p != '_') {
      out[k++] = *p;
    }
  }
  out[k] = 0;
}

/* protobuf's JSON parser takes a field under its proto name or its JSON
 * name; TF/XLA GPU dumps write the JSON names ("activationMode"). */
const char *json_value(const char *s, const char *key) {
  const char *v = value_of(s, key);
  if (v || !strchr(key, '_')) return v;
  char camel[128];
  json_name(key, camel, sizeof camel);
  return value_of(s, camel);
}

bool json_number(const char *s, const char *key, double dflt, double *v) {
  const char *p = json_value(s, key);
  *v = dflt;
  if (!p) return true;
  if (*p == '"') p++;
  char *end;
  *v = strtod(p, &end);
  return end != p;
}

bool json_int(const char *s, const char *key, int64_t dflt, int64_t *v) {
  double d;
  *v = dflt;
  if (!json_number(s, key, (double)dflt, &d)) return false;
  if (!(fabs(d) < 9.0e15) || d != floor(d)) return false;
  *v = (int64_t)d;
  return true;
}

bool json_ints(const char *s, const char *key, int64_t *v, int max, int *n) {
  const char *p = json_value(s, key);
  *n = 0;
  if (!p) return true;
  if (*p++ != '[') return false;
  for (;;) {
    p = skip_ws(p);
    if (*p == ']') return true;
    if (*p == ',') { p++; continue; }
    if (*p == '"') p++;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (end == p || *n >= max) return false;
    v[(*n)++] = x;
    p = end;
    if (*p == '"') p++;
  }
}

bool json_string(const char *s, const char *key, char *buf, size_t size) {
  const char *p = json_value(s, key);
  if (!p || *p != '"' || size == 0) return false;
  size_t k = 0;
  for (p++; *p && *p != '"'; p++)
    if (k + 1 < size) buf[k++] = *p;
  buf[k] = 0;
  return *p == '"';
}
