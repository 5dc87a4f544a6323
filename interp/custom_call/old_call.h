/* Old-style XLA:CPU custom calls: a plain C function of the user's library,
 * called the way XLA:CPU calls it for each api_version:
 *
 *   API_VERSION_ORIGINAL (the default)
 *       void f(void *out, const void **ins)
 *   API_VERSION_STATUS_RETURNING
 *       void f(void *out, const void **ins, XlaCustomCallStatus *status)
 *   API_VERSION_STATUS_RETURNING_UNIFIED
 *       void f(void *out, const void **ins, const char *opaque,
 *              size_t opaque_len, XlaCustomCallStatus *status)
 *
 * ins[i] is operand i's dense row-major data; a tuple operand is a table of
 * pointers to its elements' data.  out is the result's data, or for a
 * tuple result a table of pointers to each element's.  opaque is the
 * instruction's opaque="..." string.  A function reports failure with
 * XlaCustomCallStatusSetFailure (include/hlotools/custom_call_status.h),
 * which hlorun exports for the library to link against at load time. */
#ifndef HLO_INTERP_CUSTOM_CALL_OLD_CALL_H
#define HLO_INTERP_CUSTOM_CALL_OLD_CALL_H

#include "interp/eval_internal.h"

typedef enum {
  OLD_CALL_ORIGINAL,
  OLD_CALL_STATUS_RETURNING,
  OLD_CALL_STATUS_RETURNING_UNIFIED,
} OldCallKind;

/* The library's function, cast to its signature by api_version. */
typedef void OldCallFn(void);

bool old_call_run(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target, OldCallFn *fn,
                  OldCallKind kind, const Shape *rs, Value **out, Error *err);

#endif
