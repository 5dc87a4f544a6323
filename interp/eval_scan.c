/* scan(inputs..., inits...), dimensions={d}, num_carries=C, to_apply=f,
 * is_reverse=B: what XLA's ScanExpander (xla/service/scan_expander.cc)
 * lowers it to, run directly.  For step t = 0..L-1 the position along d is
 * t (L-1-t when reversed); f is called once per step on whole slices:
 * (input slices at that position with d removed..., carries...) ->
 * (outputs..., new carries...).  Each output is written at the position
 * along d of its stacked result; the carries go on to the next step.
 * Result: (stacked outputs..., final carries...), or the one array when f
 * returns one.  L == 0 gives empty outputs and the initial carries.
 * is_associative only licenses other evaluation orders; the sequential
 * order is always a valid one. */
#include "interp/eval_ops.h"

#include <stdlib.h>
#include <string.h>

#include "interp/eval_views.h"
#include "kernels/k_movement.h"

typedef struct Scan {
  const Computation *body;
  int d, ninputs, ncarries, noutputs;
  int64_t len;
  bool reverse;
  const Shape *single;      /* the result when it is one array, else NULL */
  const Shape **slices;     /* shape of one step's slice of each input */
} Scan;

typedef struct Stacked {
  Value *v;
  void *data;   /* dense row-major target */
  DenseTmp tmp;
} Stacked;

static bool fail(const Instr *in, Error *err, const char *msg) {
  return error_set(err, ERR_RUNTIME, in->offset, "%s", msg);
}

static bool setup(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Scan *s, Error *err) {
  s->body = eval_attr_comp(in, ATTR_TO_APPLY);
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  int64_t c = eval_attr_int(in, ATTR_NUM_CARRIES, -1);
  s->reverse = eval_attr_bool(in, ATTR_IS_REVERSE, false);
  if (!s->body || !dims || dims->n != 1 || c < 0 || c >= in->noperands)
    return fail(in, err, "scan needs to_apply, dimensions={d}, num_carries and an input");
  s->ncarries = (int)c;
  s->ninputs = in->noperands - s->ncarries;
  if (s->body->nparams != in->noperands)
    return fail(in, err, "to_apply does not take one parameter per operand");
  int nres = shape_is_tuple(rs) ? rs->ntuple : 1;
  s->noutputs = nres - s->ncarries;
  if (s->noutputs < 0 || (!shape_is_tuple(rs) && s->ncarries > 1))
    return fail(in, err, "the result does not hold num_carries carries");
  s->single = shape_is_tuple(rs) ? NULL : rs;
  s->slices = calloc((size_t)s->ninputs, sizeof *s->slices);
  if (!s->slices) return fail(in, err, "out of memory");
  const Value *v0 = frame_operand(f, in, 0);
  if (!v0->info || dims->v[0] < 0 || dims->v[0] >= v0->info->rank)
    return fail(in, err, "the scan dimension is not a dimension of input 0");
  s->d = (int)dims->v[0];
  s->len = v0->info->dims[s->d];
  for (int i = 0; i < s->ninputs; i++) {
    const Value *v = frame_operand(f, in, i);
    if (!v->info || !v->buf || v->info->rank <= s->d || v->info->dims[s->d] != s->len)
      return fail(in, err, "inputs must be arrays of one length along the scan dimension");
    int64_t sd[SHAPE_MAX_RANK];
    for (int k = 0, j = 0; k < v->info->rank; k++)
      if (k != s->d) sd[j++] = v->info->dims[k];
    s->slices[i] = value_dense_shape(&ctx->vc, v->info->etype, v->info->rank - 1, sd, 0);
    if (!s->slices[i]) return fail(in, err, "out of memory");
  }
  return true;
}

static const Shape *output_shape(const Scan *s, const Shape *rs, int k) {
  return s->single ? s->single : &rs->tuple[k];
}

