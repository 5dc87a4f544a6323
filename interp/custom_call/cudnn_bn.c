/* cuDNN batch-norm custom calls, as XLA:GPU's CudnnBatchNormRewriter writes
 * them and its batch-norm thunks run them (cudnn_batchnorm_rewriter.cc,
 * cudnn_batchnorm_runner.cc).  The rewriter replaces batch-norm-inference,
 * -training and -grad of f32 operands by these calls, appending epsilon
 * (f32[] constant) and feature_index (s64[] constant); the emitter CHECKs
 * both are constants and reads them from their literals.  Where the f32
 * operand was convert(f16 x), the call takes x itself: the data arrays
 * (operand, output, grad_output, grad_operand) are then f16 while every
 * per-feature vector stays f32 (the runner's DeviceMemory<float>).
 *
 * Semantics, per feature over all other dimensions (cuDNN's spatial mode):
 *   inference: (x - mean) / sqrt(variance + epsilon) * scale + offset;
 *   training:  the same with the batch mean and biased variance, returning
 *              (output, mean, inv_stddev = 1 / sqrt(variance + epsilon)) --
 *              the rewriter turns inv_stddev back into variance;
 *   backward:  the gradients of training given its saved mean and
 *              inv_stddev (cuDNN then ignores epsilon).
 * All three run the kernels of the HLO batch-norm ops (kernels/
 * k_batch_norm.c: double arithmetic, each result rounded once).
 * Refused as the runner would: data types other than f16/f32 (its
 * "Unimplemented"), non-constant epsilon/feature_index, and empty operands
 * (cuDNN errors on them; the rewriter leaves those batch norms alone). */
#include "interp/custom_call/cudnn_bn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "interp/eval_views.h"
#include "kernels/k_linalg.h"
#include "layout/etype_convert.h"

typedef enum { BN_INFERENCE, BN_TRAINING, BN_BACKWARD } BnKind;

static const struct BnTarget {
  const char *name;
  BnKind kind;
  int noperands;
  const char *operands; /* for the message of a wrong count */
} targets[] = {
    {"__cudnn$batchNormalizationForwardInference", BN_INFERENCE, 7,
     "operand, scale, offset, mean, variance, epsilon, feature_index"},
    {"__cudnn$batchNormalizationForwardTraining", BN_TRAINING, 5,
     "operand, scale, offset, epsilon, feature_index"},
    {"__cudnn$batchNormalizationBackward", BN_BACKWARD, 7,
     "operand, scale, mean, inv_stddev, grad_output, epsilon, feature_index"},
};

static const struct BnTarget *target_of(const char *target) {
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
    if (!strcmp(targets[i].name, target)) return &targets[i];
  return NULL;
}

bool eval_cudnn_bn_known(const char *target) { return target_of(target) != NULL; }

static bool fail(const Instr *in, const char *target, Error *err, const char *msg) {
  return error_set(err, ERR_RUNTIME, in->offset, "%s: %s", target, msg);
}

/* Operand k: a scalar constant instruction of type want, its value as
 * double (f) or integer (i). */
static bool read_constant(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target, int k,
                          EType want, const char *what, double *f, int64_t *i, Error *err) {
  const Value *v = frame_operand(fr, in, k);
  if (in->operands[k]->op != OP_CONSTANT || !v->info || v->info->rank != 0 ||
      v->info->etype != want)
    return error_set(err, ERR_RUNTIME, in->offset, "%s: %s (operand %d) must be a %s[] constant",
                     target, what, k, etype_name(want));
  const void *p;
  DenseTmp tmp;
  if (!value_dense_read(&ctx->vc, v, &p, &tmp, err)) return false;
  if (f) *f = etype_load_f64(want, p);
  if (i) *i = etype_load_i64(want, p);
  value_tmp_free(&tmp);
  return true;
}

