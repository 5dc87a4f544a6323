/* Dynamic dimension sizes through the evaluator (see eval_dynamic.h). */
#include "interp/eval_dynamic.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/eval_views.h"
#include "layout/etype_convert.h"

typedef enum {
  DK_PASS,        /* hands Values on (sizes travel with them) */
  DK_SELF,        /* the op's own code deals with sizes */
  DK_SAME,        /* result dims == operand dims */
  DK_BROADCAST,
  DK_TRANSPOSE,
  DK_RESHAPE,
  DK_SLICE,
  DK_REDUCE,
  DK_DOT,
  DK_CONCATENATE,
  DK_KEEP,        /* sort, reverse, pad: sizes kept; the op's own dims must be full */
  DK_UNSUPPORTED,
} DynKind;

static const char *custom_call_target(const Instr *in) {
  const Attr *t = ir_attr(in, ATTR_CUSTOM_CALL_TARGET);
  return t && t->kind == AV_STRING && t->v.s ? t->v.s : "";
}

static DynKind dyn_kind(const Instr *in) {
  if (opcode_class(in->op) != OPC_OTHER) return DK_SAME;
  switch (in->op) {
  case OP_PARAMETER: case OP_TUPLE: case OP_GET_TUPLE_ELEMENT: case OP_OPT_BARRIER:
  case OP_DOMAIN: case OP_ADD_DEPENDENCY: case OP_CALL: case OP_WHILE: case OP_CONDITIONAL:
  case OP_FUSION: case OP_ASYNC_START: case OP_ASYNC_UPDATE: case OP_ASYNC_DONE:
    return DK_PASS;
  case OP_SET_DIMENSION_SIZE: case OP_GET_DIMENSION_SIZE: return DK_SELF;
  case OP_CONVERT: case OP_COMPARE: case OP_SELECT: case OP_CLAMP: case OP_COPY:
  case OP_REDUCE_PRECISION: case OP_MAP:
    return DK_SAME;
  case OP_BITCAST_CONVERT:
    /* Same element width: same dims.  Otherwise a dimension is added or
     * removed (bytes of one element), which nothing here follows. */
    return in->noperands == 1 && etype_storage_bytes(in->operands[0]->shape.etype) ==
                                     etype_storage_bytes(in->shape.etype)
               ? DK_SAME
               : DK_UNSUPPORTED;
  case OP_BROADCAST: return DK_BROADCAST;
  case OP_TRANSPOSE: return DK_TRANSPOSE;
  case OP_RESHAPE: return DK_RESHAPE;
  case OP_SLICE: return DK_SLICE;
  case OP_REDUCE: return DK_REDUCE;
  case OP_DOT: return DK_DOT;
  case OP_CONCATENATE: return DK_CONCATENATE;
  case OP_SORT: case OP_REVERSE: case OP_PAD: return DK_KEEP;
  case OP_CUSTOM_CALL: {
    const char *t = custom_call_target(in);
    if (!strcmp(t, "SliceToDynamic") || !strcmp(t, "PadToStatic")) return DK_SELF;
    static const char *const identity[] = {"Sharding", "SPMDFullToShardShape",
                                           "SPMDShardToFullShape", "MoveToHost", "MoveToDevice",
                                           "annotate_device_placement", "LayoutConstraint",
                                           "SetBound", NULL};
    for (int i = 0; identity[i]; i++)
      if (!strcmp(t, identity[i])) return DK_SAME;
    return DK_UNSUPPORTED;
  }
  default: return DK_UNSUPPORTED;
  }
}

bool eval_dyn_may_apply(const Instr *in) {
  /* Pass-through ops hand sizes on untouched and the others that know
   * about sizes deal with them themselves: no need to look (a
   * get-tuple-element of a big loop state would scan it every time). */
  DynKind kind = dyn_kind(in);
  return kind != DK_PASS && kind != DK_SELF;
}

