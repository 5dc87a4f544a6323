/* The machine's memory bandwidth for a kernel that reads one big array and
 * writes another (out[i] = in[i] * s, ordinary stores), measured: THREADS
 * threads (default: all processors) each take a contiguous part of two
 * 256 MB arrays, far bigger than any cache; the best of 3 rounds after one
 * that faults the pages in.  Prints "rw_gbytes_per_s <GB/s>": bytes read
 * plus bytes written per second (the stores' reads for ownership are not
 * counted: the figure is the rate at which a kernel moves its operands).
 * scripts/bench-kernels.sh divides each convolution form's operand bytes
 * by it for the form's memory bound. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <immintrin.h>

enum { FLOATS = 64 << 20 }; /* per array: 256 MB */

typedef struct Part {
  const float *in;
  float *out;
  int64_t n;
} Part;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* SSE, x86-64's baseline: one core issues far more than memory takes. */
static void *scale(void *p) {
  const Part *w = p;
  __m128 s = _mm_set1_ps(1.0001f);
  int64_t i = 0;
  for (; i + 16 <= w->n; i += 16)
    for (int v = 0; v < 16; v += 4) _mm_storeu_ps(w->out + i + v, _mm_mul_ps(_mm_loadu_ps(w->in + i + v), s));
  for (; i < w->n; i++) w->out[i] = w->in[i] * 1.0001f;
  return NULL;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1 || n > 1024) n = 1;
  float *in = malloc(sizeof *in * (size_t)FLOATS), *out = malloc(sizeof *out * (size_t)FLOATS);
  pthread_t *t = malloc(sizeof *t * (size_t)n);
  Part *parts = malloc(sizeof *parts * (size_t)n);
  if (!in || !out || !t || !parts) {
    fprintf(stderr, "bench_bw: out of memory\n");
    return 1;
  }
  memset(in, 0, sizeof *in * (size_t)FLOATS);
  memset(out, 0, sizeof *out * (size_t)FLOATS);
  for (long i = 0; i < n; i++) {
    int64_t a = (int64_t)FLOATS * i / n, b = (int64_t)FLOATS * (i + 1) / n;
    parts[i] = (Part){in + a, out + a, b - a};
  }
  double best = 0;
  for (int round = 0; round < 4; round++) {
    double t0 = now();
    for (long i = 0; i < n; i++) pthread_create(&t[i], NULL, scale, &parts[i]);
    for (long i = 0; i < n; i++) pthread_join(t[i], NULL);
    double gb = 2.0 * FLOATS * sizeof *in / (now() - t0) / 1e9;
    if (round > 0 && gb > best) best = gb;
  }
  printf("rw_gbytes_per_s %.2f\n", best);
  printf("sink %g\n", (double)out[FLOATS / 2]);
  free(in);
  free(out);
  free(t);
  free(parts);
  return 0;
}
