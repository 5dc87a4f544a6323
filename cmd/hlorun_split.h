/* hlorun --split-input-file: a file of several modules separated by
 * "// -----" lines, as StableHLO's test files are (cmd/hlorun_split.c). */
#ifndef HLO_CMD_HLORUN_SPLIT_H
#define HLO_CMD_HLORUN_SPLIT_H

#include <stdbool.h>

#include "base/error.h"
#include "parser/load.h"

/* What to do with each module: returns its exit status. */
typedef int (*HlorunEachFn)(ModuleSource *src, void *ctx);

/* Reads path and calls each() on every part, in order, with src->text the
 * whole file with the other parts blanked (newlines kept), so that
 * diagnostics give the file's own lines and columns.  Parts are separated by
 * lines starting with "// -----"; every part runs even after one fails.
 * Writes "// -----" on stdout between the parts' outputs.  Returns the
 * status of the first part that failed, else 0 (a file that cannot be
 * read: its message printed, 1 or 2).  Parts of blanks and // comments only
 * (tests commented out) are skipped. */
int hlorun_split_each(const char *prog, const char *path, HlorunEachFn each, void *ctx);

#endif
