/* What every command prints the same way (docs/cli.md): errors without a
 * source position as "PROG: error: message", a usage error as that line and
 * a pointer to --help (never the whole usage), --version, and the check that
 * what was written to stdout really got out. */
#ifndef HLO_CMD_COMMON_CLI_H
#define HLO_CMD_COMMON_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit statuses shared by the commands. */
enum {
  EXIT_OK = 0,
  EXIT_RUNTIME = 1,  /* a failure while running: bad data, resources, unsupported */
  EXIT_USAGE = 2,    /* a bad command line */
  EXIT_INVALID = 3,  /* the model or shape text does not parse or verify */
  EXIT_MISMATCH = 4  /* hlorun --expect: the results differ from the reference */
};

/* "PROG: error: <fmt>\n" on stderr. */
void cli_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cli_error, then "Try 'PROG --help' for more information."; returns EXIT_USAGE. */
int cli_usage_error(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Only the pointer to --help, after an error already printed. */
int cli_try_help(const char *prog);
/* "PROG (hlotools) VERSION (git REVISION)" on stdout. */
void cli_print_version(const char *prog);
/* Flushes stdout at the end of a command: a write that failed (a full disk,
 * /dev/full) is an error, never a silent exit 0.  Returns status, or
 * EXIT_RUNTIME (with the error printed) when it was EXIT_OK and stdout
 * failed. */
int cli_finish_stdout(const char *prog, int status);
/* Whether argv holds --version (anywhere, as --help is honoured anywhere). */
bool cli_is_version(const char *arg);

#endif