/* The stacked output arrays, filled step by step. */
static bool new_stacked(EvalCtx *ctx, const Instr *in, const Scan *s, const Shape *rs,
                        Stacked *o, Error *err) {
  for (int k = 0; k < s->noutputs; k++) {
    const Shape *os = output_shape(s, rs, k);
    if (!shape_is_array(os) || os->rank <= s->d || os->dims[s->d] != s->len)
      return fail(in, err, "a stacked output does not have the scan length along the scan dimension");
    if (!value_new_array(&ctx->vc, os, false, "", &o[k].v, err) ||
        !value_dense_target(&ctx->vc, o[k].v, &o[k].data, &o[k].tmp, err))
      return false;
  }
  return true;
}

static void drop_stacked(EvalCtx *ctx, Stacked *o, int n) {
  for (int k = 0; k < n; k++) {
    value_tmp_free(&o[k].tmp);
    if (o[k].v) value_unref(&ctx->vc, o[k].v);
  }
}

/* The slice of input i at position pos along d (a fresh dense array). */
static bool slice_at(EvalCtx *ctx, const Scan *s, const KArray *src, int i, int64_t pos,
                     Value **out, Error *err) {
  Value *v;
  if (!value_new_array(&ctx->vc, s->slices[i], false, "", &v, err)) return false;
  int64_t start[SHAPE_MAX_RANK] = {0}, ones[SHAPE_MAX_RANK], box[SHAPE_MAX_RANK];
  for (int k = 0; k < src->rank; k++) {
    ones[k] = 1;
    box[k] = k == s->d ? 1 : src->dims[k];
  }
  start[s->d] = pos;
  void *dd;
  DenseTmp tmp = {NULL};
  bool ok = value_dense_target(&ctx->vc, v, &dd, &tmp, err);
  if (ok) {
    if (v->info->elements)
      k_slice(dd, box, src->data, src->dims, src->rank, start, ones, (size_t)v->info->esize);
    ok = value_dense_commit(&ctx->vc, v, &tmp, err);
  }
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

/* Writes one step's output r at position pos along d of o. */
static bool put_at(EvalCtx *ctx, const Instr *in, const Scan *s, Stacked *o, const Value *r,
                   int64_t pos, Error *err) {
  const ArrayInfo *oi = o->v->info;
  bool fits = r->info && r->buf && r->info->etype == oi->etype && r->info->rank == oi->rank - 1;
  for (int k = 0, j = 0; fits && k < oi->rank; k++)
    if (k != s->d) fits = r->info->dims[j++] == oi->dims[k];
  if (!fits) return fail(in, err, "to_apply returned an output that does not fit its stacked result");
  if (!oi->elements) return true;
  const void *rd;
  DenseTmp tmp = {NULL};
  if (!value_dense_read(&ctx->vc, r, &rd, &tmp, err)) return false;
  int64_t start[SHAPE_MAX_RANK] = {0}, zero[SHAPE_MAX_RANK] = {0}, box[SHAPE_MAX_RANK];
  for (int k = 0; k < oi->rank; k++) box[k] = k == s->d ? 1 : oi->dims[k];
  start[s->d] = pos;
  k_move_box(o->data, oi->dims, start, rd, box, zero, box, oi->rank, (size_t)oi->esize);
  value_tmp_free(&tmp);
  return true;
}

/* One step: f(slices..., carries...); stores the outputs and replaces the
 * carries. */
static bool step(EvalCtx *ctx, const Instr *in, const Scan *s, const EvalViews *views,
                 Value **args, Stacked *o, int64_t pos, Error *err) {
  int n = s->ninputs;
  for (int i = 0; i < n; i++) args[i] = NULL;
  bool ok = true;
  for (int i = 0; ok && i < n; i++) ok = slice_at(ctx, s, &views->a[i], i, pos, &args[i], err);
  Value *r = NULL;
  if (ok) ok = eval_run(ctx, s->body, args, in->noperands, NULL, &r, err);
  for (int i = 0; i < n; i++)
    if (args[i]) value_unref(&ctx->vc, args[i]);
  if (!ok) return false;
  int nres = s->noutputs + s->ncarries;
  bool tuple = shape_is_tuple(r->shape);
  if (tuple ? r->ntuple != nres : nres != 1) {
    value_unref(&ctx->vc, r);
    return fail(in, err, "to_apply returned a different number of values than the scan holds");
  }
  for (int k = 0; ok && k < s->noutputs; k++)
    ok = put_at(ctx, in, s, &o[k], tuple ? r->elems[k] : r, pos, err);
  if (ok)
    for (int j = 0; j < s->ncarries; j++) {
      Value *next = value_ref(tuple ? r->elems[s->noutputs + j] : r);
      value_unref(&ctx->vc, args[n + j]);
      args[n + j] = next;
    }
  value_unref(&ctx->vc, r);
  return ok;
}

/* (stacked outputs..., carries...) or the one array, in rs's layouts. */
static bool finish(EvalCtx *ctx, const Instr *in, const Shape *rs, const Scan *s, Stacked *o,
                   Value **carries, Value **out, Error *err) {
  for (int k = 0; k < s->noutputs; k++)
    if (!value_dense_commit(&ctx->vc, o[k].v, &o[k].tmp, err)) return false;
  if (!shape_is_tuple(rs)) {
    Value *only = s->noutputs ? o[0].v : carries[0];
    return value_coerce(&ctx->vc, only, rs, "", out, err);
  }
  int nres = rs->ntuple;
  Value **elems = calloc((size_t)(nres ? nres : 1), sizeof *elems);
  if (!elems) return fail(in, err, "out of memory");
  bool ok = true;
  for (int k = 0; ok && k < nres; k++) {
    Value *v = k < s->noutputs ? o[k].v : carries[k - s->noutputs];
    ok = value_coerce(&ctx->vc, v, &rs->tuple[k], "", &elems[k], err);
  }
  if (ok) {
    *out = value_new_tuple(rs, nres, elems);
    if (!*out) ok = fail(in, err, "out of memory");
  }
  if (!ok)
    for (int k = 0; k < nres; k++)
      if (elems[k]) value_unref(&ctx->vc, elems[k]);
  free(elems);
  return ok;
}

/* Op: scan
 * Operands: inputs..., inits... (the initial carries)
 * Attributes: dimensions={d}, num_carries, to_apply; optional is_reverse,
 *   is_associative
 *
 * Calls to_apply once per position t along d (from the end with is_reverse) on the
 * inputs' slices at t and the carries, giving (outputs..., new carries...); each
 * output is stacked at t of its result, the carries go on to the next step.  Result:
 * (stacked outputs..., final carries...).  An empty d gives empty outputs and the
 * initial carries.
 *
 * Rule: what XLA's ScanExpander lowers it to, run directly; is_associative only
 *   licenses other orders, and the sequential one is always valid.
 * Refuses: whatever to_apply refuses.
 */
bool eval_scan(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  Scan s = {0};
  bool ok = setup(ctx, f, in, rs, &s, err);
  if (ok && s.ninputs > EVAL_MAX_VIEWS) ok = fail(in, err, "too many scan inputs");
  Stacked *o = NULL;
  Value **args = NULL;
  EvalViews views = {0};
  if (ok) {
    o = calloc((size_t)(s.noutputs ? s.noutputs : 1), sizeof *o);
    args = calloc((size_t)in->noperands, sizeof *args);
    if (!o || !args) ok = fail(in, err, "out of memory");
  }
  /* args[ninputs..] hold the carries between steps (own references). */
  if (ok)
    for (int j = 0; j < s.ncarries; j++)
      args[s.ninputs + j] = value_ref(frame_operand(f, in, s.ninputs + j));
  if (ok) ok = new_stacked(ctx, in, &s, rs, o, err);
  if (ok) ok = eval_view_operands(ctx, f, in, s.ninputs, &views, err);
  for (int64_t t = 0; ok && t < s.len; t++)
    ok = step(ctx, in, &s, &views, args, o, s.reverse ? s.len - 1 - t : t, err);
  eval_views_free(&views);
  if (ok) ok = finish(ctx, in, rs, &s, o, args + s.ninputs, out, err);
  if (o) drop_stacked(ctx, o, s.noutputs);
  free(o);
  if (args)
    for (int j = 0; j < s.ncarries; j++)
      if (args[s.ninputs + j]) value_unref(&ctx->vc, args[s.ninputs + j]);
  free(args);
  free(s.slices);
  return ok;
}
