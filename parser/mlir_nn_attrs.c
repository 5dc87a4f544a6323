/* Attribute readers for mlir_emit_nn.c and mlir_emit_dyn.c (see
 * mlir_nn.h): integer and boolean lists in every spelling StableHLO
 * printers use, with dense splats expanded, enum words, and the small
 * text pieces HLO attributes are made of. */
#include <stdio.h>
#include <string.h>

#include "parser/mlir_nn.h"

enum { FLAT_CAP = 4 * MLIR_MAX_RANK };

/* A dense splat (one value for a type of many) repeated to fill it. */
static int expand_splat(MState *st, const MAttr *a, int64_t *out, int n, int k, int cap) {
  int64_t e = a->type && a->type->kind == MT_TENSOR ? mlir_type_elems(a->type) : 1;
  if (k != 1 || e <= 1) return n + k;
  if (n + e > cap) mlir_fail(st, a->offset, "too many values");
  for (int64_t j = 1; j < e; j++) out[n + j] = out[n];
  return n + (int)e;
}

/* Appends a's integers to out[n..cap): the new count, or -1 when a is not
 * integers. */
static int flatten_ints(MState *st, const MAttr *a, int64_t *out, int n, int cap) {
  if (a->kind == MA_INT) {
    if (n >= cap) mlir_fail(st, a->offset, "too many values");
    out[n] = a->i;
    return n + 1;
  }
  if (a->kind == MA_LIST) {
    for (int i = 0; i < a->n && n >= 0; i++) n = flatten_ints(st, a->items[i], out, n, cap);
    return n;
  }
  if (a->kind == MA_DENSE) {
    int k = mlir_attr_ints(st, a, out + n, cap - n);
    return k < 0 ? -1 : expand_splat(st, a, out, n, k, cap);
  }
  return -1;
}

int nn_ints(MState *st, const MOp *op, const char *key, int64_t *out, int want, bool dflt_ok, int64_t dflt) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a) {
    if (!dflt_ok || want < 0) mlir_fail(st, op->off, "%s needs the attribute '%s'", op->name, key);
    for (int i = 0; i < want; i++) out[i] = dflt;
    return want;
  }
  int64_t tmp[FLAT_CAP];
  int n = flatten_ints(st, a, tmp, 0, FLAT_CAP);
  if (n < 0) mlir_fail(st, a->offset, "%s: '%s' must be a list of integers", op->name, key);
  if (want >= 0 && n != want) mlir_fail(st, a->offset, "%s: '%s' needs %d values, it has %d", op->name, key, want, n);
  if (want < 0 && n > MLIR_MAX_RANK) mlir_fail(st, a->offset, "%s: '%s' has too many values", op->name, key);
  memcpy(out, tmp, sizeof *out * (size_t)n);
  return n;
}

/* true/false/1/0 as 1/0, or -1. */
static int bool_word(const char *s, size_t n) {
  if ((n == 4 && strncmp(s, "true", 4) == 0) || (n == 1 && s[0] == '1')) return 1;
  if ((n == 5 && strncmp(s, "false", 5) == 0) || (n == 1 && s[0] == '0')) return 0;
  return -1;
}

static int flatten_bools(MState *st, const MAttr *a, int64_t *out, int n, int cap) {
  if (a->kind == MA_INT || a->kind == MA_WORD) {
    int b = a->kind == MA_INT ? (a->i == 0 || a->i == 1 ? (int)a->i : -1) : bool_word(a->s, strlen(a->s));
    if (b < 0) return -1;
    if (n >= cap) mlir_fail(st, a->offset, "too many values");
    out[n] = b;
    return n + 1;
  }
  if (a->kind == MA_LIST) {
    for (int i = 0; i < a->n && n >= 0; i++) n = flatten_bools(st, a->items[i], out, n, cap);
    return n;
  }
  if (a->kind != MA_DENSE) return -1;
  /* dense<[true, false]> or dense<false>: words between brackets and commas */
  int k = 0;
  for (const char *p = a->body, *end = a->body + a->body_len; p < end;) {
    if (*p == '[' || *p == ']' || *p == ',' || *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r') {
      p++;
      continue;
    }
    const char *w = p;
    while (p < end && *p != ',' && *p != ']' && *p != ' ' && *p != '\n') p++;
    int b = bool_word(w, (size_t)(p - w));
    if (b < 0) return -1;
    if (n + k >= cap) mlir_fail(st, a->offset, "too many values");
    out[n + k++] = b;
  }
  return expand_splat(st, a, out, n, k, cap);
}

