/* scan(inputs..., inits...), dimensions={d}, num_carries=C, to_apply=f
 * [, is_reverse=B] [, is_associative=B]
 *
 * XLA's newest control-flow op (HloOpcode::kScan).  The last C operands are
 * the initial carries, the others the inputs, all scanned along dimension d
 * (one length L shared by every input).  Step k calls f with the slices of
 * the inputs at position k along d (d removed) followed by the carries; f
 * returns (outputs..., new carries...).  The result is (outputs stacked
 * along d, final carries); a result of one array when f returns one array
 * (the stacked output when C == 0, else the final carry).
 *
 * The rules follow XLA's parser (hlo_parser.cc, case kScan: one dimension,
 * operand count == parameter count of to_apply, num_carries <= operands,
 * inferred result) and what ScanExpander (scan_expander.cc) lowers scan to:
 * a while loop whose state keeps the carries' shapes, dynamic-slices every
 * input at the step along d and dynamic-update-slices the outputs. */
#include "parser/infer_internal.h"

/* s with dimension d removed (the slice one step hands to to_apply). */
static bool drop_dim(InferCtx *c, const Shape *s, int d, Shape *out) {
  int64_t *dims;
  bool *dyn;
  if (!infer_dims_buf(c, s->rank - 1, &dims, &dyn)) return false;
  for (int i = 0, k = 0; i < s->rank; i++) {
    if (i == d) continue;
    dims[k] = s->dims[i];
    if (dyn) dyn[k] = infer_dim_dynamic(s, i);
    k++;
  }
  return infer_make_array(c, out, s->etype, s->rank - 1, dims, dyn);
}

/* s with a dimension of size len inserted at d (one output stacked over
 * the steps). */
static bool insert_dim(InferCtx *c, const Shape *s, int d, int64_t len, bool len_dynamic,
                       Shape *out) {
  int64_t *dims;
  bool *dyn;
  if (!infer_dims_buf(c, s->rank + 1, &dims, &dyn)) return false;
  for (int i = 0, k = 0; i <= s->rank; i++) {
    if (i == d) {
      dims[i] = len;
      dyn[i] = len_dynamic;
      continue;
    }
    dims[i] = s->dims[k];
    dyn[i] = infer_dim_dynamic(s, k);
    k++;
  }
  return infer_make_array(c, out, s->etype, s->rank + 1, dims, dyn);
}

static bool is_dense(const Shape *s) {
  return shape_is_array(s) && s->etype != ET_TOKEN && s->etype != ET_OPAQUE;
}

/* The scan dimension of every input and its shared length. */
static bool scan_length(InferCtx *c, const Attr *dims_attr, int d, int ninputs, int64_t *len,
                        bool *len_dynamic) {
  for (int i = 0; i < ninputs; i++) {
    if (!infer_need_array(c, i)) return false;
    const Shape *s = infer_oshape(c, i);
    if (d >= s->rank)
      return infer_fail_attr(c, dims_attr, "scan dimension %d is out of range for input %d %s", d,
                             i, infer_str(c, s));
    if (i == 0) {
      *len = s->dims[d];
      *len_dynamic = infer_dim_dynamic(s, d);
    } else if (s->dims[d] != *len) {
      return infer_fail(c, "inputs 0 and %d have different sizes along scan dimension %d: %s and %s",
                        i, d, infer_str(c, infer_oshape(c, 0)), infer_str(c, s));
    }
  }
  return true;
}

/* to_apply takes the input slices then the carries. */
static bool check_params(InferCtx *c, const Computation *f, int d, int ninputs) {
  int n = c->in->noperands;
  const Attr *fa = ir_attr(c->in, ATTR_TO_APPLY);
  if (f->nparams != n)
    return infer_fail_attr(c, fa, "expects %d operands to match the number of parameters of "
                           "to_apply, but to_apply %s has %d parameters", n, f->name, f->nparams);
  Shape *slices = ninputs ? arena_alloc_array(c->arena, (size_t)ninputs, sizeof(Shape)) : NULL;
  const Shape **params = arena_alloc_array(c->arena, (size_t)n, sizeof *params);
  if ((ninputs && !slices) || !params) return infer_fail(c, "out of memory");
  for (int i = 0; i < n; i++) {
    if (i < ninputs) {
      if (!drop_dim(c, infer_oshape(c, i), d, &slices[i])) return false;
      params[i] = &slices[i];
    } else {
      params[i] = infer_oshape(c, i);
    }
  }
  return infer_check_params(c, fa, f, "to_apply", n, params, false);
}

