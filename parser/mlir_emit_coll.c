/* StableHLO collectives, feeds and send/recv written as HLO, the way XLA's
 * StableHLO->HLO conversion maps them (xla/hlo/translate, its tests in
 * hlo/translate/tests/stablehlo.mlir):
 *
 *   all_reduce, all_gather, reduce_scatter, collective_broadcast,
 *   collective_permute: one instruction; channel_handle<handle = H> gives
 *     channel_id=H when H > 0, replica_groups a dense NxM tensor (-1 pads
 *     uneven groups and is dropped), use_global_device_ids a flag; several
 *     operands give a tuple and one get-tuple-element per result.
 *   all_to_all: all-to-all over split_dimension; when concat_dimension
 *     differs, XLA's builder (AllToAllArray) follows it with reshape,
 *     transpose, reshape so the received parts concatenate along
 *     concat_dimension.  Several operands: one such chain each.
 *   replica_id, partition_id: replica-id(), partition-id() (u32[]).
 *   infeed: infeed(token) of ((data...), token[]), then get-tuple-elements.
 *   outfeed: outfeed(tuple(data...), token), outfeed_shape=(...).
 *   send / recv: send(data or tuple(data...), token) + send-done; recv(token)
 *     + recv-done + get-tuple-elements; channel_id=H always (H = 0 names
 *     replicas, as hlorun reads it), is_host_transfer, source_target_pairs as
 *     the _xla_send_recv_source_target_pairs frontend attribute.
 *
 * The specification's rules that would otherwise surface later (or not at
 * all) are checked here, at the op: unique group members, use_global_device_ids
 * only with a channel, dimensions in range, split_count dividing the split
 * dimension, the reduction region's signature, u32 ids, tokens in place. */
#include <stdio.h>
#include <string.h>

#include "parser/mlir_internal.h"

enum { MAX_GROUP_INTS = 4096 };

static bool is_token(const MType *t) { return t && t->kind == MT_TOKEN; }

static bool flag(const MOp *op, const char *key) {
  MAttr *a = mlir_op_attr(op, key);
  return a && a->kind == MA_WORD && (strcmp(a->s, "true") == 0 || strcmp(a->s, "unit") == 0);
}

static int64_t int_attr(MState *st, const MOp *op, const char *key) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a || a->kind != MA_INT) mlir_fail(st, op->off, "%s needs the integer attribute '%s'", op->name, key);
  return a->i;
}

/* channel_handle = #stablehlo.channel_handle<handle = H, type = T>: H, or
 * 0 when absent. */
static int64_t channel(MState *st, const MOp *op) {
  MAttr *a = mlir_op_attr(op, "channel_handle");
  if (!a) return 0;
  if (a->kind == MA_DICT)
    for (int i = 0; i < a->n; i++)
      if (strcmp(a->keys[i], "handle") == 0 && a->items[i]->kind == MA_INT) return a->items[i]->i;
  mlir_fail(st, a->offset, "channel_handle must be #stablehlo.channel_handle<handle = N, type = N>");
}

static int64_t *ints_buf(MState *st) {
  int64_t *v = arena_alloc_array(st->arena, MAX_GROUP_INTS, sizeof *v);
  if (!v) mlir_fail(st, -1, "out of memory");
  return v;
}

/* A dense<[[a, b], [c, d]]> : tensor<NxMxi64> attribute as rows: the
 * integers (flat, into v of MAX_GROUP_INTS) and the row length.  Returns
 * the row count. */
static int int_matrix(MState *st, const MOp *op, const char *key, int64_t *v, int *cols) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a) mlir_fail(st, op->off, "%s needs the attribute '%s'", op->name, key);
  if (a->kind != MA_DENSE || !a->type || a->type->kind != MT_TENSOR || a->type->rank != 2)
    mlir_fail(st, a->offset, "'%s' must be a 2-dimensional dense<...> : tensor<NxMxi64>", key);
  int64_t rows = a->type->dims[0], m = a->type->dims[1];
  if (rows > MAX_GROUP_INTS || m > MAX_GROUP_INTS || rows * m > MAX_GROUP_INTS) mlir_fail(st, a->offset, "'%s' has more than %d integers", key, MAX_GROUP_INTS);
  int n = rows * m == 0 ? 0 : mlir_attr_ints(st, a, v, MAX_GROUP_INTS);
  if (n != rows * m) mlir_fail(st, a->offset, "'%s' has %d integers, its type says %lld", key, n, (long long)(rows * m));
  *cols = (int)m;
  return (int)rows;
}

