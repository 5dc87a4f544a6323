/* How many threads the kernels use: the interpreter's pool
 * (base/thread_pool.h).  OpenBLAS is kept at one thread per call: gemms run
 * as tiles on the pool (kernels/k_gemm.h), so the two never run more threads
 * than asked for between them and results do not depend on the count. */
#ifndef HLO_KERNELS_K_THREADS_H
#define HLO_KERNELS_K_THREADS_H

/* n >= 1: the pool gets n threads, OpenBLAS (when it is the BLAS linked) 1. */
void k_set_threads(int n);

#endif
