/* custom-call targets with known semantics beyond the identities handled in
 * eval.c (eval_custom_call.c).  *handled is false when the target is not
 * one of them (the caller then reports it). */
#ifndef HLO_INTERP_EVAL_CUSTOM_CALL_H
#define HLO_INTERP_EVAL_CUSTOM_CALL_H

#include "interp/eval_internal.h"

bool eval_custom_call_known(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                            const Shape *rs, Value **out, bool *handled, Error *err);

#endif