/* ", replica_groups={{0,1},{2,3}}" from the attribute; members must be
 * unique and non-negative (-1 pads a short group). */
static const char *groups_text(MState *st, const MOp *op) {
  int64_t *v = ints_buf(st);
  int cols;
  int rows = int_matrix(st, op, "replica_groups", v, &cols);
  MAttr *a = mlir_op_attr(op, "replica_groups");
  StrBuf *sb = mlir_sb(st);
  sb_puts(sb, ", replica_groups={");
  for (int r = 0; r < rows; r++) {
    sb_printf(sb, "%s{", r ? "," : "");
    int k = 0;
    for (int c = 0; c < cols; c++) {
      int64_t x = v[r * cols + c];
      if (x == -1) continue;
      if (x < 0) mlir_fail(st, a->offset, "replica_groups: %lld is not a device number", (long long)x);
      for (int j = 0; j < r * cols + c; j++)
        if (v[j] == x) mlir_fail(st, a->offset, "replica_groups: %lld appears twice", (long long)x);
      sb_printf(sb, "%s%lld", k++ ? "," : "", (long long)x);
    }
    sb_putc(sb, '}');
  }
  sb_putc(sb, '}');
  return mlir_strdup(st, sb->data, sb->len);
}

/* channel_id, replica_groups and use_global_device_ids as HLO attributes. */
static const char *group_attrs(MState *st, const MOp *op, bool global_ok) {
  int64_t ch = channel(st, op);
  bool global = flag(op, "use_global_device_ids");
  if (global && !global_ok) mlir_fail(st, op->off, "%s takes no use_global_device_ids", op->name);
  if (global && ch <= 0)
    mlir_fail(st, op->off, "%s: use_global_device_ids needs a channel_handle with handle > 0", op->name);
  return mlir_fmt(st, "%s%s%s", ch > 0 ? mlir_fmt(st, ", channel_id=%lld", (long long)ch) : "", groups_text(st, op),
                  global ? ", use_global_device_ids=true" : "");
}

static void need_tensors(MState *st, const MOp *op) {
  if (op->nopnds < 1) mlir_fail(st, op->off, "%s needs at least one operand", op->name);
  if (op->nout != op->nopnds) mlir_fail(st, op->off, "%s has %d operands but %d results", op->name, op->nopnds, op->nout);
  for (int i = 0; i < op->nopnds; i++)
    if (op->opnds[i]->type->kind != MT_TENSOR) mlir_fail(st, op->opnd_off[i], "operand %d of %s must be a tensor", i, op->name);
}

/* The reduction region: (tensor<E>, tensor<E>) -> tensor<E>, E the
 * operands' element type (spec C5 of all_reduce, C7 of reduce_scatter). */
static const char *reducer(MState *st, MOp *op) {
  if (op->nregions != 1) mlir_fail(st, op->off, "%s needs one reduction region", op->name);
  MRegion *r = op->regions[0];
  mlir_no_captures(st, op, r);
  const char *e = op->opnds[0]->type->etype;
  bool ok = r->nargs == 2 && r->nresults == 1;
  for (int i = 0; ok && i < 3; i++) {
    const MType *t = i < 2 ? r->args[i] : r->results[0];
    ok = t->kind == MT_TENSOR && t->rank == 0 && strcmp(t->etype, e) == 0;
  }
  for (int i = 1; ok && i < op->nopnds; i++) ok = strcmp(op->opnds[i]->type->etype, e) == 0;
  if (!ok) mlir_fail(st, r->off, "the region of %s must take two scalars of the operands' element type (%s) and return one", op->name, e);
  return r->comp;
}

/* Result(s) of a one-instruction collective: bound directly or through a tuple. */
static void emit_simple(MState *st, MOp *op, const char *text) {
  MType *t = op->nout == 1 ? op->out[0] : mlir_tuple_of(st, op->out, op->nout);
  const char *h = mlir_line(st, op->off, "v", t, "%s", text);
  mlir_bind_results(st, op, h, op->nout == 1 ? NULL : t);
}

