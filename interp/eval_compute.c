/* The evaluators of dot, reduce, reduce-window, select-and-scatter and
 * stochastic-convert, over the compute kernels (kernels/k_dot.h,
 * kernels/k_reduce.h); the other compute ops have files of their own
 * (eval_conv.c, eval_fft.c, eval_linalg.c, eval_gather.c, eval_sort.c...).
 *
 * Reducer computations are recognised when they are a known reduction
 * (root = add/multiply/maximum/minimum/and/or/xor of the two parameters, or a
 * tuple of those for variadic reduces) and run as tight loops; anything
 * else is evaluated over whole vectors at once (map mode: the scalar program
 * applied to arrays), never by walking the IR once per element. */
#include <string.h>

#include "interp/eval_ops.h"
#include "interp/eval_packed_nibble.h"
#include "interp/eval_sparse_dot.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "kernels/k_dot.h"
#include "kernels/k_reduce.h"
#include "kernels/k_window.h"
#include "kernels/kernels.h"

static bool select_cb(void *vctx, const void *a, const void *b, uint8_t *out, int64_t n,
                      Error *err) {
  VecFn *f = vctx;
  const void *args[2] = {a, b};
  void *outs[1] = {out};
  return vecfn_call(f, 2, args, 1, outs, n, err);
}

/* --- ops --- */

/* Physical dim order (major to minor) of an array whose layout only
 * permutes its dims (no tiles, padding, packing or splits): phys[j] is the
 * logical dim at position j.  False for any other layout. */
static bool permuted_layout(const ArrayInfo *ai, int *phys) {
  const Layout *l = &ai->shape->layout;
  if (ai->packed || ai->plan.slots != ai->elements || l->rank != ai->rank || l->ntiles ||
      l->tail_padding_alignment > 1 || l->element_size_bits || l->nsplits || l->physical_shape ||
      l->dynamic_metadata_bytes || ai->rank > SHAPE_MAX_RANK)
    return false;
  for (int j = 0; j < ai->rank; j++) phys[j] = (int)l->minor_to_major[ai->rank - 1 - j];
  return true;
}

/* Whether the dims not in the two lists keep their relative order under
 * inv (logical dim -> physical position): the dot's free dims then come out
 * in the same order from the physical view. */
static bool free_order_kept(int rank, const int *inv, const int64_t *a, int na, const int64_t *b, int nb) {
  int last = -1;
  for (int d = 0; d < rank; d++) {
    bool used = false;
    for (int i = 0; i < na; i++) used |= a[i] == d;
    for (int i = 0; i < nb; i++) used |= b[i] == d;
    if (used) continue;
    if (inv[d] < last) return false;
    last = inv[d];
  }
  return true;
}

/* dot straight over operand and result buffers whose layouts only permute
 * dims ({0,1} transposed weights, common in torch-xla and GPU dumps): the
 * operands are read as row-major arrays of their physical dims with the
 * dimension numbers renumbered, and a result laid out [batch, rhs free,
 * lhs free] is written by the swapped dot.  Saves the transposing copies to
 * and from row-major.  1 done, 0 not applicable, -1 error. */
