/* dot with structured-sparse operands (interp/eval_sparse_dot.h): each
 * compressed operand is expanded to its dense form in the dot's compute type
 * (kernels/k_sparse.h: XLA's 2:4 format) and the dense dot (kernels/k_dot.h)
 * runs on that -- so values and rounding are the dense dot's.
 *
 * XLA's shape inference accepts any N:M on a contracting dimension; only
 * 2:4 has a defined metadata format (the GPU sparse MMA), so other ratios
 * are errors, as are sparse non-contracting dimensions and two descriptors
 * for one operand. */
#include "interp/eval_sparse_dot.h"

#include <stdlib.h>

#include "interp/eval_views.h"
#include "kernels/k_sparse.h"
#include "parser/dot_sparsity.h"

static bool fail(const Instr *in, Error *err, const char *what) {
  return error_set(err, ERR_RUNTIME, in->offset, "sparse dot: %s", what);
}

static bool contracting(const KDotDims *dn, int side, int64_t d) {
  const int64_t *c = side ? dn->rhs_contract : dn->lhs_contract;
  for (int i = 0; i < dn->ncontract; i++)
    if (c[i] == d) return true;
  return false;
}

static bool read_descriptors(const Instr *in, const KDotDims *dn, DotSparsity *sp, int *nsp,
                             Error *err) {
  const Attr *a = ir_attr(in, ATTR_SPARSITY);
  const char *s = a && (a->kind == AV_RAW || a->kind == AV_STRING) ? a->v.s : NULL;
  *nsp = s ? dot_sparsity_parse(s, sp, 2) : 0;
  if (*nsp <= 0 || in->noperands != 2 + *nsp)
    return fail(in, err, "needs a sparsity descriptor per metadata operand (lhs, rhs, metadata...)");
  for (int i = 0; i < *nsp; i++) {
    if (sp[i].n != 2 || sp[i].m != 4)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "sparse dot: %lld:%lld sparsity has no defined metadata "
                       "format (XLA lowers 2:4 only)", (long long)sp[i].n,
                       (long long)sp[i].m);
    if (!contracting(dn, sp[i].side, sp[i].dim))
      return fail(in, err, "the sparse dimension must be a contracting dimension");
    if (i > 0 && sp[i].side == sp[0].side) return fail(in, err, "two descriptors for one operand");
  }
  return true;
}

bool eval_sparse_dot(EvalCtx *ctx, Frame *fr, const Instr *in, const KDotDims *dn,
                     const Shape *rs, Value **out, Error *err) {
  DotSparsity sp[2];
  int nsp;
  if (!read_descriptors(in, dn, sp, &nsp, err)) return false;
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  ok = ok && eval_view_operands(ctx, fr, in, 2 + nsp, &vs, err);
  ok = ok && eval_outs_new(ctx, in, rs, &o, err);
  KArray side[2];
  int64_t dims[2][SHAPE_MAX_RANK];
  void *dense[2] = {NULL, NULL};
  if (ok) {
    side[0] = vs.a[0];
    side[1] = vs.a[1];
  }
  EType ct = ok ? k_dot_compute_type(vs.a[0].etype, vs.a[1].etype, o.a[0].etype) : ET_F32;
  for (int i = 0; i < nsp && ok; i++) {
    const KArray *packed = &vs.a[sp[i].side];
    int s = sp[i].side;
    for (int d = 0; d < packed->rank; d++) dims[s][d] = packed->dims[d] * (d == sp[i].dim ? 2 : 1);
    int64_t n;
    ok = k_num_elements(packed->rank, dims[s], &n, err);
    if (ok && !(dense[s] = malloc((size_t)(n ? n : 1) * (size_t)etype_storage_bytes(ct))))
      ok = error_set(err, ERR_RUNTIME, in->offset, "out of memory");
    if (ok) {
      side[s] = (KArray){ct, packed->rank, dims[s], dense[s]};
      ok = k_sparse_expand_2_4(packed, (int)sp[i].dim, &vs.a[2 + i], &side[s], err);
    }
  }
  ok = ok && k_dot(&side[0], &side[1], dn, &o.a[0], err);
  free(dense[0]);
  free(dense[1]);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
