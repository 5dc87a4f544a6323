/* hlorun: every file the run will write is checked before evaluation starts
 * (cmd/hlorun_outputs.c), so that a long run does not end in "cannot write". */
#ifndef HLO_CMD_HLORUN_OUTPUTS_H
#define HLO_CMD_HLORUN_OUTPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cmd/hlorun_run.h"

/* --output, --outfeed-dir, --stats=FILE, --trace=FILE: directories exist and
 * are writable, the output's suffix fits the result (.npy: one array of
 * one device).  False with one line (no program prefix) in msg: a usage
 * error (exit 2).  The writers rely on it. */
bool hlorun_check_outputs(const Module *m, const HlorunRunArgs *a, int64_t devices, char *msg,
                          size_t cap);

#endif
