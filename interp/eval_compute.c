/* Ops whose kernels are the compute kernels (kernels/k_dot.h,
 * kernels/k_reduce.h): dot, reduce, reduce-window, select-and-scatter.
 *
 * Reducer computations are recognised when they are a known reduction
 * (root = add/multiply/maximum/minimum/and/or/xor of the two parameters, or a
 * tuple of those for variadic reduces) and run as tight loops; anything
 * else is evaluated over whole vectors at once (map mode: the scalar program
 * applied to arrays), never by walking the IR once per element. */
#include <string.h>

#include "interp/eval_feed.h"
#include "interp/eval_gather.h"
#include "interp/eval_kargs.h"
#include "interp/eval_rng.h"
#include "interp/eval_sort.h"
#include "kernels/k_dot.h"
#include "kernels/k_reduce.h"

static bool select_cb(void *vctx, const void *a, const void *b, uint8_t *out, int64_t n,
                      Error *err) {
  VecFn *f = vctx;
  const void *args[2] = {a, b};
  void *outs[1] = {out};
  return vecfn_call(f, 2, args, 1, outs, n, err);
}

/* --- ops --- */

static bool exec_dot(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  if (in->noperands != 2)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: sparse dot is not supported yet", in->name);
  Views vs = {0};
  Outs o = {0};
  const IntList *lb = attr_ints(in, ATTR_LHS_BATCH_DIMS), *rb = attr_ints(in, ATTR_RHS_BATCH_DIMS);
  const IntList *lc = attr_ints(in, ATTR_LHS_CONTRACTING_DIMS),
                *rc = attr_ints(in, ATTR_RHS_CONTRACTING_DIMS);
  KDotDims dn = {lb ? lb->n : 0, lb ? lb->v : NULL, rb ? rb->v : NULL,
                 lc ? lc->n : 0, lc ? lc->v : NULL, rc ? rc->v : NULL};
  if ((lb ? lb->n : 0) != (rb ? rb->n : 0) || (lc ? lc->n : 0) != (rc ? rc->n : 0))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: lhs and rhs dimension lists differ in length", in->name);
  bool ok = view(ctx, &vs, frame_operand(fr, in, 0), in, err) &&
            view(ctx, &vs, frame_operand(fr, in, 1), in, err) && outs_new(ctx, in, rs, &o, err) &&
            k_dot(&vs.a[0], &vs.a[1], &dn, &o.a[0], err);
  views_free(&vs);
  if (!ok) {
    outs_drop(ctx, &o);
    return false;
  }
  return outs_finish(ctx, rs, &o, out, err);
}

static bool exec_reduce(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                        Error *err, bool window) {
  int nvals = in->noperands / 2;
  if (nvals < 1 || in->noperands != 2 * nvals || nvals > 8)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: expected inputs then inits",
                     in->name);
  const Computation *comp = attr_comp(in, ATTR_TO_APPLY);
  if (!comp)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: needs to_apply", in->name);
  KReduceOp ops[8];
  VecFn vf = {ctx, comp, in, 0, NULL, NULL};
  KReducer red = {NULL, reduce_cb, &vf};
  if (reducer_recognise(comp, nvals, ops)) red = (KReducer){ops, NULL, NULL};
  Views vs = {0};
  Outs o = {0};
  const void *inits[8];
  bool ok = true;
  for (int i = 0; i < 2 * nvals && ok; i++) ok = view(ctx, &vs, frame_operand(fr, in, i), in, err);
  for (int i = 0; i < nvals && ok; i++) inits[i] = vs.a[nvals + i].data;
  if (ok) ok = outs_new(ctx, in, rs, &o, err);
  if (ok && o.n != nvals)
    ok = error_set(err, ERR_RUNTIME, in->offset, "instruction %s: %d results for %d inputs",
                   in->name, o.n, nvals);
  if (ok && !window) {
    const IntList *d = attr_ints(in, ATTR_DIMENSIONS);
    ok = k_reduce(nvals, vs.a, inits, d ? d->n : 0, d ? d->v : NULL, &red, o.a, err);
  } else if (ok) {
    const Attr *wa = ir_attr(in, ATTR_WINDOW);
    int rank = vs.a[0].rank;
    int64_t size[64], stride[64], lo[64], hi[64], bd[64], wd[64];
    if (rank > 64) ok = error_set(err, ERR_RUNTIME, in->offset, "rank too large");
    for (int k = 0; k < rank && ok; k++) {
      const WindowDim *w = wa && wa->kind == AV_WINDOW && k < wa->v.window.rank
                               ? &wa->v.window.dims[k] : NULL;
      size[k] = w ? w->size : 1;
      stride[k] = w ? w->stride : 1;
      lo[k] = w ? w->pad_lo : 0;
      hi[k] = w ? w->pad_hi : 0;
      bd[k] = w ? w->lhs_dilate : 1;
      wd[k] = w ? w->rhs_dilate : 1;
    }
    if (ok && wa && wa->kind == AV_WINDOW && wa->v.window.rank != rank)
      ok = error_set(err, ERR_RUNTIME, in->offset, "instruction %s: window rank %d for rank %d",
                     in->name, wa->v.window.rank, rank);
    KWindow w = {rank, size, stride, lo, hi, bd, wd, NULL};
    if (ok) ok = k_reduce_window(nvals, vs.a, inits, &w, &red, o.a, err);
  }
  views_free(&vs);
  vecfn_free(&vf);
  if (!ok) {
    outs_drop(ctx, &o);
    return false;
  }
  return outs_finish(ctx, rs, &o, out, err);
}

