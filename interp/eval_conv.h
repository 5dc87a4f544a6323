/* convolution (eval_conv.c), reached through eval_of[] (opcodes.def). */
#ifndef HLO_INTERP_EVAL_CONV_H
#define HLO_INTERP_EVAL_CONV_H

#include "interp/eval_internal.h"

bool eval_convolution(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                      Error *err);

#endif
