/* The evaluators of data movement: broadcast, reshape, transpose, slice,
 * reverse, pad, concatenate, dynamic-slice, dynamic-update-slice, iota,
 * copy, bitcast, set-dimension-size.  They move elements through the
 * kernels of kernels/k_movement.h on dense row-major views of the operands
 * (value_dense_read / value_dense_target), whatever their layouts. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/eval_dynamic.h"
#include "interp/eval_internal.h"
#include "interp/eval_ops.h"
#include "interp/eval_views.h"
#include "kernels/k_movement.h"
#include "layout/etype_convert.h"

/* Runs `body` with a dense view of operand 0 and a dense target of a fresh
 * result. */
typedef bool (*MoveFn)(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src,
                       const void *sdata, Value *dst, void *ddata, Error *err);

static bool move_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, MoveFn fn,
                    Value **out, Error *err) {
  Value *src = frame_operand(f, in, 0);
  if (!eval_require_array(in, src, "the operand", err)) return false;
  Dense d;
  if (!eval_dense_in(ctx, src, &d, err)) return false;
  Value *v;
  void *dd;
  DenseTmp dtmp = {NULL};
  if (!eval_new_target(ctx, rs, false, &v, &dd, &dtmp, err)) {
    value_tmp_free(&d.tmp);
    return false;
  }
  bool ok = fn(ctx, f, in, src, d.data, v, dd, err) && value_dense_commit(&ctx->vc, v, &dtmp, err);
  value_tmp_free(&dtmp); /* when fn failed before the commit */
  value_tmp_free(&d.tmp);
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

static bool mv_broadcast(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src,
                         const void *s, Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info, *di = dst->info;
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  int64_t bd[K_MAX_RANK];
  if (si->rank > K_MAX_RANK || di->rank > K_MAX_RANK)
    return error_set(err, ERR_RUNTIME, in->offset, "rank too large");
  if (si->rank > 0) {
    if (!dims || dims->n != si->rank)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "broadcast needs one dimension per operand dimension");
    for (int k = 0; k < si->rank; k++) {
      bd[k] = dims->v[k];
      if (bd[k] < 0 || bd[k] >= di->rank ||
          (si->dims[k] != 1 && si->dims[k] != di->dims[bd[k]]))
        return error_set(err, ERR_RUNTIME, in->offset,
                         "broadcast dimension %d does not fit", k);
    }
  }
  if (di->elements == 0) return true;
  k_broadcast(d, di->dims, di->rank, s, si->dims, si->rank, bd, (size_t)di->esize);
  return true;
}

static bool mv_reshape(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                       Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  if (src->info->elements != dst->info->elements || src->info->esize != dst->info->esize)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "reshape changes the element count");
  if (dst->info->dense_bytes) memcpy(d, s, (size_t)dst->info->dense_bytes);
  return true;
}

