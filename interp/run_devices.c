/* Multi-device runs: one thread per device, each running run_device with
 * its own evaluator and memory spaces, collectives meeting at a shared
 * rendezvous, host memory shared under one budget (docs/interpreter.md,
 * "Several devices").  Launched by mpirun, this process runs only its rank's
 * block of the devices and exchanges with the other ranks at every
 * rendezvous (docs/mpi.md). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/hostmem.h"
#include "base/thread_pool.h"
#include "interp/collective/groups.h"
#include "interp/collective/mpi_world.h"
#include "interp/device_list.h"
#include "interp/run_internal.h"

_Static_assert((int)RUN_MAX_DEVICES <= (int)COLLECTIVE_MAX_DEVICES, "collectives size groups by this");

typedef struct DeviceJob {
  const Module *m;
  const RunOptions *opt;
  const RunInput *inputs;
  int ninputs;
  RunDevice dev;
  char name[64];
  RunResult res;
  Error err;
  bool ok;
} DeviceJob;

static void *device_main(void *arg) {
  DeviceJob *j = arg;
  pool_thread_serial(true); /* the devices share the cores: no pool inside */
  j->ok = run_device(j->m, j->opt, j->inputs, j->ninputs, &j->dev, &j->res, &j->err);
  if (j->ok) rdv_finish(j->dev.rendezvous, (int)j->dev.id);
  else rdv_fail(j->dev.rendezvous, (int)j->dev.id, j->err.msg);
  return NULL;
}

/* Dense bytes of every array leaf of s (0 when unknown). */
static int64_t leaf_bytes(const Shape *s) {
  if (shape_is_tuple(s)) {
    int64_t t = 0;
    for (int i = 0; i < s->ntuple; i++) t += leaf_bytes(&s->tuple[i]);
    return t;
  }
  int64_t n;
  if (!value_shape_has_data(s) || !shape_element_count(s, &n)) return 0;
  return n * etype_storage_bytes(s->etype);
}

/* Every device holds its own copy of the entry's parameters: refuse at
 * once a run whose inputs alone exceed the host budget (rather than after
 * binding most of them). */
static bool inputs_fit(const Module *m, int n, const MemHostBudget *host, Error *err) {
  int64_t per = 0;
  for (int p = 0; p < m->entry->nparams; p++)
    if (m->entry->params[p]) per += leaf_bytes(&m->entry->params[p]->shape);
  if (per <= host->limit / n) return true;
  char a[48], b[48];
  mem_format_bytes(per, a, sizeof a);
  mem_format_bytes(host->limit, b, sizeof b);
  return error_set(err, ERR_RUNTIME, -1,
                   "%d devices each holding the entry parameters (%s) need more than the %s "
                   "of this machine's memory the devices of a run may share (--replicas 1 "
                   "--partitions 1 runs one device, each collective over a group of one)",
                   n, a, b);
}

/* The error of the first device that failed, said once for every device
 * that failed the same way on its own (same message, same instruction):
 * "devices 0-63 (64 of 64): msg" rather than one device's name, when e.g.
 * every device runs out of the same memory space.  Devices that stopped
 * because another failed have messages of their own ("device 0 ...
 * failed: ...") and are not counted.  jobs are devices lo.. of n. */
static void report_failure(const DeviceJob *jobs, int nlocal, int lo, int n, int failed,
                           Error *err) {
  const Error *first = &jobs[failed].err;
  bool same[RUN_MAX_DEVICES] = {false};
  int count = 0;
  for (int d = 0; d < nlocal && lo + d < RUN_MAX_DEVICES; d++) {
    same[lo + d] = !jobs[d].ok && jobs[d].err.offset == first->offset &&
                   strcmp(jobs[d].err.msg, first->msg) == 0;
    count += same[lo + d];
  }
  ErrorKind kind = first->kind ? first->kind : ERR_RUNTIME;
  if (count <= 1) {
    error_set(err, kind, first->offset, "%s: %s", jobs[failed].name, first->msg);
    return;
  }
  char list[256];
  device_list_format(same, n, list, sizeof list);
  error_set(err, kind, first->offset, "devices %s (%d of %d): %s", list,
            count, n, first->msg);
}

/* The lowest-numbered local device that failed on its own, not because the
 * rendezvous aborted under it (an index into jobs).  Which device aborts
 * the rendezvous first is a race when several fail at once; the lowest one
 * that failed is not, so the same run reports the same device every time.
 * Falls back to the aborting device; -1 when that is no local device. */
static int first_own_failure(const DeviceJob *jobs, int nlocal, int lo, Rendezvous *rdv,
                             int aborting) {
  if (aborting < 0) return aborting;
  for (int d = 0; d < nlocal; d++)
    if (!jobs[d].ok && !rdv_stopped_by_abort(rdv, lo + d)) return d;
  return aborting >= lo && aborting < lo + nlocal ? aborting - lo : -1;
}

static void name_device(char *buf, size_t size, int d, int64_t partitions, int ranks, int per) {
  int k;
  if (partitions > 1)
    k = snprintf(buf, size, "device %d (replica %" PRId64 ", partition %" PRId64 ")", d,
                 d / partitions, d % partitions);
  else
    k = snprintf(buf, size, "device %d (replica %d)", d, d);
  if (ranks > 1 && k > 0 && (size_t)k < size) snprintf(buf + k, size - (size_t)k, ", rank %d", d / per);
}