static int64_t dim_attr(MState *st, const MOp *op, const char *key, int rank) {
  int64_t d = int_attr(st, op, key);
  if (d < 0 || d >= rank) mlir_fail(st, mlir_op_attr(op, key)->offset, "%s: %s %lld is outside [0, %d)", op->name, key, (long long)d, rank);
  return d;
}

static void emit_all_to_all(MState *st, MOp *op) {
  need_tensors(st, op);
  int64_t sc = int_attr(st, op, "split_count");
  if (sc <= 0) mlir_fail(st, mlir_op_attr(op, "split_count")->offset, "all_to_all: split_count must be positive");
  const char *attrs = mlir_fmt(st, "%s%s", channel(st, op) > 0 ? mlir_fmt(st, ", channel_id=%lld", (long long)channel(st, op)) : "",
                               groups_text(st, op));
  const char *res[MLIR_MAX_OPERANDS];
  for (int k = 0; k < op->nopnds; k++) {
    MType *in = op->opnds[k]->type;
    int rank = in->rank;
    int64_t sd = dim_attr(st, op, "split_dimension", rank), cd = dim_attr(st, op, "concat_dimension", rank);
    if (in->dims[sd] % sc)
      mlir_fail(st, op->off, "all_to_all: dimension %lld (%lld) is not divisible by split_count %lld", (long long)sd,
                (long long)in->dims[sd], (long long)sc);
    const char *a = mlir_line(st, op->off, "a2a", in, "all-to-all(%s)%s, dimensions={%lld}", op->opnds[k]->hlo, attrs, (long long)sd);
    if (sd == cd) {
      res[k] = a;
      continue;
    }
    if (rank + 1 > MLIR_MAX_RANK) mlir_fail(st, op->off, "all_to_all: rank too high");
    /* [.., split_count, dim/split_count, ..]: the source index j at sd. */
    MType split = {.kind = MT_TENSOR, .etype = in->etype, .rank = rank + 1};
    for (int i = 0, o = 0; i < rank; i++) {
      if (i == sd) split.dims[o++] = sc, split.dims[o++] = in->dims[i] / sc;
      else split.dims[o++] = in->dims[i];
    }
    const char *r1 = mlir_line(st, op->off, "a2a_split", &split, "reshape(%s)", a);
    /* j moves to just before concat_dimension, so merging makes it major. */
    int perm[MLIR_MAX_RANK + 1], np = 0;
    for (int i = 0; i < rank; i++) {
      if (i == cd) perm[np++] = (int)sd;
      perm[np++] = i >= sd ? i + 1 : i;
    }
    MType tr = {.kind = MT_TENSOR, .etype = in->etype, .rank = rank + 1};
    StrBuf *sb = mlir_sb(st);
    for (int i = 0; i < np; i++) {
      tr.dims[i] = split.dims[perm[i]];
      sb_printf(sb, "%s%d", i ? "," : "", perm[i]);
    }
    const char *r2 = mlir_line(st, op->off, "a2a_t", &tr, "transpose(%s), dimensions={%s}", r1, sb->data);
    MType *want = op->out[k];
    if (want->kind != MT_TENSOR || mlir_type_elems(want) != mlir_type_elems(in) || want->rank != rank ||
        want->dims[sd] != (sd == cd ? in->dims[sd] : in->dims[sd] / sc) || want->dims[cd] != in->dims[cd] * sc)
      mlir_fail(st, op->off, "all_to_all: result %d's type does not split dimension %lld and concatenate dimension %lld", k,
                (long long)sd, (long long)cd);
    res[k] = mlir_line(st, op->off, "a2a_r", want, "reshape(%s)", r2);
  }
  if (op->nopnds == 1) {
    mlir_bind_results(st, op, res[0], NULL);
    return;
  }
  if (op->nresults != op->nopnds) mlir_fail(st, op->off, "%s gives %d results, %d are named", op->name, op->nopnds, op->nresults);
  for (int k = 0; k < op->nopnds; k++) mlir_bind(st, mlir_fmt(st, "%s#%d", op->result_ssa, k), res[k], op->out[k]);
}

