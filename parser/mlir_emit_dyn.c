/* The dynamic StableHLO ops with static result types, lowered to the
 * static HLO op as XLA does once their shape operands are known:
 * dynamic_broadcast_in_dim -> broadcast, dynamic_reshape -> reshape,
 * dynamic_iota -> iota, dynamic_pad -> pad, dynamic_gather -> gather,
 * dynamic_conv -> convolution, real_dynamic_slice -> slice.
 *
 * Their shape, size and padding operands must be constants of the function
 * (HLO needs them when the module is read), and where the result type
 * repeats them (output shapes) the two must agree.  A value computed at run
 * time is refused with an error naming it. */
#include <stdlib.h>
#include <string.h>

#include "parser/mlir_nn.h"

static bool is_int_type(const MType *t) {
  return t->kind == MT_TENSOR && (t->etype[0] == 's' || t->etype[0] == 'u');
}

static const MLine *find_line(const MComp *c, const char *name) {
  for (int i = c->nlines - 1; i >= 0; i--)
    if (strcmp(c->lines[i].name, name) == 0) return &c->lines[i];
  return NULL;
}

/* The integers of an HLO literal "{{1, 2}, {3, 4}})" (the text after
 * "constant("), or -1. */
static int literal_ints(const char *p, int64_t *out, int cap) {
  int n = 0;
  for (;;) {
    while (*p == '{' || *p == '}' || *p == ',' || *p == ' ') p++;
    if (*p == ')') return n;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (end == p || n == cap) return -1;
    out[n++] = x;
    p = end;
  }
}

int nn_const_ints(MState *st, const MValue *v, int64_t *out, int cap) {
  if (!is_int_type(v->type)) return -1;
  int64_t e = mlir_type_elems(v->type);
  const MLine *l = find_line(st->cur, v->hlo);
  if (e > cap || !l) return -1;
  const char *c = strstr(l->text, " constant(");
  if (c) return literal_ints(c + 10, out, cap) == e ? (int)e : -1;
  /* a splat: broadcast(scalar constant), dimensions={} */
  const char *b = strstr(l->text, " broadcast(");
  if (!b || !strstr(b, "dimensions={}")) return -1;
  b += 11;
  const char *close = strchr(b, ')');
  if (!close) return -1;
  const MLine *s = find_line(st->cur, mlir_strdup(st, b, (size_t)(close - b)));
  if (!s || !(c = strstr(s->text, " constant(")) || literal_ints(c + 10, out, 1) != 1) return -1;
  for (int64_t i = 1; i < e; i++) out[i] = out[0];
  return (int)e;
}

/* Operand i: a constant integer tensor of n values (rank 1, or rank 2 of
 * rows x 2 when pairs): its values in out. */
static void const_operand(MState *st, const MOp *op, int i, int n, bool pairs, const char *what, int64_t *out) {
  const MType *t = op->opnds[i]->type;
  bool shape_ok = pairs ? t->rank == 2 && t->dims[0] == n / 2 && t->dims[1] == 2 : t->rank == 1 && t->dims[0] == n;
  if (!is_int_type(t) || !shape_ok) {
    if (pairs) mlir_fail(st, op->opnd_off[i], "%s: %s must be a %dx2 integer tensor", op->name, what, n / 2);
    mlir_fail(st, op->opnd_off[i], "%s: %s must be a 1-dimensional integer tensor of %d value%s", op->name, what, n,
              n == 1 ? "" : "s");
  }
  if (nn_const_ints(st, op->opnds[i], out, n) != n)
    mlir_fail(st, op->opnd_off[i], "%s: %s %s is not a constant: HLO needs it when the module is read, so only "
              "constant operands are converted", op->name, what, op->opnds[i]->ssa);
}

/* The shape operand i against the result type (rank values). */
static void shape_operand(MState *st, const MOp *op, int i, const char *what) {
  const MType *rt = nn_result(st, op);
  int64_t v[MLIR_MAX_RANK];
  const_operand(st, op, i, rt->rank, false, what, v);
  if (rt->rank && memcmp(v, rt->dims, sizeof *v * (size_t)rt->rank) != 0)
    mlir_fail(st, op->opnd_off[i], "%s: %s is %s but the result type's shape is %s", op->name, what,
              nn_shape_text(st, v, rt->rank), nn_shape_text(st, rt->dims, rt->rank));
}

