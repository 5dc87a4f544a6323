/* One thread pool for the whole interpreter (docs/interpreter.md, "Threads").
 *
 * pool_for(n, fn, ctx) calls fn(ctx, chunk, worker) once for every chunk in
 * [0, n), spread over the pool's threads; the calling thread works too and
 * pool_for returns when every chunk is done.  Which thread runs which chunk
 * varies from run to run, so callers split their work into chunks decided by
 * the data size ONLY (pool_chunks), never by the thread count: a chunk then
 * computes the same bytes whoever runs it and results are bit-identical for
 * every thread count.
 *
 * `worker` is in [0, pool_threads()): the index of the thread running the
 * chunk within this call, for per-thread scratch memory; one worker index is
 * never used by two threads at once during a call.
 *
 * Calls run inline on the calling thread (worker 0, chunks in order) when
 * the pool has one thread, when there is one chunk, from inside a chunk
 * (no nesting), from a thread marked with pool_thread_serial (the device
 * threads of a multi-device run: no oversubscription), or while another
 * thread has the pool.  Idle workers sleep on a condition variable. */
#ifndef HLO_BASE_THREAD_POOL_H
#define HLO_BASE_THREAD_POOL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"

/* Bytes of work (output, or input for reductions) per chunk: less than
 * this runs inline without waking anyone. */
#define POOL_CHUNK_BYTES ((int64_t)64 * 1024)

typedef void (*PoolFn)(void *ctx, int64_t chunk, int worker);
typedef bool (*PoolErrFn)(void *ctx, int64_t chunk, int worker, Error *err);

/* The number of threads pool_for may use, the caller included (>= 1).
 * Takes effect at the next pool_for; never call it during one. */
void pool_set_threads(int n);
int pool_threads(void);

/* All online processors (at least 1). */
int pool_default_threads(void);

/* Chunks for `bytes` of work: ceil(bytes / POOL_CHUNK_BYTES), at least 1
 * and at most `most` (the number of independent units there are). */
int64_t pool_chunks(int64_t bytes, int64_t most);

void pool_for(int64_t nchunks, PoolFn fn, void *ctx);

/* pool_for with chunks that can fail: after a failure, chunks with a higher
 * index may be skipped; the error returned is that of the lowest failing
 * chunk, the same for every thread count. */
bool pool_for_err(int64_t nchunks, PoolErrFn fn, void *ctx, Error *err);

/* Marks the calling thread as one whose pool_for calls run inline. */
void pool_thread_serial(bool on);

/* Stops the workers (they are started again when needed). */
void pool_shutdown(void);

#endif
