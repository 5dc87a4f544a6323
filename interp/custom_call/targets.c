/* Well-known custom-call targets, one row each in the table at the end:
 *   Sharding, SPMDFullToShardShape, SPMDShardToFullShape, MoveToHost,
 *   MoveToDevice, annotate_device_placement, LayoutConstraint, SetBound,
 *   AwsNeuronTransferWithStaticRing
 *                  -- markers: their one operand, unchanged;
 *   TopK           -- XLA's top-k custom call (eval_sort.c);
 *   PartialReduce  -- the TPU approximate top-k stage XLA's ApproxTopK
 *                     emits (interp/custom_call/partial_reduce.c);
 *   __cublas$gemm, __cublas$lt$matmul, __cublas$triangularSolve
 *                  -- XLA's GPU gemms with their epilogues and triangular
 *                     solve (interp/custom_call/cublas.c);
 *   __cudnn$conv{Forward, BackwardInput, BackwardFilter,
 *                BiasActivationForward}
 *                  -- XLA's GPU convolutions (interp/custom_call/cudnn.c);
 *   __cudnn$batchNormalization{ForwardInference, ForwardTraining, Backward}
 *                  -- XLA's GPU batch norms (interp/custom_call/cudnn_bn.c);
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
 *                  -- other XlaBuilder helpers (interp/custom_call/builder_lib.c);
 *   AwsNeuron{Gelu, GeluApprxTanh, GeluBackward, Softmax, SoftmaxBackward}
 *                  -- torch-neuronx's activations (interp/custom_call/neuron.c);
 *   check.{eq, expect_eq, expect_almost_eq, expect_close}
 *                  -- the checks of StableHLO's test files
 *                     (interp/custom_call/check_calls.c). */
#include "interp/custom_call/targets.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/builder_math.h"
#include "interp/custom_call/builder_lib.h"
#include "interp/custom_call/check_calls.h"
#include "interp/custom_call/cublas.h"
#include "interp/custom_call/cub_sort.h"
#include "interp/custom_call/cudnn.h"
#include "interp/custom_call/cudnn_bn.h"
#include "interp/custom_call/jaxlib.h"
#include "interp/custom_call/lapack.h"
#include "interp/custom_call/neuron.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "interp/custom_call/partial_reduce.h"
#include "interp/eval_sort.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"

/* PadToStatic(x) -> (data, size of each dimension): the data at x's bounds
 * with its padding zeroed (XLA leaves it unspecified), sizes as the result's
 * integer scalars. */
static bool pad_to_static(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                          const Shape *rs, Value **out, Error *err) {
  (void)target;
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
static bool slice_to_dynamic(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                             const Shape *rs, Value **out, Error *err) {
  (void)target;
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

/* The sharding and placement markers: the operand, unchanged. */
static bool identity(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                     const Shape *rs, Value **out, Error *err) {
  if (in->noperands != 1)
    return error_set(err, ERR_RUNTIME, in->offset, "custom-call %s takes one operand, got %d",
                     target, in->noperands);
  if (!eval_same_element_counts(frame_operand(fr, in, 0), rs))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call %s changes the shape: the module is "
                     "sharded across more than one device (single-device run)", target);
  return eval_copy_to(ctx, in, frame_operand(fr, in, 0), rs, out, err);
}

static bool allocate_buffer(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                            const Shape *rs, Value **out, Error *err) {
  (void)fr, (void)target;
  if (!shape_is_array(rs))
    return error_set(err, ERR_RUNTIME, in->offset, "AllocateBuffer must return one array");
  return value_new_array(&ctx->vc, rs, true, "", out, err);
}

/* Evaluators that do not need the target's name. */
static bool topk(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                 const Shape *rs, Value **out, Error *err) {
  (void)target;
  return eval_topk_custom_call(ctx, fr, in, rs, out, err);
}

static bool partial_reduce(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                           const Shape *rs, Value **out, Error *err) {
  (void)target;
  return eval_partial_reduce(ctx, fr, in, rs, out, err);
}

static bool cub_sort(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                     const Shape *rs, Value **out, Error *err) {
  (void)target;
  return eval_cub_sort(ctx, fr, in, rs, out, err);
}

/* One row per target, or per library: an exact name, or (name NULL) the
 * library's predicate over target names.  The first row that claims a
 * target runs it. */
static const struct TargetRow {
  const char *name;
  bool (*claims)(const char *target);
  CustomCallEval eval;
} rows[] = {
    {"Sharding", NULL, identity},
    {"SPMDFullToShardShape", NULL, identity},
    {"SPMDShardToFullShape", NULL, identity},
    {"MoveToHost", NULL, identity},
    {"MoveToDevice", NULL, identity},
    {"annotate_device_placement", NULL, identity},
    {"LayoutConstraint", NULL, identity},
    {"SetBound", NULL, identity},
    /* torch-neuronx's parameter transfer, erased by the Neuron compiler */
    {"AwsNeuronTransferWithStaticRing", NULL, identity},
    {"TopK", NULL, topk},
    {"PartialReduce", NULL, partial_reduce},
    {"PadToStatic", NULL, pad_to_static},
    {"SliceToDynamic", NULL, slice_to_dynamic},
    {"AllocateBuffer", NULL, allocate_buffer},
    {"__cub$DeviceRadixSort", NULL, cub_sort},
    {NULL, eval_cublas_known, eval_cublas_gemm},
    {NULL, eval_cudnn_known, eval_cudnn_conv},
    {NULL, eval_cudnn_bn_known, eval_cudnn_bn},
    {NULL, eval_jaxlib_known, eval_jaxlib},
    {NULL, eval_lapack_known, eval_lapack},
    {NULL, eval_builder_math_known, eval_builder_math},
    {NULL, eval_builder_lib_known, eval_builder_lib},
    {NULL, eval_neuron_known, eval_neuron_custom_call},
    {NULL, eval_check_known, eval_check_call},
};

CustomCallEval custom_call_evaluator(const char *target) {
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    if (rows[i].name ? strcmp(rows[i].name, target) == 0 : rows[i].claims(target))
      return rows[i].eval;
  return NULL;
}
