/* cholesky, triangular-solve and the batch-norm ops through
 * kernels/k_linalg.h. */
#include "interp/eval_ops.h"

#include <string.h>

#include "interp/eval_views.h"
#include "kernels/k_linalg.h"

static bool cholesky_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                            int nouts, Error *err) {
  (void)in;
  (void)nouts;
  return k_cholesky(&ins[0], *(const bool *)arg, &outs[0], err);
}

/* Op: cholesky
 * Operands: a (float or complex, [..., n, n])
 * Attributes: optional lower (default false)
 *
 * The Cholesky factor of each matrix in the batch: lower=true gives L with a = L L^H
 * read from the lower triangle, lower=false U with a = U^H U from the upper one.  The
 * other triangle of the result is not meaningful.
 *
 * Rule: XLA operation semantics, Cholesky; a matrix that is not positive definite
 *   gives a result of all NaN, as XLA's expander.
 * Refuses: nothing the verifier accepts.
 */
bool eval_cholesky(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                   Error *err) {
  bool lower = eval_attr_bool(in, ATTR_LOWER, false);
  return eval_kernel_op(ctx, f, in, rs, 1, cholesky_kernel, &lower, out, err);
}

static bool trsm_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                        int nouts, Error *err) {
  (void)in;
  (void)nouts;
  return k_triangular_solve(&ins[0], &ins[1], arg, &outs[0], err);
}

/* Op: triangular-solve
 * Operands: a (triangular, [..., m, m]), b
 * Attributes: optional left_side, lower, unit_diagonal (default false),
 *   transpose_a (NO_TRANSPOSE, TRANSPOSE, ADJOINT)
 *
 * Solves op(a) x = b (left_side=true) or x op(a) = b for x, batch by batch, reading
 * only the lower or upper triangle of a (its diagonal taken as 1 with unit_diagonal).
 *
 * Rule: XLA operation semantics, TriangularSolve; a singular a gives Inf/NaN, as
 *   plain substitution does.
 * Refuses: nothing the verifier accepts.
 */
bool eval_triangular_solve(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                           Error *err) {
  const char *t = eval_attr_enum(in, ATTR_TRANSPOSE_A, "NO_TRANSPOSE");
  KTriSolveParams p = {eval_attr_bool(in, ATTR_LEFT_SIDE, false),
                       eval_attr_bool(in, ATTR_LOWER, false),
                       eval_attr_bool(in, ATTR_UNIT_DIAGONAL, false), K_TRANS_NO};
  if (!strcmp(t, "TRANSPOSE")) p.transpose_a = K_TRANS_T;
  else if (!strcmp(t, "ADJOINT")) p.transpose_a = K_TRANS_ADJOINT;
  else if (strcmp(t, "NO_TRANSPOSE") != 0)
    return error_set(err, ERR_RUNTIME, in->offset, "unknown transpose_a '%s'",
                     t);
  return eval_kernel_op(ctx, f, in, rs, 2, trsm_kernel, &p, out, err);
}

typedef struct BnArg {
  double epsilon;
  int64_t feature_index;
} BnArg;

static bool bn_kernel(const Instr *in, const void *arg, const KArray *x, KArray *o, int nouts,
                      Error *err) {
  const BnArg *a = arg;
  int want = in->op == OP_BATCH_NORM_INFERENCE ? 1 : 3;
  if (nouts != want)
    return error_set(err, ERR_RUNTIME, in->offset, "%d results, expected %d",
                     nouts, want);
  switch (in->op) {
  case OP_BATCH_NORM_TRAINING:
    return k_batch_norm_training(&x[0], &x[1], &x[2], a->epsilon, a->feature_index, &o[0], &o[1],
                                 &o[2], err);
  case OP_BATCH_NORM_INFERENCE:
    return k_batch_norm_inference(&x[0], &x[1], &x[2], &x[3], &x[4], a->epsilon,
                                  a->feature_index, &o[0], err);
  default:
    return k_batch_norm_grad(&x[0], &x[1], &x[2], &x[3], &x[4], a->epsilon, a->feature_index,
                             &o[0], &o[1], &o[2], err);
  }
}

/* Op: batch-norm-training
 * Operands: operand, scale, offset
 * Attributes: epsilon, feature_index
 *
 * Normalizes operand per feature (dimension feature_index) with the batch's mean and
 * variance over every other dimension: (x - mean) / sqrt(var + epsilon) * scale +
 * offset.  Result (normalized, batch mean, batch variance).
 *
 * Rule: XLA operation semantics, BatchNormTraining; epsilon is XLA's f32 attribute
 *   (rounded to f32 even for f64 operands).
 * Refuses: nothing the verifier accepts.
 */
/* Op: batch-norm-inference
 * Operands: operand, scale, offset, mean, variance
 * Attributes: epsilon, feature_index
 *
 * Normalizes operand per feature with the given mean and variance:
 * (x - mean) / sqrt(variance + epsilon) * scale + offset.
 *
 * Rule: XLA operation semantics, BatchNormInference; epsilon rounded to f32.
 * Refuses: nothing the verifier accepts.
 */
/* Op: batch-norm-grad
 * Operands: operand, scale, mean, variance, grad_output
 * Attributes: epsilon, feature_index
 *
 * The gradients of batch-norm-training: result (grad_operand, grad_scale,
 * grad_offset), each feature reduced over every other dimension.
 *
 * Rule: XLA operation semantics, BatchNormGrad; epsilon rounded to f32.
 * Refuses: nothing the verifier accepts.
 */
bool eval_batch_norm(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  const Attr *e = ir_attr(in, ATTR_EPSILON);
  /* epsilon is an f32 attribute in XLA (rounded to f32 even for f64 operands). */
  BnArg a = {e && e->kind == AV_FLOAT ? (double)(float)e->v.f : 0.0,
             eval_attr_int(in, ATTR_FEATURE_INDEX, 0)};
  int nin = in->op == OP_BATCH_NORM_TRAINING ? 3 : 5;
  return eval_kernel_op(ctx, f, in, rs, nin, bn_kernel, &a, out, err);
}