const char *mlir_broadcast_in_dim(MState *st, const MOp *op, const MValue *x, const int64_t *bd, int n) {
  const MType *in = x->type, *rt = op->out[0];
  bool ok = in->kind == MT_TENSOR && rt->kind == MT_TENSOR && n == in->rank;
  for (int j = 0; ok && j < n; j++) ok = bd[j] >= 0 && bd[j] < rt->rank;
  MType *kept = arena_alloc(st->arena, sizeof *kept);
  if (!kept) mlir_fail(st, -1, "out of memory");
  *kept = *in;
  int64_t kd[MLIR_MAX_RANK];
  int k = 0;
  if (ok) { /* else the HLO verifier reports what is wrong */
    kept->rank = 0;
    for (int j = 0; j < n; j++)
      if (in->dims[j] != 1 || rt->dims[bd[j]] == 1) kept->dims[kept->rank++] = in->dims[j], kd[k++] = bd[j];
  }
  const char *v = x->hlo;
  if (ok && kept->rank < in->rank) v = mlir_line(st, op->off, "r", kept, "reshape(%s)", x->hlo);
  else memcpy(kd, bd, sizeof *kd * (size_t)(k = n < MLIR_MAX_RANK ? n : MLIR_MAX_RANK));
  return mlir_line(st, op->off, "v", rt, "broadcast(%s), dimensions=%s", v, nn_list_text(st, kd, k));
}

static void emit_dynamic_broadcast(MState *st, MOp *op) {
  nn_arity(st, op, 2, 1);
  MType *in = op->opnds[0]->type, *rt = nn_result(st, op);
  shape_operand(st, op, 1, "the output_dimensions operand");
  int64_t bd[MLIR_MAX_RANK], k[MLIR_MAX_RANK];
  int r = in->rank;
  nn_ints(st, op, "broadcast_dimensions", bd, r, false, 0);
  /* known_(non_)expanding_dimensions: hints about operand dimensions that
   * a static shape settles; they must be true of it. */
  bool seen[MLIR_MAX_RANK] = {false};
  for (int pass = 0; pass < 2; pass++) {
    const char *key = pass ? "known_non_expanding_dimensions" : "known_expanding_dimensions";
    if (!mlir_op_attr(op, key)) continue;
    int n = nn_ints(st, op, key, k, -1, false, 0);
    for (int j = 0; j < n; j++) {
      int64_t d = k[j];
      bool ok = d >= 0 && d < r && !seen[d] && bd[d] >= 0 && bd[d] < rt->rank;
      if (ok) seen[d] = true;
      ok = ok && (pass ? in->dims[d] == rt->dims[bd[d]] : in->dims[d] == 1 && rt->dims[bd[d]] != 1);
      if (!ok)
        mlir_fail(st, mlir_op_attr(op, key)->offset, "%s: %s lists %lld, which is not a distinct operand dimension that %s",
                  op->name, key, (long long)d, pass ? "keeps its size" : "expands from 1");
    }
  }
  mlir_bind_results(st, op, mlir_broadcast_in_dim(st, op, op->opnds[0], bd, r), NULL);
}

/* A list attribute of n integers, as the generic form would give it. */
static void set_int_list(MState *st, MOp *op, const char *key, const int64_t *v, int n) {
  MAttr *a = arena_alloc(st->arena, sizeof *a);
  MAttr **items = arena_alloc_array(st->arena, (size_t)n + 1, sizeof *items);
  if (!a || !items) mlir_fail(st, -1, "out of memory");
  a->kind = MA_LIST, a->offset = op->off, a->n = n, a->items = items;
  for (int i = 0; i < n; i++) {
    if (!(items[i] = arena_alloc(st->arena, sizeof *items[i]))) mlir_fail(st, -1, "out of memory");
    items[i]->kind = MA_INT, items[i]->offset = op->off, items[i]->i = v[i];
  }
  for (int i = 0; i < op->nattrs; i++)
    if (strcmp(op->akeys[i], key) == 0) {
      op->avals[i] = a;
      return;
    }
  if (op->nattrs == 64) mlir_fail(st, op->off, "more than 64 attributes");
  op->akeys[op->nattrs] = key, op->avals[op->nattrs++] = a;
}

