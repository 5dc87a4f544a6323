/* ragged-dot (eval_ragged.c), reached through eval_of[] (opcodes.def). */
#ifndef HLO_INTERP_EVAL_RAGGED_H
#define HLO_INTERP_EVAL_RAGGED_H

#include "interp/eval_internal.h"

bool eval_ragged_dot(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err);

#endif
