/* The thread pool (base/thread_pool.h) and the promise it carries: results
 * are the same bytes for every thread count.
 *
 * The pool tests count how often each chunk ran.  The bit-identity tests run
 * modules of every parallel op family (elementwise f32/f16/bf16/s32 alone
 * and fused with broadcasts, convert, transpose and other strided copies,
 * layout conversions, reductions over minor, major, middle and all dims in
 * f32/f64/bf16/s32, max with NaN rows, long reductions cut into blocks) on random inputs of sizes that cut
 * into many chunks, some odd, at 1 thread and at 2, 3 and 7, and compare the
 * result bytes.  A reduction whose order followed the threads (partial sums
 * per thread) fails them: the float sums would round differently. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/fpmode.h"
#include "base/thread_pool.h"
#include "interp/run.h"
#include "parser/parser.h"
#include "tests/parse_fixture.h"
#include "tests/run_compare.h"

/* --- the pool --- */

typedef struct Count {
  _Atomic int runs[4000];
  _Atomic int bad_worker;
  int threads;
} Count;

static void count_chunk(void *ctx, int64_t chunk, int worker) {
  Count *c = ctx;
  atomic_fetch_add(&c->runs[chunk], 1);
  if (worker < 0 || worker >= c->threads) atomic_store(&c->bad_worker, 1);
}

Test(pool, every_chunk_exactly_once) {
  static Count c;
  static const int64_t sizes[] = {0, 1, 2, 3, 7, 64, 999, 4000};
  for (int t = 1; t <= 8; t++) {
    pool_set_threads(t);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
      memset(&c, 0, sizeof c);
      c.threads = t;
      pool_for(sizes[s], count_chunk, &c);
      for (int64_t k = 0; k < 4000; k++)
        cr_assert_eq(c.runs[k], k < sizes[s] ? 1 : 0, "threads %d, %lld chunks: chunk %lld ran %d times",
                     t, (long long)sizes[s], (long long)k, c.runs[k]);
      cr_assert_eq(c.bad_worker, 0);
    }
  }
  pool_set_threads(1);
  pool_shutdown();
}

/* Workers compute in the caller's floating-point mode: with subnormals
 * flushed (base/fpmode.h) a subnormal read in any chunk is zero.  Chunks
 * wait for one another so that a worker surely runs some. */
typedef struct Flush {
  _Atomic int started, nonzero, on_worker;
  volatile float tiny;
} Flush;

static void flush_chunk(void *ctx, int64_t chunk, int worker) {
  (void)chunk;
  Flush *f = ctx;
  atomic_fetch_add(&f->started, 1);
  for (int spin = 0; spin < 2000000 && atomic_load(&f->started) < 2; spin++) {}
  if (worker != 0) atomic_store(&f->on_worker, 1);
  volatile float one = 1.0f;
  if (f->tiny * one != 0.0f) atomic_store(&f->nonzero, 1); /* DAZ: 0 * 1 */
}

Test(pool, workers_take_the_callers_flush_mode) {
  if (!fpmode_flush_supported()) return;
  pool_set_threads(2);
  Flush warm = {0}; /* workers started now: a thread inherits its creator's mode */
  pool_for(2, flush_chunk, &warm);
  fenv_t saved;
  cr_assert(fpmode_flush_begin(&saved));
  bool worker_ran = false;
  for (int tries = 0; tries < 50 && !worker_ran; tries++) {
    Flush f = {0};
    f.tiny = 1e-40f;
    pool_for(2, flush_chunk, &f);
    cr_assert_eq(f.nonzero, 0, "a chunk computed with subnormals");
    worker_ran = f.on_worker;
  }
  fpmode_restore(&saved);
  cr_assert(worker_ran, "no chunk ran on a worker in 50 tries");
  volatile float tiny = 1e-40f, one = 1.0f;
  cr_assert_neq(tiny * one, 0.0f, "the caller's own mode is restored");
  pool_set_threads(1);
  pool_shutdown();
}

/* A pool_for inside a chunk runs inline, on the chunk's own thread. */
typedef struct Nest {
  Count inner[16];
  _Atomic int not_inline;
} Nest;

typedef struct NestInner {
  Nest *n;
  pthread_t self;
  int64_t outer;
} NestInner;

static void inner_chunk(void *ctx, int64_t chunk, int worker) {
  NestInner *in = ctx;
  if (!pthread_equal(in->self, pthread_self()) || worker != 0) atomic_store(&in->n->not_inline, 1);
  atomic_fetch_add(&in->n->inner[in->outer].runs[chunk], 1);
}

static void outer_chunk(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  NestInner in = {ctx, pthread_self(), chunk};
  pool_for(100, inner_chunk, &in);
}

Test(pool, nested_calls_run_inline) {
  static Nest n;
  memset(&n, 0, sizeof n);
  pool_set_threads(3);
  pool_for(16, outer_chunk, &n);
  cr_assert_eq(n.not_inline, 0);
  for (int o = 0; o < 16; o++)
    for (int k = 0; k < 100; k++) cr_assert_eq(n.inner[o].runs[k], 1);
  pool_set_threads(1);
  pool_shutdown();
}

/* A thread marked serial (a device thread) runs its chunks itself. */
static void *serial_thread(void *arg) {
  Nest *n = arg;
  pool_thread_serial(true);
  NestInner in = {n, pthread_self(), 0};
  pool_for(100, inner_chunk, &in);
  return NULL;
}

