/* Failure reporting for old-style CPU custom calls of
 * api_version=API_VERSION_STATUS_RETURNING(_UNIFIED), as XLA:CPU offers it.
 * hlorun defines these functions and exports them: a library that calls
 * them is linked without them and resolves them when hlorun loads it
 * (docs/custom-calls.md). */
#ifndef HLOTOOLS_CUSTOM_CALL_STATUS_H
#define HLOTOOLS_CUSTOM_CALL_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct XlaCustomCallStatus_ XlaCustomCallStatus; /* opaque */

/* The call succeeded (the default when neither is called). */
void XlaCustomCallStatusSetSuccess(XlaCustomCallStatus *status);
/* The call failed with message[0..message_len) (copied; hlorun keeps the
 * first 1023 bytes). */
void XlaCustomCallStatusSetFailure(XlaCustomCallStatus *status, const char *message,
                                   size_t message_len);

#ifdef __cplusplus
}
#endif

#endif
