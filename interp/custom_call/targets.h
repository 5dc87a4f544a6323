/* custom-call targets with known semantics beyond the identities handled in
 * eval.c (interp/custom_call/targets.c).  *handled is false when the target is not
 * one of them (the caller then reports it). */
#ifndef HLO_INTERP_CUSTOM_CALL_TARGETS_H
#define HLO_INTERP_CUSTOM_CALL_TARGETS_H

#include "interp/eval_internal.h"

bool eval_custom_call_known(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                            const Shape *rs, Value **out, bool *handled, Error *err);

#endif
