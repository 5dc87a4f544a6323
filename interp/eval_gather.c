/* gather and scatter (kernels/k_gather.h): dimension numbers from the
 * instruction's attributes; scatter's update computation is a known
 * combiner (add/mul/max/min/and/or/xor of the two parameters, or "return
 * update" = K_RED_REPLACE) run as a tight loop, anything else evaluated over
 * whole vectors of (current, update) pairs.  indices_are_sorted and
 * unique_indices are hints and ignored. */
#include "interp/eval_ops.h"

#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "kernels/k_gather.h"

static int list_n(const IntList *l) { return l ? l->n : 0; }
static const int64_t *list_v(const IntList *l) { return l ? l->v : NULL; }

static bool index_vector_dim(const Instr *in, int64_t *ivd, Error *err) {
  const Attr *a = ir_attr(in, ATTR_INDEX_VECTOR_DIM);
  if (!a || a->kind != AV_INT)
    return error_set(err, ERR_RUNTIME, in->offset, "needs index_vector_dim");
  *ivd = a->v.i;
  return true;
}

/* Op: gather
 * Operands: operand, start_indices
 * Attributes: offset_dims, collapsed_slice_dims, start_index_map, index_vector_dim,
 *   slice_sizes; optional operand_batching_dims, start_indices_batching_dims,
 *   indices_are_sorted
 *
 * Reads one slice of `operand` (of size slice_sizes) per index vector in
 * start_indices and stacks the slices: the batch dimensions of the result come from
 * start_indices, its offset_dims from the slice (collapsed and batching dimensions,
 * of size 1, dropped).  indices_are_sorted is a hint and is ignored.
 *
 * Rule: XLA operation semantics, Gather (with StableHLO's batching dimensions);
 *   a start that would put the slice out of bounds is clamped into the operand, as
 *   XLA does.
 * Refuses: indices that are not integers; attributes that do not fit the operands'
 *   shapes (the verifier's relaxed modules, docs/hlo-text.md 8.1).
 */
bool eval_gather(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                 Error *err) {
  const IntList *od = eval_attr_ints(in, ATTR_OFFSET_DIMS), *cd = eval_attr_ints(in, ATTR_COLLAPSED_SLICE_DIMS);
  const IntList *sm = eval_attr_ints(in, ATTR_START_INDEX_MAP);
  const IntList *ob = eval_attr_ints(in, ATTR_OPERAND_BATCHING_DIMS),
                *ib = eval_attr_ints(in, ATTR_START_INDICES_BATCHING_DIMS);
  const Attr *ss = ir_attr(in, ATTR_SLICE_SIZES);
  int64_t ivd = 0;
  if (!index_vector_dim(in, &ivd, err)) return false;
  if (in->noperands != 2 || !ss || ss->kind != AV_INT_LISTS || ss->v.lists.depth != 1)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "gather needs two operands and slice_sizes");
  if (list_n(ob) != list_n(ib))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "operand_batching_dims and start_indices_batching_dims "
                     "differ in length");
  KGatherDims d = {list_n(od), list_v(od), list_n(cd), list_v(cd), list_n(sm), list_v(sm),
                   list_n(ob), list_v(ob), list_v(ib), ivd, ss->v.lists.flat.v};
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, frame_operand(fr, in, 0), in, err) &&
            eval_view(ctx, &vs, frame_operand(fr, in, 1), in, err);
  if (ok && ss->v.lists.flat.n != vs.a[0].rank)
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "slice_sizes has %d entries for an operand of rank %d",
                   ss->v.lists.flat.n, vs.a[0].rank);
  ok = ok && eval_outs_new(ctx, in, rs, &o, err) && k_gather(&vs.a[0], &vs.a[1], &d, &o.a[0], err);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* Scatter's combiner: the reducer ops, or "return update" (root is
 * parameter nvals+i for every value i). */
