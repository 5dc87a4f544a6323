/* sort, topk and the TopK custom call (kernels/k_sort.h).
 *
 * A comparator whose root is `compare(p[2k], p[2k+1])` (or the parameters
 * swapped) with direction LT or GT runs as a radix sort on operand k's keys
 * (type=TOTALORDER keeps the total order); any other comparator is
 * evaluated over whole vectors of (left, right) pairs.  Results are always
 * stable, which satisfies is_stable either way. */
#include "interp/eval_sort.h"

#include <string.h>

#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "kernels/k_sort.h"

/* LT/GT comparators on one operand's keys; false if c is anything else. */
static bool known_comparator(const Computation *c, int nops, KComparator *out) {
  const Instr *r = c->root;
  if (!r || r->op != OP_COMPARE || r->noperands != 2 || c->nparams != 2 * nops) return false;
  const Instr *x = r->operands[0], *y = r->operands[1];
  if (x->op != OP_PARAMETER || y->op != OP_PARAMETER) return false;
  int64_t px = x->parameter_number, py = y->parameter_number;
  if (px / 2 != py / 2 || px == py) return false;
  const Attr *d = ir_attr(r, ATTR_DIRECTION);
  const Attr *t = ir_attr(r, ATTR_TYPE);
  if (!d || d->kind != AV_ENUM) return false;
  bool lt = !strcmp(d->v.s, "LT"), gt = !strcmp(d->v.s, "GT");
  if (!lt && !gt) return false;
  if (px > py) lt = !lt; /* compare(right, left) */
  EType et = x->shape.etype;
  if (etype_is_complex(et)) return false;
  *out = (KComparator){lt ? K_CMP_LT : K_CMP_GT, (int)(px / 2),
                       t && t->kind == AV_ENUM && !strcmp(t->v.s, "TOTALORDER"), NULL, NULL};
  return true;
}

/* KCompareFn over a VecFn: XLA's parameters 2k, 2k+1 are a[k], b[k]. */
static bool compare_cb(void *vctx, int nops, const void *const *a, const void *const *b,
                       uint8_t *out, int64_t n, Error *err) {
  const void *args[VECFN_MAX_ARGS];
  if (2 * nops > VECFN_MAX_ARGS) return error_set(err, ERR_RUNTIME, -1, "too many sort operands");
  for (int k = 0; k < nops; k++) {
    args[2 * k] = a[k];
    args[2 * k + 1] = b[k];
  }
  void *outs[1] = {out};
  return vecfn_call(vctx, 2 * nops, args, 1, outs, n, err);
}

/* Op: sort
 * Operands: operands (1 or more arrays of one shape)
 * Attributes: dimensions={d}, to_apply; optional is_stable
 *
 * Sorts the operands together along dimension d: the comparator to_apply sees
 * (lhs0, rhs0, lhs1, rhs1, ...) and returns whether lhs goes first; every operand is
 * permuted the same way.  A comparator that is one compare LT/GT of one operand's
 * pair runs as a radix sort (type=TOTALORDER keeps the total order, otherwise -0 == +0
 * and NaN sorts last); any other is evaluated over whole vectors of pairs.
 *
 * Rule: XLA operation semantics, Sort; the result is always stable (equal elements
 *   keep their order), which satisfies is_stable=true and false alike.
 * Refuses: more than 64 operands; whatever to_apply refuses.
 */
bool eval_sort(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  const Computation *comp = eval_attr_comp(in, ATTR_TO_APPLY);
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  int nops = in->noperands;
  if (!comp || !dims || dims->n != 1 || nops < 1 || nops > EVAL_MAX_OUTS)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "sort needs 1..%d operands, dimensions={d} and to_apply",
                     EVAL_MAX_OUTS);
  VecFn vf = {.ctx = ctx, .comp = comp, .in = in};
  KComparator cmp = {K_CMP_CALLBACK, 0, false, compare_cb, &vf};
  known_comparator(comp, nops, &cmp);
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  ok = ok && eval_view_operands(ctx, fr, in, nops, &vs, err);
  EType at[2 * EVAL_MAX_OUTS], pred = ET_PRED; /* the comparator: (a0, b0, a1, b1, ...) -> pred */
  for (int k = 0; k < nops && ok; k++) at[2 * k] = at[2 * k + 1] = vs.a[k].etype;
  vf.arg_types = at;
  vf.out_types = &pred;
  ok = ok && eval_outs_new(ctx, in, rs, &o, err);
  if (ok && o.n != nops)
    ok = error_set(err, ERR_RUNTIME, in->offset, "%d results for %d operands",
                   o.n, nops);
  ok = ok && k_sort(nops, vs.a, dims->v[0], &cmp, o.a, err);
  eval_views_free(&vs);
  vecfn_free(&vf);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

static bool run_topk(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, int64_t k,
                     bool largest, Value **out, Error *err) {
  if (in->noperands != 1 || !shape_is_tuple(rs) || rs->ntuple != 2)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "top-k takes one operand and returns (values, indices)");
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, frame_operand(fr, in, 0), in, err) && eval_outs_new(ctx, in, rs, &o, err) &&
            k_topk(&vs.a[0], k, largest, &o.a[0], &o.a[1], err);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* Op: topk
 * Operands: operand (rank >= 1)
 * Attributes: k; optional largest (default true)
 *
 * The k largest (largest=false: smallest) elements of each row of the last
 * dimension, in order, with their positions: result (values, s32 indices).
 *
 * Rule: XLA's TopK (the op jax.lax.top_k lowers to); values compare in IEEE total
 *   order (-NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN) and equal values keep
 *   their original order (lower index first).
 * Refuses: k outside [0, row length]; a row longer than s32 indices can name.
 */
bool eval_topk(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  const Attr *k = ir_attr(in, ATTR_K), *l = ir_attr(in, ATTR_LARGEST);
  if (!k || k->kind != AV_INT)
    return error_set(err, ERR_RUNTIME, in->offset, "topk needs k");
  bool largest = !l || l->kind != AV_BOOL || l->v.b;
  return run_topk(ctx, fr, in, rs, k->v.i, largest, out, err);
}

/* custom-call "TopK" (what XLA's TopkRewriter emits and its CPU runtime
 * runs): k is the result's last dimension; the comparator (to_apply or
 * called_computations) is GT for the largest, LT for the smallest. */
bool eval_topk_custom_call(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                           Value **out, Error *err) {
  const Computation *comp = eval_attr_comp(in, ATTR_TO_APPLY);
  const Attr *cc = ir_attr(in, ATTR_CALLED_COMPUTATIONS);
  if (!comp && cc && cc->kind == AV_COMPUTATION_LIST && cc->v.comps.n == 1) comp = cc->v.comps.v[0];
  KComparator cmp;
  if (!comp || !known_comparator(comp, 1, &cmp))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call target \"TopK\" needs a comparator "
                     "compare(p0, p1) with direction GT or LT");
  if (!shape_is_tuple(rs) || rs->ntuple != 2 || !shape_is_array(&rs->tuple[0]) ||
      rs->tuple[0].rank < 1)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call target \"TopK\" returns (values, indices)");
  int64_t k = rs->tuple[0].dims[rs->tuple[0].rank - 1];
  return run_topk(ctx, fr, in, rs, k, cmp.kind == K_CMP_GT, out, err);
}
