#include "kernels/k_threads.h"

#include <stdatomic.h>

#include "base/thread_pool.h"

/* OpenBLAS's setter and its worker shutdown, resolved only when the BLAS
 * linked is OpenBLAS (weak references: NULL with any other BLAS, or none). */
extern void openblas_set_num_threads(int n) __attribute__((weak));
extern int blas_thread_shutdown_(void) __attribute__((weak));

void k_set_threads(int n) {
  if (n < 1) n = 1;
  pool_set_threads(n);
  /* OpenBLAS runs one thread per call: k_gemm.c cuts every gemm into tiles
   * on our pool, so its own threads would only oversubscribe.  The workers
   * it started when it loaded spin in sched_yield for ~0.1 s after start
   * and after every threaded call, taking a core from the pool: stop them
   * once (at one thread OpenBLAS never starts them again). */
  static atomic_bool stopped;
  if (openblas_set_num_threads) openblas_set_num_threads(1);
  if (blas_thread_shutdown_ && !atomic_exchange(&stopped, true)) blas_thread_shutdown_();
}
