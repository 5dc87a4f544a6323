/* The interpreter's thread pool: pthreads, one job at a time, chunks handed
 * out through an atomic counter (which thread runs a chunk does not matter:
 * callers chunk by data size).  Why not OpenMP: docs/interpreter.md,
 * "Threads". */
#include "base/thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <fenv.h>
#include <stdlib.h>
#include <unistd.h>

enum { POOL_MAX_THREADS = 1024 };

static struct {
  pthread_mutex_t mu; /* guards everything below but `next` */
  pthread_cond_t wake, done;
  int want;           /* threads a call may use, the caller included */
  int nworkers;       /* worker threads started (ids 1..nworkers) */
  pthread_t *tids;
  uint64_t *start_gen; /* the generation each worker was started at */
  uint64_t generation; /* one per job posted */
  bool stop;
  /* the job */
  PoolFn fn;
  void *ctx;
  int64_t nchunks;
  fenv_t env;          /* the caller's floating-point mode (base/fpmode.h) */
  int joined;          /* threads in the job: ids 0..joined-1 */
  int active;          /* workers that joined the job and are still in it */
  bool closed;         /* the caller has finished its chunks: workers waking
                        * now stay out (nothing is left for them) */
  _Atomic int64_t next;
} P = {.mu = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER,
       .done = PTHREAD_COND_INITIALIZER, .want = 1};

/* Only one caller has the pool at a time; others run inline. */
static pthread_mutex_t busy = PTHREAD_MUTEX_INITIALIZER;

/* Set inside chunks and on serial threads: pool_for runs inline. */
static _Thread_local bool tls_inline;

void pool_set_threads(int n) {
  if (n < 1) n = 1;
  if (n > POOL_MAX_THREADS) n = POOL_MAX_THREADS;
  pthread_mutex_lock(&P.mu);
  P.want = n;
  pthread_mutex_unlock(&P.mu);
}

int pool_threads(void) {
  pthread_mutex_lock(&P.mu);
  int n = P.want;
  pthread_mutex_unlock(&P.mu);
  return n;
}

int pool_default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1) return 1;
  return n > POOL_MAX_THREADS ? POOL_MAX_THREADS : (int)n;
}

int64_t pool_chunks(int64_t bytes, int64_t most) {
  int64_t n = bytes > 0 ? (bytes - 1) / POOL_CHUNK_BYTES + 1 : 1;
  if (n > most) n = most;
  return n < 1 ? 1 : n;
}

void pool_thread_serial(bool on) { tls_inline = on; }

static void run_chunks(PoolFn fn, void *ctx, int64_t n, int id) {
  for (int64_t c; (c = atomic_fetch_add_explicit(&P.next, 1, memory_order_relaxed)) < n;)
    fn(ctx, c, id);
}

static void *worker_main(void *arg) {
  int id = (int)(intptr_t)arg;
  tls_inline = true; /* chunks never start a nested job */
  pthread_mutex_lock(&P.mu);
  uint64_t seen = P.start_gen[id];
  for (;;) {
    while (!P.stop && P.generation == seen) pthread_cond_wait(&P.wake, &P.mu);
    if (P.stop) break;
    seen = P.generation;
    if (id >= P.joined || P.closed) continue; /* not needed for this job */
    P.active++;
    PoolFn fn = P.fn;
    void *ctx = P.ctx;
    int64_t n = P.nchunks;
    fesetenv(&P.env); /* computes as the caller does: subnormals flushed or not */
    pthread_mutex_unlock(&P.mu);
    run_chunks(fn, ctx, n, id);
    pthread_mutex_lock(&P.mu);
    if (--P.active == 0) pthread_cond_signal(&P.done);
  }
  pthread_mutex_unlock(&P.mu);
  return NULL;
}

/* Starts workers until `threads - 1` exist (fewer if the system refuses);
 * P.mu held. */
