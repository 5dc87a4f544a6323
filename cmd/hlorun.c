/* hlorun: parse, check, print and run an HLO module.
 * Exit status (docs/cli.md, cmd/common/cli.h): 0 ok, 1 runtime failure,
 * 2 usage, 3 the model does not parse or verify, 4 --expect found a difference. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "interp/collective/mpi_world.h"
#include "parser/load.h"
#include "parser/print.h"

#include "cmd/common/cli.h"
#include "cmd/hlorun_run.h"

static void help(FILE *f) {
  fputs("usage: hlorun MODEL.hlo [--check | --print-module] [run options]\n"
        "Parses, verifies and runs an XLA HLO text module on the CPU (docs/cli.md).\n"
        "  MODEL.hlo                 HLO text module; '-' reads standard input\n"
        "  --check                   parse and verify only; exit 0 if the module is valid\n"
        "  --print-module            print the module back as canonical HLO text\n"
        "  --no-verify               with --check or --print-module: parse only, as XLA's\n"
        "                            parser does, without the verifier's shape checks\n"
        "  -h, --help                this help\n"
        "  --version                 the version and git revision\n",
        f);
  hlorun_run_usage(f);
  fputs("exit status:\n"
        "  0  success\n"
        "  1  runtime failure (bad input data, memory space exhausted, unsupported\n"
        "     feature named in the message, a file that cannot be written)\n"
        "  2  usage error\n"
        "  3  the model does not parse or verify\n"
        "  4  --expect: the result differs from the reference\n",
        f);
}

/* --print-module: the canonical text (docs/hlo-print.md) on stdout. */
static int print_to_stdout(const Module *m) {
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m);
  bool ok = !sb.oom && fwrite(sb.data, 1, sb.len, stdout) == sb.len && fflush(stdout) == 0;
  sb_free(&sb);
  if (ok) return EXIT_OK;
  cli_error("hlorun", "cannot write the printed module");
  return EXIT_RUNTIME;
}

static int hlorun_main(int argc, char **argv) {
  const char *path = NULL;
  bool check = false, print = false, no_verify = false;
  HlorunRunArgs run_args = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int run_opt = hlorun_run_option(argc, argv, &i, &run_args);
    if (run_opt < 0) { /* the error is printed */
      hlorun_run_args_free(&run_args);
      return cli_try_help("hlorun");
    }
    if (run_opt > 0) continue;
    if (strcmp(a, "--check") == 0) {
      check = true;
    } else if (strcmp(a, "--print-module") == 0) {
      print = true;
    } else if (strcmp(a, "--no-verify") == 0) {
      no_verify = true;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      help(stdout);
      hlorun_run_args_free(&run_args);
      return cli_finish_stdout("hlorun", EXIT_OK);
    } else if (cli_is_version(a)) {
      cli_print_version("hlorun");
      hlorun_run_args_free(&run_args);
      return cli_finish_stdout("hlorun", EXIT_OK);
    } else if (a[0] == '-' && a[1] != '\0') {
      hlorun_run_args_free(&run_args);
      return cli_usage_error("hlorun", "unknown option '%s'", a);
    } else if (path) {
      hlorun_run_args_free(&run_args);
      return cli_usage_error("hlorun", "more than one model given ('%s' and '%s')", path, a);
    } else {
      path = a;
    }
  }
  if (!path) {
    hlorun_run_args_free(&run_args);
    return cli_usage_error("hlorun", "no model given");
  }
  if (no_verify && !check && !print) { /* an unverified module is never run */
    hlorun_run_args_free(&run_args);
    return cli_usage_error("hlorun", "--no-verify goes with --check or --print-module only");
  }

  ModuleSource src;
  StrBuf report;
  sb_init(&report);
  ErrorKind kind = ERR_NONE;
  Module *m = no_verify ? parse_load_module_unverified(path, &src, &report, &kind)
                        : parse_load_module(path, &src, &report, &kind);
  int status = EXIT_OK;
  if (!m) {
    if (kind == ERR_RUNTIME || kind == ERR_USAGE) fputs("hlorun: error: ", stderr);
    fputs(report.data ? report.data : "", stderr);
    status = kind == ERR_RUNTIME ? EXIT_RUNTIME : kind == ERR_USAGE ? EXIT_USAGE : EXIT_INVALID;
  } else if (print) {
    status = print_to_stdout(m);
  } else if (!check) {
    status = hlorun_run_mode("hlorun", m, &run_args);
  }
  module_free(m);
  module_source_free(&src);
  sb_free(&report);
  hlorun_run_args_free(&run_args);
  return cli_finish_stdout("hlorun", status);
}

/* Launched by mpirun, the process joins the MPI job first (docs/mpi.md);
 * a plain start never touches MPI. */
int main(int argc, char **argv) {
  if (mpi_launched()) {
    int rank = 0, size = 1;
    Error err = {0};
    if (!mpi_world_init(&rank, &size, &err)) {
      cli_error("hlorun", "%s", err.msg);
      return mpi_world_exit(err.kind == ERR_USAGE ? EXIT_USAGE : EXIT_RUNTIME);
    }
    hlorun_run_set_world(rank, size);
  }
  return mpi_world_exit(hlorun_main(argc, argv));
}