int nn_bools(MState *st, const MOp *op, const char *key, bool *out, int want) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a) {
    for (int i = 0; i < want; i++) out[i] = false;
    return want;
  }
  int64_t tmp[FLAT_CAP];
  int n = flatten_bools(st, a, tmp, 0, FLAT_CAP);
  if (n < 0) mlir_fail(st, a->offset, "%s: '%s' must be a list of booleans", op->name, key);
  if (n != want) mlir_fail(st, a->offset, "%s: '%s' needs %d values, it has %d", op->name, key, want, n);
  for (int i = 0; i < n; i++) out[i] = tmp[i] != 0;
  return n;
}

const char *nn_word(MState *st, const MOp *op, const char *key) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a) return NULL;
  if (a->kind != MA_WORD) mlir_fail(st, a->offset, "%s: '%s' must be a name (an enum value)", op->name, key);
  return a->s;
}

bool nn_bool(MState *st, const MOp *op, const char *key, bool dflt) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a) return dflt;
  int b = a->kind == MA_WORD ? bool_word(a->s, strlen(a->s)) : a->kind == MA_INT && (a->i == 0 || a->i == 1) ? (int)a->i : -1;
  if (b < 0) mlir_fail(st, a->offset, "%s: '%s' must be true or false", op->name, key);
  return b == 1;
}

int64_t nn_int(MState *st, const MOp *op, const char *key) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a || a->kind != MA_INT) mlir_fail(st, a ? a->offset : op->off, "%s needs the integer attribute '%s'", op->name, key);
  return a->i;
}

static const char *join(MState *st, const int64_t *v, int n, const char *open, const char *sep, const char *close) {
  StrBuf *sb = mlir_sb(st);
  sb_puts(sb, open);
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%lld", i ? sep : "", (long long)v[i]);
  sb_puts(sb, close);
  if (sb->oom) mlir_fail(st, -1, "out of memory");
  return mlir_strdup(st, sb->data, sb->len);
}

const char *nn_dims_text(MState *st, const int64_t *v, int n, bool pairs) {
  if (!pairs) return join(st, v, n, "", "x", "");
  StrBuf *sb = mlir_sb(st);
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%lld_%lld", i ? "x" : "", (long long)v[2 * i], (long long)v[2 * i + 1]);
  if (sb->oom) mlir_fail(st, -1, "out of memory");
  return mlir_strdup(st, sb->data ? sb->data : "", sb->len);
}

const char *nn_list_text(MState *st, const int64_t *v, int n) { return join(st, v, n, "{", ",", "}"); }

const char *nn_shape_text(MState *st, const int64_t *v, int n) { return join(st, v, n, "[", ", ", "]"); }

void nn_arity(MState *st, const MOp *op, int n, int results) {
  if (op->nopnds != n) mlir_fail(st, op->off, "%s takes %d operands, it has %d", op->name, n, op->nopnds);
  if (results >= 0 && op->nout != results)
    mlir_fail(st, op->off, "%s gives %d result%s, its type lists %d", op->name, results, results == 1 ? "" : "s", op->nout);
}

MType *nn_result(MState *st, const MOp *op) {
  if (op->nout != 1 || op->out[0]->kind != MT_TENSOR) mlir_fail(st, op->off, "%s gives one tensor", op->name);
  return op->out[0];
}
