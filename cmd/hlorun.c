/* hlorun: parse, check, print and run an HLO module.
 * Exit status (docs/cli.md): 0 ok, 1 runtime failure, 2 usage, 3 the model
 * does not parse or verify. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "parser/load.h"
#include "parser/print.h"

#include "cmd/hlorun_run.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_INVALID = 3 };

static void usage(FILE *f) {
  fputs("usage: hlorun MODEL.hlo [--check | --print-module]\n"
        "  MODEL.hlo       HLO text module; '-' reads standard input\n"
        "  --check         parse and verify only; exit 0 if the module is valid\n"
        "  --print-module  print the module back as canonical HLO text\n",
        f);
  hlorun_run_usage(f);
}

/* --print-module: the canonical text (docs/hlo-print.md) on stdout. */
static int print_to_stdout(const Module *m) {
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m);
  bool ok = !sb.oom && fwrite(sb.data, 1, sb.len, stdout) == sb.len && fflush(stdout) == 0;
  sb_free(&sb);
  if (ok) return EXIT_OK;
  fprintf(stderr, "hlorun: cannot write the printed module\n");
  return EXIT_RUNTIME;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  bool check = false, print = false;
  HlorunRunArgs run_args = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int run_opt = hlorun_run_option(argc, argv, &i, &run_args);
    if (run_opt < 0) {
      usage(stderr);
      hlorun_run_args_free(&run_args);
      return EXIT_USAGE;
    }
    if (run_opt > 0) continue;
    if (strcmp(a, "--check") == 0) {
      check = true;
    } else if (strcmp(a, "--print-module") == 0) {
      print = true;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      hlorun_run_args_free(&run_args);
      return EXIT_OK;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "hlorun: unknown option %s\n", a);
      usage(stderr);
      hlorun_run_args_free(&run_args);
      return EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "hlorun: more than one model given (%s, %s)\n", path, a);
      usage(stderr);
      hlorun_run_args_free(&run_args);
      return EXIT_USAGE;
    } else {
      path = a;
    }
  }
  if (!path) {
    fprintf(stderr, "hlorun: no model given\n");
    usage(stderr);
    hlorun_run_args_free(&run_args);
    return EXIT_USAGE;
  }

  ModuleSource src;
  StrBuf report;
  sb_init(&report);
  ErrorKind kind = ERR_NONE;
  Module *m = parse_load_module(path, &src, &report, &kind);
  int status = EXIT_OK;
  if (!m) {
    if (kind == ERR_RUNTIME) fputs("hlorun: ", stderr);
    fputs(report.data ? report.data : "", stderr);
    status = kind == ERR_RUNTIME ? EXIT_RUNTIME : EXIT_INVALID;
  } else if (print) {
    status = print_to_stdout(m);
  } else if (!check) {
    status = hlorun_run_mode("hlorun", m, &run_args);
  }
  module_free(m);
  module_source_free(&src);
  sb_free(&report);
  hlorun_run_args_free(&run_args);
  return status;
}
