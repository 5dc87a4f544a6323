/* ragged-dot(lhs, rhs, group_sizes) as XLA's RaggedDotRewriter expands it
 * (xla/hlo/transforms/expanders/ragged_dot_rewriter.cc) into one dense dot:
 *
 *   group j covers the indices i of the lhs ragged dimension with
 *   cum[j-1] <= i < cum[j], cum = the running sum of group_sizes along its
 *   last dimension (in group_sizes' own type, cum[-1] = 0);
 *   RaggedToDense(x) = [g, x...] with x copied where i is in group j, zero
 *   elsewhere.
 *
 *   ragged non-contracting: dot(RaggedToDense(lhs), rhs) contracting the new
 *     group dimension with rhs_group_dims (and the given contracting dims);
 *   ragged contracting: dot(RaggedToDense(lhs), RaggedToDense(rhs)) with the
 *     group dimensions as the leading batch dimension (rhs masked along its
 *     contracting dim paired with the ragged one): result [g, batch, m, n];
 *   ragged batch: the plain dot (group_sizes unused).
 *
 * group_sizes is [g] (the same groups everywhere) or [prefix..., g] with
 * StableHLO's prefix (chlo.ragged_dot): the lhs batch dims, then for a
 * contracting ragged dim the contracting dims listed before it, for a
 * non-contracting one the free dims before it (for a batch one only the batch
 * dims before it).  An element takes the groups of its prefix indices. */
#include "interp/eval_ops.h"

#include <stdlib.h>
#include <string.h>

#include "interp/eval_views.h"
#include "kernels/k_dot.h"
#include "kernels/kernels.h"

enum { RAGGED_NONCONTRACTING, RAGGED_CONTRACTING, RAGGED_BATCH };

typedef struct RaggedArgs {
  int mode;
  int64_t lhs_ragged, rhs_ragged, rhs_group;
  int nprefix;
  int64_t lhs_prefix[SHAPE_MAX_RANK], rhs_prefix[SHAPE_MAX_RANK];
  KDotDims dn;
} RaggedArgs;

static bool in_ints(const int64_t *v, int n, int64_t x) {
  for (int i = 0; i < n; i++)
    if (v[i] == x) return true;
  return false;
}

/* The running sums of group_sizes along its last dimension, wrapped to its
 * type; unsigned types compare unsigned. */
typedef struct GroupEnds {
  int64_t *end;
  int64_t rows, g;
  bool is_unsigned;
} GroupEnds;

static bool group_ends(const KArray *gs, GroupEnds *ge, Error *err) {
  int64_t n = 1;
  for (int d = 0; d < gs->rank; d++) n *= gs->dims[d];
  ge->g = gs->dims[gs->rank - 1];
  ge->rows = ge->g ? n / ge->g : 0;
  ge->is_unsigned = etype_kind(gs->etype) == EK_UINT;
  ge->end = malloc((size_t)(n ? n : 1) * sizeof *ge->end);
  if (!ge->end) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (!k_convert(ge->is_unsigned ? ET_U64 : ET_S64, ge->end, gs->etype, gs->data, n, err))
    return false;
  int bits = etype_bits(gs->etype);
  for (int64_t r = 0; r < ge->rows; r++) {
    uint64_t acc = 0;
    for (int64_t j = 0; j < ge->g; j++) {
      acc += (uint64_t)ge->end[r * ge->g + j];
      uint64_t v = acc;
      if (bits < 64) {
        v &= (UINT64_C(1) << bits) - 1;
        if (!ge->is_unsigned && (v >> (bits - 1)) & 1) v |= ~((UINT64_C(1) << bits) - 1);
      }
      memcpy(&ge->end[r * ge->g + j], &v, sizeof v);
    }
  }
  return true;
}

static bool le_bound(const GroupEnds *ge, int64_t a, int64_t b) { /* a <= b */
  return ge->is_unsigned ? (uint64_t)a <= (uint64_t)b : a <= b;
}

/* [g, x...]: x where its index along `ragged` lies in group j, else zero. */
static bool ragged_to_dense(const KArray *x, const GroupEnds *ge, int nprefix,
                            const int64_t *prefix, int64_t ragged, KArray *out, int64_t *odims,
                            Error *err) {
  int rank = x->rank;
  int64_t n = 1;
  for (int d = 0; d < rank; d++) n *= x->dims[d];
  size_t es = (size_t)etype_storage_bytes(x->etype);
  int64_t total = n * ge->g;
  char *buf = calloc((size_t)(total ? total : 1), es);
  if (!buf) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  odims[0] = ge->g;
  for (int d = 0; d < rank; d++) odims[1 + d] = x->dims[d];
  *out = (KArray){x->etype, rank + 1, odims, buf};
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t e = 0; e < n; e++) {
    int64_t row = 0;
    for (int p = 0; p < nprefix; p++) row = row * x->dims[prefix[p]] + idx[prefix[p]];
    const int64_t *end = ge->end + row * ge->g;
    int64_t i = idx[ragged], start = 0;
    for (int64_t j = 0; j < ge->g; j++) {
      if (le_bound(ge, start, i) && !le_bound(ge, end[j], i))
        memcpy(buf + (size_t)(j * n + e) * es, (const char *)x->data + (size_t)e * es, es);
      start = end[j];
    }
    for (int d = rank - 1; d >= 0 && ++idx[d] == x->dims[d]; d--) idx[d] = 0;
  }
  return true;
}