Test(pool, serial_threads_run_inline) {
  static Nest n;
  memset(&n, 0, sizeof n);
  pool_set_threads(4);
  pthread_t t;
  cr_assert_eq(pthread_create(&t, NULL, serial_thread, &n), 0);
  pthread_join(t, NULL);
  cr_assert_eq(n.not_inline, 0);
  for (int k = 0; k < 100; k++) cr_assert_eq(n.inner[0].runs[k], 1);
  pool_set_threads(1);
  pool_shutdown();
}

/* Chunks 37 and 90 fail: the error is chunk 37's at every thread count. */
static bool failing_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  (void)ctx;
  (void)worker;
  if (chunk == 37 || chunk == 90) return error_set(err, ERR_RUNTIME, chunk, "chunk %lld", (long long)chunk);
  return true;
}

Test(pool, lowest_failing_chunk_reports) {
  for (int t = 1; t <= 7; t += 2) {
    pool_set_threads(t);
    for (int rep = 0; rep < 20; rep++) {
      Error err = {0};
      cr_assert_not(pool_for_err(200, failing_chunk, NULL, &err));
      cr_assert_str_eq(err.msg, "chunk 37");
      cr_assert_eq(err.offset, 37);
    }
    Error err = {0};
    cr_assert(pool_for_err(37, failing_chunk, NULL, &err));
  }
  pool_set_threads(1);
  pool_shutdown();
}

Test(pool, chunks_follow_the_size_only) {
  cr_assert_eq(pool_chunks(0, 100), 1);
  cr_assert_eq(pool_chunks(POOL_CHUNK_BYTES, 100), 1);
  cr_assert_eq(pool_chunks(POOL_CHUNK_BYTES + 1, 100), 2);
  cr_assert_eq(pool_chunks(POOL_CHUNK_BYTES * 50, 100), 50);
  cr_assert_eq(pool_chunks(POOL_CHUNK_BYTES * 500, 100), 100);
  cr_assert_eq(pool_chunks(POOL_CHUNK_BYTES * 500, 0), 1);
}

/* --- bit-identity of whole runs --- */

static void run(const Module *m, int threads, RunResult *r) {
  RunOptions opt = {0};
  opt.random_inputs = true;
  opt.seed = 20261128;
  opt.threads = threads;
  Error err = {0};
  cr_assert(run_module(m, &opt, NULL, 0, r, &err), "threads %d: %s", threads, err.msg);
}

/* The module's results at 2, 3 and 7 threads are those at 1, byte for byte. */
static void same_bytes(const char *name, const char *text) {
  Module *m = parse_named(name, text);
  RunResult one;
  run(m, 1, &one);
  static const int counts[] = {2, 3, 7};
  for (int c = 0; c < 3; c++) {
    RunResult r;
    run(m, counts[c], &r);
    char what[200];
    snprintf(what, sizeof what, "%s: 1 and %d threads", name, counts[c]);
    assert_same_leaves(&r, &one, what);
    run_result_free(&r);
  }
  run_result_free(&one);
  module_free(m);
  pool_set_threads(1);
}

/* same_bytes for each of n modules, named PREFIX0, PREFIX1, ... */
static void same_bytes_each(const char *prefix, const char *const *text, size_t n) {
  for (size_t k = 0; k < n; k++) {
    char name[64];
    snprintf(name, sizeof name, "%s%zu", prefix, k);
    same_bytes(name, text[k]);
  }
}

/* One op alone (not fused): the plain elementwise path, every type. */
Test(threads, elementwise_alone) {
  same_bytes("f32", "HloModule m\nENTRY e {\n"
             "  x = f32[517,1031] parameter(0)\n  y = f32[517,1031] parameter(1)\n"
             "  ROOT a = f32[517,1031] divide(x, y)\n}\n");
  same_bytes("f32-tanh", "HloModule m\nENTRY e {\n"
             "  x = f32[300001] parameter(0)\n  ROOT a = f32[300001] tanh(x)\n}\n");
  same_bytes("f16", "HloModule m\nENTRY e {\n"
             "  x = f16[333,777] parameter(0)\n  y = f16[333,777] parameter(1)\n"
             "  ROOT a = f16[333,777] multiply(x, y)\n}\n");
  same_bytes("bf16", "HloModule m\nENTRY e {\n"
             "  x = bf16[333,777] parameter(0)\n  ROOT a = bf16[333,777] exponential(x)\n}\n");
  same_bytes("s32", "HloModule m\nENTRY e {\n"
             "  x = s32[640,513] parameter(0)\n  y = s32[640,513] parameter(1)\n"
             "  ROOT a = s32[640,513] remainder(x, y)\n}\n");
  same_bytes("compare", "HloModule m\nENTRY e {\n"
             "  x = f32[640,513] parameter(0)\n  y = f32[640,513] parameter(1)\n"
             "  ROOT a = pred[640,513] compare(x, y), direction=LT\n}\n");
  same_bytes("clamp", "HloModule m\nENTRY e {\n"
             "  lo = f32[] parameter(0)\n  x = f32[640,513] parameter(1)\n  hi = f32[] parameter(2)\n"
             "  ROOT a = f32[640,513] clamp(lo, x, hi)\n}\n");
}

