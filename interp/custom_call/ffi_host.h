/* hlotools as the host of XLA FFI handlers (include/hlotools/ffi/c_api.h):
 * the XLA_FFI_Api function table handlers call back into, and the call of
 * a handler bundle for one custom call.  docs/custom-calls.md is the
 * user's side of it. */
#ifndef HLO_INTERP_CUSTOM_CALL_FFI_HOST_H
#define HLO_INTERP_CUSTOM_CALL_FFI_HOST_H

#include <stdbool.h>

#include "base/arena.h"
#include "hlotools/ffi/c_api.h"
#include "interp/eval_internal.h"

/* A handler's state for one call site on one device: what its
 * INSTANTIATE stage stored with XLA_FFI_State_Set, kept until the run
 * ends. */
typedef struct FfiInstance {
  bool instantiated;
  Arena *attrs_arena; /* NULL until the first call parses the attributes */
  XLA_FFI_Attrs attrs;
  void *state;
  int64_t state_type;
  void (*deleter)(void *state);
} FfiInstance;

/* Asks handler for its metadata (API version, traits) the way XLA does
 * when a handler is registered.  False with a message in err when the
 * handler fails the query or was built for an API version hlotools does
 * not provide. */
bool ffi_check_handler(XLA_FFI_Handler *handler, const char *what, Error *err);

/* Runs custom call `in` through bundle b: INSTANTIATE once per call site
 * (inst), then PREPARE, INITIALIZE and EXECUTE; waits for a handler's
 * future.  A handler's error becomes a runtime error naming the target. */
bool ffi_run(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
             const XLA_FFI_Handler_Bundle *b, FfiInstance *inst, const Shape *rs, Value **out,
             Error *err);

void ffi_instance_free(FfiInstance *inst);

#endif