static bool ragged_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                          int nouts, Error *err) {
  (void)in;
  (void)nouts;
  const RaggedArgs *a = arg;
  if (a->mode == RAGGED_BATCH) return k_dot(&ins[0], &ins[1], &a->dn, &outs[0], err);
  const KArray *gs = &ins[2];
  int np = gs->rank == 1 ? 0 : a->nprefix;
  if (gs->rank != np + 1)
    return error_set(err, ERR_RUNTIME, -1, "ragged-dot: group_sizes must have rank 1 or %d",
                     a->nprefix + 1);
  GroupEnds ge = {0};
  KArray L = ins[0], R = ins[1];
  int64_t ldims[SHAPE_MAX_RANK + 1], rdims[SHAPE_MAX_RANK + 1];
  int64_t lb[SHAPE_MAX_RANK + 1], rb[SHAPE_MAX_RANK + 1], lc[SHAPE_MAX_RANK + 1],
      rc[SHAPE_MAX_RANK + 1];
  KDotDims dn = {0, lb, rb, 0, lc, rc};
  bool ok = group_ends(gs, &ge, err) &&
            ragged_to_dense(&ins[0], &ge, np, a->lhs_prefix, a->lhs_ragged, &L, ldims, err);
  if (ok && a->mode == RAGGED_CONTRACTING) {
    ok = ragged_to_dense(&ins[1], &ge, np, a->rhs_prefix, a->rhs_ragged, &R, rdims, err);
    lb[0] = rb[0] = 0;
    dn.nbatch = 1;
  } else if (ok) {
    lc[0] = 0;
    rc[0] = a->rhs_group;
    dn.ncontract = 1;
  }
  int rshift = a->mode == RAGGED_CONTRACTING ? 1 : 0;
  for (int i = 0; i < a->dn.nbatch; i++, dn.nbatch++)
    lb[dn.nbatch] = a->dn.lhs_batch[i] + 1, rb[dn.nbatch] = a->dn.rhs_batch[i] + rshift;
  for (int i = 0; i < a->dn.ncontract; i++, dn.ncontract++)
    lc[dn.ncontract] = a->dn.lhs_contract[i] + 1, rc[dn.ncontract] = a->dn.rhs_contract[i] + rshift;
  ok = ok && k_dot(&L, &R, &dn, &outs[0], err);
  if (L.data != ins[0].data) free((void *)L.data);
  if (R.data != ins[1].data) free((void *)R.data);
  free(ge.end);
  return ok;
}

/* Op: ragged-dot
 * Operands: lhs, rhs, group_sizes
 * Attributes: lhs_ragged_dims, lhs_contracting_dims, rhs_contracting_dims; optional
 *   lhs_batch_dims, rhs_batch_dims, rhs_group_dims
 *
 * A dot in which lhs's ragged dimension is split into consecutive groups of
 * group_sizes rows: ragged non-contracting, each group multiplies its own rhs (along
 * rhs_group_dims); ragged contracting, each group gives its own [g, ...] result;
 * ragged batch, the plain dot.  group_sizes may carry StableHLO's prefix dimensions.
 *
 * Rule: XLA's RaggedDotRewriter expansion (one dense dot over RaggedToDense
 *   operands), StableHLO chlo.ragged_dot for group_sizes' prefix.
 * Refuses: dimension numbers that do not fit the operands.
 */
bool eval_ragged_dot(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  const IntList *lb = eval_attr_ints(in, ATTR_LHS_BATCH_DIMS), *rb = eval_attr_ints(in, ATTR_RHS_BATCH_DIMS);
  const IntList *lc = eval_attr_ints(in, ATTR_LHS_CONTRACTING_DIMS),
                *rc = eval_attr_ints(in, ATTR_RHS_CONTRACTING_DIMS);
  const IntList *lr = eval_attr_ints(in, ATTR_LHS_RAGGED_DIMS), *rg = eval_attr_ints(in, ATTR_RHS_GROUP_DIMS);
  int nb = lb ? lb->n : 0, nc = lc ? lc->n : 0;
  if (in->noperands != 3 || !lr || lr->n != 1 || nb != (rb ? rb->n : 0) || nc != (rc ? rc->n : 0) ||
      nb + nc > SHAPE_MAX_RANK)
    return error_set(err, ERR_RUNTIME, in->offset, "malformed ragged-dot");
  RaggedArgs a = {.lhs_ragged = lr->v[0],
                  .dn = {nb, nb ? lb->v : NULL, nb ? rb->v : NULL, nc, nc ? lc->v : NULL,
                         nc ? rc->v : NULL}};
  for (int i = 0; i < nb; i++) a.lhs_prefix[a.nprefix] = lb->v[i], a.rhs_prefix[a.nprefix++] = rb->v[i];
  if (nb && in_ints(lb->v, nb, a.lhs_ragged)) {
    a.mode = RAGGED_BATCH;
  } else if (nc && in_ints(lc->v, nc, a.lhs_ragged)) {
    a.mode = RAGGED_CONTRACTING;
    for (int i = 0; lc->v[i] != a.lhs_ragged; i++)
      a.lhs_prefix[a.nprefix] = lc->v[i], a.rhs_prefix[a.nprefix++] = rc->v[i];
    for (int i = 0; i < nc; i++)
      if (lc->v[i] == a.lhs_ragged) a.rhs_ragged = rc->v[i];
  } else {
    a.mode = RAGGED_NONCONTRACTING;
    if (!rg || rg->n != 1)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "a non-contracting ragged dimension needs one rhs group "
                       "dimension");
    a.rhs_group = rg->v[0];
    for (int64_t d = 0; d < a.lhs_ragged; d++)
      if (!(nb && in_ints(lb->v, nb, d)) && !(nc && in_ints(lc->v, nc, d)))
        a.lhs_prefix[a.nprefix++] = d;
  }
  return eval_kernel_op(ctx, f, in, rs, 3, ragged_kernel, &a, out, err);
}
