/* Reductions and their relatives: reduce, reduce-window, select-and-scatter,
 * sort, topk.  Variadic forms take k arrays plus k init values and return a
 * tuple of k results. */
#include "parser/infer_internal.h"

/* The k inputs (operands 0..k-1) have the same dimensions; init values
 * (k..2k-1) are scalars.  Fills elem/init element types. */
static bool check_inputs_and_inits(InferCtx *c, int k, EType *elem, EType *init) {
  const Shape *s0 = infer_oshape(c, 0);
  for (int i = 0; i < k; i++) {
    const Shape *s = infer_oshape(c, i), *v = infer_oshape(c, k + i);
    if (!infer_need_array(c, i) || !infer_need_array(c, k + i)) return false;
    if (s->rank != s0->rank)
      return infer_fail(c, "inputs %s and %s have different dimensions", infer_str(c, s0),
                        infer_str(c, s));
    for (int d = 0; d < s->rank; d++)
      if (s->dims[d] != s0->dims[d])
        return infer_fail(c, "inputs %s and %s have different dimensions", infer_str(c, s0),
                          infer_str(c, s));
    if (v->rank != 0)
      return infer_fail(c, "init value %d must be a scalar, got %s", i, infer_str(c, v));
    elem[i] = s->etype;
    init[i] = v->etype;
  }
  return true;
}

/* k results with dims/dyn and element types acc: an array or a tuple. */
static bool make_results(InferCtx *c, Shape *out, int k, const EType *acc, int rank,
                         const int64_t *dims, const bool *dyn) {
  /* A reducer returning a 1-tuple makes a 1-tuple result (XLA's
   * InferReduceShape / InferReduceWindowShape). */
  const Computation *f;
  if (!infer_attr_comp(c, ATTR_TO_APPLY, true, &f)) return false;
  bool tuple = f->root && shape_is_tuple(&f->root->shape);
  if (k == 1 && !tuple) return infer_make_array(c, out, acc[0], rank, dims, dyn);
  if (!infer_make_tuple(c, out, k)) return false;
  for (int i = 0; i < k; i++)
    if (!infer_make_array(c, &out->tuple[i], acc[i], rank, dims, dyn)) return false;
  return true;
}

static bool even_operands(InferCtx *c) {
  if (c->in->noperands % 2 == 0) return true;
  return infer_fail(c, "expects an even number of operands (inputs then init values), got %d",
                    c->in->noperands);
}

/* Shared start of reduce and reduce-window. */
static bool reducer_setup(InferCtx *c, int *k, EType **acc) {
  if (!even_operands(c)) return false;
  *k = c->in->noperands / 2;
  EType *elem = arena_alloc_array(c->arena, (size_t)*k, sizeof(EType));
  EType *init = arena_alloc_array(c->arena, (size_t)*k, sizeof(EType));
  *acc = arena_alloc_array(c->arena, (size_t)*k, sizeof(EType));
  if (!elem || !init || !*acc) return infer_fail(c, "out of memory");
  const Computation *f;
  if (!check_inputs_and_inits(c, *k, elem, init) ||
      !infer_attr_comp(c, ATTR_TO_APPLY, true, &f))
    return false;
  return infer_check_reducer(c, ir_attr(c->in, ATTR_TO_APPLY), f, *k, init, elem, *acc);
}

static bool infer_reduce_op(InferCtx *c, Shape *out) {
  int k;
  EType *acc;
  if (!reducer_setup(c, &k, &acc)) return false;
  const Shape *s = infer_oshape(c, 0);
  IntList dims;
  const Attr *a;
  int64_t *odims;
  bool *dyn;
  if (!infer_attr_dims(c, ATTR_DIMENSIONS, s->rank, &dims, &a) ||
      !infer_dims_buf(c, s->rank, &odims, &dyn))
    return false;
  int r = 0;
  for (int d = 0; d < s->rank; d++) {
    bool reduced = false;
    for (int j = 0; j < dims.n; j++) reduced |= dims.v[j] == d;
    if (reduced) continue;
    dyn[r] = infer_dim_dynamic(s, d);
    odims[r++] = s->dims[d];
  }
  return make_results(c, out, k, acc, r, odims, dyn);
}

