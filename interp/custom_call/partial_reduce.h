/* custom-call "PartialReduce": the first stage of TPU approximate top-k
 * (interp/custom_call/partial_reduce.c). */
#ifndef HLO_INTERP_CUSTOM_CALL_PARTIAL_REDUCE_H
#define HLO_INTERP_CUSTOM_CALL_PARTIAL_REDUCE_H

#include "interp/eval_internal.h"

bool eval_partial_reduce(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                         Error *err);

#endif
