/* custom-call targets xla_builder.math.<fn>: XlaBuilder's math helpers as
 * the MLIR lowering of XLA's builder tests emits them
 * (interp/custom_call/builder_math.c). */
#ifndef HLO_INTERP_CUSTOM_CALL_BUILDER_MATH_H
#define HLO_INTERP_CUSTOM_CALL_BUILDER_MATH_H

#include "interp/eval_internal.h"

/* Whether target is one of them (with its "xla_builder.math." prefix). */
bool eval_builder_math_known(const char *target);
bool eval_builder_math(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                       const Shape *rs, Value **out, Error *err);

#endif
