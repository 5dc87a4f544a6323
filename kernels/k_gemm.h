/* gemm for dot and convolution (kernels/k_gemm.c): the BLAS, one thread per
 * call, on tiles cut by the sizes alone and run on the interpreter's pool,
 * so that results are bit-identical for every thread count. */
#ifndef HLO_KERNELS_K_GEMM_H
#define HLO_KERNELS_K_GEMM_H

#include <stdbool.h>
#include <stdint.h>

#include "layout/etype.h"

#ifndef K_MAX_RANK
#define K_MAX_RANK 64
/* One single-threaded BLAS call, C = op(A) * op(B), or C += op(A) * op(B)
 * when acc, with row strides as k_gemm_strided; for callers that cut their
 * work into pool chunks by sizes themselves (k_conv_wgrad.c), where the
 * same call on the same bytes always rounds the same.  False (nothing done)
 * without a BLAS, for S64, when M, N or K is 0 or a size exceeds the BLAS's
 * int. */
bool k_gemm_one(EType ct, bool ta, bool tb, bool acc, int64_t M, int64_t N, int64_t K, const void *A,
                int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc);

#endif

/* C = op(A) * op(B) for each of nbatch equally shaped gemms, row-major, in
 * compute type ct (F32, F64, C64 or C128): A is M x K (K x M when ta) with
 * row stride lda, B is K x N (N x K when tb) with row stride ldb, C is M x N
 * with row stride ldc (elements).  Batch b's index over bdims[0..nbd) (last
 * fastest) gives its operands' offsets: sum of index * astr / bstr; C's is
 * b * cstr. */
typedef struct KGemm {
  EType ct;
  bool ta, tb;
  int64_t M, N, K;
  const void *A;
  int64_t lda;
  const void *B;
  int64_t ldb;
  void *C;
  int64_t ldc;
  int64_t nbatch;
  int nbd;
  int64_t bdims[K_MAX_RANK], astr[K_MAX_RANK], bstr[K_MAX_RANK];
  int64_t cstr;
} KGemm;

/* Runs g through the BLAS.  False (nothing done) without a BLAS, for S64,
 * for K == 0 with a non-empty result, or when a size or stride exceeds the
 * BLAS's int. */
bool k_gemm_run(const KGemm *g);

/* C[M,N] = op(A) * op(B), dense row-major operands, overwriting C, in
 * compute type ct (F32, F64, C64, C128, or S64 = exact wrapping integers).
 * A is [M,K] ([K,M] when ta); B is [K,N] ([N,K] when tb). */
void k_gemm(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
            const void *B, void *C);
/* nbatch such gemms, operands and results one after another. */
void k_gemm_batch(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, int64_t nbatch,
                  const void *A, const void *B, void *C);

/* One gemm with row strides (elements): A's rows lda apart, B's ldb, C's
 * ldc.  False (nothing done) as k_gemm_run, or when M, N or K is 0. */
bool k_gemm_strided(EType ct, bool ta, bool tb, int64_t M, int64_t N, int64_t K, const void *A,
                    int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc);

/* One single-threaded BLAS call, C = op(A) * op(B), or C += op(A) * op(B)
 * when acc, with row strides as k_gemm_strided; for callers that cut their
 * work into pool chunks by sizes themselves (k_conv_wgrad.c), where the
 * same call on the same bytes always rounds the same.  False (nothing done)
 * without a BLAS, for S64, when M, N or K is 0 or a size exceeds the BLAS's
 * int. */
bool k_gemm_one(EType ct, bool ta, bool tb, bool acc, int64_t M, int64_t N, int64_t K, const void *A,
                int64_t lda, const void *B, int64_t ldb, void *C, int64_t ldc);

#endif
