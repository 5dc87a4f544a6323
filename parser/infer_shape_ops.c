/* Data movement that changes the shape: broadcast, reshape, transpose,
 * reverse, slices, concatenate, pad, iota, dimension sizes. */
#include <string.h>

#include "parser/infer_internal.h"

/* Operand 0 with its dims replaced (dims NULL: unchanged). */
static bool operand_with_dims(InferCtx *c, Shape *out, int rank, const int64_t *dims,
                              const bool *dyn) {
  return infer_make_array(c, out, infer_oshape(c, 0)->etype, rank, dims, dyn);
}

/* broadcast: operand dimension i becomes result dimension dims[i]; sizes
 * must agree exactly (HLO has no degenerate broadcasting here). */
static bool infer_broadcast(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0), *d = &c->in->shape;
  IntList dims;
  const Attr *a;
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, s->rank > 0, &dims, &a)) return false;
  if (!shape_is_array(d)) return infer_fail(c, "result must be an array, declared %s", infer_str(c, d));
  if (dims.n != s->rank)
    return infer_fail_attr(c, a, "dimensions %s must have one entry per operand dimension of %s",
                           infer_ints_str(c, dims.v, dims.n), infer_str(c, s));
  if (!infer_check_dims(c, a, "dimensions", dims.v, dims.n, d->rank)) return false;
  for (int i = 0; i < dims.n; i++)
    if (d->dims[dims.v[i]] != s->dims[i] && s->dims[i] != SHAPE_DIM_UNBOUNDED &&
        d->dims[dims.v[i]] != SHAPE_DIM_UNBOUNDED)
      return infer_fail(c, "operand %s dimension %d (size %lld) does not match result dimension "
                        "%lld (size %lld) of %s",
                        infer_str(c, s), i, (long long)s->dims[i], (long long)dims.v[i],
                        (long long)d->dims[dims.v[i]], infer_str(c, d));
  infer_with_etype(out, d, s->etype);
  return true;
}

/* reshape: same element count; the dims come from the declared shape. */
static bool infer_reshape(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0), *d = &c->in->shape;
  if (!shape_is_array(d)) return infer_fail(c, "result must be an array, declared %s", infer_str(c, d));
  int64_t a, b;
  if (shape_element_count(s, &a) && shape_element_count(d, &b) && a != b)
    return infer_fail(c, "operand %s has %lld elements but the result %s has %lld",
                      infer_str(c, s), (long long)a, infer_str(c, d), (long long)b);
  infer_with_etype(out, d, s->etype);
  return true;
}

/* dynamic-reshape(operand, size_0, ..., size_{r-1}) */
static bool infer_dynamic_reshape(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *d = &c->in->shape;
  if (!shape_is_array(d)) return infer_fail(c, "result must be an array, declared %s", infer_str(c, d));
  if (c->in->noperands != d->rank + 1)
    return infer_fail(c, "expects one size operand per result dimension (%d), got %d", d->rank,
                      c->in->noperands - 1);
  for (int i = 1; i < c->in->noperands; i++)
    if (!infer_need_int_scalar(c, i, "dimension size")) return false;
  infer_with_etype(out, d, infer_oshape(c, 0)->etype);
  return true;
}

static bool infer_transpose(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0);
  IntList p;
  const Attr *a;
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, true, &p, &a)) return false;
  if (p.n != s->rank || !infer_is_permutation(p.v, p.n))
    return infer_fail_attr(c, a, "dimensions %s is not a permutation of the dimensions of %s",
                           infer_ints_str(c, p.v, p.n), infer_str(c, s));
  int64_t *dims;
  bool *dyn;
  if (!infer_dims_buf(c, s->rank, &dims, &dyn)) return false;
  for (int i = 0; i < s->rank; i++) {
    dims[i] = s->dims[p.v[i]];
    dyn[i] = infer_dim_dynamic(s, (int)p.v[i]);
  }
  return operand_with_dims(c, out, s->rank, dims, dyn);
}

