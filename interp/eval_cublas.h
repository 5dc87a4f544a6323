/* XLA:GPU's cuBLAS gemm custom calls (eval_cublas.c): __cublas$gemm and
 * __cublas$lt$matmul, configured by a GemmBackendConfig JSON. */
#ifndef HLO_INTERP_EVAL_CUBLAS_H
#define HLO_INTERP_EVAL_CUBLAS_H

#include "interp/eval_internal.h"

/* Whether target is one of the gemm targets above. */
bool eval_cublas_known(const char *target);

bool eval_cublas_gemm(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                      const Shape *rs, Value **out, Error *err);

#endif
