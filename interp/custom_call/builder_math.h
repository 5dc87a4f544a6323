/* custom-call targets xla_builder.math.<fn>: XlaBuilder's math helpers as
 * the MLIR lowering of XLA's builder tests emits them (interp/custom_call/builder_math.c).
 * fn is the target without its "xla_builder.math." prefix; *handled is
 * false when fn is not one of them (the caller then reports the target). */
#ifndef HLO_INTERP_CUSTOM_CALL_BUILDER_MATH_H
#define HLO_INTERP_CUSTOM_CALL_BUILDER_MATH_H

#include "interp/eval_internal.h"

bool eval_builder_math(EvalCtx *ctx, Frame *fr, const Instr *in, const char *fn,
                       const Shape *rs, Value **out, bool *handled, Error *err);

#endif