static int dot_physical(EvalCtx *ctx, const KDotDims *dn, Value *lv, Value *rv,
                        const Shape *rs, Value **out, Error *err) {
  if (!lv->info || !rv->info || !lv->buf || !rv->buf || lv->dyn || rv->dyn || !shape_is_array(rs))
    return 0;
  if (lv->info->identity && rv->info->identity) return 0; /* the usual path has nothing to save */
  int lp[SHAPE_MAX_RANK], rp[SHAPE_MAX_RANK], li[SHAPE_MAX_RANK], ri[SHAPE_MAX_RANK], op[SHAPE_MAX_RANK];
  const ArrayInfo *oi = value_array_info(&ctx->vc, rs, err);
  if (!oi) return -1;
  if (!permuted_layout(lv->info, lp) || !permuted_layout(rv->info, rp) || !permuted_layout(oi, op)) return 0;
  int lr = lv->info->rank, rr = rv->info->rank, orank = oi->rank, nb = dn->nbatch, nc = dn->ncontract;
  for (int j = 0; j < lr; j++) li[lp[j]] = j;
  for (int j = 0; j < rr; j++) ri[rp[j]] = j;
  for (int i = 0; i < nb; i++)
    if (dn->lhs_batch[i] < 0 || dn->lhs_batch[i] >= lr || dn->rhs_batch[i] < 0 || dn->rhs_batch[i] >= rr) return 0;
  for (int i = 0; i < nc; i++)
    if (dn->lhs_contract[i] < 0 || dn->lhs_contract[i] >= lr || dn->rhs_contract[i] < 0 || dn->rhs_contract[i] >= rr) return 0;
  if (!free_order_kept(lr, li, dn->lhs_batch, nb, dn->lhs_contract, nc) ||
      !free_order_kept(rr, ri, dn->rhs_batch, nb, dn->rhs_contract, nc))
    return 0;
  int nlf = lr - nb - nc, nrf = rr - nb - nc;
  if (nlf < 0 || nrf < 0 || orank != nb + nlf + nrf) return 0;
  /* Result: row-major [batch, lhs free, rhs free], or [batch, rhs free, lhs free]. */
  bool straight = true, swapped = true;
  for (int j = 0; j < orank; j++) {
    int want_s = j, want_w = j < nb ? j : j < nb + nrf ? j + nlf : j - nrf;
    straight &= op[j] == want_s;
    swapped &= op[j] == want_w;
  }
  if (!straight && !swapped) return 0;
  int64_t lb[SHAPE_MAX_RANK], rb[SHAPE_MAX_RANK], lc[SHAPE_MAX_RANK], rc[SHAPE_MAX_RANK], ld[SHAPE_MAX_RANK], rd[SHAPE_MAX_RANK], od[SHAPE_MAX_RANK];
  for (int i = 0; i < nb; i++) { lb[i] = li[dn->lhs_batch[i]]; rb[i] = ri[dn->rhs_batch[i]]; }
  for (int i = 0; i < nc; i++) { lc[i] = li[dn->lhs_contract[i]]; rc[i] = ri[dn->rhs_contract[i]]; }
  for (int j = 0; j < lr; j++) ld[j] = lv->info->dims[lp[j]];
  for (int j = 0; j < rr; j++) rd[j] = rv->info->dims[rp[j]];
  for (int j = 0; j < orank; j++) od[j] = oi->dims[op[j]];
  KArray L = {lv->info->etype, lr, ld, lv->buf->data}, R = {rv->info->etype, rr, rd, rv->buf->data};
  Value *v;
  if (!value_new_array(&ctx->vc, rs, false, "", &v, err)) return -1;
  KArray O = {oi->etype, orank, od, v->buf->data};
  KDotDims d = {nb, straight ? lb : rb, straight ? rb : lb, nc, straight ? lc : rc, straight ? rc : lc};
  if (!k_dot(straight ? &L : &R, straight ? &R : &L, &d, &O, err)) {
    value_unref(&ctx->vc, v);
    return -1;
  }
  *out = v;
  return 1;
}

static bool dot_product(const KArray *lhs, const KArray *rhs, const void *arg, KArray *out,
                        Error *err) {
  return k_dot(lhs, rhs, arg, out, err);
}

/* Op: dot
 * Operands: lhs, rhs (a sparse dot: also its metadata operands)
 * Attributes: lhs_contracting_dims, rhs_contracting_dims, lhs_batch_dims,
 *   rhs_batch_dims; optionally precision_config, sparsity
 *
 * The sum of products over the contracting dimensions, for every batch index
 * and every pair of free indices; the result dimensions are batch, lhs free,
 * rhs free.
 *
 * Rule: XLA operation semantics, DotGeneral.
 * Refuses: nothing the verifier accepts.
 */
