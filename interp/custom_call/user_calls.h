/* Custom-call targets the user brings (hlorun --custom-call, or the
 * custom_calls list of the YAML config), tried before the built-in targets
 * of interp/custom_call/targets.c:
 *
 *   TARGET=LIB.so:SYMBOL
 *       a function of a shared library.  For calls with
 *       api_version=API_VERSION_TYPED_FFI it is an XLA FFI handler
 *       (interp/custom_call/ffi_host.h); for the other api_versions an
 *       old-style CPU function (interp/custom_call/old_call.h).
 *   TARGET=LIB.so:execute=SYM[,instantiate=SYM][,prepare=SYM][,initialize=SYM]
 *       an FFI handler with a handler per execution stage.
 *   TARGET=FILE.hlo
 *       an HLO module whose entry computation runs in place of the call:
 *       the call's operands are its parameters, its result must have the
 *       call's shape (layouts may differ; values are converted).
 *
 * A registry is loaded once (libraries opened, modules parsed and verified)
 * and read by every device of a run; what changes during a run (handler
 * states, the substitutes' evaluators) is per device, in the EvalCtx. */
#ifndef HLO_INTERP_CUSTOM_CALL_USER_CALLS_H
#define HLO_INTERP_CUSTOM_CALL_USER_CALLS_H

#include "interp/eval_internal.h"

typedef struct UserCalls UserCalls;
typedef struct UserCall UserCall;

/* Adds the registration `spec` to *calls (created on first use).  Relative
 * paths are taken from base_dir (the config file's directory), or the
 * working directory when it is NULL.  Errors are ERR_USAGE (a
 * malformed spec, a library or symbol that cannot be loaded, the same
 * target twice) or ERR_INVALID (a substitute module that does not parse or
 * verify; the message carries its diagnostics). */
bool user_calls_add(UserCalls **calls, const char *spec, const char *base_dir, Error *err);
void user_calls_free(UserCalls *calls);

/* The registration of target, or NULL. */
const UserCall *user_calls_find(const UserCalls *calls, const char *target);

/* Computes custom call `in` of a registered target into *out. */
bool user_call_eval(EvalCtx *ctx, Frame *fr, const Instr *in, const UserCall *uc,
                    const Shape *rs, Value **out, Error *err);

/* Frees ctx's per-device state of user calls (eval_free calls it). */
void user_calls_state_free(EvalCtx *ctx);

#endif