/* The window attribute, one dimension per dimension of operand 0. */
static bool window_attr(InferCtx *c, const Attr **a) {
  const Shape *s = infer_oshape(c, 0);
  if (!infer_attr(c, ATTR_WINDOW, s->rank > 0, a)) return false;
  if (*a && (*a)->kind != AV_WINDOW) return infer_fail_attr(c, *a, "malformed window");
  int rank = *a ? (*a)->v.window.rank : 0;
  if (rank != s->rank)
    return infer_fail_attr(c, *a, "window has %d dimensions but the operand %s has rank %d", rank,
                           infer_str(c, s), s->rank);
  for (int i = 0; i < rank; i++)
    if ((*a)->v.window.dims[i].size < 1)
      return infer_fail_attr(c, *a, "window dimension %d has non-positive size %lld", i,
                             (long long)(*a)->v.window.dims[i].size);
  return true;
}

/* Dims of operand 0 after sliding the window over it. */
static bool window_dims(InferCtx *c, const Attr *a, int64_t **dims) {
  const Shape *s = infer_oshape(c, 0);
  *dims = infer_i64(c, s->rank);
  if (s->rank && !*dims) return infer_fail(c, "out of memory");
  for (int i = 0; i < s->rank; i++)
    if (!infer_window_out(c, a, s->dims[i], &a->v.window.dims[i], &(*dims)[i])) return false;
  return true;
}

static bool infer_reduce_window(InferCtx *c, Shape *out) {
  int k;
  EType *acc;
  const Attr *a;
  int64_t *dims;
  if (!reducer_setup(c, &k, &acc) || !window_attr(c, &a) || !window_dims(c, a, &dims))
    return false;
  const Shape *s = infer_oshape(c, 0);
  return make_results(c, out, k, acc, s->rank, dims, s->dynamic);
}

/* select-and-scatter(operand, source, init): source has the windowed shape;
 * select: (T, T) -> pred; scatter: (T, T) -> T. */
static bool infer_select_and_scatter(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 3)) return false;
  const Shape *s = infer_oshape(c, 0), *src = infer_oshape(c, 1), *init = infer_oshape(c, 2);
  const Attr *a;
  int64_t *dims;
  if (!window_attr(c, &a) || !window_dims(c, a, &dims)) return false;
  Shape win;
  if (!infer_make_array(c, &win, src->etype, s->rank, dims, NULL)) return false;
  if (!infer_shapes_match(&win, src, false))
    return infer_fail(c, "source %s must have the windowed shape of the operand, %s",
                      infer_str(c, src), infer_str(c, &win));
  if (init->rank != 0 || !infer_same_etype_ignoring_fp(init->etype, src->etype))
    return infer_fail(c, "init value %s must be a scalar of the source's type", infer_str(c, init));
  const Computation *sel, *sc;
  if (!infer_attr_comp(c, ATTR_SELECT, true, &sel) || !infer_attr_comp(c, ATTR_SCATTER, true, &sc))
    return false;
  Shape elem;
  if (!infer_make_scalar(c, &elem, s->etype)) return false;
  const Shape *pair[2] = {&elem, &elem};
  const Attr *sa = ir_attr(c->in, ATTR_SELECT);
  if (!infer_check_params(c, sa, sel, "select", 2, pair, false)) return false;
  if (!sel->root || sel->root->shape.etype != ET_PRED || sel->root->shape.rank != 0)
    return infer_fail_attr(c, sa, "select computation %s must return pred[]", sel->name);
  EType e = src->etype, i = init->etype, r;
  if (!infer_check_reducer(c, ir_attr(c->in, ATTR_SCATTER), sc, 1, &i, &e, &r)) return false;
  *out = *s;
  return true;
}

