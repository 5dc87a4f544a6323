/* Shared by the files of a run (run.c: one device; run_devices.c: a thread
 * per device; run_inputs.c, run_results.c, run_stats.c, run_trace.c: its
 * parts); not a public interface. */
#ifndef HLO_INTERP_RUN_INTERNAL_H
#define HLO_INTERP_RUN_INTERNAL_H

#include <stddef.h>

#include "base/doc.h"
#include "interp/memspace.h"
#include "interp/collective/rendezvous.h"
#include "interp/run.h"

/* Which device a run_device call is, in a run of replicas x partitions. */
typedef struct RunDevice {
  Rendezvous *rendezvous; /* NULL for a single device */
  int64_t id, replicas, partitions;
  bool trace;             /* only one device writes the trace */
  MemHostBudget *host;    /* host memory shared by the devices, or NULL */
} RunDevice;

/* Binds the inputs and evaluates the entry computation on one device (the
 * whole run of a single-device run; one thread of a multi-device run). */
bool run_device(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                const RunDevice *dev, RunResult *res, Error *err);

/* Runs replicas x partitions (> 1) devices, one thread each, all joined
 * before returning: res becomes device 0's result, res->devices the
 * others'.  The error is the first device failure, prefixed with its
 * device. */
bool run_devices(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                 int64_t replicas, int64_t partitions, RunResult *res, Error *err);

/* --- results of several devices (run_gather.c) --- */

/* An in-process run: res becomes local[0], res->devices the others
 * (local, n arrays from calloc, is taken over; NULL: out of memory). */
bool run_join_results(RunResult *local, int n, RunResult *res, Error *err);
/* A ranked run (RunOptions.world_size > 1): every rank sends its nlocal
 * devices' results to rank 0, whose res then holds all ndevices as in
 * run_join_results, and res->ranks every rank's `me`; the other ranks'
 * res their own devices.  Collective over the
 * ranks; local is taken over (NULL: out of memory, still takes part). */
bool run_gather_results(const RunOptions *opt, const RunRankStat *me, RunResult *local, int nlocal,
                        int ndevices, RunResult *res, Error *err);

/* --- inputs (run_inputs.c) --- */

/* The inputs of this device of a multi-device run (run_device_inputs.c):
 * r{R}_ / r{R}p{P}_ prefixed .npz entries of this device with the prefix
 * stripped, the unprefixed ones they do not override, positional inputs;
 * *out (free it) NULL when every input applies as given. */
bool run_device_inputs(const EvalCtx *ctx, const RunInput *inputs, int n, RunInput **out,
                       int *nout, Error *err);

/* Binds the entry's parameters in args: npz entries by name, the other
 * inputs by position, random data for the rest with random_inputs. */
bool run_bind_inputs(EvalCtx *ctx, const Module *m, const RunOptions *opt,
                     const RunInput *inputs, int ninputs, Value **args, Error *err);

/* The evaluator's infeed and outfeed hooks (EvalCtx.infeed / outfeed,
 * feed_ud a RunFeeds): infeed takes RunOptions.infeed's arrays in order,
 * then random data with random_inputs (run_inputs.c); outfeed appends to
 * the result's outfeed leaves (run_results.c). */
typedef struct RunFeeds {
  const RunOptions *opt;
  int next;     /* infeed arrays consumed */
  uint64_t rng; /* random infeed data */
  RunResult *res;
  int cap;      /* room in res->outfeed */
  /* Random results of unknown custom calls: the stream restarts at
   * unknown_seed with each --repeat evaluation, so every evaluation gives
   * the same result. */
  uint64_t unknown_seed, unknown_rng;
} RunFeeds;
bool run_infeed_leaf(void *ud, EvalCtx *ctx, const Shape *s, Value **out, Error *err);
bool run_outfeed_leaf(void *ud, EvalCtx *ctx, const Value *v, Error *err);
/* Deterministic data for an array leaf: floats uniform in [-1, 1), small
 * integers, pred 0/1 (--random-inputs); size_bound >= 0 puts integers in
 * [0, size_bound].  state advances. */
bool run_random_value(EvalCtx *ctx, const Shape *s, uint64_t *state, int64_t size_bound,
                      const char *desc, Value **out, Error *err);

/* --- unknown custom calls (run_unknown_calls.c) --- */

/* EvalCtx.unknown_call (ud a RunFeeds): zeros or random data of the
 * declared shape, the target counted in the result's substitutions. */
bool run_unknown_call(void *ud, EvalCtx *ctx, const Instr *in, const char *target,
                      const Shape *rs, Value **out, Error *err);

/* --- results (run_results.c) --- */

/* A copy of s that lives as long as res (see RunResult.shapes); NULL when
 * out of memory. */
const Shape *run_result_shape(RunResult *res, const Shape *s);
/* Appends v's array leaves to res->leaves (room for them made by the
 * caller): their data too when `data`, else only their shapes. */
bool run_collect_leaves(EvalCtx *ctx, Value *v, bool data, RunResult *res, Error *err);

/* --- statistics (run_stats.c) --- */

/* Copies the evaluator's counters into res: per instruction, per padded
 * shape, conversions, buffers.  False when out of memory. */
bool run_collect_stats(EvalCtx *ctx, RunResult *res);

/* --- trace (run_trace.c) --- */

typedef struct RunTracer {
  FILE *f;
  RunFormat fmt;
  MemSystem *mem;   /* names the space each result lives in */
  DocYamlSeq *yaml; /* RUN_FMT_YAML: the records' sequence (NULL if it could not start) */
  Arena *scratch;   /* one record's nodes, reset after each */
  bool lost;        /* a record could not be written (out of memory) */
} RunTracer;
/* Starts a trace to f (the YAML sequence opens here). */
void run_trace_start(RunTracer *t, FILE *f, RunFormat fmt, MemSystem *mem);
/* The evaluator's trace hook (EvalCtx.trace, trace_ud a RunTracer): one
 * record per executed instruction. */
void run_trace_instr(void *ud, const Instr *in, const Value *result, int64_t ns, int depth);
/* Ends the trace (a zeroed RunTracer that never started is fine); false
 * when a record was lost to out of memory or the YAML emitter failed. */
bool run_trace_finish(RunTracer *t);

#endif
