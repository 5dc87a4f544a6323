/* The shared error and usage style of the commands (cmd/common/cli.h). */
#include "cmd/common/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "cmd/version_gen.h"

static void error_line(const char *prog, const char *fmt, va_list ap) {
  fprintf(stderr, "%s: error: ", prog);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void cli_error(const char *prog, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_line(prog, fmt, ap);
  va_end(ap);
}

int cli_try_help(const char *prog) {
  fprintf(stderr, "Try '%s --help' for more information.\n", prog);
  return EXIT_USAGE;
}

int cli_usage_error(const char *prog, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  error_line(prog, fmt, ap);
  va_end(ap);
  return cli_try_help(prog);
}

void cli_print_version(const char *prog) {
  printf("%s (hlotools) %s (git %s)\n", prog, HLO_VERSION, HLO_GIT_REVISION);
}

bool cli_is_version(const char *arg) { return strcmp(arg, "--version") == 0; }

int cli_finish_stdout(const char *prog, int status) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return status;
  if (status != EXIT_OK) return status; /* that failure was reported */
  cli_error(prog, "cannot write the standard output: %s", errno ? strerror(errno) : "write error");
  return EXIT_RUNTIME;
}
