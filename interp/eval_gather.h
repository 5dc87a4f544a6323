/* gather and scatter in the evaluator (eval_gather.c). */
#ifndef HLO_INTERP_EVAL_GATHER_H
#define HLO_INTERP_EVAL_GATHER_H

#include "interp/eval_internal.h"

bool eval_gather(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                 Error *err);
bool eval_scatter(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                  Error *err);

#endif
