/* Compares a vector f32 math kernel with the running libm on every float bit
 * pattern (or every STEP-th) and times both:
 *
 *   bench_vexpf [STEP [FUNC[B]]]     FUNC: exp (default), tanh, log, expm1,
 *                                    log1p, sin, cos, erf, cbrt, pow (each
 *                                    x against a cycle of y values)
 *   bench_vexpf speed FUNC[B] [N]    ns per element over f32[N] (default
 *                                    4096*4096) of typical inputs, best of 5
 *
 * B picks one build regardless of the CPU's: for the double-precision
 * kernels (exp, log, sin, cos, pow) 0 is the plain (non-FMA) build, 1 the FMA
 * one with AVX2, 2 with AVX-512; for those without FMA (tanh, expm1, log1p,
 * erf, cbrt) 0 is SSE, 1 AVX2, 2 AVX-512.  The CPU must have it.  Checking
 * a plain build on an FMA machine needs libm's plain build too: run it as
 * GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA.  "plain" is exp0.  Exit 1 on
 * any difference.  tests/test_vmath.c runs a sample of this under CTest. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/k_internal.h"

static void vexpf_build(int build, float *restrict out, const float *restrict in, int64_t n) {
  if (build == 0) k_vexpf_plain(out, in, n);
  else k_vexpf(out, in, n); /* the FMA build the CPU has */
}

typedef struct {
  const char *name;
  KVecFn vec;
  void (*build)(int, float *restrict, const float *restrict, int64_t);
  float (*libm)(float);
  float lo, hi; /* typical inputs for the speed run */
} Func;

static const Func funcs[] = {
    {"exp", k_vexpf, vexpf_build, expf, -10, 10},
    {"tanh", k_vtanhf, k_vtanhf_build, tanhf, -5, 5},
    {"log", k_vlogf, k_vlogf_build, logf, 0, 100},
    {"expm1", k_vexpm1f, k_vexpm1f_build, expm1f, -10, 10},
    {"log1p", k_vlog1pf, k_vlog1pf_build, log1pf, -0.9f, 100},
    {"sin", k_vsinf, k_vsinf_build, sinf, -10, 10},
    {"cos", k_vcosf, k_vcosf_build, cosf, -10, 10},
    {"erf", k_verff, k_verff_build, erff, -5, 5},
    {"cbrt", k_vcbrtf, k_vcbrtf_build, cbrtf, -1000, 1000},
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const Func *find(const char *mode, int *build) {
  *build = -1;
  if (!strcmp(mode, "") || !strcmp(mode, "plain")) {
    *build = mode[0] ? 0 : -1;
    return &funcs[0];
  }
  for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++) {
    size_t l = strlen(funcs[i].name);
    if (!strncmp(mode, funcs[i].name, l) &&
        (!mode[l] || (mode[l] >= '0' && mode[l] <= '2' && !mode[l + 1]))) {
      if (mode[l]) *build = mode[l] - '0';
      return &funcs[i];
    }
  }
  fprintf(stderr, "bench_vexpf: unknown function '%s'\n", mode);
  exit(2);
}

static int speed(const Func *f, int build, int64_t n) {
  float *x = malloc((size_t)n * 4), *a = malloc((size_t)n * 4);
  if (!x || !a) return 2;
  uint32_t s = 12345;
  for (int64_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    x[i] = f->lo + (f->hi - f->lo) * (float)(s >> 8) * 0x1p-24f;
  }
  double best_v = 1e9, best_l = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    if (build >= 0) f->build(build, a, x, n);
    else f->vec(a, x, n);
    double t1 = now();
    for (int64_t i = 0; i < n; i++) a[i] = f->libm(x[i]);
    double t2 = now();
    if (t1 - t0 < best_v) best_v = t1 - t0;
    if (t2 - t1 < best_l) best_l = t2 - t1;
  }
  printf("%s%s f32[%" PRId64 "] in [%g, %g]: vector %.3f ns/elt (%.1f ms), libm %.3f ns/elt "
         "(%.1f ms), %.1fx\n",
         f->name, build >= 0 ? (const char[]){(char)('0' + build), 0} : "", n, (double)f->lo, (double)f->hi, best_v / (double)n * 1e9, best_v * 1e3,
         best_l / (double)n * 1e9, best_l * 1e3, best_l / best_v);
  free(x);
  free(a);
  return 0;
}

/* pow: every STEP-th x bit pattern, each against one y of a cycle of
 * typical exponents (integers of both parities, fractions, large ones) and
 * scattered bit patterns. */