/* sort(operands...), dimensions={d}, to_apply = comparator taking two
 * scalars per operand and returning pred[]. */
static bool infer_sort(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  if (!infer_need_arrays(c, 0, n)) return false;
  const Shape *s0 = infer_oshape(c, 0);
  for (int i = 1; i < n; i++) {
    const Shape *s = infer_oshape(c, i);
    bool same = s->rank == s0->rank;
    for (int d = 0; same && d < s->rank; d++) same = s->dims[d] == s0->dims[d];
    if (!same)
      return infer_fail(c, "keys %s and values %s (operand %d) have different dimensions",
                        infer_str(c, s0), infer_str(c, s), i);
  }
  IntList dims;
  const Attr *a;
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, true, &dims, &a)) return false;
  if (dims.n != 1 || dims.v[0] < 0 || dims.v[0] >= (s0->rank ? s0->rank : 1))
    return infer_fail_attr(c, a, "dimensions %s must name one dimension of %s",
                           infer_ints_str(c, dims.v, dims.n), infer_str(c, s0));
  const Computation *f;
  if (!infer_attr_comp(c, ATTR_TO_APPLY, true, &f)) return false;
  Shape *scalars = arena_alloc_array(c->arena, (size_t)n, sizeof(Shape));
  const Shape **params = arena_alloc_array(c->arena, (size_t)(2 * n), sizeof *params);
  if (!scalars || !params) return infer_fail(c, "out of memory");
  for (int i = 0; i < n; i++) {
    if (!infer_make_scalar(c, &scalars[i], infer_oshape(c, i)->etype)) return false;
    params[2 * i] = params[2 * i + 1] = &scalars[i];
  }
  const Attr *fa = ir_attr(c->in, ATTR_TO_APPLY);
  if (!infer_check_params(c, fa, f, "comparator", 2 * n, params, false)) return false;
  if (!f->root || f->root->shape.etype != ET_PRED || f->root->shape.rank != 0)
    return infer_fail_attr(c, fa, "comparator %s must return pred[]", f->name);
  if (n == 1) {
    *out = *s0;
    return true;
  }
  if (!infer_make_tuple(c, out, n)) return false;
  for (int i = 0; i < n; i++) out->tuple[i] = *infer_oshape(c, i);
  return true;
}

/* topk(operand), k=K: (values, s32 indices), last dimension becomes K. */
static bool infer_topk(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0);
  int64_t k;
  if (!infer_attr_int(c, ATTR_K, true, 0, &k)) return false;
  if (s->rank < 1) return infer_fail(c, "operand must have rank >= 1, got %s", infer_str(c, s));
  int64_t last = s->dims[s->rank - 1];
  if (k < 0 || (last != SHAPE_DIM_UNBOUNDED && k > last))
    return infer_fail_attr(c, ir_attr(c->in, ATTR_K), "k=%lld is out of range for %s",
                           (long long)k, infer_str(c, s));
  int64_t *dims = infer_i64(c, s->rank);
  if (!dims) return infer_fail(c, "out of memory");
  for (int i = 0; i < s->rank; i++) dims[i] = s->dims[i];
  dims[s->rank - 1] = k;
  return infer_make_tuple(c, out, 2) &&
         infer_make_array(c, &out->tuple[0], s->etype, s->rank, dims, s->dynamic) &&
         infer_make_array(c, &out->tuple[1], ET_S32, s->rank, dims, s->dynamic);
}

bool infer_reduce(InferCtx *c, Shape *out) {
  switch (c->in->op) {
    case OP_REDUCE: return infer_reduce_op(c, out);
    case OP_REDUCE_WINDOW: return infer_reduce_window(c, out);
    case OP_SELECT_AND_SCATTER: return infer_select_and_scatter(c, out);
    case OP_SORT: return infer_sort(c, out);
    default: return infer_topk(c, out);
  }
}
