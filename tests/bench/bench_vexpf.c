/* Compares k_vexpf with the running libm's expf on every float bit pattern
 * (or every STEP-th: bench_vexpf [STEP [plain]]) and times both.  "plain"
 * checks the non-FMA build instead; run it as
 * GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA so that libm picks its plain
 * expf too.  Exit 1 on any
 * difference.  tests/test_vmath.c runs a sample of this under CTest. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/k_internal.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  uint64_t step = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  if (!step) step = 1;
  bool plain = argc > 2 && !strcmp(argv[2], "plain");
  enum { B = 1 << 16 };
  static float x[B], a[B], b[B];
  uint64_t bad = 0, total = 0;
  double tv = 0, tl = 0;
  for (uint64_t u = 0; u <= UINT32_MAX;) {
    int m = 0;
    for (; m < B && u <= UINT32_MAX; m++, u += step) {
      uint32_t w = (uint32_t)u;
      memcpy(&x[m], &w, 4);
    }
    double t0 = now();
    if (plain) k_vexpf_plain(a, x, m);
    else k_vexpf(a, x, m);
    double t1 = now();
    for (int i = 0; i < m; i++) b[i] = expf(x[i]);
    double t2 = now();
    tv += t1 - t0;
    tl += t2 - t1;
    for (int i = 0; i < m; i++) {
      uint32_t p, q, xi;
      memcpy(&xi, &x[i], 4);
      memcpy(&p, &a[i], 4);
      memcpy(&q, &b[i], 4);
      if (p != q && bad++ < 10)
        printf("x=%a (0x%08x): vexpf %a (0x%08x) libm %a (0x%08x)\n", (double)x[i],
               xi, (double)a[i], p, (double)b[i], q);
    }
    total += (uint64_t)m;
  }
  printf("%" PRIu64 " inputs, %" PRIu64 " differ; vexpf %.2f ns/elt, libm expf %.2f ns/elt\n", total,
         bad, tv / (double)total * 1e9, tl / (double)total * 1e9);
  return bad != 0;
}
