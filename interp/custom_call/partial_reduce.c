/* custom-call "PartialReduce" (interp/custom_call/partial_reduce.h): the first,
 * approximate stage of top-k that XLA's ApproxTopK builder
 * (xla/hlo/builder/lib/approx_topk.cc) emits for TPUs, and that TPU-KNN
 * (Chern et al., NeurIPS 2022) describes.
 *
 *   operands: k arrays of one shape (the values, usually an iota of their
 *     indices after them), then k scalar init values of the same types;
 *   called_computations: the top-k comparator, 2k scalar parameters
 *     (lhs0, rhs0, lhs1, rhs1, ...) returning pred (to_apply_type
 *     "comparator");
 *   backend_config JSON: reduction_dim (required), log2_reduction, top_k,
 *     recall_target (informative: the result shape already says how far
 *     the dimension is reduced);
 *   results: a tuple of k arrays, the operands' shape with the reduction
 *     dimension cut from N to L (ApproxTopKReductionOutputSize: N / 2^
 *     log2_reduction rounded up to the 128 TPU lanes).
 *
 * Bins: element j of the reduction dimension falls into bin j mod L.  The
 * TPU kernel is not public.  Its shape rules (L is whole 128-lane rows,
 * the reduction 2^log2_reduction rows deep) point to rows combined
 * elementwise, each output lane seeing only its own input lane; when L is
 * one row of 128 (ApproxTopKReductionOutputSize gives that whenever
 * N <= 128 * 2^log2_reduction, always for top_k == 1, and in the corpus),
 * every such fold is exactly j mod L.  With several output rows, which
 * input rows share an output row is an assumption here (row t joins row
 * t mod (L / 128), the natural halving fold), not something XLA states.
 *
 * Each result element is its bin reduced with approx_topk.cc's
 * BuildReductionComputation, select(comparator(acc, x), acc, x) for every
 * operand, folded from the init values over the bin in index order: the
 * comparator-best element of the bin, and among elements the comparator
 * ties, the last.  Bins with no element (L > N) keep the init values, which
 * is also what the TPU's padding to whole lanes holds.
 *
 * The comparator runs over whole vectors (one call per fold step, for every
 * bin at once), never once per element. */
#include "interp/custom_call/partial_reduce.h"

#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/backend_json.h"
#include "interp/custom_call/backend_schemas.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"

enum { PR_MAX_PAIRS = EVAL_MAX_OUTS };

typedef struct PartialReduce {
  int k;                          /* operand pairs */
  int64_t outer, n, inner, bins; /* operand = [outer, n, inner], result = [outer, bins, inner] */
  int es[PR_MAX_PAIRS];           /* element bytes of operand i */
} PartialReduce;

static bool fail(const Instr *in, Error *err, const char *what) {
  return error_set(err, ERR_RUNTIME, in->offset, "custom-call PartialReduce: %s",
                   what);
}

static const Computation *comparator_of(const Instr *in) {
  const Attr *cc = ir_attr(in, ATTR_CALLED_COMPUTATIONS);
  if (cc && cc->kind == AV_COMPUTATION_LIST && cc->v.comps.n == 1) return cc->v.comps.v[0];
  return eval_attr_comp(in, ATTR_TO_APPLY);
}

/* reduction_dim from the backend_config; checks log2_reduction and
 * to_apply_type. */
static bool read_config(const Instr *in, int64_t *rd, Error *err) {
  static const char *const target = "custom-call PartialReduce";
  BackendConfig bc;
  if (!backend_config_read(in, target, &SCHEMA_PARTIAL_REDUCE, NULL, NULL, &bc, err))
    return false;
  bool ok = true;
  *rd = bc_int(&bc, "reduction_dim", -1);
  int64_t log2r = bc_int(&bc, "log2_reduction", 0);
  if (!bc_present(&bc, "reduction_dim"))
    ok = fail(in, err, "needs a backend_config with reduction_dim");
  else if (log2r < 0 || log2r >= 63)
    ok = bc_unsupported(in, target, &bc, "log2_reduction", NULL, "it must be 0 to 62", err);
  else if (strcmp(bc_string(&bc, "to_apply_type", "comparator"), "comparator"))
    ok = bc_unsupported(in, target, &bc, "to_apply_type", NULL,
                        "XLA's ApproxTopK emits \"comparator\"", err);
  backend_config_free(&bc);
  return ok;
}

