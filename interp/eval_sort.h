/* The TopK custom call (eval_sort.c, beside sort and topk, whose
 * evaluators are in eval_ops.h). */
#ifndef HLO_INTERP_EVAL_SORT_H
#define HLO_INTERP_EVAL_SORT_H

#include "interp/eval_internal.h"

bool eval_topk_custom_call(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                           Value **out, Error *err);

#endif
