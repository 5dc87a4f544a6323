/* custom-call targets with known semantics: one table, one row per target
 * or per library (interp/custom_call/targets.c). */
#ifndef HLO_INTERP_CUSTOM_CALL_TARGETS_H
#define HLO_INTERP_CUSTOM_CALL_TARGETS_H

#include "interp/eval_internal.h"

/* Computes custom-call `in` of `target` into *out (result shape rs). */
typedef bool (*CustomCallEval)(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                               const Shape *rs, Value **out, Error *err);

/* The evaluator of target, or NULL when its semantics are unknown. */
CustomCallEval custom_call_evaluator(const char *target);

#endif