bool run_devices(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                 int64_t replicas, int64_t partitions, RunResult *res, Error *err) {
  int n = (int)(replicas * partitions);
  int ranks = opt->world_size > 1 ? opt->world_size : 1;
  if (n % ranks != 0) {
    mpi_world_agree(); /* every rank refuses alike */
    return error_set(err, ERR_USAGE, -1,
                     "%d devices (%" PRId64 " replicas x %" PRId64 " partitions) do not split "
                     "evenly over %d MPI ranks: run a number of ranks that divides %d",
                     n, replicas, partitions, ranks, n);
  }
  int per = n / ranks, lo = ranks > 1 ? opt->world_rank * per : 0, nlocal = per;
  DeviceJob *jobs = calloc((size_t)nlocal, sizeof *jobs);
  char (*all_names)[64] = calloc((size_t)n, sizeof *all_names);
  const char **names = calloc((size_t)n, sizeof *names);
  pthread_t *threads = calloc((size_t)nlocal, sizeof *threads);
  Rendezvous *rdv = NULL;
  MpiExchange *x = NULL;
  bool ok = jobs && names && threads && all_names;
  /* All local devices live in this process: together they may hold at most
   * half of the machine's memory (kernel temporaries come on top). */
  MemHostBudget host = {0, 0};
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  host.limit = pages > 0 && page > 0 ? (int64_t)pages / 2 * (int64_t)page : INT64_MAX;
  if (ok && !inputs_fit(m, nlocal, &host, err)) {
    free(jobs);
    free(names);
    free(all_names);
    free(threads);
    return false;
  }
  for (int d = 0; ok && d < n; d++) {
    name_device(all_names[d], sizeof all_names[d], d, partitions, ranks, per);
    names[d] = all_names[d];
  }
  for (int i = 0; ok && i < nlocal; i++) {
    DeviceJob *j = &jobs[i];
    int d = lo + i;
    *j = (DeviceJob){m, opt, inputs, ninputs,
                     {NULL, d, replicas, partitions, d == 0, &host}, {0}, {0}, {0},
                     false};
    snprintf(j->name, sizeof j->name, "%s", all_names[d]);
  }
  if (ok) ok = (rdv = rdv_new_ranked(n, names, lo, lo + nlocal)) != NULL;
  if (ok && ranks > 1) ok = (x = mpi_exchange_new(n, lo, lo + nlocal, names)) != NULL;
  if (!ok) {
    rdv_free(rdv);
    free(jobs);
    free(names);
    free(all_names);
    free(threads);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  /* Evaluation recurses (calls, loops, fusions): give each thread the
   * room a main thread usually has. */
  pthread_attr_t attr;
  bool attr_ok = pthread_attr_init(&attr) == 0;
  if (attr_ok) pthread_attr_setstacksize(&attr, (size_t)16 << 20);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int started = 0;
  for (; started < nlocal; started++) {
    jobs[started].dev.rendezvous = rdv;
    if (pthread_create(&threads[started], attr_ok ? &attr : NULL, device_main, &jobs[started]) != 0)
      break;
  }
  if (started < nlocal) {
    /* Devices already running would wait for the missing ones forever. */
    for (int i = started; i < nlocal; i++) rdv_fail(rdv, lo + i, "could not start its thread");
  }
  /* This thread talks to the other ranks until every device has ended. */
  if (x) mpi_exchange_run(x, rdv);
  for (int d = 0; d < started; d++) pthread_join(threads[d], NULL);
  if (x) mpi_world_agree(); /* every rank saw the same verdict */
  clock_gettime(CLOCK_MONOTONIC, &t1);
  hostmem_trim();
  if (attr_ok) pthread_attr_destroy(&attr);
  const char *reason = NULL;
  int failed = first_own_failure(jobs, started, lo, rdv, rdv_failed_device(rdv, &reason));
  ok = reason == NULL && started == nlocal;
  if (!ok) {
    if (failed >= 0 && failed < started)
      report_failure(jobs, started, lo, n, failed, err);
    else
      error_set(err, ERR_RUNTIME, -1, "%s", reason ? reason : "could not start the device threads");
    for (int d = 0; d < started; d++)
      if (jobs[d].ok) run_result_free(&jobs[d].res);
  } else {
    RunResult *local = calloc((size_t)nlocal, sizeof *local);
    if (local)
      for (int d = 0; d < nlocal; d++) local[d] = jobs[d].res;
    else
      for (int d = 0; d < nlocal; d++) run_result_free(&jobs[d].res);
    if (x) {
      RunRankStat me = {opt->world_rank, lo, nlocal,
                        (int64_t)(t1.tv_sec - t0.tv_sec) * 1000000000 + (t1.tv_nsec - t0.tv_nsec),
                        0, mpi_exchange_peak_bytes(x), 0, NULL};
      for (int d = 0; local && d < nlocal; d++)
        for (int s = 0; s < local[d].mem.nspaces; s++) me.device_peak += local[d].mem.spaces[s].peak;
      int nt;
      const MpiTraffic *t = mpi_exchange_traffic(x, &nt);
      RunTraffic *rt = calloc((size_t)(nt ? nt : 1), sizeof *rt);
      for (int i = 0; rt && i < nt; i++) {
        snprintf(rt[i].instr, sizeof rt[i].instr, "%s", t[i].instr->name);
        rt[i].count = t[i].count;
        rt[i].bytes_sent = t[i].bytes_sent;
        rt[i].bytes_received = t[i].bytes_received;
      }
      me.ntraffic = rt ? nt : 0; /* statistics only: none when out of memory */
      me.traffic = rt;
      ok = run_gather_results(opt, &me, local, nlocal, n, res, err);
      free(rt);
    } else {
      ok = run_join_results(local, nlocal, res, err);
    }
  }
  mpi_exchange_free(x);
  rdv_free(rdv);
  free(jobs);
  free(names);
  free(all_names);
  free(threads);
  return ok;
}
