/* Running a module (interp/run.h): one device, or a thread per device
 * (run_devices.c), each binding the inputs (run_inputs.c), evaluating the
 * entry, possibly --repeat times, and collecting the results
 * (run_results.c), the statistics (run_stats.c) and a trace
 * (run_trace.c). */
#include "interp/run.h"
#include "interp/mem_track.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/fpmode.h"
#include "interp/collective/groups.h"
#include "interp/run_debug.h"
#include "interp/run_internal.h"
#include "kernels/k_threads.h"

static int64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Hooks the run's parts into the evaluator: the feeds, the limits, the
 * device's place in the grid and, on the device that writes it, the
 * trace. */
static void wire(EvalCtx *ctx, const RunOptions *opt, const RunDevice *dev, const RunResult *res,
                 RunFeeds *feeds, RunTracer *tracer) {
  ctx->infeed = run_infeed_leaf;
  ctx->outfeed = run_outfeed_leaf;
  ctx->feed_ud = feeds;
  if (opt->unknown_calls != RUN_UNKNOWN_CALLS_ERROR) ctx->unknown_call = run_unknown_call;
  ctx->user_calls = opt->custom_calls;
  ctx->timing = opt->stats || opt->trace;
  ctx->max_instructions = opt->max_instructions;
  ctx->deadline_ns = opt->timeout_ns > 0 ? now_ns() + opt->timeout_ns : 0;
  ctx->rendezvous = dev->rendezvous;
  ctx->device_id = dev->id;
  ctx->num_replicas = dev->replicas;
  ctx->num_partitions = dev->partitions;
  ctx->replica_id = res->replica_id;
  ctx->partition_id = res->partition_id;
  if (dev->trace && opt->trace) {
    ctx->trace = run_trace_instr;
    ctx->trace_ud = tracer;
    run_trace_start(tracer, opt->trace, opt->trace_format, ctx->vc.mem);
  }
}

/* Evaluates the entry `reps` times on the same bound inputs (--repeat),
 * each earlier result released before the next evaluation (so later ones
 * reuse warm memory; counters add up).  *result is the last evaluation's;
 * res gets the times: the best, first and median evaluation, and the
 * least CPU time. */
static bool evaluate(EvalCtx *ctx, const Computation *e, Value **args, int64_t reps,
                     RunFeeds *feeds, RunResult *res, Value **result, Error *err) {
  int64_t *times = calloc((size_t)reps, sizeof *times);
  if (!times) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  bool ok = true;
  int64_t done = 0;
  res->eval_cpu_ns = INT64_MAX;
  for (; ok && done < reps; done++) {
    if (*result) value_unref(&ctx->vc, *result);
    *result = NULL;
    feeds->unknown_rng = feeds->unknown_seed;
    int64_t ta = now_ns(), ca = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    ok = eval_computation(ctx, e, args, e->nparams, result, err);
    times[done] = now_ns() - ta;
    int64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - ca;
    if (cpu < res->eval_cpu_ns) res->eval_cpu_ns = cpu;
  }
  res->repeat = done;
  res->eval_first_ns = times[0];
  qsort(times, (size_t)done, sizeof *times, cmp_i64);
  res->eval_ns = times[0];
  res->eval_median_ns = done % 2 ? times[done / 2] : (times[done / 2 - 1] + times[done / 2]) / 2;
  free(times);
  return ok;
}

/* Binds the inputs and evaluates the entry computation on one device (the
 * whole run of a single-device run; one thread of a multi-device run). */
