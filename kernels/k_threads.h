/* How many threads the kernels use: the interpreter's pool (base/thread_pool.h)
 * and OpenBLAS's own threads, set together so that the two never run more
 * threads than asked for between them. */
#ifndef HLO_KERNELS_K_THREADS_H
#define HLO_KERNELS_K_THREADS_H

/* n >= 1: the pool and OpenBLAS (when it is the BLAS linked) both get n. */
void k_set_threads(int n);

#endif