static bool dims_of(const KArray *a, const KArray *x, EType et) {
  return a->etype == et && a->rank == x->rank &&
         !memcmp(a->dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
}

static bool is_feature_vector(const KArray *a, int64_t c) {
  return a->etype == ET_F32 && a->rank == 1 && a->dims[0] == c;
}

/* Types and shapes as the runner reads them, before any arithmetic. */
static bool check(const struct BnTarget *t, const Instr *in, const Shape *rs, const EvalViews *vs,
                  const EvalOuts *o, int64_t fi, Error *err) {
  const KArray *x = &vs->a[0];
  if (x->etype != ET_F16 && x->etype != ET_F32)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s: the operand must be f16 or f32 (cuDNN's batch norms), got %s", t->name,
                     etype_name(x->etype));
  if (fi < 0 || fi >= x->rank)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s: feature_index %lld is out of range for a rank-%d operand", t->name,
                     (long long)fi, x->rank);
  int64_t c = x->dims[fi], n = 1;
  for (int d = 0; d < x->rank; d++) n *= x->dims[d];
  if (n == 0) return fail(in, t->name, err, "cuDNN refuses an empty operand");
  /* operands 1.. up to grad_output are the f32[C] vectors */
  int nvec = t->kind == BN_INFERENCE ? 4 : t->kind == BN_TRAINING ? 2 : 3;
  for (int k = 1; k <= nvec; k++)
    if (!is_feature_vector(&vs->a[k], c))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "%s: operand %d must be f32[%lld] (one value per feature)", t->name, k,
                       (long long)c);
  if (t->kind == BN_BACKWARD && !dims_of(&vs->a[4], x, x->etype))
    return fail(in, t->name, err, "grad_output must have the operand's shape and type");
  if (t->kind == BN_INFERENCE) {
    if (!shape_is_array(rs) || o->n != 1 || !dims_of(&o->a[0], x, x->etype))
      return fail(in, t->name, err, "must return one array of the operand's shape and type");
    return true;
  }
  if (!shape_is_tuple(rs) || rs->ntuple != 3 || o->n != 3 || !dims_of(&o->a[0], x, x->etype) ||
      !is_feature_vector(&o->a[1], c) || !is_feature_vector(&o->a[2], c))
    return fail(in, t->name, err,
                t->kind == BN_TRAINING
                    ? "must return (output of the operand's shape and type, f32[C] mean, "
                      "f32[C] inv_stddev)"
                    : "must return (grad_operand of the operand's shape and type, f32[C] "
                      "grad_scale, f32[C] grad_offset)");
  return true;
}

/* Training through the HLO kernel, its variance kept in double and turned
 * into cuDNN's saved inverse standard deviation. */
static bool training(const EvalViews *vs, EvalOuts *o, double eps, int64_t fi, Error *err) {
  const KArray *x = &vs->a[0];
  int64_t c = x->dims[fi];
  double *var = malloc((size_t)c * sizeof(double));
  if (!var) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  KArray v = {ET_F64, 1, &x->dims[fi], var};
  bool ok = k_batch_norm_training(x, &vs->a[1], &vs->a[2], eps, fi, &o->a[0], &o->a[1], &v, err);
  float *inv = o->a[2].data;
  for (int64_t f = 0; ok && f < c; f++) inv[f] = (float)(1.0 / sqrt(var[f] + eps));
  free(var);
  return ok;
}

bool eval_cudnn_bn(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                   const Shape *rs, Value **out, Error *err) {
  const struct BnTarget *t = target_of(target);
  if (!t) return fail(in, target, err, "not a cuDNN batch-norm target");
  if (in->noperands != t->noperands)
    return error_set(err, ERR_RUNTIME, in->offset, "%s takes %d operands (%s), got %d", target,
                     t->noperands, t->operands, in->noperands);
  int n = t->noperands;
  double eps;
  int64_t fi;
  if (!read_constant(ctx, fr, in, target, n - 2, ET_F32, "epsilon", &eps, NULL, err) ||
      !read_constant(ctx, fr, in, target, n - 1, ET_S64, "feature_index", NULL, &fi, err))
    return false;
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view_operands(ctx, fr, in, n - 2, &vs, err) &&
            eval_outs_new(ctx, in, rs, &o, err) && check(t, in, rs, &vs, &o, fi, err);
  if (ok) {
    const KArray *a = vs.a;
    switch (t->kind) {
      case BN_INFERENCE:
        ok = k_batch_norm_inference(&a[0], &a[1], &a[2], &a[3], &a[4], eps, fi, &o.a[0], err);
        break;
      case BN_TRAINING: ok = training(&vs, &o, eps, fi, err); break;
      case BN_BACKWARD:
        ok = k_batch_norm_grad_inv_stddev(&a[0], &a[1], &a[2], &a[3], &a[4], fi, &o.a[0],
                                          &o.a[1], &o.a[2], err);
        break;
    }
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