bool run_device(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                const RunDevice *dev, RunResult *res, Error *err) {
  memset(res, 0, sizeof *res);
  res->module = m;
  res->replica_id = dev->id / dev->partitions;
  res->partition_id = dev->id % dev->partitions;
  res->nreplicas = dev->replicas;
  res->npartitions = dev->partitions;
  res->ndevices = 1;
  MemConfig defcfg;
  const MemConfig *cfg = opt->memory;
  if (!cfg) {
    config_default(&defcfg);
    cfg = &defcfg;
  }
  snprintf(res->device, sizeof res->device, "%s", cfg->device);
  memcpy(res->peak_flops, cfg->peak_flops, sizeof res->peak_flops);
  MemSystem *mem = malloc(sizeof *mem);
  Arena *arena = arena_new();
  EvalCtx *ctx = calloc(1, sizeof *ctx);
  if (!mem || !arena || !ctx) {
    free(mem);
    free(ctx);
    if (arena) arena_free(arena);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  bool ok = config_apply(cfg, mem, err);
  mem->host = dev->host;
  bool inited = ok && eval_init(ctx, m, mem, arena, err);
  ok = inited;
  /* Every accounted buffer is followed, for the out-of-memory message;
   * with --report the timeline too, handed to the caller. */
  MemTrack *track = inited ? memtrack_new(m, opt->tracks != NULL) : NULL;
  if (inited && !track) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (track) {
    ctx->vc.track = track;
    if (opt->tracks) opt->tracks[dev->id] = track;
  }
  RunTracer tracer = {0};
  uint64_t unknown_seed = opt->seed ^ 0x6c62272e07bb0142ull;
  RunFeeds feeds = {opt, 0, opt->seed ^ 0x1f2e3d4c5b6a7988ull, res, 0, unknown_seed, unknown_seed};
  if (ok) wire(ctx, opt, dev, res, &feeds, &tracer);
  RunDebugDevice *debug = NULL;
  if (ok && opt->debug)
    ok = run_debug_attach(opt->debug, ctx, dev->trace, res->replica_id, res->partition_id,
                          dev->replicas, dev->partitions, &debug, err);
  const Computation *e = m->entry;
  Value **args = calloc((size_t)(e->nparams ? e->nparams : 1), sizeof *args);
  if (!args) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  Value *result = NULL;
  int64_t t0 = now_ns();
  if (ok) ok = run_bind_inputs(ctx, m, opt, inputs, ninputs, args, err);
  /* The evaluation proper in the run's floating-point mode (inputs are
   * read and results written in the default one, as XLA's host side does). */
  fenv_t fp_saved;
  bool flushed = ok && opt->flush_denormals && fpmode_flush_begin(&fp_saved);
  if (ok) ok = evaluate(ctx, e, args, opt->repeat > 1 ? opt->repeat : 1, &feeds, res, &result, err);
  if (flushed) fpmode_restore(&fp_saved);
  res->wall_ns = now_ns() - t0;
  run_debug_detach(debug);
  if (!run_trace_finish(&tracer) && ok)
    ok = error_set(err, ERR_RUNTIME, -1, "could not write every --trace record (out of memory or a write error)");
  if (ok) {
    res->shape = &e->root->shape;
    int nl = run_count_leaves(result->shape ? result->shape : &e->root->shape);
    res->leaves = calloc((size_t)(nl ? nl : 1), sizeof *res->leaves);
    if (!res->leaves) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    else ok = run_collect_leaves(ctx, result, !opt->discard_result, res, err);
  }
  if (inited) {
    value_unref(&ctx->vc, result);
    for (int p = 0; args && p < e->nparams; p++) value_unref(&ctx->vc, args[p]);
    if (ok && !run_collect_stats(ctx, res)) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    eval_free(ctx); /* releases the cached constants: still tracked */
  }
  if (!opt->tracks) memtrack_free(track);
  /* Final counters (constants and results released: live is back to 0). */
  mem_destroy(mem);
  res->mem = *mem;
  res->mem.host = NULL; /* the budget lives only as long as the run */
  free(args);
  free(ctx);
  free(mem);
  arena_free(arena);
  if (!ok) run_result_free(res);
  return ok;
}

void run_device_grid(const Module *m, const RunOptions *opt, int64_t *replicas,
                     int64_t *partitions) {
  if (opt->replicas <= 0 && opt->partitions <= 0 && m->replica_count <= 1 &&
      m->num_partitions <= 1) {
    collective_grid_needed(m, replicas, partitions);
    return;
  }
  *replicas = opt->replicas > 0 ? opt->replicas : m->replica_count;
  *partitions = opt->partitions > 0 ? opt->partitions : m->num_partitions;
  if (*replicas < 1) *replicas = 1;
  if (*partitions < 1) *partitions = 1;
}

bool run_module(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                RunResult *res, Error *err) {
  memset(res, 0, sizeof *res);
  res->module = m;
  if (opt->threads > 0) k_set_threads(opt->threads);
  if (opt->flush_denormals && !fpmode_flush_supported())
    return error_set(err, ERR_USAGE, -1, "--flush-denormals: this CPU or build cannot flush subnormals");
  if (!m->entry) return error_set(err, ERR_RUNTIME, -1, "the module has no entry computation");
  int64_t replicas, partitions;
  run_device_grid(m, opt, &replicas, &partitions);
  if (replicas > RUN_MAX_DEVICES || partitions > RUN_MAX_DEVICES ||
      replicas * partitions > RUN_MAX_DEVICES)
    return error_set(err, ERR_RUNTIME, -1,
                     "%" PRId64 " replicas x %" PRId64 " partitions: at most %d devices can be "
                     "run",
                     replicas, partitions, RUN_MAX_DEVICES);
  if (replicas * partitions == 1 && opt->world_size <= 1) {
    RunDevice one = {NULL, 0, 1, 1, true, NULL};
    return run_device(m, opt, inputs, ninputs, &one, res, err);
  }
  return run_devices(m, opt, inputs, ninputs, replicas, partitions, res, err);
}
