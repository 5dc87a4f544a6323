/* reduce: typed loops for known reducers, an order-preserving vector tree for
 * callbacks. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include "kernels/k_reduce.h"

#include <math.h>

#include "base/thread_pool.h"
#include "kernels/k_common.h"
#include "kernels/k_movement.h"

typedef float v8f __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));

/* The streaming row sums run through K_CLONES (k_common.h) with the same
 * 32 (16) lanes and fold order on every path, so results do not depend on
 * the machine. */

/* The lanes start at -0.0, the identity of +, so that a row of -0.0 sums
 * to -0.0 as a serial fold does (from +0.0 it came out +0.0); any other
 * row sums as from +0.0. */
#define NZ8 {-0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f, -0.0f}
#define NZ4 {-0.0, -0.0, -0.0, -0.0}

/* 32 interleaved partial sums, folded in lane order. */
K_CLONES static float sum_row_f32(const float *x, int64_t n) {
  v8f a0 = NZ8, a1 = NZ8, a2 = NZ8, a3 = NZ8;
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    v8f t0, t1, t2, t3;
    memcpy(&t0, x + i, 32);
    memcpy(&t1, x + i + 8, 32);
    memcpy(&t2, x + i + 16, 32);
    memcpy(&t3, x + i + 24, 32);
    a0 += t0; a1 += t1; a2 += t2; a3 += t3;
  }
  float lanes[32];
  memcpy(lanes, &a0, 32);
  memcpy(lanes + 8, &a1, 32);
  memcpy(lanes + 16, &a2, 32);
  memcpy(lanes + 24, &a3, 32);
  if (i == 0) { /* short row: plain sequential sum */
    float s = n > 0 ? x[0] : 0.0f;
    for (int64_t j = 1; j < n; j++) s += x[j];
    return s;
  }
  for (int64_t j = 0; i + j < n; j++) lanes[j] += x[i + j];
  float s = lanes[0];
  for (int l = 1; l < 32; l++) s += lanes[l];
  return s;
}

K_CLONES static double sum_row_f64(const double *x, int64_t n) {
  v4d a0 = NZ4, a1 = NZ4, a2 = NZ4, a3 = NZ4;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    v4d t0, t1, t2, t3;
    memcpy(&t0, x + i, 32);
    memcpy(&t1, x + i + 4, 32);
    memcpy(&t2, x + i + 8, 32);
    memcpy(&t3, x + i + 12, 32);
    a0 += t0; a1 += t1; a2 += t2; a3 += t3;
  }
  if (i == 0) {
    double s = n > 0 ? x[0] : 0.0;
    for (int64_t j = 1; j < n; j++) s += x[j];
    return s;
  }
  double lanes[16];
  memcpy(lanes, &a0, 32);
  memcpy(lanes + 4, &a1, 32);
  memcpy(lanes + 8, &a2, 32);
  memcpy(lanes + 12, &a3, 32);
  for (int64_t j = 0; i + j < n; j++) lanes[j] += x[i + j];
  double s = lanes[0];
  for (int l = 1; l < 16; l++) s += lanes[l];
  return s;
}

/* f32 max/min of a row through order-preserving integer keys (-0 < +0, as
 * XLA's maximum/minimum order them): exact and order-independent, so it
 * vectorises freely.  Returns false when the row holds a NaN (the caller
 * then takes the generic path, which picks the NaN XLA's order would). */