bool nn_emit_dynamic(MState *st, MOp *op, const char *sn) {
  const char *h;
  if (op->nopnds && op->opnds[0]->type->kind != MT_TENSOR &&
      (strncmp(sn, "dynamic_", 8) == 0 || strcmp(sn, "real_dynamic_slice") == 0))
    mlir_fail(st, op->opnd_off[0], "%s takes tensors", op->name);
  int64_t a[MLIR_MAX_RANK * 2], b[MLIR_MAX_RANK], c[MLIR_MAX_RANK];
  if (strcmp(sn, "dynamic_broadcast_in_dim") == 0) {
    emit_dynamic_broadcast(st, op);
    return true;
  } else if (strcmp(sn, "dynamic_reshape") == 0) {
    nn_arity(st, op, 2, 1);
    shape_operand(st, op, 1, "the shape operand");
    h = mlir_line(st, op->off, "v", nn_result(st, op), "reshape(%s)", op->opnds[0]->hlo);
  } else if (strcmp(sn, "dynamic_iota") == 0) {
    nn_arity(st, op, 1, 1);
    shape_operand(st, op, 0, "the output_shape operand");
    h = mlir_line(st, op->off, "v", nn_result(st, op), "iota(), iota_dimension=%lld",
                  (long long)nn_int(st, op, "iota_dimension"));
  } else if (strcmp(sn, "dynamic_pad") == 0 || strcmp(sn, "real_dynamic_slice") == 0) {
    bool pad = sn[0] == 'd';
    nn_arity(st, op, pad ? 5 : 4, 1);
    int r = op->opnds[0]->type->rank, first = pad ? 2 : 1;
    const_operand(st, op, first, r, false, pad ? "edge_padding_low" : "start_indices", a);
    const_operand(st, op, first + 1, r, false, pad ? "edge_padding_high" : "limit_indices", b);
    const_operand(st, op, first + 2, r, false, pad ? "interior_padding" : "strides", c);
    StrBuf *sb = mlir_sb(st);
    for (int i = 0; i < r; i++) {
      if (pad) sb_printf(sb, "%s%lld_%lld_%lld", i ? "x" : "", (long long)a[i], (long long)b[i], (long long)c[i]);
      else sb_printf(sb, "%s[%lld:%lld:%lld]", i ? ", " : "", (long long)a[i], (long long)b[i], (long long)c[i]);
    }
    const char *txt = sb->data ? sb->data : "";
    if (pad) h = mlir_line(st, op->off, "v", nn_result(st, op), "pad(%s), padding=%s", mlir_opnd_list(st, op, 0, 2), txt);
    else h = mlir_line(st, op->off, "v", nn_result(st, op), "slice(%s), slice={%s}", op->opnds[0]->hlo, txt);
  } else if (strcmp(sn, "dynamic_gather") == 0) {
    nn_arity(st, op, 3, 1);
    int r = op->opnds[0]->type->rank;
    const_operand(st, op, 2, r, false, "the slice_sizes operand", a);
    set_int_list(st, op, "slice_sizes", a, r);
    op->nopnds = 2;
    return mlir_emit_control(st, op, "gather");
  } else if (strcmp(sn, "dynamic_conv") == 0) {
    nn_arity(st, op, 3, 1);
    int ns = op->opnds[0]->type->rank - 2;
    if (ns < 0) mlir_fail(st, op->opnd_off[0], "%s: lhs needs a rank of at least 2", op->name);
    const_operand(st, op, 2, 2 * ns, true, "the d_padding operand", a);
    op->nopnds = 2;
    nn_emit_conv(st, op, a);
    return true;
  } else {
    return false;
  }
  mlir_bind_results(st, op, h, NULL);
  return true;
}