static bool infer_reverse(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0);
  IntList dims;
  const Attr *a;
  if (!infer_attr_dims(c, ATTR_DIMENSIONS, s->rank, &dims, &a)) return false;
  *out = *s;
  return true;
}

static bool infer_slice(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0);
  const Attr *a;
  if (!infer_attr(c, ATTR_SLICE, true, &a)) return false;
  if (a->kind != AV_SLICE || a->v.slice.n != s->rank)
    return infer_fail_attr(c, a, "slice must have one range per dimension of %s", infer_str(c, s));
  int64_t *dims = infer_i64(c, s->rank);
  if (s->rank && !dims) return infer_fail(c, "out of memory");
  for (int i = 0; i < s->rank; i++) {
    const SliceDim *r = &a->v.slice.dims[i];
    int64_t size = s->dims[i];
    if (r->stride < 1 || r->start < 0 || r->start > r->limit ||
        (size != SHAPE_DIM_UNBOUNDED && r->limit > size))
      return infer_fail_attr(c, a, "slice [%lld:%lld:%lld] is not valid for dimension %d of %s",
                             (long long)r->start, (long long)r->limit, (long long)r->stride, i,
                             infer_str(c, s));
    dims[i] = (r->limit - r->start) / r->stride + ((r->limit - r->start) % r->stride != 0);
  }
  return operand_with_dims(c, out, s->rank, dims, s->dynamic);
}

/* Start indices after the operand(s): one integer scalar per dimension of
 * operand 0, or (the legacy form XLA still takes) one rank-1 integer vector
 * of rank(operand) entries.  As in XLA's InferDynamicSliceShape, a rank-1
 * first index selects the legacy form, which then allows no other index:
 * f32[4] sliced at s32[1] is the legacy form too. */
static bool check_start_indices(InferCtx *c, int first) {
  const Shape *s = infer_oshape(c, 0);
  int n = c->in->noperands - first;
  if (n >= 1 && shape_is_array(infer_oshape(c, first)) && infer_oshape(c, first)->rank == 1) {
    const Shape *v = infer_oshape(c, first);
    if (n != 1)
      return infer_fail(c, "a start index vector %s must be the only start index, got %d",
                        infer_str(c, v), n);
    if (!etype_is_int(v->etype) || v->dims[0] != s->rank)
      return infer_fail(c, "start index vector %s must be an integer vector of %d elements",
                        infer_str(c, v), s->rank);
    return true;
  }
  if (n != s->rank)
    return infer_fail(c, "expects %d start indices (one per dimension of %s), got %d", s->rank,
                      infer_str(c, s), n);
  for (int i = first; i < first + n; i++) {
    if (!infer_need_int_scalar(c, i, "start index")) return false;
    if (infer_oshape(c, i)->etype != infer_oshape(c, first)->etype)
      return infer_fail(c, "start indices must all have the same type, got %s and %s",
                        infer_str(c, infer_oshape(c, first)), infer_str(c, infer_oshape(c, i)));
  }
  return true;
}

static bool infer_dynamic_slice(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0) || !check_start_indices(c, 1)) return false;
  const Shape *s = infer_oshape(c, 0);
  IntList sizes;
  const Attr *a;
  if (!infer_attr_ints(c, ATTR_DYNAMIC_SLICE_SIZES, true, &sizes, &a)) return false;
  if (sizes.n != s->rank)
    return infer_fail_attr(c, a, "dynamic_slice_sizes %s must have one entry per dimension of %s",
                           infer_ints_str(c, sizes.v, sizes.n), infer_str(c, s));
  for (int i = 0; i < s->rank; i++)
    if (sizes.v[i] < 0 || (s->dims[i] != SHAPE_DIM_UNBOUNDED && sizes.v[i] > s->dims[i]))
      return infer_fail_attr(c, a, "slice size %lld is out of range for dimension %d of %s",
                             (long long)sizes.v[i], i, infer_str(c, s));
  return operand_with_dims(c, out, s->rank, sizes.v, NULL);
}

