/* The checks StableHLO's test files make (interp/custom_call/check_calls.c):
 * custom-call targets check.eq, check.expect_eq, check.expect_almost_eq and
 * check.expect_close, which the StableHLO reader also makes of the `check`
 * dialect's ops (docs/stablehlo.md, "Checks"). */
#ifndef HLO_INTERP_CUSTOM_CALL_CHECK_CALLS_H
#define HLO_INTERP_CUSTOM_CALL_CHECK_CALLS_H

#include "interp/eval_internal.h"

/* Whether target is one of them. */
bool eval_check_known(const char *target);
/* Compares operand 0 (actual) with operand 1 (expected).  A difference fails
 * the run with ERR_MISMATCH, naming the first differing elements; check.eq
 * returns pred[] true when they agree. */
bool eval_check_call(EvalCtx *ctx, Frame *f, const Instr *in, const char *target,
                     const Shape *rs, Value **out, Error *err);

#endif
