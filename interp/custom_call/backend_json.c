/* A custom call's backend_config checked against its protobuf message
 * (interp/custom_call/backend_json.h). */
#include "interp/custom_call/backend_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *backend_json_text(const Instr *in, bool *oom) {
  const Attr *a = ir_attr(in, ATTR_BACKEND_CONFIG);
  *oom = false;
  if (!a || (a->kind != AV_STRING_OR_RAW && a->kind != AV_STRING) || !a->v.s) return NULL;
  char *s = strdup(a->v.s);
  if (!s) *oom = true;
  return s;
}

/* protobuf's JSON name of a field: "conv_result_scale" -> "convResultScale"
 * (an underscore dropped, a letter after it upper-cased). */
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

static bool names_field(const char *key, const ProtoField *f) {
  char camel[128];
  if (!strcmp(key, f->name)) return true;
  json_name(f->name, camel, sizeof camel);
  return !strcmp(key, camel);
}

static const ProtoField *field_of(const ProtoMessage *m, const char *key) {
  for (int i = 0; m && i < m->nfields; i++)
    if (names_field(key, &m->fields[i])) return &m->fields[i];
  return NULL;
}

/* -- scalar values under proto3's JSON mapping -- */

/* [-]digits, nothing else: a proto integer's text. */
static bool int_text(const char *t, int64_t *v) {
  const char *p = t + (*t == '-');
  if (!*p || strspn(p, "0123456789") != strlen(p)) return false;
  errno = 0;
  long long x = strtoll(t, NULL, 10);
  if (errno == ERANGE) return false;
  *v = x;
  return true;
}

/* A JSON number's grammar (interp/io/json.c checks bare numbers; quoted ones land
 * here): [-] int [. digits] [e [+-] digits]. */
static bool number_text(const char *t) {
  const char *p = t + (*t == '-');
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') p += strspn(p, "0123456789");
  else return false;
  if (*p == '.') {
    size_t n = strspn(p + 1, "0123456789");
    if (!n) return false;
    p += 1 + n;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    size_t n = strspn(p, "0123456789");
    if (!n) return false;
    p += n;
  }
  return !*p;
}

/* A double written as a number, a quoted number, or "NaN", "Infinity",
 * "-Infinity".  False if it is none of these or overflows. */
static bool double_of(const Json *v, double *d) {
  if (v->kind == JSON_STRING) {
    if (!strcmp(v->text, "NaN")) { *d = NAN; return true; }
    if (!strcmp(v->text, "Infinity")) { *d = INFINITY; return true; }
    if (!strcmp(v->text, "-Infinity")) { *d = -INFINITY; return true; }
    if (!number_text(v->text)) return false;
  } else if (v->kind != JSON_NUMBER) {
    return false;
  }
  *d = strtod(v->text, NULL);
  return isfinite(*d);
}

static bool int_of(const Json *v, int64_t *x) {
  return (v->kind == JSON_NUMBER || v->kind == JSON_STRING) && int_text(v->text, x);
}

/* An enum by name, or by number (bare or quoted). */
static bool enum_of(const Json *v, const ProtoEnum *e, int *x) {
  int64_t n;
  if (v->kind == JSON_STRING)
    for (int i = 0; i < e->n; i++)
      if (e->names[i] && !strcmp(v->text, e->names[i])) {
        *x = i;
        return true;
      }
  if (!int_of(v, &n) || n < 0 || n >= e->n || !e->names[n]) return false;
  *x = (int)n;
  return true;
}

/* -- checking a value against its field -- */

typedef struct Checker {
  Error *err;
  char path[512];
} Checker;

static bool bad(Checker *c, const Json *v, const char *why) {
  return error_set(c->err, ERR_RUNTIME, v->offset, "backend_config field \"%s\": %s", c->path,
                   why);
}

static const char *kind_with_article(JsonKind k) {
  static const char *const kinds[] = {"null", "false", "true", "a number", "a string",
                                      "an array", "an object"};
  return kinds[k];
}

/* "expected X, not a string" */
static bool bad_kind(Checker *c, const Json *v, const char *expected) {
  char why[200];
  snprintf(why, sizeof why, "expected %s, not %s", expected, kind_with_article(v->kind));
  return bad(c, v, why);
}

/* The value as a message quotes it: a string quoted, containers elided. */
static void describe(const Json *v, char *buf, size_t size) {
  switch (v->kind) {
    case JSON_STRING: snprintf(buf, size, "\"%.60s\"", v->text); break;
    case JSON_NUMBER: snprintf(buf, size, "%.60s", v->text); break;
    case JSON_ARRAY: snprintf(buf, size, "[...]"); break;
    case JSON_OBJECT: snprintf(buf, size, "{...}"); break;
    default: snprintf(buf, size, "%s", json_kind_name(v->kind)); break;
  }
}