/* Converts between every kind of type, alone. */
Test(threads, convert) {
  same_bytes("f32-f16", "HloModule m\nENTRY e {\n"
             "  x = f32[1000,301] parameter(0)\n  ROOT a = f16[1000,301] convert(x)\n}\n");
  same_bytes("f32-bf16", "HloModule m\nENTRY e {\n"
             "  x = f32[1000,301] parameter(0)\n  ROOT a = bf16[1000,301] convert(x)\n}\n");
  same_bytes("bf16-f32", "HloModule m\nENTRY e {\n"
             "  x = bf16[1000,301] parameter(0)\n  ROOT a = f32[1000,301] convert(x)\n}\n");
  same_bytes("f32-s32", "HloModule m\nENTRY e {\n"
             "  x = f32[1000,301] parameter(0)\n  ROOT a = s32[1000,301] convert(x)\n}\n");
  same_bytes("s32-f64", "HloModule m\nENTRY e {\n"
             "  x = s32[1000,301] parameter(0)\n  ROOT a = f64[1000,301] convert(x)\n}\n");
}

/* Fused chains: a row broadcast re-read per block, a splat constant, a
 * value kept for the result, a convert at the end; NaN and +-inf from
 * dividing by zero, -0 from negating zeros. */
Test(threads, fused_chains) {
  same_bytes("chain", "HloModule m\nENTRY e {\n"
             "  x = f32[777,1001] parameter(0)\n  y = f32[777,1001] parameter(1)\n"
             "  b = f32[1001] parameter(2)\n"
             "  bb = f32[777,1001] broadcast(b), dimensions={1}\n"
             "  c = f32[] constant(0.5)\n  cb = f32[777,1001] broadcast(c), dimensions={}\n"
             "  a = f32[777,1001] add(x, bb)\n  m = f32[777,1001] multiply(a, y)\n"
             "  s = f32[777,1001] subtract(m, cb)\n  t = f32[777,1001] tanh(s)\n"
             "  h = f16[777,1001] convert(t)\n"
             "  ROOT r = (f16[777,1001], f32[777,1001]) tuple(h, m)\n}\n");
  same_bytes("nonfinite", "HloModule m\nENTRY e {\n"
             "  x = f32[513,700] parameter(0)\n  z = f32[513,700] subtract(x, x)\n"
             "  q = f32[513,700] divide(x, z)\n  n = f32[513,700] negate(z)\n"
             "  ROOT r = f32[513,700] add(q, n)\n}\n");
  same_bytes("bf16-chain", "HloModule m\nENTRY e {\n"
             "  x = bf16[400,999] parameter(0)\n  y = bf16[400,999] parameter(1)\n"
             "  a = bf16[400,999] add(x, y)\n  ROOT t = bf16[400,999] logistic(a)\n}\n");
  same_bytes("s32-chain", "HloModule m\nENTRY e {\n"
             "  x = s32[400,999] parameter(0)\n  y = s32[400,999] parameter(1)\n"
             "  a = s32[400,999] multiply(x, y)\n  ROOT t = s32[400,999] xor(a, x)\n}\n");
}

/* Strided copies (transpose, broadcast, slice, reverse) and layout
 * conversions. */
Test(threads, transpose_and_copies) {
  same_bytes("transpose2", "HloModule m\nENTRY e {\n"
             "  x = f32[1000,777] parameter(0)\n"
             "  ROOT t = f32[777,1000] transpose(x), dimensions={1,0}\n}\n");
  same_bytes("transpose3", "HloModule m\nENTRY e {\n"
             "  x = f16[33,300,129] parameter(0)\n"
             "  ROOT t = f16[129,33,300] transpose(x), dimensions={2,0,1}\n}\n");
  same_bytes("transpose-u8", "HloModule m\nENTRY e {\n"
             "  x = u8[999,1001] parameter(0)\n"
             "  ROOT t = u8[1001,999] transpose(x), dimensions={1,0}\n}\n");
  same_bytes("broadcast", "HloModule m\nENTRY e {\n"
             "  x = f64[999] parameter(0)\n"
             "  ROOT t = f64[999,300] broadcast(x), dimensions={0}\n}\n");
  same_bytes("reverse", "HloModule m\nENTRY e {\n"
             "  x = s32[999,301] parameter(0)\n"
             "  ROOT t = s32[999,301] reverse(x), dimensions={0,1}\n}\n");
  same_bytes("layout", "HloModule m\nENTRY e {\n"
             "  x = f32[1000,777]{1,0} parameter(0)\n"
             "  ROOT t = f32[1000,777]{0,1} copy(x)\n}\n");
  same_bytes("layout-tiled", "HloModule m\nENTRY e {\n"
             "  x = f32[1000,777]{1,0} parameter(0)\n"
             "  ROOT t = f32[1000,777]{1,0:T(8,128)} copy(x)\n}\n");
}

/* Reductions: over the minor dim (row sums), the major dim (column sums),
 * a middle dim, everything; f32, f64, bf16 (summed in f32), s32; max over
 * rows holding NaN. */