bool eval_dot(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
              Error *err) {
  const IntList *lb = eval_attr_ints(in, ATTR_LHS_BATCH_DIMS), *rb = eval_attr_ints(in, ATTR_RHS_BATCH_DIMS);
  const IntList *lc = eval_attr_ints(in, ATTR_LHS_CONTRACTING_DIMS),
                *rc = eval_attr_ints(in, ATTR_RHS_CONTRACTING_DIMS);
  KDotDims dn = {lb ? lb->n : 0, lb ? lb->v : NULL, rb ? rb->v : NULL,
                 lc ? lc->n : 0, lc ? lc->v : NULL, rc ? rc->v : NULL};
  if ((lb ? lb->n : 0) != (rb ? rb->n : 0) || (lc ? lc->n : 0) != (rc ? rc->n : 0))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "lhs and rhs dimension lists differ in length");
  if (in->noperands != 2) return eval_sparse_dot(ctx, fr, in, &dn, rs, out, err);
  if (!eval_packed_nibble_count(in)) {
    int r = dot_physical(ctx, &dn, frame_operand(fr, in, 0), frame_operand(fr, in, 1), rs, out, err);
    if (r != 0) return r > 0;
  }
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, frame_operand(fr, in, 0), in, err) &&
            eval_view(ctx, &vs, frame_operand(fr, in, 1), in, err) && eval_outs_new(ctx, in, rs, &o, err) &&
            (eval_packed_nibble_count(in)
                 ? eval_packed_nibble_product(in, &vs.a[0], &vs.a[1], dot_product, &dn, &o.a[0], err)
                 : k_dot(&vs.a[0], &vs.a[1], &dn, &o.a[0], err));
  eval_views_free(&vs);
  if (!ok) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  return eval_outs_finish(ctx, rs, &o, out, err);
}

/* Op: reduce
 * Operands: N arrays, then N scalar initial values
 * Attributes: dimensions, to_apply
 *
 * Folds the reducer over the listed dimensions, starting from the initial
 * values; a recognised reducer (add, multiply, maximum, ... of its parameters)
 * runs as a tight loop, any other is run over whole vectors.
 *
 * Rule: XLA operation semantics, Reduce.
 * Refuses: what the reducer refuses.
 */
/* Op: reduce-window
 * Operands: N arrays, then N scalar initial values
 * Attributes: window, to_apply
 *
 * Folds the reducer over each window position of the (padded, dilated)
 * operand, starting from the initial values.
 *
 * Rule: XLA operation semantics, ReduceWindow.
 * Refuses: what the reducer refuses.
 */
bool eval_reduce(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                 Error *err) {
  bool window = in->op == OP_REDUCE_WINDOW; /* the two share all but the kernel */
  int nvals = in->noperands / 2;
  if (nvals < 1 || in->noperands != 2 * nvals || nvals > 8)
    return error_set(err, ERR_RUNTIME, in->offset, "expected inputs then inits");
  const Computation *comp = eval_attr_comp(in, ATTR_TO_APPLY);
  EVAL_ASSERT(comp); /* to_apply is required */
  KReduceOp ops[8];
  VecFn vf = {.ctx = ctx, .comp = comp, .in = in};
  KReducer red = {NULL, reduce_cb, &vf};
  if (reducer_recognise(comp, nvals, ops)) red = (KReducer){ops, NULL, NULL};
  EvalViews vs = {0};
  EvalOuts o = {0};
  const void *inits[8];
  bool ok = true;
  ok = ok && eval_view_operands(ctx, fr, in, 2 * nvals, &vs, err);
  for (int i = 0; i < nvals && ok; i++) inits[i] = vs.a[nvals + i].data;
  EType at[16], ot[8]; /* the reducer sees (accumulators, values) of the operands' types */
  for (int i = 0; i < nvals && ok; i++) at[i] = at[nvals + i] = ot[i] = vs.a[i].etype;
  vf.arg_types = at;
  vf.out_types = ot;
  if (ok) ok = eval_outs_new(ctx, in, rs, &o, err);
  if (ok && o.n != nvals)
    ok = error_set(err, ERR_RUNTIME, in->offset, "%d results for %d inputs", o.n, nvals);
  if (ok && !window) {
    const IntList *d = eval_attr_ints(in, ATTR_DIMENSIONS);
    ok = k_reduce(nvals, vs.a, inits, d ? d->n : 0, d ? d->v : NULL, &red, o.a, err);
  } else if (ok) {
    EvalWindow w;
    ok = eval_window(in, vs.a[0].rank, &w, err);
    w.k.reversal = NULL;
    if (ok) ok = k_reduce_window(nvals, vs.a, inits, &w.k, &red, o.a, err);
  }
  eval_views_free(&vs);
  vecfn_free(&vf);
  if (!ok) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  return eval_outs_finish(ctx, rs, &o, out, err);
}

