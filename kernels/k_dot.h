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

/* C[M,N] = op(A) * op(B), row-major, overwriting C, in compute type ct
 * (F32, F64, C64, C128, or S64 = exact wrapping integers).  A is [M,K]
 * ([K,M] when ta); B is [K,N] ([N,K] when tb).  Used by k_conv too. */
void k_gemm(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
            const void *B, void *C);

/* k_gemm with row strides (elements): A's rows lda apart, B's ldb, C's ldc.
 * Float and complex compute types through the BLAS only: false (nothing
 * done) without a BLAS, for S64, or when a size exceeds the BLAS's int. */
bool k_gemm_strided(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                    int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc);

#endif
