/* Parse (+ verify) throughput and memory.
 *   bench_parse [--verify] [--repeat N] FILE...
 * For each file: best-of-N wall time, MB/s, and the module's arena size as
 * a multiple of the text size; then totals and the process's peak RSS. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "base/arena.h"
#include "parser/parser.h"
#include "parser/verify.h"

/* CPU time of this process: on a shared machine wall time measures the
 * neighbours as much as the parser.  Wall time is reported too. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  *len = (size_t)n;
  return buf;
}

int main(int argc, char **argv) {
  bool verify = false, quiet = false;
  int repeat = 3;
  int first = 1;
  for (; first < argc && argv[first][0] == '-'; first++) {
    if (strcmp(argv[first], "--verify") == 0) verify = true;
    else if (strcmp(argv[first], "--quiet") == 0) quiet = true;
    else if (strcmp(argv[first], "--repeat") == 0 && first + 1 < argc) repeat = atoi(argv[++first]);
    else {
      fprintf(stderr, "usage: bench_parse [--verify] [--quiet] [--repeat N] FILE...\n");
      return 2;
    }
  }
  double total_bytes = 0, total_time = 0, total_wall = 0, worst_ratio = 0;
  const char *worst = "";
  int failed = 0;
  for (int i = first; i < argc; i++) {
    size_t len;
    char *text = slurp(argv[i], &len);
    if (!text) {
      fprintf(stderr, "bench_parse: cannot read %s\n", argv[i]);
      return 1;
    }
    double best = 1e30, best_wall = 1e30;
    size_t arena = 0;
    for (int r = 0; r < repeat; r++) {
      Diags d = {0};
      double w0 = now(), t0 = cpu_now();
      Module *m = parse_module(argv[i], text, len, &d);
      bool ok = m && (!verify || verify_module(m, &d));
      double t1 = cpu_now(), w1 = now();
      if (w1 - w0 < best_wall) best_wall = w1 - w0;
      if (!ok && r == 0) {
        fprintf(stderr, "bench_parse: %s does not %s\n", argv[i], m ? "verify" : "parse");
        failed++;
      }
      if (m) arena = arena_bytes_reserved(m->arena);
      module_free(m);
      diags_free(&d);
      if (t1 - t0 < best) best = t1 - t0;
    }
    double ratio = len ? (double)arena / (double)len : 0;
    if (len > 100000 && ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = argv[i];
    }
    if (!quiet)
      printf("%-50s %10zu bytes  cpu %8.2f ms %7.1f MB/s  wall %8.2f ms  arena %.2fx text\n",
             argv[i], len, best * 1e3, (double)len / best / 1e6, best_wall * 1e3, ratio);
    total_bytes += (double)len;
    total_time += best;
    total_wall += best_wall;
    free(text);
  }
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("total: %d files, %.1f MB, %s: cpu %.3f s = %.1f MB/s (wall %.3f s = %.1f MB/s); peak RSS %.1f MB",
         argc - first, total_bytes / 1e6, verify ? "parse+verify" : "parse only", total_time,
         total_bytes / total_time / 1e6, total_wall, total_bytes / total_wall / 1e6,
         (double)ru.ru_maxrss / 1024.0);
  if (worst_ratio > 0) printf("; largest arena/text ratio (files > 100 kB) %.2fx (%s)", worst_ratio, worst);
  printf("\n");
  return failed ? 1 : 0;
}
