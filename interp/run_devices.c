/* Multi-device runs: one thread per device, each running run_device with
 * its own evaluator and memory spaces, collectives meeting at a shared
 * rendezvous, host memory shared under one budget (docs/interpreter.md,
 * "Several devices"). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/hostmem.h"
#include "base/thread_pool.h"
#include "interp/collective/groups.h"
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
 * failed: ...") and are not counted. */
static void report_failure(const DeviceJob *jobs, int n, int failed, Error *err) {
  const Error *first = &jobs[failed].err;
  bool same[RUN_MAX_DEVICES] = {false};
  int count = 0;
  for (int d = 0; d < n && d < RUN_MAX_DEVICES; d++) {
    same[d] = !jobs[d].ok && jobs[d].err.offset == first->offset &&
              strcmp(jobs[d].err.msg, first->msg) == 0;
    count += same[d];
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

/* The lowest-numbered device that failed on its own, not because the
 * rendezvous aborted under it.  Which device aborts the rendezvous first is
 * a race when several fail at once; the lowest one that failed is not, so
 * the same run reports the same device every time.  Falls back to the
 * aborting device. */
static int first_own_failure(const DeviceJob *jobs, int n, Rendezvous *rdv, int aborting) {
  if (aborting < 0) return aborting;
  for (int d = 0; d < n; d++)
    if (!jobs[d].ok && !rdv_stopped_by_abort(rdv, d)) return d;
  return aborting;
}

bool run_devices(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                 int64_t replicas, int64_t partitions, RunResult *res, Error *err) {
  int n = (int)(replicas * partitions);
  DeviceJob *jobs = calloc((size_t)n, sizeof *jobs);
  const char **names = calloc((size_t)n, sizeof *names);
  pthread_t *threads = calloc((size_t)n, sizeof *threads);
  Rendezvous *rdv = NULL;
  bool ok = jobs && names && threads;
  /* All devices live in this process: together they may hold at most half
   * of the machine's memory (kernel temporaries come on top). */
  MemHostBudget host = {0, 0};
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  host.limit = pages > 0 && page > 0 ? (int64_t)pages / 2 * (int64_t)page : INT64_MAX;
  if (ok && !inputs_fit(m, n, &host, err)) {
    free(jobs);
    free(names);
    free(threads);
    return false;
  }
  for (int d = 0; ok && d < n; d++) {
    DeviceJob *j = &jobs[d];
    *j = (DeviceJob){m, opt, inputs, ninputs,
                     {NULL, d, replicas, partitions, d == 0, &host}, {0}, {0}, {0},
                     false};
    if (partitions > 1)
      snprintf(j->name, sizeof j->name, "device %d (replica %" PRId64 ", partition %" PRId64 ")",
               d, d / partitions, d % partitions);
    else
      snprintf(j->name, sizeof j->name, "device %d (replica %d)", d, d);
    names[d] = j->name;
  }
  if (ok) ok = (rdv = rdv_new(n, names)) != NULL;
  if (!ok) {
    free(jobs);
    free(names);
    free(threads);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  /* Evaluation recurses (calls, loops, fusions): give each thread the
   * room a main thread usually has. */
  pthread_attr_t attr;
  bool attr_ok = pthread_attr_init(&attr) == 0;
  if (attr_ok) pthread_attr_setstacksize(&attr, (size_t)16 << 20);
  int started = 0;
  for (; started < n; started++) {
    jobs[started].dev.rendezvous = rdv;
    if (pthread_create(&threads[started], attr_ok ? &attr : NULL, device_main, &jobs[started]) != 0)
      break;
  }
  if (started < n) {
    /* Devices already running would wait for the missing ones forever. */
    for (int d = started; d < n; d++) rdv_fail(rdv, d, "could not start its thread");
  }
  for (int d = 0; d < started; d++) pthread_join(threads[d], NULL);
  hostmem_trim();
  if (attr_ok) pthread_attr_destroy(&attr);
  const char *reason = NULL;
  int failed = first_own_failure(jobs, started, rdv, rdv_failed_device(rdv, &reason));
  ok = reason == NULL && started == n;
  if (!ok) {
    if (failed >= 0 && failed < started)
      report_failure(jobs, started, failed, err);
    else
      error_set(err, ERR_RUNTIME, -1, "%s", reason ? reason : "could not start the device threads");
    for (int d = 0; d < started; d++)
      if (jobs[d].ok) run_result_free(&jobs[d].res);
  } else {
    *res = jobs[0].res;
    res->ndevices = n;
    res->devices = calloc((size_t)(n - 1), sizeof *res->devices);
    if (!res->devices) {
      for (int d = 0; d < n; d++) run_result_free(&jobs[d].res);
      memset(res, 0, sizeof *res);
      ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    } else {
      for (int d = 1; d < n; d++) res->devices[d - 1] = jobs[d].res;
    }
  }
  rdv_free(rdv);
  free(jobs);
  free(names);
  free(threads);
  return ok;
}
