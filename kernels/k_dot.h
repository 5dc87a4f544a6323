/* dot / dot_general (operation semantics "DotGeneral").
 *
 * The result is [batch dims..., lhs free dims..., rhs free dims...]: batch
 * dims in the order given, free (neither batch nor contracting) dims in
 * increasing order.  Any number of batch and contracting dims, anywhere.
 *
 * Element types (operands may differ from each other and from the result):
 *   - f32/f64 and narrow floats (bf16, f16, f8*, f6*, f4*): computed in f32
 *     (f64 when any side is f64) through the BLAS when available, then
 *     rounded to the result type once;
 *   - c64/c128: complex gemm (c128 when any side is c128 or f64);
 *   - integers and pred with an integer/pred result: exact in 64-bit
 *     wrapping arithmetic, then wrapped to the result width (the same as
 *     computing in the result type, which is what XLA specifies);
 *   - integer operands with a float result are converted to the float
 *     compute type first.
 * Operands are transposed (a blocked copy) into [B, M, K] / [B, K, N] only
 * when the BLAS transpose flags cannot express their layout. */
#ifndef HLO_KERNELS_K_DOT_H
#define HLO_KERNELS_K_DOT_H

#include "kernels/k_types.h"

typedef struct KDotDims {
  int nbatch;
  const int64_t *lhs_batch, *rhs_batch;
  int ncontract;
  const int64_t *lhs_contract, *rhs_contract;
} KDotDims;

/* out->dims must be the result shape above; out->data is written whole. */
bool k_dot(const KArray *lhs, const KArray *rhs, const KDotDims *dn, KArray *out, Error *err);

/* Compute type of a dot/conv with these operand and result types (f32 for
 * narrow floats, f64/c64/c128 when any side is, s64 for integers); a result
 * of this type is exactly what k_dot computes before rounding. */
EType k_dot_compute_type(EType l, EType r, EType o);

#endif
