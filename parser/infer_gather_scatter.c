/* gather and scatter with their dimension numbers (batching dims included). */
#include "parser/infer_internal.h"

typedef struct {
  IntList l;
  const Attr *a;
} DimAttr;

static bool dim_attr(InferCtx *c, AttrKey key, bool required, DimAttr *d) {
  return infer_attr_ints(c, key, required, &d->l, &d->a);
}

static bool contains(const IntList *l, int64_t v) {
  for (int i = 0; i < l->n; i++)
    if (l->v[i] == v) return true;
  return false;
}

/* In range, unique and (when sorted) ascending. */
static bool valid_dims(InferCtx *c, const DimAttr *d, int rank, bool sorted) {
  if (!infer_check_dims(c, d->a, attr_key_name(d->a ? d->a->key : ATTR_UNKNOWN), d->l.v, d->l.n, rank))
    return false;
  for (int i = 1; sorted && i < d->l.n; i++)
    if (d->l.v[i] < d->l.v[i - 1])
      return infer_fail_attr(c, d->a, "%s %s must be sorted", attr_key_name(d->a->key),
                             infer_ints_str(c, d->l.v, d->l.n));
  return true;
}

/* The indices operand: integer array; index_vector_dim in [0, rank].
 * Returns the index vector length and the count of batch dims. */
static bool index_operand(InferCtx *c, int i, int64_t *ivd, int64_t *veclen, int *nbatch) {
  const Shape *s = infer_oshape(c, i);
  if (!infer_need_array(c, i)) return false;
  if (!etype_is_int(s->etype))
    return infer_fail(c, "indices must be integers, got %s", infer_str(c, s));
  if (!infer_attr_int(c, ATTR_INDEX_VECTOR_DIM, true, 0, ivd)) return false;
  if (*ivd < 0 || *ivd > s->rank)
    return infer_fail_attr(c, ir_attr(c->in, ATTR_INDEX_VECTOR_DIM),
                           "index_vector_dim %lld out of range for indices %s", (long long)*ivd,
                           infer_str(c, s));
  *veclen = *ivd == s->rank ? 1 : s->dims[*ivd];
  *nbatch = *ivd == s->rank ? s->rank : s->rank - 1;
  return true;
}

/* Size of the b-th batch dimension of the indices (index vector dim skipped). */
static int64_t batch_dim(const Shape *idx, int64_t ivd, int b, bool *dyn) {
  int d = b < ivd ? b : b + 1;
  *dyn = infer_dim_dynamic(idx, d);
  return idx->dims[d];
}

static bool index_map(InferCtx *c, AttrKey key, int64_t veclen, int operand_rank, DimAttr *m) {
  if (!dim_attr(c, key, true, m) || !valid_dims(c, m, operand_rank, false)) return false;
  if (m->l.n != veclen)
    return infer_fail_attr(c, m->a, "%s has %d entries but the index vector has %lld",
                           attr_key_name(key), m->l.n, (long long)veclen);
  return true;
}

static bool batching_pair(InferCtx *c, AttrKey op_key, AttrKey idx_key, int operand_rank,
                          int idx_rank, int64_t ivd, DimAttr *ob) {
  DimAttr ib;
  if (!dim_attr(c, op_key, false, ob) || !valid_dims(c, ob, operand_rank, true) ||
      !dim_attr(c, idx_key, false, &ib) || !valid_dims(c, &ib, idx_rank, false))
    return false;
  if (ob->l.n != ib.l.n)
    return infer_fail_attr(c, ob->a ? ob->a : ib.a, "%s and %s must have the same length",
                           attr_key_name(op_key), attr_key_name(idx_key));
  if (contains(&ib.l, ivd))
    return infer_fail_attr(c, ib.a, "%s must not contain index_vector_dim", attr_key_name(idx_key));
  return true;
}

static bool infer_gather(InferCtx *c, Shape *out) {
  if (!infer_need_array(c, 0)) return false;
  const Shape *s = infer_oshape(c, 0), *idx = infer_oshape(c, 1);
  int64_t ivd, veclen;
  int nbatch;
  DimAttr off, col, map, ob;
  IntList sizes;
  const Attr *sa;
  if (!index_operand(c, 1, &ivd, &veclen, &nbatch) ||
      !dim_attr(c, ATTR_OFFSET_DIMS, true, &off) ||
      !dim_attr(c, ATTR_COLLAPSED_SLICE_DIMS, true, &col) ||
      !valid_dims(c, &col, s->rank, true) ||
      !index_map(c, ATTR_START_INDEX_MAP, veclen, s->rank, &map) ||
      !batching_pair(c, ATTR_OPERAND_BATCHING_DIMS, ATTR_START_INDICES_BATCHING_DIMS, s->rank,
                     idx->rank, ivd, &ob) ||
      !infer_attr_ints(c, ATTR_SLICE_SIZES, true, &sizes, &sa))
    return false;
  int out_rank = off.l.n + nbatch;
  if (out_rank > SHAPE_MAX_RANK) return infer_fail(c, "result rank %d exceeds %d", out_rank, SHAPE_MAX_RANK);
  if (!valid_dims(c, &off, out_rank, true)) return false;
  if (sizes.n != s->rank)
    return infer_fail_attr(c, sa, "slice_sizes %s must have one entry per dimension of %s",
                           infer_ints_str(c, sizes.v, sizes.n), infer_str(c, s));
  for (int i = 0; i < s->rank; i++) {
    if (sizes.v[i] < 0 || (s->dims[i] != SHAPE_DIM_UNBOUNDED && sizes.v[i] > s->dims[i]))
      return infer_fail_attr(c, sa, "slice size %lld out of range for dimension %d of %s",
                             (long long)sizes.v[i], i, infer_str(c, s));
    if ((contains(&col.l, i) || contains(&ob.l, i)) && sizes.v[i] > 1)
      return infer_fail_attr(c, sa, "collapsed or batching dimension %d must have slice size <= 1",
                             i);
    if (contains(&col.l, i) && contains(&ob.l, i))
      return infer_fail_attr(c, col.a, "dimension %d is both collapsed and a batching dimension", i);
  }
  if (off.l.n + col.l.n + ob.l.n != s->rank)
    return infer_fail_attr(c, off.a, "offset_dims (%d), collapsed_slice_dims (%d) and "
                           "operand_batching_dims (%d) must add up to the operand rank %d",
                           off.l.n, col.l.n, ob.l.n, s->rank);
  int64_t dims[SHAPE_MAX_RANK];
  bool dyn[SHAPE_MAX_RANK];
  int next_op = 0, next_batch = 0;
  for (int i = 0; i < out_rank; i++) {
    if (contains(&off.l, i)) {
      while (contains(&col.l, next_op) || contains(&ob.l, next_op)) next_op++;
      dyn[i] = false;
      dims[i] = sizes.v[next_op++];
    } else {
      dims[i] = batch_dim(idx, ivd, next_batch++, &dyn[i]);
    }
  }
  return infer_make_array(c, out, s->etype, out_rank, dims, dyn);
}