static void start_workers(int threads) {
  if (!P.tids) {
    P.tids = calloc(POOL_MAX_THREADS, sizeof *P.tids);
    P.start_gen = calloc(POOL_MAX_THREADS, sizeof *P.start_gen);
    if (!P.tids || !P.start_gen) {
      free(P.tids);
      free(P.start_gen);
      P.tids = NULL;
      P.start_gen = NULL;
      return;
    }
  }
  /* Chunks are small: a modest stack is plenty. */
  pthread_attr_t attr;
  bool attr_ok = pthread_attr_init(&attr) == 0;
  if (attr_ok) pthread_attr_setstacksize(&attr, (size_t)4 << 20);
  while (P.nworkers < threads - 1) {
    int id = P.nworkers + 1;
    P.start_gen[id] = P.generation;
    if (pthread_create(&P.tids[id], attr_ok ? &attr : NULL, worker_main, (void *)(intptr_t)id) != 0)
      break;
    P.nworkers++;
  }
  if (attr_ok) pthread_attr_destroy(&attr);
}

void pool_for(int64_t nchunks, PoolFn fn, void *ctx) {
  if (nchunks <= 0) return;
  int want = pool_threads();
  if (nchunks == 1 || want <= 1 || tls_inline || pthread_mutex_trylock(&busy) != 0) {
    for (int64_t c = 0; c < nchunks; c++) fn(ctx, c, 0);
    return;
  }
  pthread_mutex_lock(&P.mu);
  int threads = nchunks < want ? (int)nchunks : want;
  start_workers(threads);
  if (threads > P.nworkers + 1) threads = P.nworkers + 1;
  P.fn = fn;
  P.ctx = ctx;
  P.nchunks = nchunks;
  if (threads > 1) fegetenv(&P.env);
  P.joined = threads;
  P.active = 0;
  P.closed = false;
  atomic_store(&P.next, 0);
  P.generation++;
  if (threads > 1) pthread_cond_broadcast(&P.wake);
  pthread_mutex_unlock(&P.mu);

  tls_inline = true;
  run_chunks(fn, ctx, nchunks, 0);
  tls_inline = false;

  /* Wait only for the workers that joined: one still waking up finds the
   * job closed and does not touch it. */
  pthread_mutex_lock(&P.mu);
  P.closed = true;
  while (P.active > 0) pthread_cond_wait(&P.done, &P.mu);
  pthread_mutex_unlock(&P.mu);
  pthread_mutex_unlock(&busy);
}

/* --- chunks that can fail --- */

typedef struct ErrJob {
  PoolErrFn fn;
  void *ctx;
  _Atomic int64_t failed_at; /* the lowest failing chunk so far */
  pthread_mutex_t mu;        /* guards err */
  Error err;
} ErrJob;

static void err_chunk(void *ctx, int64_t chunk, int worker) {
  ErrJob *j = ctx;
  if (chunk > atomic_load(&j->failed_at)) return; /* its error would not be kept */
  Error e = {ERR_NONE, -1, ""};
  if (j->fn(j->ctx, chunk, worker, &e)) return;
  pthread_mutex_lock(&j->mu);
  if (chunk < atomic_load(&j->failed_at)) {
    atomic_store(&j->failed_at, chunk);
    j->err = e;
  }
  pthread_mutex_unlock(&j->mu);
}

bool pool_for_err(int64_t nchunks, PoolErrFn fn, void *ctx, Error *err) {
  ErrJob j = {.fn = fn, .ctx = ctx};
  atomic_init(&j.failed_at, INT64_MAX);
  pthread_mutex_init(&j.mu, NULL);
  pool_for(nchunks, err_chunk, &j);
  pthread_mutex_destroy(&j.mu);
  if (atomic_load(&j.failed_at) == INT64_MAX) return true;
  if (err) *err = j.err;
  return false;
}

void pool_shutdown(void) {
  pthread_mutex_lock(&busy);
  pthread_mutex_lock(&P.mu);
  P.stop = true;
  pthread_cond_broadcast(&P.wake);
  int n = P.nworkers;
  pthread_mutex_unlock(&P.mu);
  for (int id = 1; id <= n; id++) pthread_join(P.tids[id], NULL);
  pthread_mutex_lock(&P.mu);
  P.stop = false;
  P.nworkers = 0;
  free(P.tids);
  free(P.start_gen);
  P.tids = NULL;
  P.start_gen = NULL;
  pthread_mutex_unlock(&P.mu);
  pthread_mutex_unlock(&busy);
}
