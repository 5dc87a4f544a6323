/* hlorun's debugging options (cmd/hlorun_debug.c): --find-nonfinite,
 * --dump-values DIR, --dump-filter REGEX, --dump-limit N, --progress,
 * --no-progress; docs/cli.md "Debugging". */
#ifndef HLO_CMD_HLORUN_DEBUG_H
#define HLO_CMD_HLORUN_DEBUG_H

#include <regex.h>
#include <stdio.h>

#include "cmd/hlorun_run.h"
#include "interp/run_debug.h"

void hlorun_debug_usage(FILE *f);
/* As hlorun_run_option, for the debugging options. */
int hlorun_debug_option(int argc, char **argv, int *i, HlorunRunArgs *a);

/* The run's RunDebug from the options (d initialised by the caller; re
 * receives the compiled filter, freed with regfree when *re_used).
 * Returns EXIT_OK, or the exit status of an error it printed. */
int hlorun_debug_prepare(const char *prog, const HlorunRunArgs *a, RunDebug *d, regex_t *re,
                         bool *re_used);
/* After a failed run: prints the --find-nonfinite report when there is one
 * (true), else nothing (false). */
bool hlorun_debug_report_failure(const Module *m, const RunDebug *d);
/* After the run: "hlorun: --dump-values: N files written to DIR" etc. */
void hlorun_debug_summary(const char *prog, const HlorunRunArgs *a, const RunDebug *d);

#endif