static bool same_dims(const KArray *a, const KArray *b) {
  return a->rank == b->rank && !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank);
}

/* Checks operands (views vs) and results (o) against each other. */
static bool plan(const Instr *in, int64_t rd, const EvalViews *vs, const EvalOuts *o,
                 PartialReduce *p, Error *err) {
  int k = p->k;
  const KArray *x0 = &vs->a[0];
  if (o->n != k) return fail(in, err, "returns one array per operand pair");
  if (x0->rank < 1 || rd < 0 || rd >= x0->rank)
    return fail(in, err, "reduction_dim must name a dimension of the operands");
  for (int i = 0; i < k; i++) {
    const KArray *x = &vs->a[i], *init = &vs->a[k + i], *r = &o->a[i];
    if (!same_dims(x, x0)) return fail(in, err, "the operands must have one shape");
    if (init->rank != 0 || init->etype != x->etype)
      return fail(in, err, "init value i must be a scalar of operand i's type");
    if (r->etype != x->etype || r->rank != x->rank)
      return fail(in, err, "result i must have operand i's type and rank");
    for (int d = 0; d < x->rank; d++)
      if (d != rd && r->dims[d] != x->dims[d])
        return fail(in, err, "results may differ from the operands only in reduction_dim");
    if (r->dims[rd] != o->a[0].dims[rd])
      return fail(in, err, "all results must cut reduction_dim to one size");
    p->es[i] = etype_storage_bytes(x->etype);
  }
  p->outer = p->inner = 1;
  for (int d = 0; d < rd; d++) p->outer *= x0->dims[d];
  for (int d = (int)rd + 1; d < x0->rank; d++) p->inner *= x0->dims[d];
  p->n = x0->dims[rd];
  p->bins = o->a[0].dims[rd];
  return true;
}

/* One fold step: the elements r*bins .. r*bins + c - 1 of the reduction
 * dimension against bins 0 .. c - 1. */
static bool fold_step(VecFn *f, const PartialReduce *p, const KArray *x, KArray *acc, int64_t r,
                      char **cur, char **cand, uint8_t *keep, Error *err) {
  int64_t c = p->n - r * p->bins < p->bins ? p->n - r * p->bins : p->bins;
  int64_t run = c * p->inner, m = p->outer * run;
  for (int i = 0; i < p->k; i++) {
    size_t es = (size_t)p->es[i];
    for (int64_t o = 0; o < p->outer; o++) {
      memcpy(cur[i] + (size_t)(o * run) * es,
             (char *)acc[i].data + (size_t)(o * p->bins * p->inner) * es, (size_t)run * es);
      memcpy(cand[i] + (size_t)(o * run) * es,
             (const char *)x[i].data + (size_t)((o * p->n + r * p->bins) * p->inner) * es,
             (size_t)run * es);
    }
  }
  const void *args[2 * PR_MAX_PAIRS];
  for (int i = 0; i < p->k; i++) {
    args[2 * i] = cur[i];
    args[2 * i + 1] = cand[i];
  }
  void *outs[1] = {keep};
  if (!vecfn_call(f, 2 * p->k, args, 1, outs, m, err)) return false;
  for (int i = 0; i < p->k; i++) {
    size_t es = (size_t)p->es[i];
    for (int64_t o = 0; o < p->outer; o++) {
      char *dst = (char *)acc[i].data + (size_t)(o * p->bins * p->inner) * es;
      const char *src = cand[i] + (size_t)(o * run) * es;
      const uint8_t *kp = keep + o * run;
      for (int64_t q = 0; q < run; q++)
        if (!kp[q]) memcpy(dst + (size_t)q * es, src + (size_t)q * es, es);
    }
  }
  return true;
}

