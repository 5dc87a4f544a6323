/* Running a module: binding inputs to the entry computation's parameters,
 * evaluating it over simulated memory spaces, and collecting the result,
 * statistics (--stats) and a trace (--trace).  Nothing here prints to the
 * terminal on its own: the trace goes to the stream the caller hands in,
 * reports are returned as text. */
#ifndef HLO_INTERP_RUN_H
#define HLO_INTERP_RUN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "interp/io/config.h"
#include "interp/eval.h"
#include "interp/io/npy.h"
#include "parser/ir.h"

typedef enum { RUN_FMT_TEXT, RUN_FMT_YAML, RUN_FMT_JSON } RunFormat;

/* An input array as read from a .npy file or .npz entry (interp/io/npy.h).
 * Its dtype must be the parameter's, or the widened/raw form docs/cli.md
 * allows (npy_bind). */
typedef struct RunInput {
  const char *source; /* "x.npy" or "in.npz:arg0", for messages */
  const char *name;   /* npz entry name, or NULL (binds by position) */
  const NpyArray *array;
} RunInput;

/* What a custom call whose target hlotools cannot compute does
 * (--unknown-custom-calls): fail the run, or yield data of its declared
 * shape so that memory, layout and timing analysis still run. */
typedef enum {
  RUN_UNKNOWN_CALLS_ERROR,  /* the default */
  RUN_UNKNOWN_CALLS_ZEROS,  /* every array leaf zero */
  RUN_UNKNOWN_CALLS_RANDOM, /* as --random-inputs makes data, from the seed */
} RunUnknownCalls;

typedef struct RunOptions {
  const MemConfig *memory; /* NULL: the default ("cpu") preset */
  int64_t replicas;        /* 0: the module's replica_count */
  int64_t partitions;      /* 0: the module's num_partitions */
  bool random_inputs;      /* fill unbound parameters deterministically */
  uint64_t seed;
  bool stats;              /* collect per-instruction time */
  int64_t repeat;          /* evaluate the entry this many times (0 or 1: once) */
  int64_t timeout_ns;       /* > 0: a run still evaluating this long after it
                             * started fails with a runtime error naming the
                             * instruction (and while iteration) it was at */
  int64_t max_instructions; /* > 0: a run executing more instructions (loop
                             * iterations count their bodies' instructions)
                             * fails with a runtime error; 0: unlimited */
  FILE *trace;             /* one line per executed instruction, or NULL */
  RunFormat trace_format;
  /* infeed data: one array per array leaf an infeed asks for, consumed in
   * order; when they run out, random data with random_inputs, else an
   * error. */
  const RunInput *infeed;
  int ninfeed;
  /* The caller does not read the result's data (hlorun --quiet without
   * --output): the leaves keep their shapes, data stays NULL and nbytes 0,
   * which spares a dense copy of the whole result in fresh memory. */
  bool discard_result;
  /* Debugging aids (interp/run_debug.h: --find-nonfinite, --dump-values,
   * the progress line), or NULL.  The run fills its report fields. */
  struct RunDebug *debug;
  RunUnknownCalls unknown_calls;
  /* Custom-call targets the user brought (--custom-call), or NULL. */
  const struct UserCalls *custom_calls;
  /* > 0: threads the run uses, the interpreter's pool and OpenBLAS alike
   * (base/thread_pool.h); 0: leave them as they are. */
  int threads;
  /* Compute with subnormals flushed to zero, as XLA:CPU does
   * (base/fpmode.h; --flush-denormals); refused where unsupported. */
  bool flush_denormals;
  /* --report: RUN_MAX_DEVICES slots the run fills with each device's
   * memory timeline (interp/mem_track.h, indexed by global device id),
   * kept after the run, failed or not; the caller frees them with
   * memtrack_free.  NULL: no timeline (the live buffers are still followed,
   * for the out-of-memory message). */
  struct MemTrack **tracks;
  /* > 1: this process is rank world_rank of an mpirun job of world_size
   * ranks (interp/collective/mpi_world.h, MPI initialised by the caller):
   * it runs its block of the devices; rank 0's result holds every
   * device's, the other ranks' results only their own devices'. */
  int world_rank, world_size;
  /* Ranked runs: rank 0 receives the other ranks' result data (else only
   * their shapes and counters: --output-dir writes each rank's own). */
  bool gather_data;
} RunOptions;

/* One array leaf of the result, dense row-major natural storage of its
 * actual dims: the shape's, or for dynamic dimensions the runtime sizes
 * (only the valid elements, as XLA's literals print and hand out). */
typedef struct RunLeaf {
  const Shape *shape;
  int64_t dims[SHAPE_MAX_RANK];
  void *data; /* free with mem_free_detached (run_result_free does); NULL when
               * RunOptions.discard_result */
  int64_t nbytes;
} RunLeaf;

typedef struct RunInstrStat {
  const Instr *instr;
  InstrStats s; /* s.space_bytes owned by the result (indexed as RunResult.mem) */
  /* The cost model (interp/cost_model.h) over all s.count executions; only
   * for instructions of computations run as sequential code (the entry,
   * while bodies and conditions, called and branch computations): a fusion
   * body's or reducer's flops are counted in the instruction applying it. */
  bool costed;
  int peak_class;                  /* PEAK_* */
  double flops, transcendentals;   /* totals over the executions */
  double compute_s, memory_s, estimate_s;
  int bound;                       /* CostBound */
  int64_t bound_space;             /* S(n) when memory bound, else -1 */
} RunInstrStat;