static inline int32_t f32_key(uint32_t b) {
  return (int32_t)(b ^ ((uint32_t)((int32_t)b >> 31) & 0x7fffffffu));
}
K_CLONES static bool maxmin_row_f32(const float *x, int64_t n, bool is_max, float *out) {
  const uint32_t *u = (const uint32_t *)(const void *)x;
  int32_t m = is_max ? INT32_MIN : INT32_MAX;
  uint32_t nan = 0;
  if (is_max) {
    for (int64_t i = 0; i < n; i++) {
      int32_t k = f32_key(u[i]);
      m = k > m ? k : m;
      nan |= (u[i] & 0x7fffffffu) > 0x7f800000u;
    }
  } else {
    for (int64_t i = 0; i < n; i++) {
      int32_t k = f32_key(u[i]);
      m = k < m ? k : m;
      nan |= (u[i] & 0x7fffffffu) > 0x7f800000u;
    }
  }
  if (nan) return false;
  uint32_t b = (uint32_t)m;
  b ^= (uint32_t)((int32_t)b >> 31) & 0x7fffffffu;
  memcpy(out, &b, 4);
  return true;
}

/* acc[0..k) += rows[r][0..k) for r in order (row r at x + r*stride): the
 * serial order of a reduction over a major run into a short kept inner run
 * (per-feature sums, NHWC reduced over N, H, W), in one loop instead of one
 * k_combine call per row of k elements. */
#define SHORT_ROWS 256
#define ADD_ROWS(NAME, T)                                                                         \
  K_CLONES static void NAME(T *restrict acc, const T *restrict x, int64_t rows, int64_t k,          \
                            int64_t stride) {                                                       \
    T t[SHORT_ROWS];                                                                                \
    memcpy(t, acc, (size_t)k * sizeof *t);                                                          \
    for (int64_t r = 0; r < rows; r++)                                                              \
      for (int64_t j = 0; j < k; j++) t[j] += x[r * stride + j];                                    \
    memcpy(acc, t, (size_t)k * sizeof *t);                                                          \
  }
ADD_ROWS(add_rows_f32, float)
ADD_ROWS(add_rows_f64, double)

#define LANES 64

/* *acc = op(*acc, reduce(row[0..n))) in compute type ct. */
static bool reduce_row(KReduceOp op, EType ct, const void *row, int64_t n, void *acc, Error *err) {
  if (n == 0) return true;
  if (op == K_RED_ADD && ct == ET_F32) { *(float *)acc += sum_row_f32(row, n); return true; }
  if (op == K_RED_ADD && ct == ET_F64) { *(double *)acc += sum_row_f64(row, n); return true; }
  if ((op == K_RED_MAX || op == K_RED_MIN) && ct == ET_F32) {
    float m;
    if (maxmin_row_f32(row, n, op == K_RED_MAX, &m)) return k_combine(op, ct, acc, &m, 1, err);
  }
  int es = etype_storage_bytes(ct);
  const char *r = row;
  if (n < 2 * LANES) {
    for (int64_t i = 0; i < n; i++)
      if (!k_combine(op, ct, acc, r + i * es, 1, err)) return false;
    return true;
  }
  char lanes[LANES * 16];
  memcpy(lanes, r, (size_t)(LANES * es));
  int64_t i = LANES;
  for (; i + LANES <= n; i += LANES)
    if (!k_combine(op, ct, lanes, r + i * es, LANES, err)) return false;
  if (i < n && !k_combine(op, ct, lanes, r + i * es, n - i, err)) return false;
  for (int l = 1; l < LANES; l++)
    if (!k_combine(op, ct, lanes, lanes + l * es, 1, err)) return false;
  return k_combine(op, ct, acc, lanes, 1, err);
}

typedef struct Run { int64_t size, in_stride, out_stride; bool reduced; } Run;

static bool reduce_runs(KReduceOp op, EType t, EType ct, const void *src, const Run *runs, int nr,
                        void *acc, void *scratch, Error *err);

/* Per-output elements one block folds (in the serial order) before its
 * partial result joins the others, in block order: k_reduce.h, "Summation
 * order".  A fixed size, so the blocks, like the chunks, do not depend on
 * the thread count. */
