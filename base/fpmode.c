#include "base/fpmode.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define FPMODE_FTZ 0x8000u /* MXCSR flush to zero */
#define FPMODE_DAZ 0x0040u /* MXCSR denormals are zero (every SSE2 x86-64 CPU has it) */
bool fpmode_flush_supported(void) { return true; }
bool fpmode_flush_begin(fenv_t *saved) {
  fegetenv(saved);
  _mm_setcsr(_mm_getcsr() | FPMODE_FTZ | FPMODE_DAZ);
  return true;
}
#else
bool fpmode_flush_supported(void) { return false; }
bool fpmode_flush_begin(fenv_t *saved) {
  fegetenv(saved);
  return false;
}
#endif

void fpmode_restore(const fenv_t *saved) { fesetenv(saved); }