static void emit_permute(MState *st, MOp *op) {
  int64_t *v = ints_buf(st);
  if (op->nopnds != 1 || op->nout != 1) mlir_fail(st, op->off, "collective_permute takes one operand and gives one result");
  int cols, rows = int_matrix(st, op, "source_target_pairs", v, &cols);
  MAttr *a = mlir_op_attr(op, "source_target_pairs");
  if (cols != 2 && rows) mlir_fail(st, a->offset, "source_target_pairs must be an Nx2 tensor");
  StrBuf *sb = mlir_sb(st);
  for (int r = 0; r < rows; r++) {
    for (int c = 0; c < 2; c++) {
      if (v[2 * r + c] < 0) mlir_fail(st, a->offset, "source_target_pairs: %lld is not a device number", (long long)v[2 * r + c]);
      for (int j = 0; j < r; j++)
        if (v[2 * j + c] == v[2 * r + c])
          mlir_fail(st, a->offset, "source_target_pairs: %s %lld appears twice", c ? "target" : "source", (long long)v[2 * r + c]);
    }
    sb_printf(sb, "%s{%lld,%lld}", r ? "," : "", (long long)v[2 * r], (long long)v[2 * r + 1]);
  }
  int64_t ch = channel(st, op);
  emit_simple(st, op, mlir_fmt(st, "collective-permute(%s)%s, source_target_pairs={%s}", op->opnds[0]->hlo,
                               ch > 0 ? mlir_fmt(st, ", channel_id=%lld", (long long)ch) : "", sb->data ? sb->data : ""));
}

/* The data operands/results [0, n) must be tensors, the last a token. */
static int data_then_token(MState *st, const MOp *op, bool results) {
  int n = results ? op->nout : op->nopnds;
  MType *last = n ? (results ? op->out[n - 1] : op->opnds[n - 1]->type) : NULL;
  if (!is_token(last))
    mlir_fail(st, results || n == 0 ? op->off : op->opnd_off[n - 1], "the last %s of %s must be a !stablehlo.token",
              results ? "result" : "operand", op->name);
  for (int i = 0; i < n - 1; i++) {
    MType *t = results ? op->out[i] : op->opnds[i]->type;
    if (t->kind != MT_TENSOR)
      mlir_fail(st, results ? op->off : op->opnd_off[i], "%s %d of %s must be a tensor", results ? "result" : "operand", i, op->name);
  }
  return n - 1;
}

static const char *str_attr(MState *st, const MOp *op, const char *key) {
  MAttr *a = mlir_op_attr(op, key);
  if (!a) return "";
  if (a->kind != MA_STR) mlir_fail(st, a->offset, "'%s' must be a string", key);
  return a->s;
}

/* ", key=\"text\"" when text is not empty. */
static const char *config(MState *st, const char *hlo_key, const char *s) {
  return s[0] ? mlir_fmt(st, ", %s=\"%s\"", hlo_key, s) : "";
}

/* Binds results [0, n) from the elements of tuple `data` (or data itself
 * when `single`) and result n from `tok`. */
static void bind_data_token(MState *st, MOp *op, int n, const char *data, bool single, const char *tok) {
  if (op->nresults == 0) return;
  if (op->nresults != n + 1) mlir_fail(st, op->off, "%s gives %d results, %d are named", op->name, n + 1, op->nresults);
  for (int i = 0; i < n; i++) {
    const char *g = single ? data : mlir_line(st, op->off, "gte", op->out[i], "get-tuple-element(%s), index=%d", data, i);
    mlir_bind(st, op->nresults == 1 ? op->result_ssa : mlir_fmt(st, "%s#%d", op->result_ssa, i), g, op->out[i]);
  }
  mlir_bind(st, op->nresults == 1 ? op->result_ssa : mlir_fmt(st, "%s#%d", op->result_ssa, n), tok, op->out[n]);
}

static void emit_infeed(MState *st, MOp *op) {
  if (op->nopnds != 1 || !is_token(op->opnds[0]->type)) mlir_fail(st, op->off, "infeed takes one !stablehlo.token");
  int n = data_then_token(st, op, true);
  MType *data = mlir_tuple_of(st, op->out, n);
  MType *pair_elems[2] = {data, op->out[n]};
  MType **pe = arena_alloc_array(st->arena, 2, sizeof *pe);
  if (!pe) mlir_fail(st, -1, "out of memory");
  memcpy(pe, pair_elems, sizeof pair_elems);
  const char *in = mlir_line(st, op->off, "infeed", mlir_tuple_of(st, pe, 2), "infeed(%s)%s", op->opnds[0]->hlo,
                             config(st, "infeed_config", str_attr(st, op, "infeed_config")));
  const char *d = mlir_line(st, op->off, "data", data, "get-tuple-element(%s), index=0", in);
  const char *t = mlir_line(st, op->off, "tok", op->out[n], "get-tuple-element(%s), index=1", in);
  bind_data_token(st, op, n, d, false, t);
}

