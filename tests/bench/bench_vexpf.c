/* Compares k_vexpf with the running libm's expf on every float bit pattern
 * (or every STEP-th: bench_vexpf [STEP [plain|tanh|tanh0|tanh1|tanh2]]) and
 * times both.  "plain" checks the non-FMA build instead; run it as
 * GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA so that libm picks its plain
 * expf too.  "tanh" checks k_vtanhf against tanhf, "tanhB" its build B
 * (0 SSE, 1 AVX2, 2 AVX-512; the CPU must have it).  Exit 1 on any
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
  const char *mode = argc > 2 ? argv[2] : "";
  bool plain = !strcmp(mode, "plain"), tanh_mode = !strncmp(mode, "tanh", 4);
  int build = tanh_mode && mode[4] ? atoi(mode + 4) : -1;
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
    if (tanh_mode && build >= 0) k_vtanhf_build(build, a, x, m);
    else if (tanh_mode) k_vtanhf(a, x, m);
    else if (plain) k_vexpf_plain(a, x, m);
    else k_vexpf(a, x, m);
    double t1 = now();
    if (tanh_mode)
      for (int i = 0; i < m; i++) b[i] = tanhf(x[i]);
    else
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
        printf("x=%a (0x%08x): vector %a (0x%08x) libm %a (0x%08x)\n", (double)x[i],
               xi, (double)a[i], p, (double)b[i], q);
    }
    total += (uint64_t)m;
  }
  printf("%" PRIu64 " inputs, %" PRIu64 " differ; vector %s %.2f ns/elt, libm %.2f ns/elt\n", total,
         bad, tanh_mode ? "tanh" : "exp", tv / (double)total * 1e9, tl / (double)total * 1e9);
  return bad != 0;
}
