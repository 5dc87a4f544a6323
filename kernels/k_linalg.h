/* cholesky, triangular-solve, batch-norm-training / -inference / -grad
 * (operation semantics "Cholesky", "TriangularSolve", "BatchNorm*").
 *
 * Float and complex element types (narrow floats included).  All arithmetic
 * runs in double (complex double) per matrix / feature and is rounded to the
 * element type once at the end, so f32 results are at least as accurate as
 * XLA's f32 computation (bit-exactness with XLA's blocked algorithms is not
 * attempted). */
#ifndef HLO_KERNELS_K_LINALG_H
#define HLO_KERNELS_K_LINALG_H

#include "kernels/k_types.h"

/* a: [..., n, n].  lower: A = L L^H from the lower triangle (else A = U^H U
 * from the upper triangle); the other triangle is never read and is zero in
 * the result; the diagonal's imaginary part is ignored.  A matrix whose
 * factorisation takes the square root of a negative or NaN pivot is all NaN
 * in the result (no error), as XLA's CholeskyExpander (a zero pivot gives
 * inf/NaN below it, no whole-matrix NaN, as there). */
bool k_cholesky(const KArray *a, bool lower, KArray *out, Error *err);

typedef enum { K_TRANS_NO = 0, K_TRANS_T, K_TRANS_ADJOINT } KTranspose;

typedef struct KTriSolveParams {
  bool left_side;     /* op(a) x = b (else x op(a) = b) */
  bool lower;         /* a's lower triangle (else upper) is read */
  bool unit_diagonal; /* diagonal taken as 1, not read */
  KTranspose transpose_a;
} KTriSolveParams;

/* a: [..., m, m]; b and out: [..., m, k] (left_side) or [..., k, m]; batch
 * dims equal.  Singular a gives inf/NaN (no error). */
bool k_triangular_solve(const KArray *a, const KArray *b, const KTriSolveParams *p, KArray *out,
                        Error *err);

/* batch-norm-training: out (operand shape), mean and variance ([C] with C =
 * dims[feature_index]); variance is the biased (population) variance.
 * The per-feature vectors of all three may be any float type (the HLO ops
 * give them the operand's; cuDNN's calls keep f32 beside f16 data); the mean
 * is rounded to its type before deviations are measured from it. */
bool k_batch_norm_training(const KArray *x, const KArray *scale, const KArray *offset,
                           double epsilon, int64_t feature_index, KArray *out, KArray *mean,
                           KArray *var, Error *err);
bool k_batch_norm_inference(const KArray *x, const KArray *scale, const KArray *offset,
                            const KArray *mean, const KArray *var, double epsilon,
                            int64_t feature_index, KArray *out, Error *err);
/* Gradients per the seed's formulas: grad_operand (operand shape),
 * grad_scale and grad_offset ([C]). */
bool k_batch_norm_grad(const KArray *x, const KArray *scale, const KArray *mean,
                       const KArray *var, const KArray *grad_out, double epsilon,
                       int64_t feature_index, KArray *grad_x, KArray *grad_scale,
                       KArray *grad_offset, Error *err);
/* The same gradients given 1 / sqrt(variance + epsilon) per feature (as
 * cuDNN's batch-norm backward takes it) instead of variance and epsilon. */
bool k_batch_norm_grad_inv_stddev(const KArray *x, const KArray *scale, const KArray *mean,
                                  const KArray *inv_stddev, const KArray *grad_out,
                                  int64_t feature_index, KArray *grad_x, KArray *grad_scale,
                                  KArray *grad_offset, Error *err);

#endif