static void emit_outfeed(MState *st, MOp *op) {
  int n = data_then_token(st, op, false);
  if (op->nout != 1 || !is_token(op->out[0])) mlir_fail(st, op->off, "outfeed gives one !stablehlo.token");
  MType **ts = arena_alloc_array(st->arena, (size_t)n + 1, sizeof *ts);
  if (!ts) mlir_fail(st, -1, "out of memory");
  for (int i = 0; i < n; i++) ts[i] = op->opnds[i]->type;
  MType *data = mlir_tuple_of(st, ts, n);
  const char *tup = mlir_line(st, op->off, "t", data, "tuple(%s)", mlir_opnd_list(st, op, 0, n));
  StrBuf *sb = mlir_sb(st);
  mlir_type_hlo(sb, data);
  const char *h = mlir_line(st, op->off, "outfeed", op->out[0], "outfeed(%s, %s), outfeed_shape=%s%s", tup,
                            op->opnds[n]->hlo, sb->data, config(st, "outfeed_config", str_attr(st, op, "outfeed_config")));
  mlir_bind_results(st, op, h, NULL);
}

/* ", channel_id=H, is_host_transfer=true, frontend_attributes=..." */
static const char *transfer_attrs(MState *st, const MOp *op) {
  int64_t *v = ints_buf(st);
  StrBuf *sb = mlir_sb(st);
  sb_printf(sb, ", channel_id=%lld", (long long)channel(st, op));
  if (flag(op, "is_host_transfer")) sb_puts(sb, ", is_host_transfer=true");
  if (mlir_op_attr(op, "source_target_pairs")) {
    int cols, rows = int_matrix(st, op, "source_target_pairs", v, &cols);
    if (cols != 2 && rows) mlir_fail(st, mlir_op_attr(op, "source_target_pairs")->offset, "source_target_pairs must be an Nx2 tensor");
    sb_puts(sb, ", frontend_attributes={_xla_send_recv_source_target_pairs=\"{");
    for (int r = 0; r < rows; r++) sb_printf(sb, "%s{%lld,%lld}", r ? "," : "", (long long)v[2 * r], (long long)v[2 * r + 1]);
    sb_puts(sb, "}\"}");
  }
  return mlir_strdup(st, sb->data, sb->len);
}

static MType *scalar(MState *st, const char *etype) {
  MType *t = arena_alloc(st->arena, sizeof *t);
  if (!t) mlir_fail(st, -1, "out of memory");
  t->kind = MT_TENSOR;
  t->etype = etype;
  return t;
}

static MType *tuple3(MState *st, MType *a, MType *b, MType *c) {
  MType **e = arena_alloc_array(st->arena, 3, sizeof *e);
  if (!e) mlir_fail(st, -1, "out of memory");
  e[0] = a, e[1] = b, e[2] = c;
  return mlir_tuple_of(st, e, c ? 3 : 2);
}

static void emit_send(MState *st, MOp *op) {
  int n = data_then_token(st, op, false);
  if (op->nout != 1 || !is_token(op->out[0])) mlir_fail(st, op->off, "send gives one !stablehlo.token");
  const char *data;
  MType *dt;
  if (n == 1) {
    data = op->opnds[0]->hlo, dt = op->opnds[0]->type;
  } else {
    MType **ts = arena_alloc_array(st->arena, (size_t)n + 1, sizeof *ts);
    if (!ts) mlir_fail(st, -1, "out of memory");
    for (int i = 0; i < n; i++) ts[i] = op->opnds[i]->type;
    dt = mlir_tuple_of(st, ts, n);
    data = mlir_line(st, op->off, "t", dt, "tuple(%s)", mlir_opnd_list(st, op, 0, n));
  }
  const char *attrs = transfer_attrs(st, op);
  const char *s = mlir_line(st, op->off, "send", tuple3(st, dt, scalar(st, "u32"), op->out[0]), "send(%s, %s)%s", data,
                            op->opnds[n]->hlo, attrs);
  const char *d = mlir_line(st, op->off, "send_done", op->out[0], "send-done(%s)%s", s, attrs);
  mlir_bind_results(st, op, d, NULL);
}