Test(threads, reduce) {
  static const char *const text[] = {
      "HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\nENTRY e {\n  x = f32[1000,777] parameter(0)\n"
      "  z = f32[] constant(0)\n  ROOT r = f32[1000] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
      "HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\nENTRY e {\n  x = f32[1000,777] parameter(0)\n"
      "  z = f32[] constant(0)\n  ROOT r = f32[777] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
      "HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\nENTRY e {\n  x = f32[20,1000,37] parameter(0)\n"
      "  z = f32[] constant(0)\n  ROOT r = f32[20,37] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
      "HloModule m\nadd { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] add(a, b) }\nENTRY e {\n  x = f32[1000,777] parameter(0)\n"
      "  z = f32[] constant(0)\n  ROOT r = f32[] reduce(x, z), dimensions={0,1}, to_apply=add\n}\n",
      "HloModule m\nadd { a = f64[] parameter(0)\n b = f64[] parameter(1)\n"
      " ROOT s = f64[] add(a, b) }\nENTRY e {\n  x = f64[999,333] parameter(0)\n"
      "  z = f64[] constant(0)\n  ROOT r = f64[333] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
      "HloModule m\nadd { a = bf16[] parameter(0)\n b = bf16[] parameter(1)\n"
      " ROOT s = bf16[] add(a, b) }\nENTRY e {\n  x = bf16[999,333] parameter(0)\n"
      "  z = bf16[] constant(0)\n  ROOT r = bf16[999] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
      "HloModule m\nadd { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
      " ROOT s = s32[] add(a, b) }\nENTRY e {\n  x = s32[999,333] parameter(0)\n"
      "  z = s32[] constant(0)\n  ROOT r = s32[333] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
      "HloModule m\nmx { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] maximum(a, b) }\nENTRY e {\n  x = f32[1000,777] parameter(0)\n"
      "  l = f32[1000,777] log(x)\n"
      "  z = f32[] constant(-inf)\n  ROOT r = f32[1000] reduce(l, z), dimensions={1}, to_apply=mx\n}\n",
  };
  same_bytes_each("reduce", text, sizeof text / sizeof *text);
}

/* Reductions cut into blocks (more than 16384 elements per output) as well
 * as slabs of outputs: a full reduction, a few long rows, per-feature sums
 * over a long batch, reduced runs with a kept one between them, column sums
 * in wide slabs, several dims, short rows (transposed first, summed into the
 * result itself); bf16/f16 (converted as they are read, summed in f32), f64,
 * s32 max, a long product; and a variadic argmax (a callback
 * reducer: runs serially, checked all the same). */
#define ADD_COMP(T) "HloModule m\nadd { a = " T "[] parameter(0)\n b = " T "[] parameter(1)\n" \
                    " ROOT s = " T "[] add(a, b) }\nENTRY e {\n"
Test(threads, reduce_long_and_blocked) {
  static const char *const text[] = {
      ADD_COMP("f32") "  x = f32[300,700] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[] reduce(x, z), dimensions={0,1}, to_apply=add\n}\n",
      ADD_COMP("f32") "  x = f32[3,50001] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[3] reduce(x, z), dimensions={1}, to_apply=add\n}\n",
      ADD_COMP("f32") "  x = f32[60000,5] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[5] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
      ADD_COMP("f32") "  x = f32[90,7,200] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[7] reduce(x, z), dimensions={0,2}, to_apply=add\n}\n",
      ADD_COMP("f32") "  x = f32[2000,3000] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[3000] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
      ADD_COMP("f32") "  x = f32[40,30,50,20] parameter(0)\n  z = f32[] constant(0)\n"
      "  ROOT r = f32[30,20] reduce(x, z), dimensions={0,2}, to_apply=add\n}\n",
      ADD_COMP("bf16") "  x = bf16[40000,6] parameter(0)\n  y = bf16[5,30000] parameter(1)\n"
      "  z = bf16[] constant(0)\n  a = bf16[6] reduce(x, z), dimensions={0}, to_apply=add\n"
      "  b = bf16[5] reduce(y, z), dimensions={1}, to_apply=add\n  ROOT t = (bf16[6], bf16[5]) tuple(a, b)\n}\n",
      ADD_COMP("f16") "  x = f16[200,300] parameter(0)\n  z = f16[] constant(0)\n"
      "  ROOT r = f16[] reduce(x, z), dimensions={0,1}, to_apply=add\n}\n",
      ADD_COMP("f32") "  x = f32[1000,700,3] parameter(0)\n  z = f32[] constant(1)\n"
      "  ROOT r = f32[1000,700] reduce(x, z), dimensions={2}, to_apply=add\n}\n",
      ADD_COMP("f64") "  x = f64[70000] parameter(0)\n  z = f64[] constant(0)\n"
      "  ROOT r = f64[] reduce(x, z), dimensions={0}, to_apply=add\n}\n",
      "HloModule m\nmx { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
      " ROOT s = s32[] maximum(a, b) }\nENTRY e {\n  x = s32[50000,3] parameter(0)\n"
      "  z = s32[] constant(-2147483648)\n  ROOT r = s32[3] reduce(x, z), dimensions={0}, to_apply=mx\n}\n",
      "HloModule m\nml { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
      " ROOT s = f32[] multiply(a, b) }\nENTRY e {\n  x = f32[4,20000] parameter(0)\n"
      "  c = f32[] constant(0.0001)\n  cb = f32[4,20000] broadcast(c), dimensions={}\n"
      "  o = f32[] constant(1)\n  ob = f32[4,20000] broadcast(o), dimensions={}\n"
      "  y = f32[4,20000] multiply(x, cb)\n  w = f32[4,20000] add(y, ob)\n"
      "  ROOT r = f32[4] reduce(w, o), dimensions={1}, to_apply=ml\n}\n",
      "HloModule m\namax { av = f32[] parameter(0)\n ai = s32[] parameter(1)\n"
      " bv = f32[] parameter(2)\n bi = s32[] parameter(3)\n"
      " gt = pred[] compare(av, bv), direction=GT\n eq = pred[] compare(av, bv), direction=EQ\n"
      " lt = pred[] compare(ai, bi), direction=LT\n tie = pred[] and(eq, lt)\n p = pred[] or(gt, tie)\n"
      " v = f32[] select(p, av, bv)\n i = s32[] select(p, ai, bi)\n ROOT t = (f32[], s32[]) tuple(v, i) }\n"
      "ENTRY e {\n  x = f32[500,300] parameter(0)\n  io = s32[500,300] iota(), iota_dimension=1\n"
      "  ni = f32[] constant(-inf)\n  z = s32[] constant(0)\n"
      "  ROOT r = (f32[500], s32[500]) reduce(x, io, ni, z), dimensions={1}, to_apply=amax\n}\n",
  };
  same_bytes_each("reduce-long", text, sizeof text / sizeof *text);
}
#undef ADD_COMP

