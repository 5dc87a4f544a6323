/* hlolayout's command line: options, help and the usage checks
 * (cmd/hlolayout_args.c); cmd/hlolayout.c does the work. */
#ifndef HLO_CMD_HLOLAYOUT_ARGS_H
#define HLO_CMD_HLOLAYOUT_ARGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

typedef enum { FMT_TEXT, FMT_YAML, FMT_JSON } Format;
typedef enum { MODE_SUMMARY, MODE_INDEX, MODE_OFFSET, MODE_MAP } Mode;

typedef struct {
  const char *shape, *index, *offset, *module;
  int64_t top; /* --top N: rows listed by --module, 0 = all */
  const char *report; /* --report FILE.html (with --module) */
  const char *device; /* --device NAME (with --report) */
  Mode mode;
  Format format;
} Options;

/* Fills o from argv; *help / *version when asked for.  Returns EXIT_OK or
 * EXIT_USAGE (the error already printed, one line and a pointer to --help). */
int hlolayout_parse_args(int argc, char **argv, Options *o, bool *help, bool *version);
void hlolayout_help(FILE *f);

#endif