static bool infer_scatter(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  if (n % 2 == 0)
    return infer_fail(c, "expects k operands, the indices and k updates (an odd count), got %d", n);
  int k = n / 2;
  if (!infer_need_arrays(c, 0, k) || !infer_need_arrays(c, k + 1, k)) return false;
  const Shape *s = infer_oshape(c, 0), *idx = infer_oshape(c, k), *u = infer_oshape(c, k + 1);
  for (int i = 1; i < k; i++) {
    const Shape *si = infer_oshape(c, i), *ui = infer_oshape(c, k + 1 + i);
    Shape a, b;
    infer_with_etype(&a, si, s->etype);
    infer_with_etype(&b, ui, u->etype);
    if (!infer_shapes_match(&a, s, false) || !infer_shapes_match(&b, u, false))
      return infer_fail(c, "all operands (and all updates) must have the same dimensions");
  }
  int64_t ivd, veclen;
  int nbatch;
  DimAttr win, ins, map, ib;
  if (!index_operand(c, k, &ivd, &veclen, &nbatch) ||
      !dim_attr(c, ATTR_UPDATE_WINDOW_DIMS, true, &win) ||
      !valid_dims(c, &win, u->rank, true) ||
      !dim_attr(c, ATTR_INSERTED_WINDOW_DIMS, true, &ins) ||
      !valid_dims(c, &ins, s->rank, true) ||
      !index_map(c, ATTR_SCATTER_DIMS_TO_OPERAND_DIMS, veclen, s->rank, &map) ||
      !batching_pair(c, ATTR_INPUT_BATCHING_DIMS, ATTR_SCATTER_INDICES_BATCHING_DIMS, s->rank,
                     idx->rank, ivd, &ib))
    return false;
  if (win.l.n + ins.l.n + ib.l.n != s->rank)
    return infer_fail_attr(c, win.a, "update_window_dims (%d), inserted_window_dims (%d) and "
                           "input_batching_dims (%d) must add up to the operand rank %d",
                           win.l.n, ins.l.n, ib.l.n, s->rank);
  if (u->rank != win.l.n + nbatch)
    return infer_fail(c, "updates %s must have rank %d (%d window + %d scatter dimensions)",
                      infer_str(c, u), win.l.n + nbatch, win.l.n, nbatch);
  int next_op = 0, next_batch = 0;
  for (int i = 0; i < u->rank; i++) {
    if (contains(&win.l, i)) {
      while (contains(&ins.l, next_op) || contains(&ib.l, next_op)) next_op++;
      int64_t bound = s->dims[next_op++];
      if (u->dims[i] > bound && bound != SHAPE_DIM_UNBOUNDED)
        return infer_fail(c, "updates %s dimension %d is larger than operand %s dimension %d",
                          infer_str(c, u), i, infer_str(c, s), next_op - 1);
    } else {
      bool dyn;
      int64_t want = batch_dim(idx, ivd, next_batch++, &dyn);
      if (u->dims[i] != want && want != SHAPE_DIM_UNBOUNDED && u->dims[i] != SHAPE_DIM_UNBOUNDED)
        return infer_fail(c, "updates %s scatter dimension %d must match the indices %s", infer_str(c, u),
                          i, infer_str(c, idx));
    }
  }
  EType *ot = arena_alloc_array(c->arena, (size_t)k, sizeof(EType));
  EType *ut = arena_alloc_array(c->arena, (size_t)k, sizeof(EType));
  EType *acc = arena_alloc_array(c->arena, (size_t)k, sizeof(EType));
  const Computation *f;
  if (!ot || !ut || !acc) return infer_fail(c, "out of memory");
  for (int i = 0; i < k; i++) ot[i] = infer_oshape(c, i)->etype, ut[i] = infer_oshape(c, k + 1 + i)->etype;
  if (!infer_attr_comp(c, ATTR_TO_APPLY, true, &f) ||
      !infer_check_reducer(c, ir_attr(c->in, ATTR_TO_APPLY), f, k, ot, ut, acc))
    return false;
  if (k == 1) {
    *out = *s;
    return true;
  }
  if (!infer_make_tuple(c, out, k)) return false;
  for (int i = 0; i < k; i++) out->tuple[i] = *infer_oshape(c, i);
  return true;
}

bool infer_gather_scatter(InferCtx *c, Shape *out) {
  return c->in->op == OP_GATHER ? infer_gather(c, out) : infer_scatter(c, out);
}