static bool exec_select_and_scatter(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                                    Value **out, Error *err) {
  const Computation *sc = attr_comp(in, ATTR_SELECT), *scat = attr_comp(in, ATTR_SCATTER);
  if (!sc || !scat)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: needs select and scatter",
                     in->name);
  VecFn sf = {ctx, sc, in, 0, NULL, NULL}, cf = {ctx, scat, in, 0, NULL, NULL};
  KSelect sel = {K_SEL_NONE, select_cb, &sf};
  const Instr *r = sc->root;
  if (r && r->op == OP_COMPARE && r->noperands == 2 && r->operands[0]->op == OP_PARAMETER &&
      r->operands[1]->op == OP_PARAMETER && r->operands[0]->parameter_number == 0 &&
      r->operands[1]->parameter_number == 1) {
    const Attr *d = ir_attr(r, ATTR_DIRECTION);
    const Attr *t = ir_attr(r, ATTR_TYPE);
    if (d && d->kind == AV_ENUM && (!t || strcmp(t->v.s, "TOTALORDER") != 0)) {
      if (!strcmp(d->v.s, "GE")) sel = (KSelect){K_SEL_GE, NULL, NULL};
      else if (!strcmp(d->v.s, "GT")) sel = (KSelect){K_SEL_GT, NULL, NULL};
      else if (!strcmp(d->v.s, "LE")) sel = (KSelect){K_SEL_LE, NULL, NULL};
      else if (!strcmp(d->v.s, "LT")) sel = (KSelect){K_SEL_LT, NULL, NULL};
    }
  }
  KReduceOp op;
  KReducer red = {NULL, reduce_cb, &cf};
  if (reducer_recognise(scat, 1, &op)) red = (KReducer){&op, NULL, NULL};
  Views vs = {0};
  Outs o = {0};
  bool ok = true;
  for (int i = 0; i < 3 && ok; i++) ok = view(ctx, &vs, frame_operand(fr, in, i), in, err);
  if (ok) ok = outs_new(ctx, in, rs, &o, err);
  if (ok) {
    const Attr *wa = ir_attr(in, ATTR_WINDOW);
    int rank = vs.a[0].rank;
    int64_t size[64], stride[64], lo[64], hi[64];
    if (rank > 64) ok = error_set(err, ERR_RUNTIME, in->offset, "rank too large");
    for (int k = 0; k < rank && ok; k++) {
      const WindowDim *w = wa && wa->kind == AV_WINDOW && k < wa->v.window.rank
                               ? &wa->v.window.dims[k] : NULL;
      size[k] = w ? w->size : 1;
      stride[k] = w ? w->stride : 1;
      lo[k] = w ? w->pad_lo : 0;
      hi[k] = w ? w->pad_hi : 0;
    }
    KWindow w = {rank, size, stride, lo, hi, NULL, NULL, NULL};
    if (ok)
      ok = k_select_and_scatter(&vs.a[0], &sel, &vs.a[1], vs.a[2].data, &w, &red, &o.a[0], err);
  }
  views_free(&vs);
  vecfn_free(&sf);
  vecfn_free(&cf);
  if (!ok) {
    outs_drop(ctx, &o);
    return false;
  }
  return outs_finish(ctx, rs, &o, out, err);
}

bool eval_compute(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                  bool *handled, Error *err) {
  *handled = true;
  switch (in->op) {
  case OP_DOT: return exec_dot(ctx, f, in, rs, out, err);
  case OP_REDUCE: return exec_reduce(ctx, f, in, rs, out, err, false);
  case OP_REDUCE_WINDOW: return exec_reduce(ctx, f, in, rs, out, err, true);
  case OP_SELECT_AND_SCATTER: return exec_select_and_scatter(ctx, f, in, rs, out, err);
  case OP_GATHER: return eval_gather(ctx, f, in, rs, out, err);
  case OP_SCATTER: return eval_scatter(ctx, f, in, rs, out, err);
  case OP_SORT: return eval_sort(ctx, f, in, rs, out, err);
  case OP_TOPK: return eval_topk(ctx, f, in, rs, out, err);
  case OP_RNG: return eval_rng(ctx, f, in, rs, out, err);
  case OP_INFEED: return eval_infeed(ctx, f, in, rs, out, err);
  case OP_OUTFEED: return eval_outfeed(ctx, f, in, rs, out, err);
  case OP_RNG_BIT_GENERATOR: return eval_rng_bit_generator(ctx, f, in, rs, out, err);
  case OP_RNG_GET_AND_UPDATE_STATE: return eval_rng_get_and_update_state(ctx, f, in, rs, out, err);
  default: *handled = false; return false;
  }
}