#define RED_BLOCK ((int64_t)16384)
/* The narrowest slab of an innermost kept run a chunk takes, in bytes: a
 * chunk of a column reduction reads this much of every row, and narrower
 * slabs (a few cache lines a row, one row per 4 KiB page) starve the
 * prefetchers: f32[4096,4096] summed over dim 0 took 14.7 ms in slabs of
 * 64 columns (256 bytes), against 3 ms for the same bytes by rows. */
#define RED_MIN_SLAB_BYTES ((int64_t)16384)

/* The value e with op(e, x) == x bit for bit, for every x of compute type
 * ct (-0.0 for float add, -inf for max, ...); false for complex types,
 * which are then never cut into blocks. */
static bool identity_of(KReduceOp op, EType ct, void *out) {
  int es = etype_storage_bytes(ct);
  if (ct == ET_F32 || ct == ET_F64) {
    double v = op == K_RED_ADD ? -0.0 : op == K_RED_MUL ? 1.0 : op == K_RED_MAX ? -INFINITY
             : op == K_RED_MIN ? INFINITY : NAN;
    if (isnan(v)) return false;
    if (ct == ET_F32) { float f = (float)v; memcpy(out, &f, 4); }
    else memcpy(out, &v, 8);
    return true;
  }
  if (!etype_is_int(ct) && ct != ET_PRED) return false;
  bool sgn = etype_kind(ct) == EK_SINT;
  uint64_t u;
  switch (op) {
  case K_RED_ADD: case K_RED_OR: case K_RED_XOR: u = 0; break;
  case K_RED_MUL: u = 1; break;
  case K_RED_AND: u = ct == ET_PRED ? 1 : ~(uint64_t)0; break;
  case K_RED_MAX: u = sgn ? (uint64_t)1 << (8 * es - 1) : 0; break;           /* the type's least */
  case K_RED_MIN: u = ct == ET_PRED ? 1 : sgn ? ((uint64_t)1 << (8 * es - 1)) - 1 /* its greatest */
                                            : ~(uint64_t)0; break;
  default: return false;
  }
  switch (es) { /* the value truncated to the type's width */
  case 1: { uint8_t v = (uint8_t)u; memcpy(out, &v, 1); break; }
  case 2: { uint16_t v = (uint16_t)u; memcpy(out, &v, 2); break; }
  case 4: { uint32_t v = (uint32_t)u; memcpy(out, &v, 4); break; }
  default: memcpy(out, &u, 8);
  }
  return true;
}

/* One known-op reduction spread over the pool: chunk c is block c / nslab
 * (indices [b*m, b*m+m) of reduced run `cut`, or everything) times slab
 * c % nslab (indices [s*per, s*per+per) of kept run `split`, or all
 * outputs).  A chunk folds its elements into its outputs in the serial
 * order -- into the accumulators themselves when there is one block, else
 * into its block's partial results, which start at the identity and are
 * combined into the accumulators afterwards in block order. */
typedef struct ReduceJob {
  KReduceOp op;
  EType t, ct;
  int et, es; /* element bytes of t and ct */
  const char *src;
  char *acc;  /* nout accumulators */
  char *part; /* nb * nout partial results; NULL when nb == 1 */
  int64_t nout;
  Run runs[K_MAX_RANK + 1];
  int nr;
  int cut, split; /* run indices, or -1 */
  int64_t m, nb, per, nslab;
} ReduceJob;