/* Op: select-and-scatter
 * Operands: operand, source, a scalar initial value
 * Attributes: window, select, scatter
 *
 * For each window of the operand, select picks one element; the matching
 * element of source is combined by scatter into that position of a result that
 * starts at the initial value.
 *
 * Rule: XLA operation semantics, SelectAndScatter.
 * Refuses: what select or scatter refuses.
 */
bool eval_select_and_scatter(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  const Computation *sc = eval_attr_comp(in, ATTR_SELECT), *scat = eval_attr_comp(in, ATTR_SCATTER);
  EVAL_ASSERT(sc && scat); /* required attributes */
  VecFn sf = {.ctx = ctx, .comp = sc, .in = in}, cf = {.ctx = ctx, .comp = scat, .in = in};
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
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  ok = ok && eval_view_operands(ctx, fr, in, 3, &vs, err);
  EType t2[2], pred = ET_PRED; /* select: (T, T) -> pred; scatter: (T, T) -> T */
  if (ok) {
    t2[0] = t2[1] = vs.a[0].etype;
    sf.arg_types = cf.arg_types = cf.out_types = t2;
    sf.out_types = &pred;
  }
  if (ok) ok = eval_outs_new(ctx, in, rs, &o, err);
  if (ok) {
    EvalWindow w;
    ok = eval_window(in, vs.a[0].rank, &w, err);
    w.k.base_dilation = w.k.window_dilation = NULL; /* the op has none */
    w.k.reversal = NULL;
    if (ok)
      ok = k_select_and_scatter(&vs.a[0], &sel, &vs.a[1], vs.a[2].data, &w.k, &red, &o.a[0], err);
  }
  eval_views_free(&vs);
  vecfn_free(&sf);
  vecfn_free(&cf);
  if (!ok) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  return eval_outs_finish(ctx, rs, &o, out, err);
}

static bool stochastic_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                              int nouts, Error *err) {
  (void)in, (void)arg, (void)nouts;
  int64_t n = 1;
  for (int d = 0; d < outs[0].rank; d++) n *= outs[0].dims[d];
  return k_stochastic_convert(outs[0].etype, outs[0].data, ins[0].etype, ins[0].data, ins[1].etype,
                              ins[1].data, n, err);
}

/* Op: stochastic-convert
 * Operands: a float array, unsigned random bits of the same width
 * Attributes: none
 *
 * Converts to the (signed integer) result type rounding up or down at random:
 * up when the random bits are below the fraction.
 *
 * Rule: XLA's StochasticConvert decomposition.
 * Refuses: type combinations the kernel does not define.
 */
bool eval_stochastic_convert(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  return eval_kernel_op(ctx, f, in, rs, 2, stochastic_kernel, NULL, out, err);
}
