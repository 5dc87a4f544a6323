/* Old-style CPU custom calls (API_VERSION_ORIGINAL and
 * API_VERSION_STATUS_RETURNING), as a C user writes them for XLA:CPU.
 * Built as the module lib/libhlo_test_oldcall.so (cmake/ffi_tests.cmake);
 * XlaCustomCallStatusSetFailure is left undefined and resolves from hlorun
 * when it loads the library. */
#include <string.h>

#include "hlotools/custom_call_status.h"

/* The library's exported functions (the module is built with
 * -fvisibility=hidden, as the C++ one). */
#define EXPORT __attribute__((visibility("default")))

EXPORT void hlo_old_add(void *out, const void **ins);
EXPORT void hlo_old_status(void *out, const void **ins, XlaCustomCallStatus *status);
EXPORT void hlo_old_tuple(void *out, const void **ins);

/* hlo_old_add(a: f32[4], b: f32[4]) -> f32[4] = a + b (the test module
 * fixes the size at 4: old-style calls are not told shapes). */
void hlo_old_add(void *out, const void **ins) {
  const float *a = ins[0], *b = ins[1];
  float *o = out;
  for (int i = 0; i < 4; ++i) o[i] = a[i] + b[i];
}

/* hlo_old_status(x: f32[4]) -> f32[4]: fails with "hlo_old_status: x[0] is
 * negative" when x[0] < 0, else copies x.  API_VERSION_STATUS_RETURNING. */
void hlo_old_status(void *out, const void **ins, XlaCustomCallStatus *status) {
  const float *x = ins[0];
  if (x[0] < 0) {
    static const char msg[] = "hlo_old_status: x[0] is negative";
    XlaCustomCallStatusSetFailure(status, msg, strlen(msg));
    return;
  }
  memcpy(out, x, 4 * sizeof(float));
}

/* hlo_old_tuple(x: f32[4]) -> (f32[4] = -x, s32[] = 4): out is a table of
 * two pointers, one per tuple element. */
void hlo_old_tuple(void *out, const void **ins) {
  void **outs = out;
  const float *x = ins[0];
  float *neg = outs[0];
  int *count = outs[1];
  for (int i = 0; i < 4; ++i) neg[i] = -x[i];
  *count = 4;
}