/* The carries f returns must keep the shapes of the initial ones (they are
 * the next step's parameters). */
static bool check_carry(InferCtx *c, const Computation *f, const Shape *r, int j, int ninputs) {
  const Shape *init = infer_oshape(c, ninputs + j);
  if (infer_shapes_match(r, init, false)) return true;
  return infer_fail_attr(c, ir_attr(c->in, ATTR_TO_APPLY),
                         "to_apply %s returns carry %d as %s, but its initial value (operand %d) "
                         "is %s", f->name, j, infer_str(c, r), ninputs + j, infer_str(c, init));
}

static bool stacked(InferCtx *c, const Shape *r, int k, int d, int64_t len, bool len_dynamic,
                    Shape *out) {
  if (!is_dense(r))
    return infer_fail_attr(c, ir_attr(c->in, ATTR_TO_APPLY),
                           "to_apply output %d must be an array, returns %s", k, infer_str(c, r));
  if (d > r->rank)
    return infer_fail_attr(c, ir_attr(c->in, ATTR_DIMENSIONS),
                           "scan dimension %d cannot be inserted into output %d %s", d, k,
                           infer_str(c, r));
  return insert_dim(c, r, d, len, len_dynamic, out);
}

bool infer_scan(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  IntList dims;
  const Attr *da;
  int64_t carries;
  const Computation *f;
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, true, &dims, &da) ||
      !infer_attr_int(c, ATTR_NUM_CARRIES, true, 0, &carries) ||
      !infer_attr_comp(c, ATTR_TO_APPLY, true, &f))
    return false;
  if (dims.n != 1) return infer_fail_attr(c, da, "expects exactly one dimension, got %s",
                                          infer_ints_str(c, dims.v, dims.n));
  if (dims.v[0] < 0 || dims.v[0] >= SHAPE_MAX_RANK)
    return infer_fail_attr(c, da, "scan dimension %lld is out of range", (long long)dims.v[0]);
  int d = (int)dims.v[0];
  const Attr *ca = ir_attr(c->in, ATTR_NUM_CARRIES);
  if (carries < 0) return infer_fail_attr(c, ca, "num_carries must be >= 0, got %lld", (long long)carries);
  if (carries > n)
    return infer_fail_attr(c, ca, "expects at least %lld operands to match the number of carries, "
                           "but has %d operands", (long long)carries, n);
  int ncarries = (int)carries, ninputs = n - ncarries;
  /* XLA: "Cannot infer shape for scan with no inputs" (the length of the
   * scan comes from the inputs). */
  if (ninputs == 0) return infer_fail(c, "scan needs at least one input besides the %d carries",
                                      ncarries);
  int64_t len = 0;
  bool len_dynamic = false;
  if (!scan_length(c, da, d, ninputs, &len, &len_dynamic) || !check_params(c, f, d, ninputs))
    return false;
  if (!f->root) return infer_fail_attr(c, ir_attr(c->in, ATTR_TO_APPLY), "to_apply %s has no root", f->name);
  const Shape *r = &f->root->shape;
  if (!shape_is_tuple(r)) {
    /* One array: the carry (C == 1) or the one output (C == 0). */
    if (ncarries > 1)
      return infer_fail_attr(c, ir_attr(c->in, ATTR_TO_APPLY),
                             "to_apply %s returns one value %s, but num_carries=%d", f->name,
                             infer_str(c, r), ncarries);
    if (ncarries == 1) {
      if (!check_carry(c, f, r, 0, ninputs)) return false;
      *out = *r;
      return true;
    }
    return stacked(c, r, 0, d, len, len_dynamic, out);
  }
  if (r->ntuple < ncarries)
    return infer_fail_attr(c, ir_attr(c->in, ATTR_TO_APPLY),
                           "to_apply %s returns %d values, fewer than num_carries=%d", f->name,
                           r->ntuple, ncarries);
  int noutputs = r->ntuple - ncarries;
  if (!infer_make_tuple(c, out, r->ntuple)) return false;
  for (int k = 0; k < noutputs; k++)
    if (!stacked(c, &r->tuple[k], k, d, len, len_dynamic, &out->tuple[k])) return false;
  for (int j = 0; j < ncarries; j++) {
    if (!check_carry(c, f, &r->tuple[noutputs + j], j, ninputs)) return false;
    out->tuple[noutputs + j] = r->tuple[noutputs + j];
  }
  return true;
}
