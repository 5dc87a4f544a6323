/* The machine's f32 FMA peak, measured: THREADS threads (default: all
 * processors) each run independent chains of vector fused multiply-adds
 * for ~0.3 s; prints "fma_peak_gflops <GFLOP/s>" (an FMA is 2 flops), the
 * best of 3.  scripts/bench-kernels.sh divides convolution rates by it.
 * Twelve independent accumulators cover the FMA latency (4 cycles) times
 * the units (2) with room; the widest vectors the CPU has are used
 * (AVX-512, else AVX2 + FMA, else scalar multiply-adds). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <immintrin.h>

enum { ACC = 12, ITERS = 1 << 22 };
static int lanes = 1; /* f32 lanes per FMA of the build used */

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ITERS rounds of ACC independent vector FMAs (C is ISO C17: a * b + c is
 * not contracted into an FMA, hence the intrinsics). */
__attribute__((target("avx512f"))) static float chains512(float seed) {
  __m512 acc[ACC], a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(seed * 1e-7f);
  for (int i = 0; i < ACC; i++) acc[i] = _mm512_set1_ps((float)(i + 1));
  for (long it = 0; it < ITERS; it++)
#pragma GCC unroll 12
    for (int i = 0; i < ACC; i++) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  float s = 0;
  for (int i = 0; i < ACC; i++) s += _mm512_reduce_add_ps(acc[i]);
  return s;
}

__attribute__((target("avx2,fma"))) static float chains256(float seed) {
  __m256 acc[ACC], a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(seed * 1e-7f);
  for (int i = 0; i < ACC; i++) acc[i] = _mm256_set1_ps((float)(i + 1));
  for (long it = 0; it < ITERS; it++)
#pragma GCC unroll 12
    for (int i = 0; i < ACC; i++) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  float s = 0, t[8];
  for (int i = 0; i < ACC; i++) {
    _mm256_storeu_ps(t, acc[i]);
    for (int k = 0; k < 8; k++) s += t[k];
  }
  return s;
}

/* No FMA unit: scalar multiply-adds, counted as 2 flops each all the same. */
static float chains1(float seed) {
  float acc[ACC], a = 0.999999f, b = seed * 1e-7f, s = 0;
  for (int i = 0; i < ACC; i++) acc[i] = (float)(i + 1);
  for (long it = 0; it < ITERS; it++)
#pragma GCC unroll 12
    for (int i = 0; i < ACC; i++) acc[i] = acc[i] * a + b;
  for (int i = 0; i < ACC; i++) s += acc[i];
  return s;
}

static float chains(float seed) {
  if (lanes == 16) return chains512(seed);
  if (lanes == 8) return chains256(seed);
  return chains1(seed);
}

static void *worker(void *p) {
  float *r = p;
  *r = chains(*r);
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1 || n > 1024) n = 1;
  pthread_t *t = malloc(sizeof *t * (size_t)n);
  float *r = malloc(sizeof *r * (size_t)n);
  __builtin_cpu_init();
  lanes = __builtin_cpu_supports("avx512f") ? 16 : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? 8 : 1;
  double best = 0;
  for (int round = 0; round < 3; round++) {
    double t0 = now();
    for (long i = 0; i < n; i++) {
      r[i] = (float)i;
      pthread_create(&t[i], NULL, worker, &r[i]);
    }
    for (long i = 0; i < n; i++) pthread_join(t[i], NULL);
    double gf = (double)n * ITERS * ACC * lanes * 2 / (now() - t0) / 1e9;
    if (gf > best) best = gf;
  }
  printf("fma_peak_gflops %.1f\n", best);
  printf("fma_lanes %d\n", lanes);
  printf("sink %g\n", (double)r[0]);
  free(t);
  free(r);
  return 0;
}