static bool infer_dynamic_update_slice(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 2) || !check_start_indices(c, 2)) return false;
  const Shape *s = infer_oshape(c, 0), *u = infer_oshape(c, 1);
  if (!infer_same_etype_ignoring_fp(s->etype, u->etype))
    return infer_fail(c, "update %s and operand %s have different element types",
                      infer_str(c, u), infer_str(c, s));
  if (u->rank != s->rank)
    return infer_fail(c, "update %s and operand %s have different ranks", infer_str(c, u),
                      infer_str(c, s));
  for (int i = 0; i < s->rank; i++)
    if (u->dims[i] < 0 ? u->dims[i] != SHAPE_DIM_UNBOUNDED
                       : (s->dims[i] != SHAPE_DIM_UNBOUNDED && u->dims[i] > s->dims[i]))
      return infer_fail(c, "update %s is larger than the operand %s in dimension %d",
                        infer_str(c, u), infer_str(c, s), i);
  *out = *s;
  return true;
}

static bool infer_concatenate(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  if (!infer_need_arrays(c, 0, n)) return false;
  const Shape *s0 = infer_oshape(c, 0);
  IntList dims;
  const Attr *a;
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, true, &dims, &a)) return false;
  if (dims.n != 1)
    return infer_fail_attr(c, a, "dimensions must have exactly one entry, got %s",
                           infer_ints_str(c, dims.v, dims.n));
  int64_t d = dims.v[0];
  if (d < 0 || d >= s0->rank)
    return infer_fail_attr(c, a, "concatenate dimension %lld out of range for %s", (long long)d,
                           infer_str(c, s0));
  int64_t *odims;
  bool *dyn;
  if (!infer_dims_buf(c, s0->rank, &odims, &dyn)) return false;
  memcpy(odims, s0->dims, (size_t)s0->rank * sizeof *odims);
  EType t = s0->etype;
  for (int i = 0; i < n; i++) {
    const Shape *s = infer_oshape(c, i);
    if (s->rank != s0->rank)
      return infer_fail(c, "cannot concatenate arrays of different ranks: %s and %s",
                        infer_str(c, s0), infer_str(c, s));
    if (!infer_same_etype_ignoring_fp(s->etype, s0->etype))
      return infer_fail(c, "cannot concatenate arrays of different element types: %s and %s",
                        infer_str(c, s0), infer_str(c, s));
    for (int k = 0; k < s0->rank; k++) {
      dyn[k] |= infer_dim_dynamic(s, k);
      if (k != d && s->dims[k] != s0->dims[k])
        return infer_fail(c, "operand shapes %s and %s differ in dimension %d, which is not the "
                          "concatenated dimension %lld",
                          infer_str(c, s0), infer_str(c, s), k, (long long)d);
    }
    if (i > 0) {
      if (s->dims[d] == SHAPE_DIM_UNBOUNDED || odims[d] == SHAPE_DIM_UNBOUNDED)
        odims[d] = SHAPE_DIM_UNBOUNDED;
      else if (__builtin_add_overflow(odims[d], s->dims[d], &odims[d]))
        return infer_fail(c, "concatenated dimension size overflows");
    }
    t = infer_higher_precision(t, s->etype);
  }
  return infer_make_array(c, out, t, s0->rank, odims, dyn);
}

