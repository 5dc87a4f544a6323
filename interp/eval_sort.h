/* sort, topk and the TopK custom call in the evaluator (eval_sort.c). */
#ifndef HLO_INTERP_EVAL_SORT_H
#define HLO_INTERP_EVAL_SORT_H

#include "interp/eval_internal.h"

bool eval_sort(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
               Error *err);
bool eval_topk(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
               Error *err);
bool eval_topk_custom_call(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                           Value **out, Error *err);

#endif
