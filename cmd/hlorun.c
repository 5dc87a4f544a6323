/* hlorun: parse, check, print and (later) run an HLO module.
 * Exit status (docs/cli.md): 0 ok, 1 runtime failure, 2 usage, 3 the model
 * does not parse or verify. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/load.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_INVALID = 3 };

static void usage(FILE *f) {
  fputs("usage: hlorun MODEL.hlo [--check | --print-module]\n"
        "  MODEL.hlo       HLO text module; '-' reads standard input\n"
        "  --check         parse and verify only; exit 0 if the module is valid\n"
        "  --print-module  print the module back as canonical HLO text\n",
        f);
}

int main(int argc, char **argv) {
  const char *path = NULL;
  bool check = false, print = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--check") == 0) {
      check = true;
    } else if (strcmp(a, "--print-module") == 0) {
      print = true;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return EXIT_OK;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "hlorun: unknown option %s\n", a);
      usage(stderr);
      return EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "hlorun: more than one model given (%s, %s)\n", path, a);
      usage(stderr);
      return EXIT_USAGE;
    } else {
      path = a;
    }
  }
  if (!path) {
    fprintf(stderr, "hlorun: no model given\n");
    usage(stderr);
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
    /* TODO(lead): print_module(&sb, m) from parser/print.c once it lands. */
    fprintf(stderr, "hlorun: --print-module is not available yet\n");
    status = EXIT_RUNTIME;
  } else if (!check) {
    fprintf(stderr, "hlorun: running modules is not implemented yet (use --check)\n");
    status = EXIT_RUNTIME;
  }
  module_free(m);
  module_source_free(&src);
  sb_free(&report);
  return status;
}
