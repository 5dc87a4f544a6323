/* The expression builder of the CHLO decompositions (mlir_chlo.h): one HLO
 * instruction per call, at the CHLO op's MLIR offset, so every error in the
 * generated formula still points at the op. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "parser/mlir_chlo.h"

MType *chlo_like(MState *st, const MType *t, const char *etype) {
  MType *r = arena_alloc(st->arena, sizeof *r);
  if (!r) mlir_fail(st, -1, "out of memory");
  *r = *t;
  r->etype = etype;
  return r;
}

void chlo_ex_init(ChloEx *e, MState *st, int64_t off, const MType *t) {
  memset(e, 0, sizeof *e);
  e->st = st;
  e->off = off;
  e->t = chlo_like(st, t, t->etype);
  e->p = chlo_like(st, t, "pred");
}

bool chlo_is_f64(const ChloEx *e) { return strcmp(e->t->etype, "f64") == 0; }

const char *chlo_k(ChloEx *e, double v) {
  for (int i = 0; i < e->nk; i++)
    if (memcmp(&e->kv[i], &v, sizeof v) == 0) return e->kn[i];
  char text[48];
  if (isnan(v)) snprintf(text, sizeof text, "nan");
  else if (isinf(v)) snprintf(text, sizeof text, "%sinf", v < 0 ? "-" : "");
  else snprintf(text, sizeof text, "%.17g", v);
  if (e->t->etype[0] == 'c') { /* complex types: a real value */
    char re[40];
    memcpy(re, text, sizeof re);
    snprintf(text, sizeof text, "(%s, 0)", re);
  }
  MType *s = chlo_like(e->st, e->t, e->t->etype);
  s->rank = 0;
  const char *c = mlir_line(e->st, e->off, "k", s, "constant(%s)", text);
  if (e->t->rank) c = mlir_line(e->st, e->off, "k", e->t, "broadcast(%s), dimensions={}", c);
  if (e->nk < (int)(sizeof e->kv / sizeof e->kv[0])) {
    e->kv[e->nk] = v;
    e->kn[e->nk++] = c;
  }
  return c;
}

const char *chlo_ki(ChloEx *e, long long v) {
  MType *s = chlo_like(e->st, e->t, e->t->etype);
  s->rank = 0;
  const char *c = mlir_line(e->st, e->off, "k", s, "constant(%lld)", v);
  return e->t->rank ? mlir_line(e->st, e->off, "k", e->t, "broadcast(%s), dimensions={}", c) : c;
}

const char *chlo_un(ChloEx *e, const char *hop, const char *a) {
  return mlir_line(e->st, e->off, "c", e->t, "%s(%s)", hop, a);
}

const char *chlo_bin(ChloEx *e, const char *hop, const char *a, const char *b) {
  return mlir_line(e->st, e->off, "c", e->t, "%s(%s, %s)", hop, a, b);
}

const char *chlo_cmp(ChloEx *e, const char *dir, const char *a, const char *b) {
  return mlir_line(e->st, e->off, "c", e->p, "compare(%s, %s), direction=%s", a, b, dir);
}

const char *chlo_pred(ChloEx *e, const char *hop, const char *a, const char *b) {
  return mlir_line(e->st, e->off, "c", e->p, "%s(%s, %s)", hop, a, b);
}

const char *chlo_sel(ChloEx *e, const char *p, const char *a, const char *b) {
  return mlir_line(e->st, e->off, "c", e->t, "select(%s, %s, %s)", p, a, b);
}

const char *chlo_poly(ChloEx *e, const char *x, const double *c, int n) {
  const char *p = chlo_k(e, c[0]);
  for (int i = 1; i < n; i++) p = chlo_bin(e, "add", chlo_bin(e, "multiply", p, x), chlo_k(e, c[i]));
  return p;
}