static bool reduce_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  (void)worker;
  const ReduceJob *j = ctx;
  Run runs[K_MAX_RANK + 1];
  memcpy(runs, j->runs, sizeof(Run) * (size_t)j->nr);
  int64_t b = chunk / j->nslab, s = chunk % j->nslab;
  const char *src = j->src;
  char *dst = j->part ? j->part + b * j->nout * j->es : j->acc;
  if (j->cut >= 0) {
    Run *r = &runs[j->cut];
    int64_t lo = b * j->m;
    r->size = r->size - lo < j->m ? r->size - lo : j->m;
    src += lo * r->in_stride * j->et;
  }
  if (j->split >= 0) {
    Run *r = &runs[j->split];
    int64_t lo = s * j->per;
    r->size = r->size - lo < j->per ? r->size - lo : j->per;
    src += lo * r->in_stride * j->et;
    dst += lo * r->out_stride * j->es;
  }
  /* narrow types: one innermost segment (at most RED_BLOCK) in f32 */
  void *scratch = NULL;
  int64_t seg = runs[j->nr - 1].size < RED_BLOCK ? runs[j->nr - 1].size : RED_BLOCK;
  if (j->t != j->ct && !(scratch = k_malloc(seg * j->es, err))) return false;
  bool ok = reduce_runs(j->op, j->t, j->ct, src, runs, j->nr, dst, scratch, err);
  k_free(scratch);
  return ok;
}

/* Known-op reduction of one operand of element type t into accumulators of
 * its compute type ct.  How it is cut
 * depends on the sizes alone (never on the thread count):
 *   - blocks: when an output folds more than RED_BLOCK elements, the
 *     outermost reduced run whose inner part exceeds that is cut into blocks
 *     of about RED_BLOCK elements per output (a full reduction, a few long
 *     rows, per-feature sums over a huge batch); results change from the
 *     serial order only for such long float sums and products.
 *   - slabs: the outputs, along the kept run that gives the most slabs (an
 *     innermost kept run only in slabs of RED_MIN_SLAB_BYTES or more). */
static bool reduce_known(KReduceOp op, EType t, EType ct, const void *src, int rank,
                         const int64_t *dims, const bool *red, void *acc, int64_t nout, Error *err) {
  int es = etype_storage_bytes(ct), et = etype_storage_bytes(t);
  ReduceJob j = {op, t, ct, et, es, src, acc, NULL, nout, {{0}}, 0, -1, -1, 1, 1, 1, 1};
  Run *runs = j.runs;
  int nr = 0;
  int64_t st = 1;
  int64_t ist[K_MAX_RANK];
  for (int i = rank - 1; i >= 0; i--) { ist[i] = st; st *= dims[i]; }
  for (int i = 0; i < rank; i++) {
    if (dims[i] == 1) continue;
    if (nr > 0 && runs[nr - 1].reduced == red[i] && runs[nr - 1].in_stride == ist[i] * dims[i]) {
      runs[nr - 1].size *= dims[i];
      runs[nr - 1].in_stride = ist[i];
      continue;
    }
    runs[nr++] = (Run){dims[i], ist[i], 0, red[i]};
  }
  if (nr == 0) runs[nr++] = (Run){1, 1, 0, false};
  j.nr = nr;
  int64_t ost = 1;
  for (int i = nr - 1; i >= 0; i--) if (!runs[i].reduced) { runs[i].out_stride = ost; ost *= runs[i].size; }
  int64_t total = 1;
  for (int i = 0; i < nr; i++) total *= runs[i].size;

  /* Blocks along the reduced run where the per-output count passes RED_BLOCK. */
  char ident[16];
  int64_t inner = 1;
  for (int i = nr - 1; i >= 0; i--) {
    if (!runs[i].reduced) continue;
    if (inner * runs[i].size > RED_BLOCK) {
      j.m = RED_BLOCK / inner > 1 ? RED_BLOCK / inner : 1;
      j.nb = (runs[i].size + j.m - 1) / j.m;
      if (j.nb > 1 && identity_of(op, ct, ident)) j.cut = i;
      else j.m = j.nb = 1;
      break;
    }
    inner *= runs[i].size;
  }

  /* Slabs of the outputs, along the kept run that gives the most. */
  int64_t wmin_inner = RED_MIN_SLAB_BYTES / es > 1 ? RED_MIN_SLAB_BYTES / es : 1, most = 1;
  for (int i = 0; i < nr; i++) {
    if (runs[i].reduced) continue;
    int64_t w = i == nr - 1 ? wmin_inner : 1, n = runs[i].size / w;
    if (n > most) { most = n; j.split = i; }
  }
  if (j.split >= 0) {
    int64_t size = runs[j.split].size, w = j.split == nr - 1 ? wmin_inner : 1;
    int64_t chunks = pool_chunks(total / j.nb * et, most);
    j.per = (size + chunks - 1) / chunks;
    if (j.per < w) j.per = w;
    if (size >= 256) j.per = (j.per + 63) / 64 * 64; /* whole vectors of outputs */
    j.nslab = (size + j.per - 1) / j.per;
    if (j.nslab <= 1) { j.split = -1; j.per = j.nslab = 1; }
  }
  if (j.nb * j.nslab <= 1) return reduce_chunk(&j, 0, 0, err);
  if (j.cut < 0) return pool_for_err(j.nslab, reduce_chunk, &j, err);

  int64_t nparts = j.nb * nout;
  if (!(j.part = k_malloc(nparts * es, err))) return false;
  for (int64_t i = 0; i < nparts; i++) memcpy(j.part + i * es, ident, (size_t)es);
  bool ok = pool_for_err(j.nb * j.nslab, reduce_chunk, &j, err);
  for (int64_t b = 0; b < j.nb && ok; b++) ok = k_combine(op, ct, acc, j.part + b * nout * es, nout, err);
  k_free(j.part);
  return ok;
}