/* Sort by rows with the known comparators (radix path): rows along the
 * minor and a major dimension, with a second operand carried along, f32
 * (ties and NaN from the random data's logs) and s32 keys, and the random
 * inputs themselves (filled in parallel chunks). */
Test(threads, sort_and_random_inputs) {
  same_bytes("sort-minor", "HloModule m\nlt { a = f32[] parameter(0)\n b = f32[] parameter(1)\n"
             " c = s32[] parameter(2)\n d = s32[] parameter(3)\n"
             " ROOT r = pred[] compare(a, b), direction=LT }\nENTRY e {\n"
             "  x = f32[2001,129] parameter(0)\n  l = f32[2001,129] log(x)\n"
             "  i = s32[2001,129] parameter(1)\n"
             "  ROOT s = (f32[2001,129], s32[2001,129]) sort(l, i), dimensions={1}, to_apply=lt\n}\n");
  same_bytes("sort-major", "HloModule m\ngt { a = s32[] parameter(0)\n b = s32[] parameter(1)\n"
             " ROOT r = pred[] compare(a, b), direction=GT }\nENTRY e {\n"
             "  x = s32[513,1000] parameter(0)\n"
             "  ROOT s = s32[513,1000] sort(x), dimensions={0}, to_apply=gt\n}\n");
  same_bytes("random", "HloModule m\nENTRY e {\n"
             "  a = f32[1234567] parameter(0)\n  b = c64[333,777] parameter(1)\n"
             "  c = s8[100001] parameter(2)\n  d = bf16[64,64]{0,1:T(8,128)(2,1)} parameter(3)\n"
             "  ROOT t = (f32[1234567], c64[333,777], s8[100001], bf16[64,64]) tuple(a, b, c, d)\n}\n");
}

/* Gather: batch positions in parallel chunks; rows of an embedding table
 * (indices clamped into range from the random s32 data), and a 2-d index
 * vector gathering small boxes, whose result needs a permutation. */
Test(threads, gather) {
  same_bytes("gather-rows", "HloModule m\nENTRY e {\n"
             "  t = f32[1000,129] parameter(0)\n  i = s32[30001,1] parameter(1)\n"
             "  ROOT g = f32[30001,129] gather(t, i), offset_dims={1}, collapsed_slice_dims={0},"
             " start_index_map={0}, index_vector_dim=1, slice_sizes={1,129}\n}\n");
  same_bytes("gather-boxes", "HloModule m\nENTRY e {\n"
             "  t = bf16[64,64,8] parameter(0)\n  i = s32[2,40001] parameter(1)\n"
             "  ROOT g = bf16[3,40001,2,8] gather(t, i), offset_dims={0,2,3}, collapsed_slice_dims={},"
             " start_index_map={0,1}, index_vector_dim=0, slice_sizes={3,2,8}\n}\n");
}

/* Batch norm: the normalising and grad_x passes run in parallel chunks;
 * the feature sums run per feature in parallel when features are major
 * (NCHW), in one serial pass when minor (NHWC). */
Test(threads, batch_norm) {
  same_bytes("bn-nhwc", "HloModule m\nENTRY e {\n"
             "  x = f32[8,33,33,64] parameter(0)\n  s = f32[64] parameter(1)\n  o = f32[64] parameter(2)\n"
             "  ROOT b = (f32[8,33,33,64], f32[64], f32[64]) batch-norm-training(x, s, o),"
             " epsilon=0.001, feature_index=3\n}\n");
  same_bytes("bn-nchw-inference", "HloModule m\nENTRY e {\n"
             "  x = f32[8,16,65,65] parameter(0)\n  s = f32[16] parameter(1)\n  o = f32[16] parameter(2)\n"
             "  m = f32[16] parameter(3)\n  v = f32[16] parameter(4)\n  av = f32[16] abs(v)\n"
             "  ROOT b = f32[8,16,65,65] batch-norm-inference(x, s, o, m, av),"
             " epsilon=0.001, feature_index=1\n}\n");
  /* per-feature sums in parallel (runs of 4225 and 1551 elements, cut at
   * 4096-element chunk boundaries as the serial pass cuts them) */
  same_bytes("bn-nchw-training", "HloModule m\nENTRY e {\n"
             "  x = f32[8,16,65,65] parameter(0)\n  s = f32[16] parameter(1)\n  o = f32[16] parameter(2)\n"
             "  ROOT b = (f32[8,16,65,65], f32[16], f32[16]) batch-norm-training(x, s, o),"
             " epsilon=0.001, feature_index=1\n}\n");
  same_bytes("bn-nchw-grad", "HloModule m\nENTRY e {\n"
             "  x = f32[4,24,33,47] parameter(0)\n  s = f32[24] parameter(1)\n  m = f32[24] parameter(2)\n"
             "  v0 = f32[24] parameter(3)\n  v = f32[24] abs(v0)\n  gy = f32[4,24,33,47] parameter(4)\n"
             "  ROOT b = (f32[4,24,33,47], f32[24], f32[24]) batch-norm-grad(x, s, m, v, gy),"
             " epsilon=0.001, feature_index=1\n}\n");
}

