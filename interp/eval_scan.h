/* scan in the evaluator (eval_scan.c). */
#ifndef HLO_INTERP_EVAL_SCAN_H
#define HLO_INTERP_EVAL_SCAN_H

#include "interp/eval_internal.h"

bool eval_scan(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err);

#endif