/* The reduction of runs[0..nr) of src (element type t) into acc (its
 * compute type ct), in odometer order.  When t is not ct, each innermost
 * segment is first converted into `scratch` (RED_BLOCK elements of ct):
 * kept segments piece by piece (each output alone), reduced ones whole (the
 * blocks keep them within RED_BLOCK), so narrow types sum exactly as their
 * f32 conversion would, without a converted copy of the operand. */
static bool reduce_runs(KReduceOp op, EType t, EType ct, const void *src, const Run *runs, int nr,
                        void *acc, void *scratch, Error *err) {
  int es = etype_storage_bytes(ct), et = etype_storage_bytes(t);
  Run last = runs[nr - 1];
  int64_t idx[K_MAX_RANK + 1] = {0};
  const char *s = src;
  char *a = acc;
  /* A short kept inner run under a reduced one, f32/f64 add: the rows of the
   * reduced run in one add_rows call (the odometer skips that run). */
  bool rows = nr >= 2 && !last.reduced && runs[nr - 2].reduced && last.size <= SHORT_ROWS && t == ct &&
              op == K_RED_ADD && (ct == ET_F32 || ct == ET_F64);
  int inner = rows ? nr - 2 : nr - 1; /* the runs the odometer walks: [0, inner) */
  for (;;) {
    int64_t io = 0, oo = 0;
    for (int i = 0; i < inner; i++) { io += idx[i] * runs[i].in_stride; oo += idx[i] * runs[i].out_stride; }
    const char *seg = s + io * et;
    if (rows) {
      if (ct == ET_F32) add_rows_f32((float *)(void *)(a + oo * es), (const float *)(const void *)seg,
                                     runs[nr - 2].size, last.size, runs[nr - 2].in_stride);
      else add_rows_f64((double *)(void *)(a + oo * es), (const double *)(const void *)seg,
                        runs[nr - 2].size, last.size, runs[nr - 2].in_stride);
    } else if (last.reduced) {
      if (t != ct) {
        if (last.size > RED_BLOCK) return error_set(err, ERR_RUNTIME, -1, "internal: reduce row not cut");
        k_to_compute(t, seg, scratch, last.size);
        seg = scratch;
      }
      if (!reduce_row(op, ct, seg, last.size, a + oo * es, err)) return false;
    } else if (t != ct) {
      for (int64_t at = 0; at < last.size; at += RED_BLOCK) {
        int64_t m = last.size - at < RED_BLOCK ? last.size - at : RED_BLOCK;
        k_to_compute(t, seg + at * et, scratch, m);
        if (!k_combine(op, ct, a + (oo + at) * es, scratch, m, err)) return false;
      }
    } else {
      if (!k_combine(op, ct, a + oo * es, seg, last.size, err)) return false;
    }
    int i = inner - 1;
    for (; i >= 0; i--) {
      if (++idx[i] < runs[i].size) break;
      idx[i] = 0;
    }
    if (i < 0) break;
  }
  return true;
}

