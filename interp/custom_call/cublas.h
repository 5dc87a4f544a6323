/* XLA:GPU's cuBLAS custom calls (interp/custom_call/cublas.c): the gemms __cublas$gemm
 * and __cublas$lt$matmul, configured by a GemmBackendConfig JSON, and
 * __cublas$triangularSolve. */
#ifndef HLO_INTERP_CUSTOM_CALL_CUBLAS_H
#define HLO_INTERP_CUSTOM_CALL_CUBLAS_H

#include "interp/eval_internal.h"

/* Whether target is one of the targets above. */
bool eval_cublas_known(const char *target);

bool eval_cublas_gemm(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                      const Shape *rs, Value **out, Error *err);

#endif