/* Dot and convolution: the BLAS runs one thread per call on tiles cut by
 * the sizes alone (kernels/k_gemm.c), so float gemms give the same bytes at
 * every thread count -- with OpenBLAS's own threads they did not (the first
 * two modules below differed at 2, 3 and 7 threads).  Tiles
 * along M with a short last one, along N, batches grouped or tiled, f64 and
 * c64; convolutions NHWC, NCHW, grouped, 1x1, strided, depthwise (NHWC
 * and NCHW), grouped with kernels longer than the output rows (the weight
 * gradient path) and base-dilated. */
Test(threads, dot_and_conv) {
  same_bytes("dot-tiles-m", "HloModule m\nENTRY e {\n"
             "  a = f32[1000,577] parameter(0)\n  b = f32[577,333] parameter(1)\n"
             "  ROOT d = f32[1000,333] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  same_bytes("dot-small", "HloModule m\nENTRY e {\n"
             "  a = f32[37,1000] parameter(0)\n  b = f32[1000,45] parameter(1)\n"
             "  ROOT d = f32[37,45] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n}\n");
  same_bytes("dot-tiles-n-transposed", "HloModule m\nENTRY e {\n"
             "  a = f64[300,200] parameter(0)\n  b = f64[700,300] parameter(1)\n"
             "  ROOT d = f64[200,700] dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={1}\n}\n");
  same_bytes("dot-batches", "HloModule m\nENTRY e {\n"
             "  a = f32[97,40,50] parameter(0)\n  b = f32[97,50,60] parameter(1)\n"
             "  ROOT d = f32[97,40,60] dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0},"
             " lhs_contracting_dims={2}, rhs_contracting_dims={1}\n}\n");
  same_bytes("dot-c64-bf16", "HloModule m\nENTRY e {\n"
             "  a = c64[260,300] parameter(0)\n  b = c64[300,270] parameter(1)\n"
             "  x = bf16[3,300,260] parameter(2)\n  y = bf16[3,300,270] parameter(3)\n"
             "  c = c64[260,270] dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
             "  z = bf16[3,260,270] dot(x, y), lhs_batch_dims={0}, rhs_batch_dims={0},"
             " lhs_contracting_dims={1}, rhs_contracting_dims={1}\n"
             "  ROOT t = (c64[260,270], bf16[3,260,270]) tuple(c, z)\n}\n");
  same_bytes("conv-nhwc", "HloModule m\nENTRY e {\n"
             "  x = f32[4,30,30,32] parameter(0)\n  k = f32[3,3,32,48] parameter(1)\n"
             "  ROOT c = f32[4,30,30,48] convolution(x, k), window={size=3x3 pad=1_1x1_1},"
             " dim_labels=b01f_01io->b01f\n}\n");
  same_bytes("conv-nchw-strided", "HloModule m\nENTRY e {\n"
             "  x = f32[3,32,41,41] parameter(0)\n  k = f32[40,32,3,3] parameter(1)\n"
             "  ROOT c = f32[3,40,20,20] convolution(x, k), window={size=3x3 stride=2x2},"
             " dim_labels=bf01_oi01->bf01\n}\n");
  same_bytes("conv-grouped", "HloModule m\nENTRY e {\n"
             "  x = f32[4,28,28,64] parameter(0)\n  k = f32[3,3,16,64] parameter(1)\n"
             "  ROOT c = f32[4,28,28,64] convolution(x, k), window={size=3x3 pad=1_1x1_1},"
             " dim_labels=b01f_01io->b01f, feature_group_count=4\n}\n");
  same_bytes("conv-pointwise-nhwc", "HloModule m\nENTRY e {\n"
             "  x = f32[6,30,30,64] parameter(0)\n  k = f32[1,1,64,96] parameter(1)\n"
             "  ROOT c = f32[6,30,30,96] convolution(x, k), window={size=1x1},"
             " dim_labels=b01f_01io->b01f\n}\n");
  same_bytes("conv-pointwise-nchw", "HloModule m\nENTRY e {\n"
             "  x = f32[6,64,30,30] parameter(0)\n  k = f32[96,64,1,1] parameter(1)\n"
             "  ROOT c = f32[6,96,30,30] convolution(x, k), window={size=1x1},"
             " dim_labels=bf01_oi01->bf01\n}\n");
  same_bytes("conv-depthwise-nhwc", "HloModule m\nENTRY e {\n"
             "  x = f32[4,30,30,32] parameter(0)\n  k = f32[3,3,1,32] parameter(1)\n"
             "  ROOT c = f32[4,30,30,32] convolution(x, k), window={size=3x3 pad=1_1x1_1},"
             " dim_labels=b01f_01io->b01f, feature_group_count=32\n}\n");
  same_bytes("conv-depthwise-nchw", "HloModule m\nENTRY e {\n"
             "  x = f32[4,32,30,30] parameter(0)\n  k = f32[32,1,3,3] parameter(1)\n"
             "  ROOT c = f32[4,32,28,28] convolution(x, k), window={size=3x3},"
             " dim_labels=bf01_oi01->bf01, feature_group_count=32\n}\n");
  same_bytes("conv-grouped-planar", "HloModule m\nENTRY e {\n"
             "  x = f32[2,64,30,30] parameter(0)\n  k = f32[32,2,28,28] parameter(1)\n"
             "  ROOT c = f32[2,32,3,3] convolution(x, k), window={size=28x28},"
             " dim_labels=bf01_oi01->bf01, feature_group_count=32\n}\n");
  same_bytes("conv-base-dilated", "HloModule m\nENTRY e {\n"
             "  x = f32[4,20,20,32] parameter(0)\n  k = f32[3,3,32,40] parameter(1)\n"
             "  ROOT c = f32[4,40,40,40] convolution(x, k), window={size=3x3 pad=1_2x1_2 lhs_dilate=2x2},"
             " dim_labels=b01f_01io->b01f\n}\n");
}

/* The direct f32 tiles (kernels/k_conv_direct.c): chunks of pixel tiles,
 * each output summed in one order whoever runs it.  Strided with an output
 * feature tail (70 = 64 + 6), an input gradient's reversed window with the
 * kernel 01oi, window dilation over a 1-d input, 3-d, NCHW (through
 * permuted copies) and 256 -> 256 features (several feature blocks). */
Test(threads, conv_direct) {
  same_bytes("conv-direct-strided-tail", "HloModule m\nENTRY e {\n"
             "  x = f32[3,33,31,24] parameter(0)\n  k = f32[3,3,24,70] parameter(1)\n"
             "  ROOT c = f32[3,17,16,70] convolution(x, k), window={size=3x3 stride=2x2 pad=1_1x1_1},"
             " dim_labels=b01f_01io->b01f\n}\n");
  same_bytes("conv-direct-input-grad", "HloModule m\nENTRY e {\n"
             "  x = f32[4,20,20,48] parameter(0)\n  k = f32[3,3,32,48] parameter(1)\n"
             "  ROOT c = f32[4,20,20,32] convolution(x, k), window={size=3x3 pad=1_1x1_1 rhs_reversal=1x1},"
             " dim_labels=b01f_01oi->b01f\n}\n");
  same_bytes("conv-direct-1d-dilated", "HloModule m\nENTRY e {\n"
             "  x = f32[5,300,40] parameter(0)\n  k = f32[5,40,36] parameter(1)\n"
             "  ROOT c = f32[5,292,36] convolution(x, k), window={size=5 rhs_dilate=2},"
             " dim_labels=b0f_0io->b0f\n}\n");
  same_bytes("conv-direct-3d", "HloModule m\nENTRY e {\n"
             "  x = f32[2,10,12,14,16] parameter(0)\n  k = f32[3,3,3,16,20] parameter(1)\n"
             "  ROOT c = f32[2,10,12,14,20] convolution(x, k), window={size=3x3x3 pad=1_1x1_1x1_1},"
             " dim_labels=b012f_012io->b012f\n}\n");
  same_bytes("conv-direct-nchw", "HloModule m\nENTRY e {\n"
             "  x = f32[4,32,25,25] parameter(0)\n  k = f32[40,32,3,3] parameter(1)\n"
             "  ROOT c = f32[4,40,25,25] convolution(x, k), window={size=3x3 pad=1_1x1_1},"
             " dim_labels=bf01_oi01->bf01\n}\n");
  same_bytes("conv-direct-256", "HloModule m\nENTRY e {\n"
             "  x = f32[2,14,14,256] parameter(0)\n  k = f32[3,3,256,256] parameter(1)\n"
             "  ROOT c = f32[2,14,14,256] convolution(x, k), window={size=3x3 pad=1_1x1_1},"
             " dim_labels=b01f_01io->b01f\n}\n");
}

/* Weight gradients (a kernel window larger than the output): one GEMM cut
 * along its long K into units, slabs of units summed into partial results
 * added in slab order (kernels/k_conv_wgrad.c).  NHWC (the feature-minor
 * builder, two slabs), NCHW (spatial-minor, four slabs), a strided
 * forward's (window dilation 2) and bf16 operands (converted first). */
Test(threads, conv_weight_gradients) {
  same_bytes("conv-wgrad-nhwc", "HloModule m\nENTRY e {\n"
             "  x = f32[8,30,30,48] parameter(0)\n  dy = f32[8,30,30,40] parameter(1)\n"
             "  ROOT c = f32[3,3,48,40] convolution(x, dy), window={size=30x30 pad=1_1x1_1},"
             " dim_labels=f01b_i01o->01bf\n}\n");
  same_bytes("conv-wgrad-nchw", "HloModule m\nENTRY e {\n"
             "  x = f32[8,48,30,30] parameter(0)\n  dy = f32[8,40,30,30] parameter(1)\n"
             "  ROOT c = f32[48,40,3,3] convolution(x, dy), window={size=30x30 pad=1_1x1_1},"
             " dim_labels=fb01_io01->bf01\n}\n");
  same_bytes("conv-wgrad-strided-bf16", "HloModule m\nENTRY e {\n"
             "  x = f32[4,61,61,32] parameter(0)\n  dy = f32[4,30,30,40] parameter(1)\n"
             "  xb = bf16[4,32,61,61] parameter(2)\n  dyb = bf16[4,40,30,30] parameter(3)\n"
             "  c = f32[3,3,32,40] convolution(x, dy), window={size=30x30 rhs_dilate=2x2},"
             " dim_labels=f01b_i01o->01bf\n"
             "  d = bf16[32,40,3,3] convolution(xb, dyb), window={size=30x30 rhs_dilate=2x2},"
             " dim_labels=fb01_io01->bf01\n"
             "  ROOT t = (f32[3,3,32,40], bf16[32,40,3,3]) tuple(c, d)\n}\n");
  same_bytes("conv-wgrad-batch-groups", "HloModule m\nENTRY e {\n"
             "  x = f32[4,30,30,64] parameter(0)\n  dy = f32[4,30,30,64] parameter(1)\n"
             "  ROOT c = f32[3,3,16,64] convolution(x, dy), window={size=30x30 pad=1_1x1_1},"
             " dim_labels=f01b_i01o->01bf, batch_group_count=4\n}\n");
}

/* reduce-window with a known reducer: chunks of output rows, each output
 * folding its window in the same order (NHWC sum with padding, strided
 * bf16 max in NCHW with its f32 compute conversion, a rank-1 dilated sum). */
Test(threads, reduce_window) {
  same_bytes("reduce-window", "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
             "  ROOT r = f32[] add(a, b)\n}\nmax {\n  a = bf16[] parameter(0)\n  b = bf16[] parameter(1)\n"
             "  ROOT r = bf16[] maximum(a, b)\n}\nENTRY e {\n  x = f32[8,57,57,64] parameter(0)\n"
             "  z = f32[] constant(0)\n  s = f32[8,28,28,64] reduce-window(x, z),"
             " window={size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}, to_apply=add\n"
             "  y = bf16[4,32,61,61] parameter(1)\n  ni = bf16[] constant(-inf)\n"
             "  m = bf16[4,32,31,31] reduce-window(y, ni), window={size=1x1x3x3 stride=1x1x2x2"
             " pad=0_0x0_0x1_1x1_1}, to_apply=max\n  v = f32[100003] parameter(2)\n"
             "  c = f32[49999] reduce-window(v, z), window={size=5 stride=2 pad=2_1 rhs_dilate=2}, to_apply=add\n"
             "  ROOT t = (f32[8,28,28,64], bf16[4,32,31,31], f32[49999]) tuple(s, m, c)\n}\n");
}

/* Scatter and select-and-scatter: pairs combine in ranges of targets on
 * the pool, each target taking its updates in order (float adds to the
 * same target from many updates: any reordering changes the bytes). */
Test(threads, scatter) {
  same_bytes("scatter-add", "HloModule m\nadd {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
             "  ROOT r = f32[] add(a, b)\n}\nENTRY e {\n  t = f32[1000,17] parameter(0)\n"
             "  u = f32[100001,17] parameter(1)\n  io = s32[100001,1] iota(), iota_dimension=0\n"
             "  k = s32[] constant(997)\n  kb = s32[100001,1] broadcast(k), dimensions={}\n"
             "  i = s32[100001,1] remainder(io, kb)\n"
             "  ROOT s = f32[1000,17] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0},"
             " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n");
  /* bf16 targets summed in f32 one range at a time (3M targets: two ranges) */
  same_bytes("scatter-add bf16", "HloModule m\nadd {\n  a = bf16[] parameter(0)\n  b = bf16[] parameter(1)\n"
             "  ROOT r = bf16[] add(a, b)\n}\nENTRY e {\n  t = bf16[30000,100] parameter(0)\n"
             "  u = bf16[20011,100] parameter(1)\n  io = s32[20011,1] iota(), iota_dimension=0\n"
             "  m = s32[] constant(7919)\n  mb = s32[20011,1] broadcast(m), dimensions={}\n"
             "  p = s32[20011,1] multiply(io, mb)\n  k = s32[] constant(30000)\n"
             "  kb = s32[20011,1] broadcast(k), dimensions={}\n  i = s32[20011,1] remainder(p, kb)\n"
             "  ROOT s = bf16[30000,100] scatter(t, i, u), update_window_dims={1}, inserted_window_dims={0},"
             " scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add\n}\n");
  same_bytes("select-and-scatter", "HloModule m\nge {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
             "  ROOT r = pred[] compare(a, b), direction=GE\n}\nadd {\n  a = f32[] parameter(0)\n"
             "  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}\nENTRY e {\n"
             "  x = f32[8,113,113,16] parameter(0)\n  s = f32[8,56,56,16] parameter(1)\n"
             "  z = f32[] constant(0)\n  ROOT r = f32[8,113,113,16] select-and-scatter(x, s, z),"
             " window={size=1x3x3x1 stride=1x2x2x1}, select=ge, scatter=add\n}\n");
}

/* Pad: the fill with the padding value and the copy both run on the pool. */
Test(threads, pad) {
  same_bytes("pad", "HloModule m\nENTRY e {\n  x = f32[700,901] parameter(0)\n  v = f32[] parameter(1)\n"
             "  p = f32[1500,1000] pad(x, v), padding=3_98_1x-2_101\n  y = bf16[300,300] parameter(2)\n"
             "  w = bf16[] parameter(3)\n  q = bf16[1200,700] pad(y, w), padding=0_3_3x100_300\n"
             "  ROOT t = (f32[1500,1000], bf16[1200,700]) tuple(p, q)\n}\n");
}
