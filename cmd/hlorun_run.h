/* hlorun's run mode: the options it adds to the command line and the run
 * itself (cmd/hlorun_run.c). */
#ifndef HLO_CMD_HLORUN_RUN_H
#define HLO_CMD_HLORUN_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/hlorun_expect.h"
#include "interp/run.h"
#include "parser/ir.h"

enum { HLORUN_MAX_INPUT_FILES = 256, HLORUN_MAX_CUSTOM_CALLS = 64 };

typedef struct HlorunRunArgs {
  const char *inputs[HLORUN_MAX_INPUT_FILES];
  int ninputs;
  const char *infeeds[HLORUN_MAX_INPUT_FILES];
  int ninfeeds;
  const char *outfeed_dir;
  const char *output;
  const char *output_dir; /* --output-dir: one .npz per device (docs/mpi.md) */
  bool output_raw;
  bool quiet;
  bool print;      /* --print: print the result even with --output */
  bool print_full; /* --print-full: every element (implies --print) */
  const char *device;
  const char *memory_config;
  bool stats;
  const char *stats_file; /* --stats=FILE; default stderr */
  RunFormat stats_format;
  const char *report;     /* --report FILE.html */
  bool trace;
  const char *trace_file; /* --trace=FILE; default stderr */
  RunFormat trace_format;
  bool random_inputs;
  uint64_t seed;
  RunUnknownCalls unknown_calls; /* --unknown-custom-calls */
  const char *custom_calls[HLORUN_MAX_CUSTOM_CALLS]; /* --custom-call TARGET=... */
  int ncustom_calls;
  int64_t replicas;   /* --replicas N (0: the module's replica_count) */
  int64_t partitions; /* --partitions N (0: the module's num_partitions) */
  int64_t repeat; /* --repeat N */
  int64_t threads; /* --threads N (0: every online processor) */
  bool text_order; /* --text-order: no memory-frugal reordering (interp/schedule.h) */
  bool flush_denormals; /* --flush-denormals: XLA:CPU's FTZ/DAZ (base/fpmode.h) */
  int64_t timeout_ns;       /* --timeout SECONDS (0: none) */
  int64_t max_instructions; /* --max-instructions N (0: none) */
  /* Debugging (cmd/hlorun_debug.c). */
  bool find_nonfinite;     /* --find-nonfinite */
  const char *dump_dir;    /* --dump-values DIR */
  const char *dump_filter; /* --dump-filter REGEX */
  int64_t dump_limit;      /* --dump-limit N (0: the default) */
  int progress;            /* --progress 1, --no-progress -1, 0: on a terminal */
  HlorunExpectArgs expect; /* --expect, --rtol, --atol */
} HlorunRunArgs;

void hlorun_run_usage(FILE *f);
/* Consumes argv[*i] (and its value) if it is a run option: returns 1 if it
 * was, 0 if it is not a run option, -1 on a usage error (already printed). */
int hlorun_run_option(int argc, char **argv, int *i, HlorunRunArgs *a);
void hlorun_run_args_free(HlorunRunArgs *a);
/* Runs the module; returns the exit status. */
int hlorun_run_mode(const char *prog, const Module *m, const HlorunRunArgs *a);

/* This process is rank `rank` of an mpirun job of `size` ranks: it runs its
 * share of the devices, and only rank 0 prints, writes --output and
 * checks --expect (docs/mpi.md). */
void hlorun_run_set_world(int rank, int size);

#endif