bool eval_dyn_operands(const Frame *f, const Instr *in) {
  for (int k = 0; k < in->noperands; k++)
    if (value_has_dyn(frame_operand(f, in, k))) return true;
  return false;
}

/* The first operand dimension below its bound (for messages). */
static void first_dynamic(const Frame *f, const Instr *in, int *operand, int *dim) {
  *operand = 0, *dim = 0;
  for (int k = 0; k < in->noperands; k++) {
    const Value *v = frame_operand(f, in, k);
    if (!v->dyn) continue;
    for (int d = 0; d < v->info->rank; d++)
      if (v->dyn[d] != v->info->dims[d]) {
        *operand = k, *dim = d;
        return;
      }
  }
}

static bool unsupported(const Frame *f, const Instr *in, const char *what, Error *err) {
  int k, d;
  first_dynamic(f, in, &k, &d);
  const Value *v = frame_operand(f, in, k);
  if (!v->dyn) /* only inside a tuple operand */
    return error_set(err, ERR_RUNTIME, in->offset,
                     "operand %d holds a value with a dynamic size, which %s "
                     "does not support yet",
                     k, what);
  return error_set(err, ERR_RUNTIME, in->offset,
                   "dynamic size of dimension %d of operand %d (%" PRId64
                   " of <=%" PRId64 ") reaches %s, which does not support dynamic sizes yet",
                   d, k, v->dyn[d], v->info->dims[d], what);
}

/* DK_KEEP ops: marks the dimensions the op works along (sort's dimension,
 * reverse's dimensions, pad's padded dimensions), which must hold no
 * padding: a dynamic size there would need the valid data moved. */
static bool own_dims(const Instr *in, int rank, bool *own, Error *err) {
  memset(own, 0, sizeof(bool) * (size_t)rank);
  if (in->op == OP_PAD) {
    const Attr *a = ir_attr(in, ATTR_PADDING);
    if (!a || a->kind != AV_PADDING || a->v.padding.n != rank)
      return error_set(err, ERR_RUNTIME, in->offset, "bad padding");
    for (int d = 0; d < rank; d++) {
      const PadDim *p = &a->v.padding.dims[d];
      own[d] = p->lo || p->hi || p->interior;
    }
    return true;
  }
  const IntList *dl = eval_attr_ints(in, ATTR_DIMENSIONS);
  for (int k = 0; dl && k < dl->n; k++) {
    if (dl->v[k] < 0 || dl->v[k] >= rank)
      return error_set(err, ERR_RUNTIME, in->offset, "bad dimensions");
    own[dl->v[k]] = true;
  }
  return true;
}

/* --- masking --- */

/* A copy of array v whose slots past its sizes hold the scalar `fill`
 * (esize bytes), with v's sizes. */
