/* The results of a multi-device run brought together: in-process, device
 * 0's result heads the others; launched by mpirun, every rank sends its
 * devices' result leaves to rank 0 (interp/run_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "interp/collective/mpi_world.h"
#include "interp/run_internal.h"

bool run_join_results(RunResult *local, int n, RunResult *res, Error *err) {
  if (!local) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  *res = local[0];
  res->ndevices = n;
  res->devices = calloc((size_t)(n > 1 ? n - 1 : 1), sizeof *res->devices);
  if (!res->devices) {
    for (int d = 0; d < n; d++) run_result_free(&local[d]);
    memset(res, 0, sizeof *res);
    free(local);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  for (int d = 1; d < n; d++) res->devices[d - 1] = local[d];
  free(local);
  return true;
}

/* A growing byte buffer of the blob a rank sends. */
typedef struct Blob {
  unsigned char *p;
  int64_t len, cap;
  bool oom;
} Blob;

static void put(Blob *b, const void *data, int64_t n) {
  int64_t padded = (n + 7) & ~(int64_t)7; /* words stay aligned */
  if (b->oom) return;
  if (b->len + padded > b->cap) {
    int64_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + padded) cap *= 2;
    unsigned char *q = realloc(b->p, (size_t)cap);
    if (!q) {
      b->oom = true;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
  if (n) memcpy(b->p + b->len, data, (size_t)n);
  if (padded > n) memset(b->p + b->len + n, 0, (size_t)(padded - n));
  b->len += padded;
}

static void put_word(Blob *b, int64_t v) { put(b, &v, sizeof v); }

/* Per device: the scalars rank 0 reports, then each leaf's dims and data. */
static void pack_device(Blob *b, const RunResult *r, bool data) {
  put_word(b, r->nleaves);
  put_word(b, r->wall_ns);
  put_word(b, r->eval_ns);
  put_word(b, r->instructions_executed);
  put(b, &r->mem, sizeof r->mem); /* the counters; its pointers are cleared on arrival */
  for (int i = 0; i < r->nleaves; i++) {
    const RunLeaf *l = &r->leaves[i];
    int rank = shape_is_tuple(l->shape) ? 0 : l->shape->rank;
    put_word(b, rank);
    put(b, l->dims, (int64_t)rank * (int64_t)sizeof(int64_t));
    put_word(b, l->data && data ? l->nbytes : -1);
    if (l->data && data) put(b, l->data, l->nbytes);
  }
}

typedef struct Reader {
  const unsigned char *p;
  int64_t len, at;
} Reader;

static bool get(Reader *r, void *out, int64_t n) {
  int64_t padded = (n + 7) & ~(int64_t)7;
  if (n < 0 || r->len - r->at < padded) return false;
  if (n) memcpy(out, r->p + r->at, (size_t)n);
  r->at += padded;
  return true;
}

/* Device d's result as rank 0 rebuilds it; leaf shapes are device 0's
 * (every device runs the same program). */
static bool unpack_device(Reader *rd, const RunResult *first, int64_t d, RunResult *r) {
  int64_t nleaves, w[3];
  memset(r, 0, sizeof *r);
  if (!get(rd, &nleaves, 8) || !get(rd, w, 24) || !get(rd, &r->mem, sizeof r->mem) ||
      nleaves != first->nleaves)
    return false;
  memset(r->mem.small_free, 0, sizeof r->mem.small_free);
  memset(r->mem.small_count, 0, sizeof r->mem.small_count);
  r->mem.host = NULL;
  r->module = first->module;
  r->shape = first->shape;
  memcpy(r->device, first->device, sizeof r->device);
  r->wall_ns = w[0];
  r->eval_ns = w[1];
  r->instructions_executed = w[2];
  r->repeat = first->repeat;
  r->nreplicas = first->nreplicas;
  r->npartitions = first->npartitions;
  r->replica_id = d / first->npartitions;
  r->partition_id = d % first->npartitions;
  r->ndevices = 1;
  r->remote = true;
  r->leaves = calloc((size_t)(nleaves ? nleaves : 1), sizeof *r->leaves);
  if (!r->leaves) return false;
  r->nleaves = (int)nleaves;
  for (int i = 0; i < r->nleaves; i++) {
    RunLeaf *l = &r->leaves[i];
    l->shape = first->leaves[i].shape;
    int64_t rank, nbytes;
    if (!get(rd, &rank, 8) || rank < 0 || rank > SHAPE_MAX_RANK ||
        !get(rd, l->dims, rank * 8) || !get(rd, &nbytes, 8))
      return false;
    if (nbytes < 0) continue; /* the data was discarded */
    l->nbytes = nbytes;
    if (!(l->data = malloc((size_t)(nbytes ? nbytes : 1))) || !get(rd, l->data, nbytes))
      return false;
  }
  return true;
}

/* A rank's statistics after its devices. */
static void pack_rank(Blob *b, const RunRankStat *s) {
  int64_t w[7] = {s->rank, s->first_device, s->ndevices, s->wall_ns, s->device_peak,
                  s->exchange_peak, s->ntraffic};
  put(b, w, sizeof w);
  put(b, s->traffic, (int64_t)s->ntraffic * (int64_t)sizeof *s->traffic);
}

static bool unpack_rank(Reader *rd, RunRankStat *s) {
  int64_t w[7];
  if (!get(rd, w, sizeof w) || w[6] < 0 || w[6] > 1000000) return false;
  *s = (RunRankStat){(int)w[0], (int)w[1], (int)w[2], w[3], w[4], w[5], (int)w[6], NULL};
  s->traffic = calloc((size_t)(s->ntraffic ? s->ntraffic : 1), sizeof *s->traffic);
  return s->traffic &&
         get(rd, s->traffic, (int64_t)s->ntraffic * (int64_t)sizeof *s->traffic);
}

/* Rank 0's own statistics, copied. */
static bool copy_rank(const RunRankStat *me, RunRankStat *s) {
  *s = *me;
  s->traffic = calloc((size_t)(me->ntraffic ? me->ntraffic : 1), sizeof *s->traffic);
  if (!s->traffic) return false;
  if (me->ntraffic) memcpy(s->traffic, me->traffic, (size_t)me->ntraffic * sizeof *s->traffic);
  return true;
}

bool run_gather_results(const RunOptions *opt, const RunRankStat *me, RunResult *local, int nlocal,
                        int ndevices, RunResult *res, Error *err) {
  Blob b = {NULL, 0, 0, local == NULL};
  for (int d = 0; local && opt->world_rank != 0 && d < nlocal; d++) pack_device(&b, &local[d], opt->gather_data);
  if (opt->world_rank != 0) pack_rank(&b, me);
  /* A rank out of memory sends nothing; rank 0 then fails the run. */
  void **blobs = NULL;
  int64_t *sizes = NULL;
  bool ok = mpi_gather_blobs(b.p, b.oom ? 0 : b.len, &blobs, &sizes, err);
  free(b.p);
  if (opt->world_rank != 0) { /* keeps its own devices' (--output-dir) */
    if (!ok) {
      for (int d = 0; local && d < nlocal; d++) run_result_free(&local[d]);
      free(local);
      return false;
    }
    return run_join_results(local, nlocal, res, err);
  }
  if (!ok) {
    for (int d = 0; local && d < nlocal; d++) run_result_free(&local[d]);
    free(local);
    return false;
  }
  RunResult *all = local ? realloc(local, (size_t)ndevices * sizeof *all) : NULL;
  if (all) {
    memset(all + nlocal, 0, (size_t)(ndevices - nlocal) * sizeof *all);
    for (int d = nlocal; d < ndevices; d++) all[d].ndevices = 1;
  }
  int ranks = opt->world_size;
  RunRankStat *stats = calloc((size_t)ranks, sizeof *stats);
  if (!stats || !copy_rank(me, &stats[0])) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  for (int k = 1; all && ok && k < ranks; k++) {
    Reader rd = {blobs[k], sizes[k], 0};
    for (int i = 0; ok && i < nlocal; i++) {
      int64_t d = (int64_t)k * nlocal + i;
      ok = unpack_device(&rd, &all[0], d, &all[d]);
    }
    ok = ok && unpack_rank(&rd, &stats[k]);
    if (!ok) error_set(err, ERR_RUNTIME, -1, "rank %d sent no usable results (out of memory?)", k);
  }
  for (int k = 0; k < ranks; k++) free(blobs[k]);
  free(blobs);
  free(sizes);
  if (!all) {
    for (int d = 0; local && d < nlocal; d++) run_result_free(&local[d]);
    free(local);
    for (int k = 0; stats && k < ranks; k++) free(stats[k].traffic);
    free(stats);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (ok) ok = run_join_results(all, ndevices, res, err);
  else {
    for (int d = 0; d < ndevices; d++) run_result_free(&all[d]);
    free(all);
  }
  if (ok) {
    res->ranks = stats;
    res->nranks = ranks;
  } else {
    for (int k = 0; stats && k < ranks; k++) free(stats[k].traffic);
    free(stats);
  }
  return ok;
}
