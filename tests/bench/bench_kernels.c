/* Kernel micro-benchmarks: prints "<case> <best seconds>" per line.
 * scripts/bench-kernels.sh runs this next to the same cases in numpy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/k_conv.h"
#include "kernels/k_dot.h"
#include "kernels/k_reduce.h"
#include "kernels/k_sort.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static float *randf(int64_t n, unsigned seed) {
  float *p = malloc((size_t)n * sizeof *p);
  srand(seed);
  for (int64_t i = 0; i < n; i++) p[i] = (float)rand() / (float)RAND_MAX - 0.5f;
  return p;
}

#define BEST(name, reps, stmt)                                  \
  do {                                                          \
    double best = 1e30;                                         \
    for (int r_ = 0; r_ < (reps); r_++) {                       \
      double t0 = now();                                        \
      if (!(stmt)) { fprintf(stderr, "%s: %s\n", name, err.msg); return 1; } \
      double t = now() - t0;                                    \
      if (t < best) best = t;                                   \
    }                                                           \
    printf("%s %.6f\n", name, best);                            \
    fflush(stdout);                                             \
  } while (0)

int main(int argc, char **argv) {
  int64_t conv_n = argc > 1 ? atoll(argv[1]) : 8;
  Error err;
  /* dot f32 1024^3 */
  {
    int64_t n = 1024, d[] = {n, n};
    float *a = randf(n * n, 1), *b = randf(n * n, 2), *c = malloc((size_t)(n * n) * 4);
    KArray A = {ET_F32, 2, d, a}, B = {ET_F32, 2, d, b}, C = {ET_F32, 2, d, c};
    int64_t lc[] = {1}, rc[] = {0};
    KDotDims dn = {0, NULL, NULL, 1, lc, rc};
    BEST("dot_f32_1024", 5, k_dot(&A, &B, &dn, &C, &err));
    free(a); free(b); free(c);
  }
  /* conv NHWC [N,56,56,64] * HWIO [3,3,64,64], SAME */
  {
    int64_t ld[] = {conv_n, 56, 56, 64}, kd[] = {3, 3, 64, 64}, od[] = {conv_n, 56, 56, 64};
    float *x = randf(conv_n * 56 * 56 * 64, 3), *k = randf(9 * 64 * 64, 4), *o = malloc((size_t)(conv_n * 56 * 56 * 64) * 4);
    KArray X = {ET_F32, 4, ld, x}, K = {ET_F32, 4, kd, k}, O = {ET_F32, 4, od, o};
    int64_t sp[] = {1, 2}, ksp[] = {0, 1}, lo[] = {1, 1}, hi[] = {1, 1};
    KConvParams p = {{2, 0, 3, sp, 2, 3, ksp, 0, 3, sp}, {2, NULL, NULL, lo, hi, NULL, NULL, NULL}, 1, 1};
    BEST("conv_nhwc_3x3_64", 3, k_conv(&X, &K, &p, &O, &err));
    free(x); free(k); free(o);
  }
  /* reduce sum f32[4096,4096] over rows (dim 1) and columns (dim 0) */
  {
    int64_t d[] = {4096, 4096}, od[] = {4096};
    float *x = randf(4096 * 4096, 5), *o = malloc(4096 * 4), zero = 0;
    KArray X = {ET_F32, 2, d, x}, O = {ET_F32, 1, od, o};
    const void *init[] = {&zero};
    KReduceOp add[] = {K_RED_ADD};
    KReducer r = {add, NULL, NULL};
    int64_t d1[] = {1}, d0[] = {0};
    BEST("reduce_sum_rows_4096", 5, k_reduce(1, &X, init, 1, d1, &r, &O, &err));
    BEST("reduce_sum_cols_4096", 5, k_reduce(1, &X, init, 1, d0, &r, &O, &err));
    free(x); free(o);
  }
  /* sort 1M f32 */
  {
    int64_t n = 1 << 20;
    float *x = randf(n, 6), *o = malloc((size_t)n * 4);
    KArray X = {ET_F32, 1, &n, x}, O = {ET_F32, 1, &n, o};
    KComparator c = {K_CMP_LT, 0, false, NULL, NULL};
    BEST("sort_f32_1m", 5, k_sort(1, &X, 0, &c, &O, &err));
    free(x); free(o);
  }
  return 0;
}
