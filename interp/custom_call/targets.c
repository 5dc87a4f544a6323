/* Well-known custom-call targets:
 *   TopK           -- XLA's top-k custom call (eval_sort.c);
 *   PartialReduce  -- the TPU approximate top-k stage XLA's ApproxTopK
 *                     emits (interp/custom_call/partial_reduce.c);
 *   __cublas$gemm, __cublas$lt$matmul, __cublas$triangularSolve
 *                  -- XLA's GPU gemms with their epilogues and triangular
 *                     solve (interp/custom_call/cublas.c);
 *   __cudnn$conv{Forward, BackwardInput, BackwardFilter,
 *                BiasActivationForward}
 *                  -- XLA's GPU convolutions (interp/custom_call/cudnn.c);
 *   __cub$DeviceRadixSort
 *                  -- XLA's GPU radix sort (interp/custom_call/cub_sort.c);
 *   {cu,hip}_threefry2x32[_ffi], {cu,hip}_lu_pivots_to_permutation
 *                  -- jaxlib's GPU threefry and LU-pivot kernels
 *                     (interp/custom_call/jaxlib.c);
 *   lapack_{s,d,c,z}{potrf,getrf}_ffi, {blas,lapack}_{s,d,c,z}trsm_ffi,
 *   __cusolver$cholesky, {cu,hip}solver_getrf[_ffi], {cu,hip}blas_getrf_batched
 *                  -- jaxlib's CPU Cholesky, LU and triangular-solve kernels,
 *                     its GPU LU and XLA:GPU's Cholesky, through LAPACK
 *                     (interp/custom_call/lapack.c);
 *   AllocateBuffer -- an uninitialised buffer of the result shape (zeros);
 *   PadToStatic    -- (data with its padding zeroed, size of each
 *                     dimension);
 *   SliceToDynamic -- (data, sizes...) -> data with those dynamic sizes
 *                     (interp/eval_dynamic.h);
 *   xla_builder.math.*
 *                  -- XlaBuilder's math helpers (interp/custom_call/builder_math.c);
 *   xla_builder.{matrix.Einsum, matrix.GetMatrixDiagonalViaGather,
 *                prng.ScramblePhiloxKey, tridiagonal.TridiagonalSolver}
 *                  -- other XlaBuilder helpers (interp/custom_call/builder_lib.c). */
#include "interp/custom_call/targets.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/builder_math.h"
#include "interp/custom_call/builder_lib.h"
#include "interp/custom_call/cublas.h"
#include "interp/custom_call/cub_sort.h"
#include "interp/custom_call/cudnn.h"
#include "interp/custom_call/jaxlib.h"
#include "interp/custom_call/lapack.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "interp/custom_call/partial_reduce.h"
#include "interp/eval_sort.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"

/* PadToStatic(x) -> (data, size of each dimension): the data at x's bounds
 * with its padding zeroed (XLA leaves it unspecified), sizes as the result's
 * integer scalars. */