static bool mv_transpose(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src,
                         const void *s, Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info;
  const IntList *perm = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (!perm || perm->n != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad permutation");
  uint64_t seen = 0;
  for (int k = 0; k < si->rank; k++) {
    int64_t p = perm->v[k];
    if (p < 0 || p >= si->rank || (si->rank <= 64 && (seen >> p & 1)) ||
        si->dims[p] != dst->info->dims[k])
      return error_set(err, ERR_RUNTIME, in->offset, "bad permutation");
    seen |= (uint64_t)1 << p;
  }
  if (dst->info->elements == 0) return true;
  k_transpose(d, s, si->dims, perm->v, si->rank, (size_t)si->esize);
  return true;
}

static bool mv_slice(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                     Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info, *di = dst->info;
  const Attr *a = ir_attr(in, ATTR_SLICE);
  if (!a || a->kind != AV_SLICE || a->v.slice.n != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "slice needs one range per dimension");
  int64_t start[K_MAX_RANK], stride[K_MAX_RANK];
  for (int k = 0; k < si->rank; k++) {
    const SliceDim *sd = &a->v.slice.dims[k];
    int64_t st = sd->stride > 0 ? sd->stride : 1;
    /* ceil((limit - start) / stride) without overflow (start >= 0 checked first) */
    int64_t want = sd->start >= 0 && sd->limit > sd->start ? 1 + (sd->limit - sd->start - 1) / st : 0;
    if (sd->start < 0 || sd->limit > si->dims[k] || want != di->dims[k])
      return error_set(err, ERR_RUNTIME, in->offset, "slice range %d out of bounds", k);
    start[k] = sd->start;
    stride[k] = st;
  }
  if (di->elements == 0) return true;
  k_slice(d, di->dims, s, si->dims, si->rank, start, stride, (size_t)si->esize);
  return true;
}

static bool mv_reverse(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                       Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info;
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  uint8_t rev[K_MAX_RANK] = {0};
  for (int k = 0; dims && k < dims->n; k++) {
    if (dims->v[k] < 0 || dims->v[k] >= si->rank)
      return error_set(err, ERR_RUNTIME, in->offset, "bad reverse dimension");
    rev[dims->v[k]] = 1;
  }
  if (si->elements == 0) return true;
  (void)dst;
  k_reverse(d, s, si->dims, rev, si->rank, (size_t)si->esize);
  return true;
}

static bool mv_identity(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                        Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  if (src->info->dense_bytes != dst->info->dense_bytes)
    return error_set(err, ERR_RUNTIME, in->offset, "operand and result sizes differ");
  if (dst->info->dense_bytes) memcpy(d, s, (size_t)dst->info->dense_bytes);
  return true;
}

/* Op: pad
 * Operands: an array, a scalar padding value
 * Attributes: padding (lo_hi_interior per dimension)
 *
 * The operand with padding-value elements added before (lo), after (hi) and
 * between (interior) its elements in each dimension; negative lo or hi remove
 * elements instead.
 *
 * Rule: XLA operation semantics, Pad.
 * Refuses: nothing the verifier accepts.
 */
bool eval_pad(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
              Error *err) {
  Value *src = frame_operand(f, in, 0), *pv = frame_operand(f, in, 1);
  if (!eval_require_array(in, src, "the operand", err) || !eval_require_array(in, pv, "the padding value", err))
    return false;
  const ArrayInfo *si = src->info;
  int64_t lo[K_MAX_RANK], interior[K_MAX_RANK];
  const Attr *a = ir_attr(in, ATTR_PADDING);
  if (!a || a->kind != AV_PADDING || a->v.padding.n != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "padding needs one entry per dimension");
  for (int k = 0; k < si->rank; k++) {
    const PadDim *p = &a->v.padding.dims[k];
    lo[k] = p->lo;
    interior[k] = p->interior;
    int64_t n = si->dims[k];
    int64_t want = p->lo + p->hi + n + (n > 0 ? (n - 1) * p->interior : 0);
    if (p->interior < 0 || want != rs->dims[k])
      return error_set(err, ERR_RUNTIME, in->offset, "padding of dimension %d does not give the result size", k);
  }
  Dense ds, dp;
  if (!eval_dense_in(ctx, src, &ds, err)) return false;
  if (!eval_dense_in(ctx, pv, &dp, err)) {
    value_tmp_free(&ds.tmp);
    return false;
  }
  Value *v;
  void *dd;
  DenseTmp dtmp = {NULL};
  bool ok = eval_new_target(ctx, rs, false, &v, &dd, &dtmp, err);
  if (ok) {
    k_pad(dd, v->info->dims, ds.data, si->dims, si->rank, lo, interior, dp.data,
          (size_t)si->esize);
    ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
    if (!ok) value_unref(&ctx->vc, v);
  }
  value_tmp_free(&ds.tmp);
  value_tmp_free(&dp.tmp);
  if (ok) *out = v;
  return ok;
}

/* Op: concatenate
 * Operands: one or more arrays
 * Attributes: dimensions (one dimension)
 *
 * The operands joined one after another along the dimension; the other
 * dimensions agree.
 *
 * Rule: XLA operation semantics, ConcatInDim (Concatenate).
 * Refuses: nothing the verifier accepts.
 */
bool eval_concatenate(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                      Value **out, Error *err) {
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  int rank = rs->rank;
  if (!dims || dims->n != 1 || dims->v[0] < 0 || dims->v[0] >= rank)
    return error_set(err, ERR_RUNTIME, in->offset, "concatenate needs one dimension");
  int cd = (int)dims->v[0];
  Value *v;
  void *dd;
  DenseTmp dtmp = {NULL};
  if (!eval_new_target(ctx, rs, false, &v, &dd, &dtmp, err)) return false;
  int64_t at = 0;
  bool ok = true;
  for (int k = 0; k < in->noperands && ok; k++) {
    Value *o = frame_operand(f, in, k);
    if (!eval_require_array(in, o, "an operand", err) || o->info->rank != rank) {
      ok = o && o->info ? error_set(err, ERR_RUNTIME, in->offset, "operand %d has the wrong rank", k) : false;
      break;
    }
    int64_t zero[K_MAX_RANK] = {0}, dst_start[K_MAX_RANK] = {0};
    dst_start[cd] = at;
    if (at + o->info->dims[cd] > rs->dims[cd]) {
      ok = error_set(err, ERR_RUNTIME, in->offset, "operands exceed the result");
      break;
    }
    Dense d;
    if (!eval_dense_in(ctx, o, &d, err)) {
      ok = false;
      break;
    }
    if (o->info->elements)
      k_move_box(dd, rs->dims, dst_start, d.data, o->info->dims, zero, o->info->dims, rank,
                 (size_t)o->info->esize);
    value_tmp_free(&d.tmp);
    at += o->info->dims[cd];
  }
  if (ok) ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
  else value_tmp_free(&dtmp);
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

/* Start indices of dynamic-slice / dynamic-update-slice, clamped as XLA:
 * start = clamp(start, 0, dim - size). */
static bool dynamic_starts(EvalCtx *ctx, Frame *f, const Instr *in, int first, int rank,
                           const int64_t *dims, const int64_t *sizes, int64_t *start, Error *err) {
  int nidx = in->noperands - first;
  for (int k = 0; k < rank; k++) {
    int64_t s;
    if (nidx == rank) {
      if (!eval_read_scalar_i64(ctx, in, frame_operand(f, in, first + k), 0, &s, err)) return false;
    } else if (nidx == 1) {
      Value *iv = frame_operand(f, in, first);
      if (!eval_require_array(in, iv, "the index vector", err)) return false;
      if (iv->info->elements != rank)
        return error_set(err, ERR_RUNTIME, in->offset, "index vector has %" PRId64
                         " entries for rank %d", iv->info->elements, rank);
      if (!eval_read_scalar_i64(ctx, in, iv, k, &s, err)) return false;
    } else {
      return error_set(err, ERR_RUNTIME, in->offset,
                       "expected %d start indices, got %d", rank, nidx);
    }
    int64_t hi = dims[k] - sizes[k];
    if (hi < 0)
      return error_set(err, ERR_RUNTIME, in->offset, "slice of dimension %d is larger than the operand", k);
    start[k] = s < 0 ? 0 : s > hi ? hi : s;
  }
  return true;
}

/* Op: dynamic-slice
 * Operands: an array, then one integer scalar start per dimension (or one
 *   vector of them)
 * Attributes: dynamic_slice_sizes
 *
 * The block of dynamic_slice_sizes that starts at the given indices, read at
 * run time.
 *
 * Rule: XLA operation semantics, DynamicSlice: each start is clamped to [0,
 *   dim - size], so the block always fits; the legacy single start vector of
 *   docs/hlo-text.md 8.1 is accepted.
 * Refuses: a start vector whose length is not the rank (legacy form).
 */
bool eval_dynamic_slice(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                        Value **out, Error *err) {
  Value *src = frame_operand(f, in, 0);
  if (!eval_require_array(in, src, "the operand", err)) return false;
  const ArrayInfo *si = src->info;
  if (rs->rank != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "rank mismatch");
  int64_t start[K_MAX_RANK], ones[K_MAX_RANK];
  if (!dynamic_starts(ctx, f, in, 1, si->rank, si->dims, rs->dims, start, err)) return false;
  for (int k = 0; k < si->rank; k++) ones[k] = 1;
  Dense d;
  if (!eval_dense_in(ctx, src, &d, err)) return false;
  Value *v;
  void *dd;
  DenseTmp dtmp = {NULL};
  bool ok = eval_new_target(ctx, rs, false, &v, &dd, &dtmp, err);
  if (ok) {
    if (v->info->elements)
      k_slice(dd, rs->dims, d.data, si->dims, si->rank, start, ones, (size_t)si->esize);
    ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
    if (!ok) value_unref(&ctx->vc, v);
  }
  value_tmp_free(&d.tmp);
  if (ok) *out = v;
  return ok;
}

/* Op: dynamic-update-slice
 * Operands: an array, the update, then one integer scalar start per dimension
 *   (or one vector of them)
 * Attributes: none
 *
 * The operand with the update written over the block that starts at the given
 * indices; in place when the operand dies here.
 *
 * Rule: XLA operation semantics, DynamicUpdateSlice: starts are clamped to [0,
 *   dim - update size].
 * Refuses: a start vector whose length is not the rank (legacy form).
 */
bool eval_dynamic_update_slice(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                               Value **out, Error *err) {
  Value *src = frame_operand(f, in, 0), *upd = frame_operand(f, in, 1);
  if (!eval_require_array(in, src, "the operand", err) || !eval_require_array(in, upd, "the update", err))
    return false;
  const ArrayInfo *si = src->info, *ui = upd->info;
  if (ui->rank != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "rank mismatch");
  int64_t start[K_MAX_RANK], zero[K_MAX_RANK] = {0};
  if (!dynamic_starts(ctx, f, in, 2, si->rank, si->dims, ui->dims, start, err)) return false;
  const ArrayInfo *ri = value_array_info(&ctx->vc, rs, err);
  if (!ri) return false;
  Value *v;
  /* In place when the operand dies here and already has the result's layout
   * (the common while-loop accumulator). */
  if (si->identity && ri->identity && si->space == ri->space && si->phys_bytes == ri->phys_bytes &&
      si->etype == ri->etype && eval_can_donate(f, in, 0)) {
    v = value_wrap_buffer(rs, ri, src->buf);
    if (!v) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  } else {
    Value *c;
    if (!eval_new_result(ctx, rs, false, &v, err)) return false;
    if (layout_equal(&si->shape->layout, &ri->shape->layout) || (si->identity && ri->identity)) {
      if (ri->phys_bytes) memcpy(v->buf->data, src->buf->data, (size_t)ri->phys_bytes);
    } else {
      if (!layout_convert(&ri->plan, v->buf->data, &si->plan, src->buf->data, err)) {
        value_unref(&ctx->vc, v);
        return false;
      }
    }
    (void)c;
  }
  if (ui->elements) {
    Dense du;
    void *dd;
    DenseTmp dtmp = {NULL};
    if (!eval_dense_in(ctx, upd, &du, err)) {
      value_unref(&ctx->vc, v);
      return false;
    }
    bool ok;
    if (ri->identity) {
      k_move_box(v->buf->data, rs->dims, start, du.data, ui->dims, zero, ui->dims, si->rank,
                 (size_t)si->esize);
      ok = true;
    } else {
      /* Round trip through a dense copy of the whole result. */
      Dense dr;
      ok = eval_dense_in(ctx, v, &dr, err) && value_dense_target(&ctx->vc, v, &dd, &dtmp, err);
      if (ok) {
        memcpy(dd, dr.data, (size_t)ri->dense_bytes);
        k_move_box(dd, rs->dims, start, du.data, ui->dims, zero, ui->dims, si->rank,
                   (size_t)si->esize);
        ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
      }
      value_tmp_free(&dr.tmp);
      value_tmp_free(&dtmp);
    }
    value_tmp_free(&du.tmp);
    if (!ok) {
      value_unref(&ctx->vc, v);
      return false;
    }
  }
  *out = v;
  return true;
}

/* Op: iota
 * Operands: none
 * Attributes: iota_dimension
 *
 * An array whose elements count 0, 1, 2, ... along iota_dimension (the same in
 * every other dimension), converted to the element type.
 *
 * Rule: XLA operation semantics, Iota.
 * Refuses: nothing the verifier accepts.
 */
bool eval_iota(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  (void)f;
  int64_t dim = eval_attr_int(in, ATTR_IOTA_DIMENSION, -1);
  if (dim < 0 || (rs->rank > 0 && dim >= rs->rank) ||
      (rs->rank == 0 && dim != 0))
    return error_set(err, ERR_RUNTIME, in->offset, "bad iota_dimension");
  Value *v;
  if (!eval_new_result(ctx, rs, false, &v, err)) return false;
  void *dd;
  DenseTmp dtmp = {NULL};
  bool ok = value_dense_target(&ctx->vc, v, &dd, &dtmp, err);
  if (ok) {
    k_iota(rs->etype, dd, rs->dims, rs->rank, (int)dim);
    ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
  }
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

/* copy: a new buffer in the result's layout and space. */
bool eval_copy_to(EvalCtx *ctx, const Instr *in, const Value *src, const Shape *rs, Value **out,
             Error *err) {
  if (shape_is_tuple(rs)) {
    if (src->ntuple != rs->ntuple)
      return error_set(err, ERR_RUNTIME, in->offset, "tuple arity mismatch");
    Value **el = calloc((size_t)(rs->ntuple ? rs->ntuple : 1), sizeof *el);
    if (!el) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int i = 0; i < rs->ntuple; i++) {
      if (!eval_copy_to(ctx, in, src->elems[i], &rs->tuple[i], &el[i], err)) {
        for (int j = 0; j < i; j++) value_unref(&ctx->vc, el[j]);
        free(el);
        return false;
      }
    }
    *out = value_new_tuple(rs, rs->ntuple, el);
    free(el);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (!value_shape_has_data(rs) || !src->info) {
    *out = value_ref((Value *)src);
    return true;
  }
  Value *v;
  if (!eval_new_result(ctx, rs, false, &v, err)) return false;
  const ArrayInfo *si = src->info, *ri = v->info;
  if (si->etype != ri->etype || si->elements != ri->elements) {
    value_unref(&ctx->vc, v);
    return error_set(err, ERR_RUNTIME, in->offset, "copy changes the shape");
  }
  Layout a = si->shape->layout, b = ri->shape->layout;
  a.memory_space = b.memory_space = 0;
  bool ok = true;
  if ((si->identity && ri->identity) || (si->rank == ri->rank && layout_equal(&a, &b))) {
    if (ri->phys_bytes) memcpy(v->buf->data, src->buf->data, (size_t)ri->phys_bytes);
  } else {
    ok = layout_convert(&ri->plan, v->buf->data, &si->plan, src->buf->data, err);
    ctx->vc.conversions++;
    ctx->vc.conversion_bytes += ri->phys_bytes;
  }
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

/* bitcast: the operand's physical bytes under the result's shape/layout.
 * XLA's verifier only checks logical byte sizes; when tile padding makes the
 * physical sizes differ, the result takes the first bytes of the operand's
 * buffer (and zeros past its end), which is what reinterpreting the memory
 * means. */
static bool bitcast_of(EvalCtx *ctx, const Instr *in, Value *src, const Shape *rs, Value **out,
                         Error *err) {
  if (!eval_require_array(in, src, "the operand", err)) return false;
  const ArrayInfo *ri = value_array_info(&ctx->vc, rs, err);
  if (!ri) return false;
  const ArrayInfo *si = src->info;
  if (ri->phys_bytes == si->phys_bytes && ri->space == si->space) {
    *out = value_wrap_buffer(rs, ri, src->buf);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  /* Buffers of different sizes are one buffer only when their data sizes
   * agree (trailing tile padding differs); any other size change -- which
   * XLA's verifier lets through in modules without layouts -- has no
   * defined result. */
  if (ri->dense_bytes != si->dense_bytes && !ri->packed && !si->packed)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "bitcast of %lld bytes to %lld bytes: the sizes must agree",
                     (long long)si->dense_bytes, (long long)ri->dense_bytes);
  Value *v;
  if (!eval_new_result(ctx, rs, true, &v, err)) return false;
  int64_t n = ri->phys_bytes < si->phys_bytes ? ri->phys_bytes : si->phys_bytes;
  if (n) memcpy(v->buf->data, src->buf->data, (size_t)n);
  *out = v;
  return true;
}


/* The element mover of each op eval_move runs (its row names eval_move). */
static const MoveFn move_of[OP_COUNT] = {
    [OP_BROADCAST] = mv_broadcast, [OP_RESHAPE] = mv_reshape, [OP_TRANSPOSE] = mv_transpose,
    [OP_SLICE] = mv_slice,         [OP_REVERSE] = mv_reverse,
};

/* Op: broadcast
 * Operands: an array
 * Attributes: dimensions (the result dimension of each operand dimension)
 *
 * The operand copied along the new dimensions: operand dimension i becomes
 * result dimension dimensions[i] (of the same size, or 1 to be stretched);
 * every other result dimension repeats it.
 *
 * Rule: XLA operation semantics, Broadcast / BroadcastInDim.
 * Refuses: nothing the verifier accepts.
 */
/* Op: reshape
 * Operands: an array
 * Attributes: none
 *
 * The same elements in row-major order under new dimensions of the same
 * element count.
 *
 * Rule: XLA operation semantics, Reshape (dimension sizes only; the HLO op has
 *   no dimensions= order).
 * Refuses: nothing the verifier accepts.
 */
/* Op: transpose
 * Operands: an array
 * Attributes: dimensions (a permutation)
 *
 * The operand with its dimensions permuted: result dimension i is operand
 * dimension dimensions[i].
 *
 * Rule: XLA operation semantics, Transpose.
 * Refuses: nothing the verifier accepts.
 */
/* Op: slice
 * Operands: an array
 * Attributes: slice ({start:limit:stride} per dimension)
 *
 * The elements from start (inclusive) to limit (exclusive) every stride-th
 * one, in each dimension.
 *
 * Rule: XLA operation semantics, Slice.
 * Refuses: nothing the verifier accepts.
 */
/* Op: reverse
 * Operands: an array
 * Attributes: dimensions
 *
 * The operand with the order of its elements reversed along each listed
 * dimension.
 *
 * Rule: XLA operation semantics, Rev (reverse).
 * Refuses: nothing the verifier accepts.
 */
bool eval_move(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  /* Only the rows above name eval_move (test_optable checks it); a row
   * naming it by mistake is refused, not a call through NULL. */
  if (!move_of[in->op]) return eval_unsupported(in, err);
  return move_op(ctx, f, in, rs, move_of[in->op], out, err);
}

/* Op: set-dimension-size
 * Operands: an array, an s32 scalar size
 * Attributes: dimensions (one dimension)
 *
 * The operand with the runtime size of one dynamic dimension set to the given
 * size (0 up to the bound); the data is unchanged.
 *
 * Rule: XLA operation semantics, SetDimensionSize.
 * Refuses: a size outside 0..bound.
 */
bool eval_set_dimension_size_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                                Value **out, Error *err) {
  if (in->noperands != 2 || !eval_require_array(in, frame_operand(f, in, 1), "the size", err))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "set-dimension-size takes an array and a size");
  if (!move_op(ctx, f, in, rs, mv_identity, out, err)) return false;
  if (eval_set_dimension_size(ctx, f, in, *out, err)) return true;
  value_unref(&ctx->vc, *out);
  *out = NULL;
  return false;
}

/* Op: copy
 * Operands: any value
 * Attributes: none
 *
 * A new buffer holding the operand in the result's layout and memory space (a
 * tuple copied leaf by leaf).
 *
 * Rule: HloInstruction kCopy (a layout or memory-space change, never a value
 *   change).
 * Refuses: nothing the verifier accepts.
 */
bool eval_copy(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  return eval_copy_to(ctx, in, frame_operand(f, in, 0), rs, out, err);
}

/* Op: bitcast
 * Operands: an array
 * Attributes: none
 *
 * The operand's bytes reinterpreted under the result's shape and layout: the
 * same buffer when the physical sizes agree; otherwise the first bytes of the
 * operand (tile padding differs).
 *
 * Rule: HloInstruction kBitcast; XLA's verifier compares byte sizes only in
 *   modules with layouts (docs/hlo-text.md 8.1).
 * Refuses: a bitcast that changes the data size (possible in a module written
 *   without layouts).
 */
bool eval_bitcast(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                  Error *err) {
  return bitcast_of(ctx, in, frame_operand(f, in, 0), rs, out, err);
}
