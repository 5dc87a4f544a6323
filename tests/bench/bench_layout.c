/* Benchmark of layout_convert against memcpy of the same bytes:
 * f32[N,N] default {1,0} -> {1,0:T(8,128)} and back (issue 3 target: >= 40%
 * of memcpy).  Usage: bench_layout [N] [REPEATS]; prints GB/s (bytes copied
 * once per direction) and the ratio to memcpy; then the time to parse the
 * tiled shape's text (parse_shape_text, hlolayout's SHAPE argument). */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "layout/layout.h"
#include "parser/parser.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void plan_or_die(Arena *a, const char *text, LayoutPlan *p) {
  Shape s;
  Error err;
  if (!parse_shape_text(text, strlen(text), a, &s, &err) || !layout_plan_init(p, &s, &err)) {
    fprintf(stderr, "bench_layout: %s: %s\n", text, err.msg);
    exit(1);
  }
}

/* Sets out to the best of `reps` runs of stmt, in seconds. */
#define BEST_OF(out, reps, stmt)                  \
  do {                                            \
    out = 1e30;                                   \
    for (int r_ = 0; r_ < (reps); r_++) {         \
      double t0_ = now();                         \
      stmt;                                       \
      double t_ = now() - t0_;                    \
      if (t_ < out) out = t_;                     \
    }                                             \
  } while (0)

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4096;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  char dense_text[64], tiled_text[64];
  snprintf(dense_text, sizeof dense_text, "f32[%ld,%ld]{1,0}", n, n);
  snprintf(tiled_text, sizeof tiled_text, "f32[%ld,%ld]{1,0:T(8,128)}", n, n);
  Arena *a = arena_new();
  LayoutPlan dense, tiled;
  plan_or_die(a, dense_text, &dense);
  plan_or_die(a, tiled_text, &tiled);
  size_t bytes = (size_t)dense.physical_bytes, tbytes = (size_t)tiled.physical_bytes;
  float *src = malloc(bytes), *dst = malloc(tbytes), *back = malloc(bytes);
  if (!src || !dst || !back) return 1;
  for (size_t i = 0; i < bytes / 4; i++) src[i] = (float)i;
  memset(dst, 1, tbytes); /* touch every page before timing */
  memset(back, 1, bytes);
  Error err;
  double t_memcpy, t_to, t_back;
  BEST_OF(t_memcpy, reps, memcpy(dst, src, bytes));
  BEST_OF(t_to, reps, layout_convert(&tiled, dst, &dense, src, &err));
  BEST_OF(t_back, reps, layout_convert(&dense, back, &tiled, dst, &err));
  if (memcmp(src, back, bytes) != 0) {
    fprintf(stderr, "bench_layout: round trip mismatch\n");
    return 1;
  }
  double gb = (double)bytes / 1e9;
  printf("f32[%ld,%ld], %.1f MB, best of %d\n", n, n, (double)bytes / 1e6, reps);
  printf("  memcpy                    %7.2f GB/s\n", gb / t_memcpy);
  printf("  {1,0} -> {1,0:T(8,128)}   %7.2f GB/s  %5.1f%% of memcpy\n", gb / t_to,
         100.0 * t_memcpy / t_to);
  printf("  {1,0:T(8,128)} -> {1,0}   %7.2f GB/s  %5.1f%% of memcpy\n", gb / t_back,
         100.0 * t_memcpy / t_back);
  enum { PARSES = 10000 };
  double t_parse;
  BEST_OF(t_parse, reps, {
    Arena *pa = arena_new();
    for (int i = 0; i < PARSES && pa; i++) {
      Shape s;
      if (!parse_shape_text(tiled_text, strlen(tiled_text), pa, &s, &err)) return 1;
    }
    arena_free(pa);
  });
  printf("  parse \"%s\"  %7.2f us\n", tiled_text, 1e6 * t_parse / PARSES);
  layout_plan_free(&dense);
  layout_plan_free(&tiled);
  arena_free(a);
  free(src);
  free(dst);
  free(back);
  return 0;
}
