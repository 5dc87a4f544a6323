/* Operand and result buffers of a user's custom call (call_leaves.h). */
#include "interp/custom_call/call_leaves.h"

#include <string.h>

static bool check_type(const Instr *in, const char *target, EType t, const char *what, int k,
                       Error *err) {
  if (t == ET_TOKEN || etype_bits(t) >= 8) return true;
  return error_set(err, ERR_RUNTIME, in->offset,
                   "custom-call %s: %s %d is %s, a sub-byte type, which is not passed to "
                   "user custom calls",
                   target, what, k, etype_name(t));
}

static bool add_leaves(EvalCtx *ctx, const Instr *in, const char *target, const Value *v,
                       CallLeaves *cl, Error *err) {
  if (v->ntuple > 0 || (v->shape && shape_is_tuple(v->shape))) {
    for (int i = 0; i < v->ntuple; i++)
      if (!add_leaves(ctx, in, target, v->elems[i], cl, err)) return false;
    return true;
  }
  if (cl->nleaves >= EVAL_MAX_VIEWS)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call %s: more than %d operand buffers", target, EVAL_MAX_VIEWS);
  if (!v->info) { /* a token */
    cl->leaf_view[cl->nleaves++] = -1;
    return true;
  }
  if (!check_type(in, target, v->info->etype, "operand leaf", cl->nleaves, err)) return false;
  cl->leaf_view[cl->nleaves++] = cl->ins.n;
  return eval_view(ctx, &cl->ins, v, in, err);
}

bool call_leaves_open(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                      const Shape *rs, CallLeaves *cl, Error *err) {
  memset(cl, 0, sizeof *cl);
  bool ok = true;
  for (int k = 0; ok && k < in->noperands; k++)
    ok = add_leaves(ctx, in, target, frame_operand(fr, in, k), cl, err);
  int nres = shape_is_tuple(rs) ? rs->ntuple : 1;
  for (int k = 0; ok && k < nres; k++) {
    const Shape *s = shape_is_tuple(rs) ? &rs->tuple[k] : rs;
    if (shape_is_array(s)) ok = check_type(in, target, s->etype, "result", k, err);
  }
  if (ok) ok = eval_outs_new(ctx, in, rs, &cl->outs, err);
  for (int k = 0; ok && k < cl->outs.n; k++) {
    const ArrayInfo *ai = cl->outs.v[k]->info;
    memset(cl->outs.a[k].data, 0, (size_t)ai->dense_bytes);
  }
  if (!ok) {
    eval_views_free(&cl->ins);
    eval_outs_drop(ctx, &cl->outs);
  }
  return ok;
}

bool call_leaves_close(EvalCtx *ctx, const Shape *rs, CallLeaves *cl, bool ok, Value **out,
                       Error *err) {
  eval_views_free(&cl->ins);
  return eval_outs_close(ctx, rs, &cl->outs, ok, out, err);
}