bool k_reduce(int nvals, const KArray *ops, const void *const *inits, int ndims,
              const int64_t *dims, const KReducer *r, KArray *outs, Error *err) {
  if (nvals < 1 || nvals > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "reduce: bad operand count %d", nvals);
  int rank = ops[0].rank;
  if (rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "reduce: rank too large");
  bool red[K_MAX_RANK] = {false};
  for (int i = 0; i < ndims; i++) {
    if (dims[i] < 0 || dims[i] >= rank) return error_set(err, ERR_RUNTIME, -1, "reduce: dimension %lld out of range", (long long)dims[i]);
    if (red[dims[i]]) return error_set(err, ERR_RUNTIME, -1, "reduce: dimension %lld repeated", (long long)dims[i]);
    red[dims[i]] = true;
  }
  int64_t n, nout = 1, nred = 1;
  if (!k_num_elements(rank, ops[0].dims, &n, err)) return false;
  for (int v = 0; v < nvals; v++) {
    if (ops[v].rank != rank) return error_set(err, ERR_RUNTIME, -1, "reduce: operands differ in rank");
    for (int i = 0; i < rank; i++)
      if (ops[v].dims[i] != ops[0].dims[i]) return error_set(err, ERR_RUNTIME, -1, "reduce: operands differ in shape");
    if (outs[v].rank != rank - ndims) return error_set(err, ERR_RUNTIME, -1, "reduce: result %d has rank %d, expected %d", v, outs[v].rank, rank - ndims);
    if (outs[v].etype != ops[v].etype) return error_set(err, ERR_RUNTIME, -1, "reduce: result %d type differs from operand", v);
    if (r->ops && !k_op_valid(r->ops[v], k_compute_etype(ops[v].etype)))
      return error_set(err, ERR_RUNTIME, -1, "reduce: %s is not defined on %s", k_reduce_op_name(r->ops[v]), etype_name(ops[v].etype));
  }
  int j = 0;
  for (int i = 0; i < rank; i++) {
    if (red[i]) { nred *= ops[0].dims[i]; continue; }
    nout *= ops[0].dims[i];
    for (int v = 0; v < nvals; v++)
      if (outs[v].dims[j] != ops[0].dims[i]) return error_set(err, ERR_RUNTIME, -1, "reduce: result dimension %d is %lld, expected %lld", j, (long long)outs[v].dims[j], (long long)ops[0].dims[i]);
    j++;
  }
  if (nout == 0) return true;

  if (r->ops) {
    for (int v = 0; v < nvals; v++) {
      EType t = ops[v].etype, ct = k_compute_etype(t);
      int es = etype_storage_bytes(ct);
      /* Accumulate straight into the result when it is its own compute
       * type (no copy of a big result after); the init fill on the pool. */
      void *acc = t == ct ? outs[v].data : k_malloc(nout * es, err);
      if (!acc) return false;
      char init[16];
      k_to_compute(t, inits[v], init, 1);
      k_fill(acc, nout, init, (size_t)es);
      bool ok = true;
      if (nred > 0 && n > 0) {
        /* Short innermost reduced run: transpose reduced dims to the front
         * (in the element type; narrow types convert as they are read) so
         * the inner loop runs across outputs instead. */
        int inner = rank - 1;
        while (inner >= 0 && ops[v].dims[inner] == 1) inner--;
        int64_t inner_red = 1;
        for (int i = inner; i >= 0 && red[i]; i--) inner_red *= ops[v].dims[i];
        bool transpose = inner >= 0 && red[inner] && inner_red < 32 && nout > 1;
        const void *data = ops[v].data;
        int64_t tdims[K_MAX_RANK];
        bool tred[K_MAX_RANK];
        const int64_t *udims = ops[v].dims;
        const bool *ured = red;
        void *tbuf = NULL;
        if (transpose) {
          int64_t perm[K_MAX_RANK];
          int k = 0;
          for (int i = 0; i < rank; i++) if (red[i]) { perm[k] = i; tred[k] = true; tdims[k++] = ops[v].dims[i]; }
          for (int i = 0; i < rank; i++) if (!red[i]) { perm[k] = i; tred[k] = false; tdims[k++] = ops[v].dims[i]; }
          int et = etype_storage_bytes(t);
          tbuf = k_malloc(n * et, err);
          if (!tbuf) { k_free(acc); return false; }
          k_transpose(tbuf, data, ops[v].dims, perm, rank, (size_t)et); /* on the pool */
          data = tbuf;
          udims = tdims;
          ured = tred;
        }
        ok = reduce_known(r->ops[v], t, ct, data, rank, udims, ured, acc, nout, err);
        k_free(tbuf);
      }
      if (ok && acc != outs[v].data) k_from_compute(t, acc, outs[v].data, nout);
      if (acc != outs[v].data) k_free(acc);
      if (!ok) return false;
    }
    return true;
  }

  /* Callback: [R, O] layout per operand, then an adjacent-pair tree. */
  bool ok = false;
  void *buf[K_MAX_RANK] = {0}, *odd[K_MAX_RANK] = {0};
  EType types[K_MAX_RANK];
  int es[K_MAX_RANK];
  int64_t perm[K_MAX_RANK];
  int k = 0;
  for (int i = 0; i < rank; i++) if (red[i]) perm[k++] = i;
  for (int i = 0; i < rank; i++) if (!red[i]) perm[k++] = i;
  for (int v = 0; v < nvals; v++) {
    types[v] = ops[v].etype;
    es[v] = etype_storage_bytes(types[v]);
    int64_t rows = nred > 0 ? nred : 1;
    buf[v] = k_malloc(rows * nout * es[v], err);
    odd[v] = k_malloc((rows / 2 + 1) * nout * es[v], err);
    if (!buf[v] || !odd[v]) goto done;
    if (nred > 0) k_transpose(buf[v], ops[v].data, ops[v].dims, perm, rank, (size_t)es[v]);
  }
  int64_t R = nred;
  while (R > 1) {
    int64_t P = R / 2;
    for (int v = 0; v < nvals; v++) {
      int64_t rb = nout * es[v];
      char *b = buf[v], *o = odd[v];
      for (int64_t i = 0; i < P; i++) memcpy(o + i * rb, b + (2 * i + 1) * rb, (size_t)rb);
      for (int64_t i = 1; i < P; i++) memcpy(b + i * rb, b + 2 * i * rb, (size_t)rb);
      if (R & 1) memmove(b + P * rb, b + (R - 1) * rb, (size_t)rb);
    }
    if (!r->fn(r->ctx, nvals, buf, (const void *const *)odd, P * nout, err)) goto done;
    R = P + (R & 1);
  }
  /* outs = f(init, total) (or init when nothing was reduced). */
  for (int v = 0; v < nvals; v++) k_fill(outs[v].data, nout, inits[v], (size_t)es[v]);
  if (R == 1) {
    void *outp[K_MAX_RANK];
    for (int v = 0; v < nvals; v++) outp[v] = outs[v].data;
    if (!r->fn(r->ctx, nvals, outp, (const void *const *)buf, nout, err)) goto done;
  }
  ok = true;
done:
  for (int v = 0; v < nvals; v++) { k_free(buf[v]); k_free(odd[v]); }
  (void)types;
  return ok;
}
