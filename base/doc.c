#include "base/doc_internal.h"

#include <stdio.h>
#include <string.h>

static Doc *node(Arena *a, DocKind k, const char *text) {
  if (!text && k != DOC_MAP && k != DOC_SEQ) return NULL; /* its copy failed */
  Doc *d = arena_alloc(a, sizeof *d);
  if (!d) return NULL;
  d->kind = k;
  d->text = text;
  return d;
}

Doc *doc_map(Arena *a) { return node(a, DOC_MAP, NULL); }
Doc *doc_seq(Arena *a) { return node(a, DOC_SEQ, NULL); }
Doc *doc_str(Arena *a, const char *s) { return node(a, DOC_STR, arena_strdup(a, s)); }
Doc *doc_bool(Arena *a, bool v) { return node(a, DOC_BOOL, v ? "true" : "false"); }
Doc *doc_null(Arena *a) { return node(a, DOC_NULL, "null"); }

Doc *doc_int(Arena *a, int64_t v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return node(a, DOC_INT, arena_strdup(a, buf));
}

Doc *doc_num(Arena *a, double v, int decimals) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return node(a, DOC_NUM, arena_strdup(a, buf));
}

Doc *doc_ints(Arena *a, const int64_t *v, int n) {
  Doc *s = doc_seq(a);
  for (int i = 0; s && i < n; i++) doc_push(s, doc_int(a, v[i]));
  return s;
}

/* A NULL val (out of memory) marks the container broken; a NULL container
 * was itself lost, and its parent is marked. */
Doc *doc_push(Doc *seq, Doc *val) {
  if (!val) {
    if (seq) seq->broken = true;
    return NULL;
  }
  if (!seq) return val;
  if (seq->last)
    seq->last->next = val;
  else
    seq->first = val;
  seq->last = val;
  return val;
}

Doc *doc_put(Arena *a, Doc *map, const char *key, Doc *val) {
  if (val) val->key = arena_strdup(a, key);
  return doc_push(map, val && val->key ? val : NULL);
}

Doc *doc_flow(Doc *d) {
  if (d) d->flow = true;
  return d;
}

Doc *doc_newline(Doc *d) {
  if (d) d->newline = true;
  return d;
}

bool doc_short_scalars(const Doc *d) {
  for (const Doc *c = d->first; c; c = c->next)
    if (c->kind == DOC_MAP || c->kind == DOC_SEQ || (c->kind == DOC_STR && strlen(c->text) > 8))
      return false;
  return true;
}

bool doc_complete(const Doc *d) {
  if (!d || d->broken) return false;
  for (const Doc *c = d->first; c; c = c->next)
    if (!doc_complete(c)) return false;
  return true;
}
