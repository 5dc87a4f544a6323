/* Binding .npz entries to entry parameters by name (interp/io/bind_names.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/io/bind_names.h"

static void add(ParamNames *pn, const char *s, size_t len) {
  if (!len || len >= BIND_NAME_LEN || pn->n == BIND_NAMES_MAX) return;
  for (int i = 0; i < pn->n; i++)
    if (strlen(pn->name[i]) == len && !memcmp(pn->name[i], s, len)) return;
  memcpy(pn->name[pn->n], s, len);
  pn->name[pn->n++][len] = 0;
}

bool metadata_op_name(const char *raw, char *buf, size_t cap) {
  /* {key=value key="value" ...}: keys are words, values quoted strings
   * (with \" escapes) or bare words; only a whole key "op_name" counts. */
  const char *p = raw;
  if (*p == '{') p++;
  while (*p && *p != '}') {
    while (*p == ' ' || *p == ',' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    const char *key = p;
    while (*p && *p != '=' && *p != ' ' && *p != '}' && *p != ',') p++;
    size_t klen = (size_t)(p - key);
    if (*p != '=') {
      if (!klen && *p && *p != '}') p++; /* stray character: move on */
      continue;
    }
    p++;
    bool want = klen == 7 && !memcmp(key, "op_name", 7);
    size_t n = 0;
    if (*p == '"') {
      for (p++; *p && *p != '"'; p++) {
        if (*p == '\\' && p[1]) p++;
        if (want && n + 1 < cap) buf[n++] = *p;
      }
      if (*p == '"') p++;
    } else {
      for (; *p && *p != ' ' && *p != '}' && *p != ','; p++)
        if (want && n + 1 < cap) buf[n++] = *p;
    }
    if (want) {
      buf[n] = 0;
      return n > 0;
    }
  }
  return false;
}

void param_names(const Computation *c, int p, ParamNames *out) {
  out->n = 0;
  const Instr *pi = c->params[p];
  const char *name = pi ? pi->name : NULL;
  if (name) {
    add(out, name, strlen(name));
    char pct[BIND_NAME_LEN];
    int k = snprintf(pct, sizeof pct, "%%%s", name);
    if (k > 0 && (size_t)k < sizeof pct) add(out, pct, (size_t)k);
  }
  if (computation_signature_lists_params(c) && c->sig_param_names && c->sig_param_names[p])
    add(out, c->sig_param_names[p], strlen(c->sig_param_names[p]));
  if (name) { /* "x.12" -> "x": XLA makes names unique with ".N" */
    const char *dot = strrchr(name, '.');
    if (dot && dot > name && dot[1] && strspn(dot + 1, "0123456789") == strlen(dot + 1))
      add(out, name, (size_t)(dot - name));
  }
  const Attr *md = pi ? ir_attr(pi, ATTR_METADATA) : NULL;
  char op[BIND_NAME_LEN];
  if (md && md->kind == AV_RAW && md->v.s && metadata_op_name(md->v.s, op, sizeof op))
    add(out, op, strlen(op));
  char arg[32];
  snprintf(arg, sizeof arg, "arg%d", p);
  add(out, arg, strlen(arg));
}

void param_names_text(const ParamNames *pn, char *buf, size_t cap) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < pn->n && at < cap; i++) {
    int k = snprintf(buf + at, cap - at, "%s%s", i ? ", " : "", pn->name[i]);
    if (k < 0) break;
    at += (size_t)k;
  }
}

/* How well entry name s names parameter p: the index of the name, or -1. */
static int rank_of(const ParamNames *pn, const char *s) {
  for (int i = 0; i < pn->n; i++)
    if (!strcmp(pn->name[i], s)) return i;
  return -1;
}

bool bind_by_name(const Computation *c, const char *const *names, const char *const *sources, int n,
                  int *owner, Error *err) {
  for (int i = 0; i < n; i++) owner[i] = -1;
  int np = c->nparams;
  ParamNames *pn = calloc((size_t)(np ? np : 1), sizeof *pn);
  if (!pn) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  for (int p = 0; p < np; p++)
    if (c->params[p] && !shape_is_tuple(&c->params[p]->shape)) param_names(c, p, &pn[p]);
  bool ok = true;
  char list1[1200], list2[1200];
  /* Each entry goes to the parameter it names best (its HLO name beats an
   * op_name, which beats argN); a tie is ambiguous. */
  for (int i = 0; i < n && ok; i++) {
    if (!names[i]) continue;
    int best = -1, best_rank = BIND_NAMES_MAX, tie = -1;
    for (int p = 0; p < np; p++) {
      int r = rank_of(&pn[p], names[i]);
      if (r < 0) continue;
      if (r < best_rank) best = p, best_rank = r, tie = -1;
      else if (r == best_rank) tie = p;
    }
    if (tie >= 0) {
      param_names_text(&pn[best], list1, sizeof list1);
      param_names_text(&pn[tie], list2, sizeof list2);
      ok = error_set(err, ERR_RUNTIME, -1,
                     "%s is ambiguous: it names parameter %d (%s; names tried: %s) and parameter "
                     "%d (%s; names tried: %s); rename the entry",
                     sources[i], best, c->params[best]->name, list1, tie, c->params[tie]->name, list2);
    }
    owner[i] = best;
  }
  /* A parameter named by two entries. */
  for (int i = 0; i < n && ok; i++)
    for (int j = i + 1; j < n && ok && owner[i] >= 0; j++)
      if (owner[j] == owner[i]) {
        param_names_text(&pn[owner[i]], list1, sizeof list1);
        ok = error_set(err, ERR_RUNTIME, -1,
                       "parameter %d (%s) is named by two entries, %s and %s (names tried: %s); "
                       "keep one",
                       owner[i], c->params[owner[i]]->name, sources[i], sources[j], list1);
      }
  free(pn);
  return ok;
}