static int check_pow(uint64_t step, int build) {
  static const float ys[] = {2.0f, 0.5f, -1.0f, 3.0f, -2.5f, 0x1.555556p-2f, 7.0f, 0.1f,
                             10.0f, -0.75f, 1e-3f, 100.0f, -3.0f, 1.5f, 0x1p-30f, 60.0f};
  enum { B = 1 << 16, NY = sizeof ys / sizeof ys[0] };
  static float x[B], y[B], a[B], r[B];
  uint64_t bad = 0, total = 0;
  double tv = 0, tl = 0;
  for (uint64_t u = 0; u <= UINT32_MAX;) {
    int m = 0;
    for (; m < B && u <= UINT32_MAX; m++, u += step) {
      uint32_t w = (uint32_t)u, v = (uint32_t)(u * 2654435761u >> 7);
      memcpy(&x[m], &w, 4);
      if ((u / step) % 5 == 4) memcpy(&y[m], &v, 4); /* scattered bits */
      else y[m] = ys[(u / step) % NY];
    }
    double t0 = now();
    if (build >= 0) k_vpowf_build(build, a, x, y, m);
    else k_vpowf(a, x, y, m);
    double t1 = now();
    for (int i = 0; i < m; i++) r[i] = powf(x[i], y[i]);
    double t2 = now();
    tv += t1 - t0;
    tl += t2 - t1;
    for (int i = 0; i < m; i++)
      if (memcmp(&a[i], &r[i], 4) && bad++ < 10)
        printf("x=%a y=%a: vector %a libm %a\n", (double)x[i], (double)y[i], (double)a[i],
               (double)r[i]);
    total += (uint64_t)m;
  }
  printf("pow%s: %" PRIu64 " inputs, %" PRIu64 " differ; vector %.2f ns/elt, libm %.2f ns/elt\n",
         build >= 0 ? (const char[]){(char)('0' + build), 0} : "", total, bad,
         tv / (double)total * 1e9, tl / (double)total * 1e9);
  return bad != 0;
}

static int speed_pow(int build, int64_t n) {
  float *x = malloc((size_t)n * 4), *y = malloc((size_t)n * 4), *a = malloc((size_t)n * 4);
  if (!x || !y || !a) return 2;
  uint32_t s = 12345;
  for (int64_t i = 0; i < n; i++) {
    s = s * 1664525u + 1013904223u;
    x[i] = 10.0f * (float)(s >> 8) * 0x1p-24f;
    s = s * 1664525u + 1013904223u;
    y[i] = -4.0f + 8.0f * (float)(s >> 8) * 0x1p-24f;
  }
  double best_v = 1e9, best_l = 1e9;
  for (int rep = 0; rep < 5; rep++) {
    double t0 = now();
    if (build >= 0) k_vpowf_build(build, a, x, y, n);
    else k_vpowf(a, x, y, n);
    double t1 = now();
    for (int64_t i = 0; i < n; i++) a[i] = powf(x[i], y[i]);
    double t2 = now();
    if (t1 - t0 < best_v) best_v = t1 - t0;
    if (t2 - t1 < best_l) best_l = t2 - t1;
  }
  printf("pow f32[%" PRId64 "] x in [0, 10], y in [-4, 4]: vector %.3f ns/elt (%.1f ms), "
         "libm %.3f ns/elt (%.1f ms), %.1fx\n",
         n, best_v / (double)n * 1e9, best_v * 1e3, best_l / (double)n * 1e9, best_l * 1e3,
         best_l / best_v);
  free(x);
  free(y);
  free(a);
  return 0;
}

/* "pow" or "powB": build B, else -1; -2 if not pow. */
static int pow_mode(const char *mode) {
  if (strncmp(mode, "pow", 3)) return -2;
  if (!mode[3]) return -1;
  if (mode[3] >= '0' && mode[3] <= '2' && !mode[4]) return mode[3] - '0';
  return -2;
}

int main(int argc, char **argv) {
  int build;
  if (argc > 2 && !strcmp(argv[1], "speed") && pow_mode(argv[2]) >= -1)
    return speed_pow(pow_mode(argv[2]), argc > 3 ? strtoll(argv[3], NULL, 10) : 4096 * 4096);
  if (argc > 2 && pow_mode(argv[2]) >= -1) {
    uint64_t step = strtoull(argv[1], NULL, 10);
    return check_pow(step ? step : 1, pow_mode(argv[2]));
  }
  if (argc > 2 && !strcmp(argv[1], "speed")) {
    const Func *f = find(argv[2], &build);
    return speed(f, build, argc > 3 ? strtoll(argv[3], NULL, 10) : 4096 * 4096);
  }
  uint64_t step = argc > 1 ? strtoull(argv[1], NULL, 10) : 1;
  if (!step) step = 1;
  const Func *f = find(argc > 2 ? argv[2] : "", &build);
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
    if (build >= 0) f->build(build, a, x, m);
    else f->vec(a, x, m);
    double t1 = now();
    for (int i = 0; i < m; i++) b[i] = f->libm(x[i]);
    double t2 = now();
    tv += t1 - t0;
    tl += t2 - t1;
    for (int i = 0; i < m; i++) {
      uint32_t p, q, xi;
      memcpy(&xi, &x[i], 4);
      memcpy(&p, &a[i], 4);
      memcpy(&q, &b[i], 4);
      if (p != q && bad++ < 10)
        printf("x=%a (0x%08x): vector %a (0x%08x) libm %a (0x%08x)\n", (double)x[i], xi,
               (double)a[i], p, (double)b[i], q);
    }
    total += (uint64_t)m;
  }
  printf("%s%s: %" PRIu64 " inputs, %" PRIu64 " differ; vector %.2f ns/elt, libm %.2f ns/elt\n",
         f->name, build >= 0 ? (const char[]){(char)('0' + build), 0} : "", total, bad,
         tv / (double)total * 1e9, tl / (double)total * 1e9);
  return bad != 0;
}
