/* hlorun: parse, check, print and run an HLO module.
 * Exit status (docs/cli.md, cmd/common/cli.h): 0 ok, 1 runtime failure,
 * 2 usage, 3 the model does not parse or verify, 4 --expect found a difference. */
#include <malloc.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hostmem.h"
#include "base/strbuf.h"
#include "interp/collective/mpi_world.h"
#include "interp/schedule.h"
#include "parser/load.h"
#include "parser/print.h"

#include "cmd/common/cli.h"
#include "cmd/hlorun_run.h"
#include "cmd/hlorun_split.h"

static void help(FILE *f) {
  fputs("usage: hlorun MODEL.hlo [--check | --print-module] [run options]\n"
        "Parses, verifies and runs an XLA HLO text module on the CPU (docs/cli.md).\n"
        "  MODEL.hlo                 HLO text module; '-' reads standard input\n"
        "  --check                   parse and verify only; exit 0 if the module is valid\n"
        "  --print-module            print the module back as canonical HLO text\n"
        "  --no-verify               with --check or --print-module: parse only, as XLA's\n"
        "                            parser does, without the verifier's shape checks\n"
        "  --split-input-file        the file holds several modules separated by lines\n"
        "                            '// -----' (StableHLO's test files): each one in turn\n"
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
        "  4  a check failed: --expect found a difference, or a check.* call of the\n"
        "     module (StableHLO's test files) did\n",
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

/* What to do with the module(s) of the command line. */
typedef struct Mode {
  bool check, print, no_verify;
  const HlorunRunArgs *run;
} Mode;

/* Parses (and verifies) src, then prints, checks or runs it: the exit status. */
static int one_module(ModuleSource *src, void *ctx) {
  const Mode *mode = ctx;
  StrBuf report;
  sb_init(&report);
  ErrorKind kind = ERR_NONE;
  Module *m = parse_load_source(src, &report, &kind, !mode->no_verify);
  int status = EXIT_OK;
  if (!m) {
    fputs(report.data ? report.data : "", stderr);
    status = EXIT_INVALID;
  } else if (mode->print) {
    status = print_to_stdout(m);
  } else if (!mode->check) {
    if (!mode->run->text_order) schedule_module(m); /* --print-module above shows the text */
    status = hlorun_run_mode("hlorun", m, mode->run);
  }
  module_free(m);
  sb_free(&report);
  return status;
}

static int hlorun_main(int argc, char **argv) {
  const char *path = NULL;
  bool check = false, print = false, no_verify = false, split = false;
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
    } else if (strcmp(a, "--split-input-file") == 0) {
      split = true;
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
  const char *one_file = run_args.output       ? "--output"
                         : run_args.output_dir ? "--output-dir"
                         : run_args.expect.path ? "--expect"
                         : run_args.report     ? "--report"
                         : run_args.outfeed_dir ? "--outfeed-dir"
                                               : NULL;
  if (split && one_file) { /* each part would overwrite the last one's */
    hlorun_run_args_free(&run_args);
    return cli_usage_error("hlorun", "%s writes one module's results: not with --split-input-file",
                           one_file);
  }

  Mode mode = {check, print, no_verify, &run_args};
  int status;
  if (split) {
    status = hlorun_split_each("hlorun", path, one_module, &mode);
  } else {
    ModuleSource src;
    StrBuf report;
    sb_init(&report);
    ErrorKind kind = ERR_NONE;
    if (module_source_read(path, &src, &report, &kind)) {
      status = one_module(&src, &mode);
    } else {
      fprintf(stderr, "hlorun: error: %s", report.data ? report.data : "\n");
      status = kind == ERR_USAGE ? EXIT_USAGE : EXIT_RUNTIME;
    }
    module_source_free(&src);
    sb_free(&report);
  }
  hlorun_run_args_free(&run_args);
  return cli_finish_stdout("hlorun", status);
}

/* Launched by mpirun, the process joins the MPI job first (docs/mpi.md);
 * a plain start never touches MPI.
 *
 * Buffers under 4 MiB come from malloc (bigger ones are base/hostmem
 * blocks).  glibc hands the mid-sized ones out as fresh mappings and trims
 * freed heap back to the system, so a run re-faults the same pages again
 * and again: with these two settings 25-bert's training step takes half
 * the page faults (316k -> 160k). */
int main(int argc, char **argv) {
  mallopt(M_MMAP_THRESHOLD, (int)HOSTMEM_MIN);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
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
