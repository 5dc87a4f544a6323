/* jaxlib's CPU LAPACK custom calls (interp/custom_call/lapack.c):
 *   lapack_{s,d,c,z}potrf_ffi  -- Cholesky factorization (?potrf)
 *   lapack_{s,d,c,z}getrf_ffi  -- LU factorization with partial pivoting
 *                                 (?getrf)
 *   blas_{s,d,c,z}trsm_ffi, lapack_{s,d,c,z}trsm_ffi (older jaxlib)
 *                              -- triangular solve (BLAS ?trsm)
 *   __cusolver$cholesky        -- XLA:GPU's Cholesky custom call (?potrf)
 *   {cu,hip}solver_getrf[_ffi], {cu,hip}blas_getrf_batched
 *                              -- jaxlib's GPU LU (?getrf)
 * computed by the LAPACK the library links (OpenBLAS's). */
#ifndef HLO_INTERP_CUSTOM_CALL_LAPACK_H
#define HLO_INTERP_CUSTOM_CALL_LAPACK_H

#include "interp/eval_internal.h"

/* Whether target is one of the targets above. */
bool eval_lapack_known(const char *target);

bool eval_lapack(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target, const Shape *rs,
                 Value **out, Error *err);

#endif