/* Whether v is the proto default of a field of type t. */
static bool is_default(const Json *v, ProtoType t, bool repeated) {
  double d;
  if (repeated) return v->kind == JSON_ARRAY && v->nkids == 0;
  switch (t) {
    case PT_BOOL: return v->kind == JSON_FALSE;
    case PT_INT64:
    case PT_DOUBLE:
    case PT_ENUM: return double_of(v, &d) && d == 0;
    case PT_STRING: return v->kind == JSON_STRING && v->len == 0;
    default: return v->kind == JSON_OBJECT && v->nkids == 0;
  }
}

static bool check_message(Checker *c, const Json *v, const ProtoMessage *m);

static bool check_scalar(Checker *c, const Json *v, const ProtoField *f) {
  double d;
  int64_t i;
  int e;
  switch (f->type) {
    case PT_BOOL:
      if (v->kind == JSON_TRUE || v->kind == JSON_FALSE) return true;
      return bad_kind(c, v, "true or false");
    case PT_INT64:
      if (int_of(v, &i)) return true;
      return bad_kind(c, v, "a 64-bit integer (bare or quoted)");
    case PT_DOUBLE:
      if (double_of(v, &d)) return true;
      return bad_kind(c, v, "a finite number, bare or quoted, or \"NaN\", \"Infinity\", "
                             "\"-Infinity\"");
    case PT_STRING:
      if (v->kind == JSON_STRING) return true;
      return bad_kind(c, v, "a string");
    case PT_ENUM: {
      if (enum_of(v, f->enm, &e)) return true;
      char val[80], why[200];
      describe(v, val, sizeof val);
      snprintf(why, sizeof why, "value %s is not supported (not one of %s's names or numbers)",
               val, f->enm->name);
      return bad(c, v, why);
    }
    case PT_MESSAGE:
      if (v->kind != JSON_OBJECT) return bad_kind(c, v, "an object");
      return !f->msg || check_message(c, v, f->msg);
    case PT_ANY: return true;
  }
  return true;
}

static bool check_field(Checker *c, const Json *v, const ProtoField *f) {
  if (v->kind == JSON_NULL) return true; /* null is the default */
  if (f->repeated && v->kind != JSON_ARRAY)
    return bad_kind(c, v, "an array (a repeated field)");
  if (f->repeated) {
    size_t len = strlen(c->path);
    for (size_t i = 0; i < v->nkids; i++) {
      snprintf(c->path + len, sizeof c->path - len, "[%zu]", i);
      if (v->kids[i].kind == JSON_NULL) return bad(c, &v->kids[i], "null in a repeated field");
      if (!check_scalar(c, &v->kids[i], f)) return false;
    }
    c->path[len] = 0;
  } else if (!check_scalar(c, v, f)) {
    return false;
  }
  if (f->use == PU_DEFAULT_ONLY && !is_default(v, f->type, f->repeated)) {
    char val[80], why[200];
    describe(v, val, sizeof val);
    snprintf(why, sizeof why, "value %s is not supported (hlotools implements only the default)",
             val);
    return bad(c, v, why);
  }
  return true;
}

static bool check_message(Checker *c, const Json *v, const ProtoMessage *m) {
  size_t len = strlen(c->path);
  for (size_t i = 0; i < v->nkids; i++) {
    const Json *kid = &v->kids[i];
    snprintf(c->path + len, sizeof c->path - len, "%s%s", len ? "." : "", kid->key);
    const ProtoField *f = field_of(m, kid->key);
    char why[300];
    if (!f) {
      snprintf(why, sizeof why, "not a field of %s (refused: hlotools does not know what it asks)",
               m->name);
      return bad(c, kid, why);
    }
    for (size_t j = 0; j < i; j++)
      if (field_of(m, v->kids[j].key) == f) {
        snprintf(why, sizeof why, "the field is given twice (also as \"%.100s\")", v->kids[j].key);
        return bad(c, kid, why);
      }
    if (!check_field(c, kid, f)) return false;
  }
  c->path[len] = 0;
  return true;
}

bool proto_json_check(const Json *v, const ProtoMessage *m, Error *err) {
  Checker c = {err, ""};
  if (v->kind != JSON_OBJECT)
    return error_set(err, ERR_RUNTIME, v->offset, "backend_config: expected an object (%s), not %s",
                     m->name, kind_with_article(v->kind));
  return check_message(&c, v, m);
}

/* -- reading an instruction's config -- */

/* A config any of whose keys is wrap's own field is the wrapped form. */
static bool is_wrapped(const Json *v, const ProtoMessage *m, const ProtoMessage *wrap) {
  for (size_t i = 0; wrap && i < v->nkids; i++)
    if (field_of(wrap, v->kids[i].key) && !field_of(m, v->kids[i].key)) return true;
  return false;
}