static void emit_recv(MState *st, MOp *op) {
  if (op->nopnds != 1 || !is_token(op->opnds[0]->type)) mlir_fail(st, op->off, "recv takes one !stablehlo.token");
  int n = data_then_token(st, op, true);
  MType *dt = n == 1 ? op->out[0] : mlir_tuple_of(st, op->out, n);
  MType *tok = op->out[n];
  const char *attrs = transfer_attrs(st, op);
  const char *r = mlir_line(st, op->off, "recv", tuple3(st, dt, scalar(st, "u32"), tok), "recv(%s)%s", op->opnds[0]->hlo, attrs);
  const char *rd = mlir_line(st, op->off, "recv_done", tuple3(st, dt, tok, NULL), "recv-done(%s)%s", r, attrs);
  const char *d = mlir_line(st, op->off, "data", dt, "get-tuple-element(%s), index=0", rd);
  const char *t = mlir_line(st, op->off, "tok", tok, "get-tuple-element(%s), index=1", rd);
  bind_data_token(st, op, n, d, n == 1, t);
}

static void emit_id(MState *st, MOp *op, const char *hop) {
  if (op->nopnds != 0) mlir_fail(st, op->off, "%s takes no operands", op->name);
  const MType *t = op->out[0];
  if (t->kind != MT_TENSOR || t->rank != 0 || strcmp(t->etype, "u32") != 0)
    mlir_fail(st, op->off, "%s gives a tensor<ui32>", op->name);
  emit_simple(st, op, mlir_fmt(st, "%s()", hop));
}

bool mlir_emit_coll(MState *st, MOp *op, const char *sn) {
  if (strcmp(sn, "all_reduce") == 0) {
    need_tensors(st, op);
    const char *comp = reducer(st, op);
    emit_simple(st, op, mlir_fmt(st, "all-reduce(%s)%s, to_apply=%s", mlir_opnd_list(st, op, 0, op->nopnds),
                                 group_attrs(st, op, true), comp));
  } else if (strcmp(sn, "all_gather") == 0 || strcmp(sn, "reduce_scatter") == 0) {
    bool gather = sn[0] == 'a';
    need_tensors(st, op);
    const char *key = gather ? "all_gather_dim" : "scatter_dimension";
    int64_t d = int_attr(st, op, key);
    for (int i = 0; i < op->nopnds; i++)
      if (d < 0 || d >= op->opnds[i]->type->rank)
        mlir_fail(st, mlir_op_attr(op, key)->offset, "%s: %s %lld is outside the rank of operand %d", op->name, key, (long long)d, i);
    const char *comp = gather ? NULL : reducer(st, op);
    emit_simple(st, op, mlir_fmt(st, "%s(%s)%s, dimensions={%lld}%s%s", gather ? "all-gather" : "reduce-scatter",
                                 mlir_opnd_list(st, op, 0, op->nopnds), group_attrs(st, op, true), (long long)d,
                                 comp ? ", to_apply=" : "", comp ? comp : ""));
  } else if (strcmp(sn, "collective_broadcast") == 0) {
    if (mlir_op_attr(op, "has_dynamic_root"))
      mlir_fail(st, op->off, "collective_broadcast with has_dynamic_root is not converted yet");
    need_tensors(st, op);
    emit_simple(st, op, mlir_fmt(st, "collective-broadcast(%s)%s", mlir_opnd_list(st, op, 0, op->nopnds),
                                 group_attrs(st, op, false)));
  } else if (strcmp(sn, "all_to_all") == 0) {
    emit_all_to_all(st, op);
  } else if (strcmp(sn, "collective_permute") == 0) {
    emit_permute(st, op);
  } else if (strcmp(sn, "replica_id") == 0 || strcmp(sn, "partition_id") == 0) {
    emit_id(st, op, sn[0] == 'r' ? "replica-id" : "partition-id");
  } else if (strcmp(sn, "infeed") == 0) {
    emit_infeed(st, op);
  } else if (strcmp(sn, "outfeed") == 0) {
    emit_outfeed(st, op);
  } else if (strcmp(sn, "send") == 0) {
    emit_send(st, op);
  } else if (strcmp(sn, "recv") == 0) {
    emit_recv(st, op);
  } else {
    return false;
  }
  return true;
}