static bool pad_to_static(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                          Value **out, Error *err) {
  const Value *src = frame_operand(fr, in, 0);
  if (in->noperands != 1 || !src->info || !shape_is_tuple(rs) ||
      rs->ntuple != 1 + src->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "PadToStatic takes one array and returns (data, sizes...)");
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, src, in, err) && eval_outs_new(ctx, in, rs, &o, err);
  if (ok && (o.a[0].etype != src->info->etype || o.a[0].rank != src->info->rank ||
             memcmp(o.a[0].dims, src->info->dims, sizeof(int64_t) * (size_t)src->info->rank)))
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "PadToStatic's data must have the operand's bounds");
  if (ok) {
    const ArrayInfo *ai = src->info;
    char *d = o.a[0].data;
    memcpy(d, vs.a[0].data, (size_t)ai->dense_bytes);
    int64_t idx[SHAPE_MAX_RANK] = {0};
    for (int64_t i = 0; src->dyn && i < ai->elements; i++) {
      bool pad = false;
      for (int k = 0; k < ai->rank && !pad; k++) pad = idx[k] >= src->dyn[k];
      if (pad) memset(d + i * ai->esize, 0, (size_t)ai->esize);
      for (int k = ai->rank - 1; k >= 0 && ++idx[k] == ai->dims[k]; k--) idx[k] = 0;
    }
  }
  for (int i = 1; ok && i < o.n; i++) {
    if (o.a[i].rank != 0 || !etype_is_int(o.a[i].etype)) {
      ok = error_set(err, ERR_RUNTIME, in->offset, "sizes must be integer scalars");
      break;
    }
    etype_store_int(o.a[i].etype, value_dim_size(src, i - 1), o.a[i].data);
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* SliceToDynamic(data, size_0, ..., size_{r-1}) -> data as a dynamic array:
 * element (i, j, ...) of the result is element (i, j, ...) of data for
 * indices below the sizes (XLA's GPU/CPU emitters), so the data keeps its
 * place and only the sizes are new.  A static result dimension takes only
 * its bound. */
static bool slice_to_dynamic(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  const Value *src = in->noperands >= 1 ? frame_operand(fr, in, 0) : NULL;
  if (!src || !src->info || !shape_is_array(rs) || rs->rank != src->info->rank ||
      rs->etype != src->info->etype || in->noperands != 1 + rs->rank ||
      memcmp(rs->dims, src->info->dims, sizeof(int64_t) * (size_t)rs->rank))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "SliceToDynamic takes an array and one size per dimension "
                     "and returns the array's type and bounds");
  int64_t sz[SHAPE_MAX_RANK];
  for (int d = 0; d < rs->rank; d++) {
    const Value *s = frame_operand(fr, in, 1 + d);
    if (!s->info || s->info->rank != 0 || !etype_is_int(s->info->etype))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "SliceToDynamic size %d must be an integer scalar",
                       d);
    const void *p;
    DenseTmp tmp;
    if (!value_dense_read(&ctx->vc, s, &p, &tmp, err)) return false;
    sz[d] = etype_load_i64(s->info->etype, p);
    value_tmp_free(&tmp);
    bool dynamic = rs->dynamic && rs->dynamic[d];
    if (sz[d] < 0 || sz[d] > rs->dims[d] || (!dynamic && sz[d] != rs->dims[d]))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "SliceToDynamic size %" PRId64 " for %s dimension %d "
                       "(bound %" PRId64 ") is out of range",
                       sz[d], dynamic ? "dynamic" : "static", d, rs->dims[d]);
  }
  Value *v;
  if (!value_coerce(&ctx->vc, (Value *)src, rs, "", &v, err)) return false;
  if (v->refs > 1) { /* src itself: its sizes are not ours to change */
    Value *w = value_wrap_buffer(v->shape, v->info, v->buf);
    value_unref(&ctx->vc, v);
    if (!(v = w)) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (!value_set_dyn(v, sz)) {
    value_unref(&ctx->vc, v);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  *out = v;
  return true;
}

bool eval_custom_call_known(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                            const Shape *rs, Value **out, bool *handled, Error *err) {
  *handled = true;
  if (!strcmp(target, "TopK")) return eval_topk_custom_call(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "PartialReduce")) return eval_partial_reduce(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "PadToStatic")) return pad_to_static(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "SliceToDynamic")) return slice_to_dynamic(ctx, fr, in, rs, out, err);
  if (eval_cublas_known(target)) return eval_cublas_gemm(ctx, fr, in, target, rs, out, err);
  if (eval_cudnn_known(target)) return eval_cudnn_conv(ctx, fr, in, target, rs, out, err);
  if (eval_jaxlib_known(target)) return eval_jaxlib(ctx, fr, in, target, rs, out, err);
  if (!strcmp(target, "__cub$DeviceRadixSort")) return eval_cub_sort(ctx, fr, in, rs, out, err);
  if (eval_lapack_known(target)) return eval_lapack(ctx, fr, in, target, rs, out, err);
  if (!strncmp(target, "xla_builder.math.", 17))
    return eval_builder_math(ctx, fr, in, target + 17, rs, out, handled, err);
  if (eval_builder_lib_known(target)) return eval_builder_lib(ctx, fr, in, target, rs, out, err);
  if (!strcmp(target, "AllocateBuffer") && shape_is_array(rs)) {
    return value_new_array(&ctx->vc, rs, true, "", out, err);
  }
  *handled = false;
  return false;
}
