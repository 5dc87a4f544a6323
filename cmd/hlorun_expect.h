/* hlorun --expect REF.npy|REF.npz [--rtol R] [--atol A]: compare the run's
 * results with reference arrays (docs/cli.md "Comparing with a reference").
 * The rules per element are interp/compare.h's; this file reads the options
 * and the reference, maps outputs to reference entries (the names --output
 * writes: out0, out1, ...; r{R}_out{i} / r{R}p{P}_out{i} with several
 * devices) and prints one line per output on stderr. */
#ifndef HLO_CMD_HLORUN_EXPECT_H
#define HLO_CMD_HLORUN_EXPECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "interp/io/npy.h"
#include "interp/run.h"

typedef struct HlorunExpectArgs {
  const char *path; /* --expect FILE; NULL: no comparison */
  double rtol, atol;
  bool rtol_set, atol_set; /* else the element type's default */
} HlorunExpectArgs;

/* --expect, --rtol, --atol: 1 if argv[*i] was one (its value consumed),
 * 0 if not, -1 on a usage error (printed). */
int hlorun_expect_option(int argc, char **argv, int *i, HlorunExpectArgs *a);
void hlorun_expect_usage(FILE *f);

/* The loaded reference. */
typedef struct HlorunExpect {
  const HlorunExpectArgs *args;
  bool loaded, is_npz;
  NpyArray npy; /* a .npy reference: entry "out0" */
  NpzFile npz;
} HlorunExpect;

/* Reads the reference before the run, so that a bad one fails fast.
 * Returns 0 (also without --expect), or the exit status after printing
 * the error: 2 for a usage error (--rtol/--atol without --expect, a .npy
 * reference for a run of several devices), 1 for a file that cannot be
 * read or is not a valid .npy/.npz. */
int hlorun_expect_load(const char *prog, const HlorunExpectArgs *a, int64_t ndevices,
                       HlorunExpect *e);
/* Compares every output of every device with its entry and prints one line
 * per output (and one per reference entry no output has) on `out`.
 * Returns 0 when everything matches, 4 (EXIT_MISMATCH) when anything does
 * not, 1 when memory runs out (printed). */
int hlorun_expect_check(const char *prog, const HlorunExpect *e, const RunResult *res, FILE *out);
void hlorun_expect_free(HlorunExpect *e);

#endif