typedef struct RunShapeStat {
  const Shape *shape;
  int64_t allocs, logical_bytes, physical_bytes; /* per buffer */
} RunShapeStat;

/* A custom-call target whose results were made up (RunUnknownCalls). */
typedef struct RunSubstitution {
  char *target;
  int64_t calls; /* executions */
} RunSubstitution;

/* One collective as one rank of an mpirun job exchanged it (--stats). */
typedef struct RunTraffic {
  char instr[64];
  int64_t count;                /* exchanges */
  int64_t bytes_sent, bytes_received;
} RunTraffic;

/* One rank of an mpirun job (--stats, docs/mpi.md). */
typedef struct RunRankStat {
  int rank, first_device, ndevices;
  int64_t wall_ns;        /* the rank's run: threads started to joined */
  int64_t device_peak;    /* sum over its devices of their spaces' peaks */
  int64_t exchange_peak;  /* most bytes of operands held for one exchange */
  int ntraffic;
  RunTraffic *traffic;
} RunRankStat;

typedef struct RunResult {
  const Module *module;
  const Shape *shape; /* of the entry root */
  int nleaves;
  RunLeaf *leaves;    /* flattened tuple order (array leaves only) */
  int noutfeed;
  RunLeaf *outfeed;   /* every array leaf outfeed sent, in order */
  /* Where the leaves' (and shape stats') shapes live: copies, since a value
   * may carry a shape made in the run's own arena (map mode, flattened
   * computations), which the run frees.  Freed by run_result_free. */
  Arena *shapes;
  /* Statistics. */
  char device[64];
  MemSystem mem;      /* final counters */
  int64_t wall_ns;    /* binding inputs + evaluation */
  int64_t eval_ns;    /* evaluation of the entry computation only (best of
                       * `repeat` evaluations) */
  int64_t repeat;     /* evaluations done (>= 1) */
  int64_t eval_first_ns, eval_median_ns; /* first (cold) and median evaluation */
  int64_t eval_cpu_ns; /* CPU time of the process (every thread, BLAS's too)
                        * over one evaluation, least of the `repeat` ones:
                        * steadier than eval_ns on a loaded machine */
  int64_t instructions_executed, while_iterations;
  /* The device's peak operations per second (MemConfig.peak_flops) and the
   * cost model's totals over the costed instructions. */
  double peak_flops[PEAK_NTYPES];
  double est_flops, est_transcendentals, est_time_s;
  int64_t conversions, conversion_bytes;
  int64_t alloc_logical_bytes, alloc_physical_bytes, nbuffers;
  int ninstr_stats;
  RunInstrStat *instr_stats; /* every instruction executed at least once */
  int nshape_stats;
  RunShapeStat *shape_stats; /* padded shapes, most wasteful first */
  int nsubstituted;
  RunSubstitution *substituted; /* unknown targets, in the order first met */
  /* Multi-device runs (replicas x partitions devices, each a thread with
   * its own memory spaces): the fields above are device 0's; devices holds
   * the results of devices 1 .. ndevices-1 (global id replica *
   * npartitions + partition).  A single-device run has ndevices 1. */
  int64_t replica_id, partition_id; /* of this result's device */
  bool remote; /* run by another rank of an mpirun job (its counters and,
                * when gathered, its data; no per-instruction statistics) */
  int64_t nreplicas, npartitions;
  int ndevices;
  struct RunResult *devices;
  /* Runs under mpirun, on rank 0 only: every rank's statistics. */
  int nranks;
  RunRankStat *ranks;
} RunResult;

/* The most devices (replicas x partitions) a run may have. */
enum { RUN_MAX_DEVICES = 64 };

/* Runs m's entry computation.  inputs bind parameters in order (a tuple
 * parameter takes one input per array leaf); an npz entry named like a
 * parameter binds that parameter.  Errors name the parameter or
 * instruction (ERR_RUNTIME).
 *
 * With more than one device (replicas x partitions, from the options or
 * the module header) every device runs in its own thread on the same
 * inputs, collectives meeting at a rendezvous; only device 0 writes the
 * trace.  A failing device fails the run (the error names the device);
 * the others stop at their next collective. */
bool run_module(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                RunResult *res, Error *err);
void run_result_free(RunResult *res);

/* The devices a run of m has: --replicas / --partitions (RunOptions), else
 * the header's replica_count / num_partitions; when neither says more than
 * one, the smallest grid the module's collectives name
 * (collective_grid_needed in interp/collective/groups.h). */
void run_device_grid(const Module *m, const RunOptions *opt, int64_t *replicas,
                     int64_t *partitions);
/* Device d's result (0 <= d < res->ndevices; 0 is res itself). */
const RunResult *run_result_device(const RunResult *res, int d);

/* The --stats report, appended to out; false when out of memory (out then
 * holds no partial report). */
bool run_format_stats(const RunResult *res, RunFormat fmt, StrBuf *out);
/* The ranks of an mpirun job (res->nranks > 0): time, memory and bytes
 * each collective moved (run_rank_stats.c); text, a YAML document, or a
 * JSON object {"ranks": [...]}. */
bool run_format_rank_stats(const RunResult *res, RunFormat fmt, StrBuf *out);

/* Number of array leaves of a shape (tokens excluded). */
int run_count_leaves(const Shape *s);

#endif