static bool scatter_known(const Computation *c, int nvals, KReduceOp *ops) {
  if (reducer_recognise(c, nvals, ops)) return true;
  if (c->nparams != 2 * nvals || !c->root) return false;
  const Instr *r = c->root;
  for (int i = 0; i < nvals; i++) {
    const Instr *x = nvals == 1 ? r : (r->op == OP_TUPLE && r->noperands == nvals)
                                          ? r->operands[i] : NULL;
    if (!x || x->op != OP_PARAMETER || x->parameter_number != nvals + i) return false;
    ops[i] = K_RED_REPLACE;
  }
  return true;
}

/* Op: scatter
 * Operands: operands (N arrays), scatter_indices, updates (N arrays)
 * Attributes: update_window_dims, inserted_window_dims, scatter_dims_to_operand_dims,
 *   index_vector_dim, to_apply; optional input_batching_dims,
 *   scatter_indices_batching_dims, indices_are_sorted, unique_indices
 *
 * Returns copies of the N operands in which every update window (located by its
 * index vector, as gather locates a slice) is combined into place with to_apply
 * (current, update) -> new; with several updates on one element they apply in the
 * order of the updates.  Known combiners (add, multiply, maximum, minimum, and, or,
 * xor of the two parameters, or returning the update) run as tight loops.
 *
 * Rule: XLA operation semantics, Scatter (with StableHLO's batching dimensions); an
 *   update window that is out of bounds of the operand is skipped, as XLA does.
 *   indices_are_sorted and unique_indices are hints and are ignored.
 * Refuses: more than 7 operand/update pairs; indices that are not integers; attributes that do
 *   not fit the operands' shapes; whatever to_apply refuses.
 */
bool eval_scatter(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                  Error *err) {
  int nvals = (in->noperands - 1) / 2;
  if (nvals < 1 || in->noperands != 2 * nvals + 1 || nvals > 7)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "scatter takes N operands, indices, N updates (N <= 7)");
  const Computation *comp = eval_attr_comp(in, ATTR_TO_APPLY);
  if (!comp)
    return error_set(err, ERR_RUNTIME, in->offset, "needs to_apply");
  const IntList *uw = eval_attr_ints(in, ATTR_UPDATE_WINDOW_DIMS),
                *iw = eval_attr_ints(in, ATTR_INSERTED_WINDOW_DIMS);
  const IntList *sm = eval_attr_ints(in, ATTR_SCATTER_DIMS_TO_OPERAND_DIMS);
  const IntList *ib = eval_attr_ints(in, ATTR_INPUT_BATCHING_DIMS),
                *sb = eval_attr_ints(in, ATTR_SCATTER_INDICES_BATCHING_DIMS);
  int64_t ivd = 0;
  if (!index_vector_dim(in, &ivd, err)) return false;
  if (list_n(ib) != list_n(sb))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "input_batching_dims and scatter_indices_batching_dims "
                     "differ in length");
  KScatterDims d = {list_n(uw), list_v(uw), list_n(iw), list_v(iw), list_n(sm), list_v(sm),
                    list_n(ib), list_v(ib), list_v(sb), ivd};
  KReduceOp ops[8];
  VecFn vf = {.ctx = ctx, .comp = comp, .in = in};
  KReducer red = {NULL, reduce_cb, &vf};
  if (scatter_known(comp, nvals, ops)) red = (KReducer){ops, NULL, NULL};
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  ok = ok && eval_view_operands(ctx, fr, in, in->noperands, &vs, err);
  EType at[16], ot[8]; /* the combiner sees (current, update) in the operands' types */
  for (int i = 0; i < nvals && i < 8 && ok; i++) at[i] = at[nvals + i] = ot[i] = vs.a[i].etype;
  vf.arg_types = at;
  vf.out_types = ot;
  ok = ok && eval_outs_new(ctx, in, rs, &o, err);
  if (ok && o.n != nvals)
    ok = error_set(err, ERR_RUNTIME, in->offset, "%d results for %d operands",
                   o.n, nvals);
  ok = ok && k_scatter(nvals, vs.a, &vs.a[nvals], &vs.a[nvals + 1], &d, &red, o.a, err);
  eval_views_free(&vs);
  vecfn_free(&vf);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
