#include "kernels/k_threads.h"

#include "base/thread_pool.h"

/* OpenBLAS's setter, resolved only when the BLAS linked is OpenBLAS (a weak
 * reference: NULL with any other BLAS, or none). */
extern void openblas_set_num_threads(int n) __attribute__((weak));

void k_set_threads(int n) {
  if (n < 1) n = 1;
  pool_set_threads(n);
  /* OpenBLAS runs one thread per call: k_gemm.c cuts every gemm into
   * tiles on our pool, so its own threads would only oversubscribe. */
  if (openblas_set_num_threads) openblas_set_num_threads(1);
}