static bool reduce_bins(VecFn *f, const PartialReduce *p, const KArray *x, const KArray *init,
                        KArray *acc, Error *err) {
  int64_t total = p->outer * p->bins * p->inner;
  for (int i = 0; i < p->k; i++)
    for (int64_t q = 0; q < total; q++)
      memcpy((char *)acc[i].data + (size_t)q * (size_t)p->es[i], init[i].data, (size_t)p->es[i]);
  if (total == 0 || p->n == 0) return true;
  int64_t cap = p->outer * (p->n < p->bins ? p->n : p->bins) * p->inner;
  char *cur[PR_MAX_PAIRS] = {0}, *cand[PR_MAX_PAIRS] = {0};
  uint8_t *keep = malloc((size_t)cap);
  bool ok = keep != NULL;
  for (int i = 0; i < p->k && ok; i++) {
    cur[i] = malloc((size_t)cap * (size_t)p->es[i]);
    cand[i] = malloc((size_t)cap * (size_t)p->es[i]);
    ok = cur[i] && cand[i];
  }
  if (!ok) error_set(err, ERR_RUNTIME, -1, "out of memory");
  int64_t rounds = (p->n + p->bins - 1) / p->bins;
  for (int64_t r = 0; r < rounds && ok; r++) ok = fold_step(f, p, x, acc, r, cur, cand, keep, err);
  for (int i = 0; i < p->k; i++) {
    free(cur[i]);
    free(cand[i]);
  }
  free(keep);
  return ok;
}

bool eval_partial_reduce(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                         Error *err) {
  int nops = in->noperands;
  if (nops < 2 || nops % 2 || nops / 2 > PR_MAX_PAIRS)
    return fail(in, err, "takes k arrays and k init values (1 <= k <= 8)");
  const Computation *cmp = comparator_of(in);
  if (!cmp || cmp->nparams != nops || !cmp->root || !shape_is_array(&cmp->root->shape) ||
      cmp->root->shape.etype != ET_PRED || cmp->root->shape.rank != 0)
    return fail(in, err, "needs a comparator computation of 2k scalars returning pred[]");
  int64_t rd;
  if (!read_config(in, &rd, err)) return false;
  if (!shape_is_tuple(rs) && !(nops == 2 && shape_is_array(rs)))
    return fail(in, err, "returns a tuple of one array per operand pair");
  PartialReduce p = {.k = nops / 2};
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  for (int i = 0; i < nops && ok; i++) {
    const Value *v = frame_operand(fr, in, i);
    ok = v->info ? eval_view(ctx, &vs, v, in, err) : fail(in, err, "operands must be arrays");
  }
  ok = ok && eval_outs_new(ctx, in, rs, &o, err) && plan(in, rd, &vs, &o, &p, err);
  /* The comparator takes (a0, b0, a1, b1, ...): scalars of each array's
   * type, or for a float array another float type (converted on the way in,
   * as XLA lets sort's comparator differ in precision). */
  EType at[2 * PR_MAX_PAIRS], pred = ET_PRED;
  for (int i = 0; ok && i < 2 * p.k; i++) {
    EType want = vs.a[i / 2].etype;
    const Shape *ps = cmp->params[i] ? &cmp->params[i]->shape : NULL;
    if (!ps || !shape_is_array(ps) || ps->rank != 0 ||
        (ps->etype != want && !(etype_is_float(ps->etype) && etype_is_float(want))))
      ok = fail(in, err, "comparator parameters must be scalars of the arrays' types (a float "
                         "array's may be another float type)");
    at[i] = want;
  }
  VecFn f = {.ctx = ctx, .comp = cmp, .in = in, .arg_types = at, .out_types = &pred};
  ok = ok && reduce_bins(&f, &p, vs.a, vs.a + p.k, o.a, err);
  vecfn_free(&f);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