static bool infer_pad(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 2)) return false;
  const Shape *s = infer_oshape(c, 0), *v = infer_oshape(c, 1);
  if (v->rank != 0) return infer_fail(c, "padding value must be a scalar, got %s", infer_str(c, v));
  if (!infer_same_etype_ignoring_fp(s->etype, v->etype))
    return infer_fail(c, "padding value %s and operand %s have different element types",
                      infer_str(c, v), infer_str(c, s));
  const Attr *a;
  if (!infer_attr(c, ATTR_PADDING, true, &a)) return false;
  if (a->kind != AV_PADDING || a->v.padding.n != s->rank)
    return infer_fail_attr(c, a, "padding must have one entry per dimension of %s", infer_str(c, s));
  int64_t *dims = infer_i64(c, s->rank);
  if (s->rank && !dims) return infer_fail(c, "out of memory");
  for (int i = 0; i < s->rank; i++) {
    const PadDim *p = &a->v.padding.dims[i];
    int64_t n = s->dims[i], r;
    if (p->interior < 0)
      return infer_fail_attr(c, a, "interior padding cannot be negative (dimension %d)", i);
    if (n == SHAPE_DIM_UNBOUNDED) {
      dims[i] = n;
      continue;
    }
    bool ovf = __builtin_mul_overflow(n > 0 ? n - 1 : 0, p->interior, &r);
    ovf |= __builtin_add_overflow(r, n, &r);
    ovf |= __builtin_add_overflow(r, p->lo, &r);
    ovf |= __builtin_add_overflow(r, p->hi, &r);
    if (ovf) return infer_fail_attr(c, a, "padded size of dimension %d overflows", i);
    if (r < 0)
      return infer_fail_attr(c, a, "padding makes dimension %d of %s negative (%lld)", i,
                             infer_str(c, s), (long long)r);
    dims[i] = r;
  }
  return infer_make_array(c, out, infer_higher_precision(s->etype, v->etype), s->rank, dims,
                          s->dynamic);
}

static bool infer_iota(InferCtx *c, Shape *out) {
  const Shape *d = &c->in->shape;
  int64_t dim;
  if (!infer_attr_int(c, ATTR_IOTA_DIMENSION, true, 0, &dim)) return false;
  if (!shape_is_array(d) || !infer_is_numeric(d->etype) || d->rank == 0)
    return infer_fail(c, "result must be a numeric array of rank >= 1, declared %s", infer_str(c, d));
  if (dim < 0 || dim >= d->rank)
    return infer_fail_attr(c, ir_attr(c->in, ATTR_IOTA_DIMENSION),
                           "iota_dimension %lld out of range for %s", (long long)dim, infer_str(c, d));
  *out = *d;
  return true;
}

/* get-dimension-size / set-dimension-size: dimensions={d} */
static bool dimension_attr(InferCtx *c, int64_t *d) {
  IntList dims;
  const Attr *a;
  const Shape *s = infer_oshape(c, 0);
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, true, &dims, &a)) return false;
  if (dims.n != 1 || dims.v[0] < 0 || dims.v[0] >= s->rank)
    return infer_fail_attr(c, a, "dimensions %s must name one dimension of %s",
                           infer_ints_str(c, dims.v, dims.n), infer_str(c, s));
  *d = dims.v[0];
  return true;
}

static bool infer_dimension_size(InferCtx *c, Shape *out) {
  int64_t d = 0;
  if (!infer_need_array(c, 0) || !dimension_attr(c, &d)) return false;
  if (c->in->op == OP_GET_DIMENSION_SIZE) return infer_make_scalar(c, out, ET_S32);
  if (!infer_need_int_scalar(c, 1, "dimension size")) return false;
  const Shape *s = infer_oshape(c, 0);
  bool *dyn = infer_bools(c, s->rank);
  if (!dyn) return infer_fail(c, "out of memory");
  for (int i = 0; i < s->rank; i++) dyn[i] = infer_dim_dynamic(s, i) || i == d;
  return infer_make_array(c, out, s->etype, s->rank, s->dims, dyn);
}

bool infer_shape_op(InferCtx *c, Shape *out) {
  switch (c->in->op) {
    case OP_BROADCAST: return infer_broadcast(c, out);
    case OP_RESHAPE: return infer_reshape(c, out);
    case OP_DYNAMIC_RESHAPE: return infer_dynamic_reshape(c, out);
    case OP_TRANSPOSE: return infer_transpose(c, out);
    case OP_REVERSE: return infer_reverse(c, out);
    case OP_SLICE: return infer_slice(c, out);
    case OP_DYNAMIC_SLICE: return infer_dynamic_slice(c, out);
    case OP_DYNAMIC_UPDATE_SLICE: return infer_dynamic_update_slice(c, out);
    case OP_CONCATENATE: return infer_concatenate(c, out);
    case OP_PAD: return infer_pad(c, out);
    case OP_IOTA: return infer_iota(c, out);
    default: return infer_dimension_size(c, out);
  }
}