static bool masked_copy(EvalCtx *ctx, const Value *v, const void *fill, Value **out,
                        Error *err) {
  const ArrayInfo *ai = v->info;
  const void *src;
  DenseTmp tmp;
  if (!value_dense_read(&ctx->vc, v, &src, &tmp, err)) return false;
  char *dense = malloc((size_t)(ai->dense_bytes ? ai->dense_bytes : 1));
  if (!dense) {
    value_tmp_free(&tmp);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (ai->dense_bytes) memcpy(dense, src, (size_t)ai->dense_bytes);
  value_tmp_free(&tmp);
  int64_t idx[SHAPE_MAX_RANK] = {0};
  int r = ai->rank;
  for (int64_t i = 0; i < ai->elements; i++) {
    bool pad = false;
    for (int d = 0; d < r && !pad; d++) pad = idx[d] >= v->dyn[d];
    if (pad) memcpy(dense + i * ai->esize, fill, (size_t)ai->esize);
    for (int d = r - 1; d >= 0 && ++idx[d] == ai->dims[d]; d--) idx[d] = 0;
  }
  bool ok = value_from_dense(&ctx->vc, ai->shape, dense, "", out, err);
  free(dense);
  if (ok && !value_set_dyn(*out, v->dyn)) {
    value_unref(&ctx->vc, *out);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return ok;
}

/* Swaps operand k of `in` for a copy with its padding set to fill. */
static bool swap_masked(EvalCtx *ctx, Frame *f, const Instr *in, int k, const void *fill,
                        DynSwap *sw, Error *err) {
  int idx = in->operands[k]->index;
  const Value *v = f->vals[idx];
  if (!v || !v->dyn) return true;
  int es = v->info->esize;
  for (int i = 0; i < sw->n; i++)
    if (sw->idx[i] == idx) { /* the same value twice: fine when masked alike */
      if (memcmp(sw->fill[i], fill, (size_t)es))
        return unsupported(f, in, "the same operand with two different fill values", err);
      return true;
    }
  if (sw->n >= (int)(sizeof sw->idx / sizeof sw->idx[0]) || es > (int)sizeof sw->fill[0])
    return unsupported(f, in, opcode_name(in->op), err);
  memcpy(sw->fill[sw->n], fill, (size_t)es);
  Value *m;
  if (!masked_copy(ctx, v, fill, &m, err)) return false;
  sw->idx[sw->n] = idx;
  sw->saved[sw->n++] = f->vals[idx];
  f->vals[idx] = m;
  return true;
}

bool eval_dyn_before(EvalCtx *ctx, Frame *f, const Instr *in, DynSwap *sw, Error *err) {
  sw->n = 0;
  DynKind k = dyn_kind(in);
  if (k == DK_UNSUPPORTED) {
    if (in->op == OP_CUSTOM_CALL) {
      char what[300];
      snprintf(what, sizeof what, "custom-call %s", custom_call_target(in));
      return unsupported(f, in, what, err);
    }
    return unsupported(f, in, opcode_name(in->op), err);
  }
  /* Ops that compute on arrays take no tuples with dynamic leaves. */
  if (k != DK_PASS)
    for (int i = 0; i < in->noperands; i++) {
      const Value *v = frame_operand(f, in, i);
      if (v->ntuple && value_has_dyn(v)) return unsupported(f, in, opcode_name(in->op), err);
    }
  if (k == DK_KEEP) {
    int nin = in->op == OP_PAD ? 1 : in->noperands; /* pad's value is a scalar */
    for (int i = 0; i < nin; i++) {
      const Value *x = frame_operand(f, in, i);
      if (!x->dyn) continue;
      bool own[SHAPE_MAX_RANK];
      if (!own_dims(in, x->info->rank, own, err)) return false;
      for (int d = 0; d < x->info->rank; d++)
        if (own[d] && x->dyn[d] < x->info->dims[d])
          return error_set(err, ERR_RUNTIME, in->offset,
                           "dynamic size of dimension %d of operand %d (%" PRId64
                           " of <=%" PRId64 ") reaches %s along that dimension, which does not "
                           "support dynamic sizes yet",
                           d, i, x->dyn[d], x->info->dims[d], opcode_name(in->op));
    }
  } else if (k == DK_REDUCE) {
    int n = in->noperands / 2;
    for (int i = 0; i < n; i++) {
      const Value *init = frame_operand(f, in, n + i), *x = frame_operand(f, in, i);
      if (!x->dyn) continue;
      if (!init->info || init->info->rank != 0 || init->info->etype != x->info->etype)
        return error_set(err, ERR_RUNTIME, in->offset,
                         "init value %d must be a scalar of its input's type",
                         i);
      const void *fill;
      DenseTmp tmp;
      if (!value_dense_read(&ctx->vc, init, &fill, &tmp, err)) return false;
      bool ok = swap_masked(ctx, f, in, i, fill, sw, err);
      value_tmp_free(&tmp);
      if (!ok) return false;
    }
  } else if (k == DK_DOT) {
    static const char zero[32] = {0}; /* zero bits are 0 in every element type */
    for (int i = 0; i < in->noperands && i < 2; i++) {
      if (!swap_masked(ctx, f, in, i, zero, sw, err)) return false;
    }
  }
  return true;
}

void eval_dyn_restore(EvalCtx *ctx, Frame *f, DynSwap *sw) {
  eval_restore_operands(ctx, f, sw->n, sw->idx, sw->saved);
  sw->n = 0;
}

/* --- propagation --- */

/* Gives array *v the sizes (replacing *v by a Value sharing its buffer when
 * someone else holds it). */
static bool give_sizes(EvalCtx *ctx, Value **v, const int64_t *sizes, Error *err) {
  Value *x = *v;
  const Shape *s = x->info->shape;
  int64_t sz[SHAPE_MAX_RANK];
  for (int d = 0; d < x->info->rank; d++) /* static result dims keep their bound */
    sz[d] = s->dynamic && s->dynamic[d] && sizes[d] < x->info->dims[d] ? sizes[d]
                                                                        : x->info->dims[d];
  if (x->refs > 1) {
    Value *n = value_wrap_buffer(x->shape, x->info, x->buf);
    if (!n) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    value_unref(&ctx->vc, x);
    *v = x = n;
  }
  return value_set_dyn(x, sz) ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

/* Size of result dim d from one operand dimension; two operands that both
 * set a dimension below its bound must agree. */
static bool merge(const Instr *in, int64_t *have, int64_t bound, int64_t size, int d, Error *err) {
  if (size >= bound) return true;
  if (*have < bound && *have != size)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "operands have different dynamic sizes in dimension %d "
                     "(%" PRId64 " and %" PRId64 ")",
                     d, *have, size);
  *have = size;
  return true;
}

static bool sizes_same(const Frame *f, const Instr *in, const Value *r, int64_t *sz, Error *err) {
  for (int k = 0; k < in->noperands; k++) {
    const Value *o = frame_operand(f, in, k);
    if (!o->info || o->info->rank != r->info->rank) continue; /* scalar operands of select */
    for (int d = 0; d < r->info->rank; d++)
      if (!merge(in, &sz[d], r->info->dims[d], value_dim_size(o, d), d, err)) return false;
  }
  return true;
}

static bool sizes_broadcast(const Instr *in, const Value *o, const Value *r, int64_t *sz,
                            Error *err) {
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (!dims || dims->n != o->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad broadcast dimensions");
  for (int k = 0; k < dims->n; k++) {
    int64_t d = dims->v[k];
    if (d < 0 || d >= r->info->rank)
      return error_set(err, ERR_RUNTIME, in->offset, "bad broadcast dimensions");
    /* A size-1 operand dimension stretched to a bigger one broadcasts its
     * (single or missing) element: the result is full there. */
    if (o->info->dims[k] == r->info->dims[d]) sz[d] = value_dim_size(o, k);
  }
  return true;
}

static bool sizes_transpose(const Instr *in, const Value *o, const Value *r, int64_t *sz,
                            Error *err) {
  const IntList *p = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (!p || p->n != r->info->rank || o->info->rank != r->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad permutation");
  for (int k = 0; k < p->n; k++) {
    if (p->v[k] < 0 || p->v[k] >= o->info->rank)
      return error_set(err, ERR_RUNTIME, in->offset, "bad permutation");
    sz[k] = value_dim_size(o, (int)p->v[k]);
  }
  return true;
}

static bool sizes_slice(const Instr *in, const Value *o, const Value *r, int64_t *sz, Error *err) {
  const Attr *a = ir_attr(in, ATTR_SLICE);
  if (!a || a->kind != AV_SLICE || a->v.slice.n != o->info->rank ||
      o->info->rank != r->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad slice");
  for (int d = 0; d < o->info->rank; d++) {
    const SliceDim *s = &a->v.slice.dims[d];
    /* A full slice keeps the size; a partial one reads the bounded data
     * (XLA's inference drops the dynamic size there). */
    if (s->start == 0 && s->limit == o->info->dims[d] && s->stride <= 1)
      sz[d] = value_dim_size(o, d);
  }
  return true;
}

/* Reshape: split both dim lists into groups of equal element count; a group
 * whose valid data is a prefix of its elements (dims before the first
 * partial one are 1, dims after it full) maps to a prefix of the result
 * group, which must have the shape `1.., n, full..`. */
static bool sizes_reshape(const Frame *f, const Instr *in, const Value *o, const Value *r,
                          int64_t *sz, Error *err) {
  const int64_t *a = o->info->dims, *b = r->info->dims;
  int m = o->info->rank, n = r->info->rank;
  if (o->info->elements == 0) return true;
  int i = 0, j = 0;
  while (i < m || j < n) {
    int i0 = i, j0 = j;
    int64_t pa = i < m ? a[i++] : 1, pb = j < n ? b[j++] : 1;
    while (pa != pb) {
      if (pa < pb && i < m) pa *= a[i++];
      else if (pb < pa && j < n) pb *= b[j++];
      else
        return error_set(err, ERR_RUNTIME, in->offset,
                         "reshape changes the element count");
    }
    int k = -1;
    for (int d = i0; d < i; d++)
      if (value_dim_size(o, d) < a[d]) {
        k = d;
        break;
      }
    if (k < 0) continue; /* full group */
    bool prefix = true;
    for (int d = i0; d < k; d++) prefix &= a[d] == 1;
    for (int d = k + 1; d < i; d++) prefix &= value_dim_size(o, d) == a[d];
    int64_t count = value_dim_size(o, k);
    for (int d = k + 1; d < i; d++) count *= a[d];
    int jm = j0; /* the result group's major non-1 dimension */
    while (jm < j - 1 && b[jm] == 1) jm++;
    int64_t rest = 1;
    for (int d = jm + 1; d < j; d++) rest *= b[d];
    if (!prefix || jm >= j || count % rest)
      return unsupported(f, in, "reshape (other than of a prefix of a dimension group)", err);
    for (int d = j0; d < jm; d++) sz[d] = count ? 1 : 0;
    sz[jm] = count / rest;
  }
  return true;
}

static bool sizes_reduce(const Instr *in, const Value *o, const Value *r, int64_t *sz,
                         Error *err) {
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  int n = 0;
  for (int d = 0; d < o->info->rank; d++) {
    bool reduced = false;
    for (int k = 0; dims && k < dims->n; k++) reduced |= dims->v[k] == d;
    if (reduced) continue;
    if (n >= r->info->rank)
      return error_set(err, ERR_RUNTIME, in->offset, "bad reduce dimensions");
    sz[n++] = value_dim_size(o, d);
  }
  return true;
}

static bool listed(const IntList *l, int64_t d) {
  for (int k = 0; l && k < l->n; k++)
    if (l->v[k] == d) return true;
  return false;
}

static bool sizes_dot(const Instr *in, const Value *l, const Value *rv, const Value *r,
                      int64_t *sz, Error *err) {
  const IntList *lb = eval_attr_ints(in, ATTR_LHS_BATCH_DIMS),
                *rb = eval_attr_ints(in, ATTR_RHS_BATCH_DIMS),
                *lc = eval_attr_ints(in, ATTR_LHS_CONTRACTING_DIMS),
                *rc = eval_attr_ints(in, ATTR_RHS_CONTRACTING_DIMS);
  int n = 0, nb = lb ? lb->n : 0;
  if ((rb ? rb->n : 0) != nb) goto bad;
  for (int k = 0; k < nb; k++) {
    if (lb->v[k] < 0 || lb->v[k] >= l->info->rank || rb->v[k] < 0 || rb->v[k] >= rv->info->rank)
      goto bad;
    sz[n] = r->info->dims[n];
    if (!merge(in, &sz[n], r->info->dims[n], value_dim_size(l, (int)lb->v[k]), n, err) ||
        !merge(in, &sz[n], r->info->dims[n], value_dim_size(rv, (int)rb->v[k]), n, err))
      return false;
    n++;
  }
  for (int d = 0; d < l->info->rank; d++)
    if (!listed(lb, d) && !listed(lc, d)) {
      if (n >= r->info->rank) goto bad;
      sz[n++] = value_dim_size(l, d);
    }
  for (int d = 0; d < rv->info->rank; d++)
    if (!listed(rb, d) && !listed(rc, d)) {
      if (n >= r->info->rank) goto bad;
      sz[n++] = value_dim_size(rv, d);
    }
  return true;
bad:
  return error_set(err, ERR_RUNTIME, in->offset, "bad dot dimensions");
}

/* Concatenate: other dimensions merge; along dimension `cd` the valid part
 * of each operand is packed after the previous ones (DynamicPadder), so the
 * result data is rebuilt here from the operands. */
static bool concat_dynamic(EvalCtx *ctx, const Frame *f, const Instr *in, Value **v,
                           int64_t *sz, Error *err) {
  const IntList *dl = eval_attr_ints(in, ATTR_DIMENSIONS);
  const ArrayInfo *ri = (*v)->info;
  if (!dl || dl->n != 1 || dl->v[0] < 0 || dl->v[0] >= ri->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad concatenate dimension");
  int cd = (int)dl->v[0], rank = ri->rank;
  int64_t total = 0;
  bool packed = true; /* every operand but the last full along cd: data already right */
  for (int k = 0; k < in->noperands; k++) {
    const Value *o = frame_operand(f, in, k);
    if (!o->info || o->info->rank != rank)
      return error_set(err, ERR_RUNTIME, in->offset, "bad concatenate operand");
    for (int d = 0; d < rank; d++)
      if (d != cd && !merge(in, &sz[d], ri->dims[d], value_dim_size(o, d), d, err)) return false;
    if (k < in->noperands - 1 && value_dim_size(o, cd) < o->info->dims[cd]) packed = false;
    total += value_dim_size(o, cd);
  }
  sz[cd] = total;
  if (packed) return true;
  if (!(ri->shape->dynamic && ri->shape->dynamic[cd]))
    return unsupported(f, in, "concatenate with a static result dimension", err);
  if ((*v)->refs > 1) return unsupported(f, in, "concatenate", err);
  void *dst;
  DenseTmp dtmp;
  if (!value_dense_target(&ctx->vc, *v, &dst, &dtmp, err)) return false;
  int64_t off = 0;
  bool ok = true;
  for (int k = 0; k < in->noperands && ok; k++) {
    const Value *o = frame_operand(f, in, k);
    const ArrayInfo *oi = o->info;
    const void *src;
    DenseTmp stmp;
    if (!(ok = value_dense_read(&ctx->vc, o, &src, &stmp, err))) break;
    int64_t idx[SHAPE_MAX_RANK] = {0};
    for (int64_t i = 0; i < oi->elements; i++) {
      if (idx[cd] < value_dim_size(o, cd)) {
        int64_t at = 0;
        for (int d = 0; d < rank; d++) at = at * ri->dims[d] + idx[d] + (d == cd ? off : 0);
        memcpy((char *)dst + at * ri->esize, (const char *)src + i * oi->esize,
               (size_t)ri->esize);
      }
      for (int d = rank - 1; d >= 0 && ++idx[d] == oi->dims[d]; d--) idx[d] = 0;
    }
    value_tmp_free(&stmp);
    off += value_dim_size(o, cd);
  }
  if (!ok) {
    value_tmp_free(&dtmp);
    return false;
  }
  return value_dense_commit(&ctx->vc, *v, &dtmp, err);
}

bool eval_dyn_after(EvalCtx *ctx, const Frame *f, const Instr *in, Value **v, Error *err) {
  DynKind k = dyn_kind(in);
  if (k == DK_PASS || k == DK_SELF) return true;
  Value *r = *v;
  const Value *o = frame_operand(f, in, 0);
  /* reduce's tuple result: every leaf gets the same sizes */
  Value *leaf = r->ntuple ? r->elems[0] : r;
  if (!leaf || !leaf->info || (k != DK_SAME && k != DK_CONCATENATE && !o->info))
    return unsupported(f, in, opcode_name(in->op), err);
  int64_t sz[SHAPE_MAX_RANK];
  for (int d = 0; d < leaf->info->rank; d++) sz[d] = leaf->info->dims[d];
  bool ok;
  switch (k) {
  case DK_SAME: ok = !r->ntuple && sizes_same(f, in, r, sz, err); break;
  case DK_BROADCAST: ok = sizes_broadcast(in, o, r, sz, err); break;
  case DK_TRANSPOSE: ok = sizes_transpose(in, o, r, sz, err); break;
  case DK_RESHAPE: ok = sizes_reshape(f, in, o, r, sz, err); break;
  case DK_SLICE: ok = sizes_slice(in, o, r, sz, err); break;
  case DK_REDUCE: ok = sizes_reduce(in, o, leaf, sz, err); break;
  case DK_DOT:
    ok = in->noperands >= 2 && frame_operand(f, in, 1)->info &&
         sizes_dot(in, o, frame_operand(f, in, 1), r, sz, err);
    break;
  case DK_CONCATENATE: ok = concat_dynamic(ctx, f, in, v, sz, err); break;
  case DK_KEEP: { /* the op's own dims are full (checked before), the rest keep their sizes */
    bool own[SHAPE_MAX_RANK];
    ok = o->info->rank == leaf->info->rank && own_dims(in, o->info->rank, own, err);
    for (int i = 0; ok && i < (in->op == OP_PAD ? 1 : in->noperands); i++) {
      const Value *x = frame_operand(f, in, i);
      for (int d = 0; d < leaf->info->rank && x->info && x->info->rank == leaf->info->rank; d++)
        if (!own[d] && !merge(in, &sz[d], leaf->info->dims[d], value_dim_size(x, d), d, err))
          ok = false;
    }
    if (o->info->rank != leaf->info->rank) ok = unsupported(f, in, opcode_name(in->op), err);
    break;
  }
  default: ok = unsupported(f, in, opcode_name(in->op), err); break;
  }
  if (!ok) return false;
  if (!r->ntuple) return give_sizes(ctx, v, sz, err);
  for (int i = 0; i < r->ntuple; i++) {
    if (!r->elems[i]->info || r->elems[i]->info->rank != leaf->info->rank)
      return unsupported(f, in, opcode_name(in->op), err);
    if (!give_sizes(ctx, &r->elems[i], sz, err)) return false;
  }
  return true;
}

bool eval_set_dimension_size(EvalCtx *ctx, const Frame *f, const Instr *in, Value *v,
                             Error *err) {
  const Value *o = frame_operand(f, in, 0), *s = frame_operand(f, in, 1);
  const IntList *dl = eval_attr_ints(in, ATTR_DIMENSIONS);
  int rank = v->info->rank;
  if (!dl || dl->n != 1 || dl->v[0] < 0 || dl->v[0] >= rank || o->info->rank != rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad dimension");
  if (!s->info || s->info->rank != 0 || !etype_is_int(s->info->etype))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "the size must be an integer scalar");
  const void *p;
  DenseTmp tmp;
  if (!value_dense_read(&ctx->vc, s, &p, &tmp, err)) return false;
  int64_t size = etype_load_i64(s->info->etype, p);
  value_tmp_free(&tmp);
  int d = (int)dl->v[0];
  /* XLA stores the size unchecked and reads past the data when it exceeds
   * the bound; here that is an error. */
  if (size < 0 || size > v->info->dims[d])
    return error_set(err, ERR_RUNTIME, in->offset,
                     "size %" PRId64 " for dimension %d is outside [0, %" PRId64
                     "]",
                     size, d, v->info->dims[d]);
  int64_t sz[SHAPE_MAX_RANK];
  for (int k = 0; k < rank; k++) sz[k] = value_dim_size(o, k);
  sz[d] = size;
  return value_set_dyn(v, sz) ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}
