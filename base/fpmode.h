/* The floating-point mode a run computes in.
 *
 * By default hlotools computes with IEEE subnormals, as XLA's HloEvaluator
 * and StableHLO's reference interpreter do.  XLA:CPU (and so JAX on a CPU)
 * runs its compiled code with subnormals flushed to zero instead: inputs
 * are read as zero (DAZ) and results that would be subnormal become zero
 * (FTZ) -- and so does hlorun --flush-denormals.  It is also much faster
 * where subnormals abound: a GEMM with subnormal operands ran 250x slower
 * (microcode assists on every FMA).
 *
 * The mode is per thread: the thread pool hands the caller's to its
 * workers with every job (base/thread_pool.c), and each device thread of
 * a multi-device run sets it itself (interp/run.c). */
#ifndef HLO_BASE_FPMODE_H
#define HLO_BASE_FPMODE_H

#include <stdbool.h>
#include <fenv.h>

/* Whether this build and CPU can flush subnormals (x86-64 SSE: MXCSR's
 * FTZ and DAZ bits). */
bool fpmode_flush_supported(void);
/* Turns flushing on for the calling thread; *saved gets the previous
 * environment for fpmode_restore.  False (nothing changed) when not
 * supported. */
bool fpmode_flush_begin(fenv_t *saved);
void fpmode_restore(const fenv_t *saved);

#endif
