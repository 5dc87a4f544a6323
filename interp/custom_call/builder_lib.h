/* Custom calls naming XlaBuilder library functions, as XLA's MLIR tests
 * write them (xla/hlo/tools/tests/hlo_opt_test_only_passes.cc expands each
 * into the builder's HLO, keeping the declared result shape):
 *   xla_builder.matrix.Einsum (2 operands, config in backend_config; also
 *       1 operand, the builder's unary Einsum(x, config))   -- k_einsum.h
 *   xla_builder.matrix.GetMatrixDiagonalViaGather (k = 0): [..., M, N] ->
 *       [..., min(M, N)]
 *   xla_builder.prng.ScramblePhiloxKey: integer key -> u64 key, elementwise
 *       (the builder's second result; k_rng.h)
 *   xla_builder.tridiagonal.TridiagonalSolver (2 or 4 operands, Thomas)
 *       -- k_tridiagonal.h
 * The declared result shape must be the one the builder function produces;
 * otherwise the call is an error naming both. */
#ifndef HLO_INTERP_CUSTOM_CALL_BUILDER_LIB_H
#define HLO_INTERP_CUSTOM_CALL_BUILDER_LIB_H

#include "interp/eval_internal.h"

/* Whether target is one of the custom calls above. */
bool eval_builder_lib_known(const char *target);

bool eval_builder_lib(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                      const Shape *rs, Value **out, Error *err);

#endif