static const Json *member_of(const Json *v, const char *name, size_t n) {
  char proto[128], camel[128];
  if (!v || v->kind != JSON_OBJECT || n >= sizeof proto) return NULL;
  memcpy(proto, name, n);
  proto[n] = 0;
  json_name(proto, camel, sizeof camel);
  const Json *k = json_member(v, proto);
  return k ? k : json_member(v, camel);
}

bool backend_config_read(const Instr *in, const char *target, const ProtoMessage *m,
                         const ProtoMessage *wrap, const char *inner, BackendConfig *bc,
                         Error *err) {
  bool oom;
  bc->root = NULL;
  bc->msg = NULL;
  char *s = backend_json_text(in, &oom);
  if (oom) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  /* XLA reads an empty backend_config as the message's defaults */
  if (!s || !s[strspn(s, " \t\n\r")]) {
    free(s);
    return true;
  }
  Error e = {0};
  bool parsed = json_parse(s, strlen(s), &bc->root, &e), ok = parsed;
  free(s);
  const ProtoMessage *as = m;
  if (ok && bc->root->kind == JSON_OBJECT && is_wrapped(bc->root, m, wrap)) as = wrap;
  ok = ok && proto_json_check(bc->root, as, &e);
  if (!ok) {
    backend_config_free(bc);
    return error_set(err, ERR_RUNTIME, in->offset, "%s: %s%s", target,
                     parsed ? "" : "backend_config: ", e.msg);
  }
  bc->msg = as == m ? bc->root : member_of(bc->root, inner, strlen(inner));
  if (bc->msg && bc->msg->kind == JSON_NULL) bc->msg = NULL;
  return true;
}

void backend_config_free(BackendConfig *bc) {
  json_free(bc->root);
  bc->root = NULL;
  bc->msg = NULL;
}

const Json *bc_field(const BackendConfig *bc, const char *path) {
  const Json *v = bc->msg;
  for (const char *p = path; v && *p;) {
    size_t n = strcspn(p, ".");
    v = member_of(v, p, n);
    p += n + (p[n] == '.');
  }
  return v && v->kind != JSON_NULL ? v : NULL;
}

bool bc_present(const BackendConfig *bc, const char *path) { return bc_field(bc, path) != NULL; }

double bc_double(const BackendConfig *bc, const char *path, double dflt) {
  const Json *v = bc_field(bc, path);
  double d;
  return v && double_of(v, &d) ? d : dflt;
}

int64_t bc_int(const BackendConfig *bc, const char *path, int64_t dflt) {
  const Json *v = bc_field(bc, path);
  int64_t x;
  return v && int_of(v, &x) ? x : dflt;
}

bool bc_bool(const BackendConfig *bc, const char *path) {
  const Json *v = bc_field(bc, path);
  return v && v->kind == JSON_TRUE;
}

int bc_enum(const BackendConfig *bc, const char *path, const ProtoEnum *e, int dflt) {
  const Json *v = bc_field(bc, path);
  int x;
  return v && enum_of(v, e, &x) ? x : dflt;
}

const char *bc_string(const BackendConfig *bc, const char *path, const char *dflt) {
  const Json *v = bc_field(bc, path);
  return v && v->kind == JSON_STRING ? v->text : dflt;
}

int bc_ints(const BackendConfig *bc, const char *path, int64_t *v, int max) {
  const Json *a = bc_field(bc, path);
  if (!a || a->kind != JSON_ARRAY) return 0;
  if (a->nkids > (size_t)max) return -1;
  for (size_t i = 0; i < a->nkids; i++)
    if (!int_of(&a->kids[i], &v[i])) return -1;
  return (int)a->nkids;
}

int bc_enums(const BackendConfig *bc, const char *path, const ProtoEnum *e, int *v, int max) {
  const Json *a = bc_field(bc, path);
  if (!a || a->kind != JSON_ARRAY) return 0;
  if (a->nkids > (size_t)max) return -1;
  for (size_t i = 0; i < a->nkids; i++)
    if (!enum_of(&a->kids[i], e, &v[i])) return -1;
  return (int)a->nkids;
}

bool bc_unsupported(const Instr *in, const char *target, const BackendConfig *bc,
                    const char *path, const ProtoEnum *e, const char *why, Error *err) {
  const Json *v = bc_field(bc, path);
  char val[80] = "default";
  int x;
  if (v && e && enum_of(v, e, &x)) snprintf(val, sizeof val, "\"%s\"", e->names[x]);
  else if (v) describe(v, val, sizeof val);
  else if (e) snprintf(val, sizeof val, "\"%s\"", e->names[0]);
  return error_set(err, ERR_RUNTIME, in->offset,
                   "%s: backend_config field \"%s\": value %s is not supported%s%s",
                   target, path, val, why ? "; " : "", why ? why : "");
}
