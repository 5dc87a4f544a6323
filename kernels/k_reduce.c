/* reduce: typed loops for known reducers, an order-preserving vector tree for
 * callbacks. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include "kernels/k_reduce.h"

#include "base/thread_pool.h"
#include "kernels/k_common.h"

typedef float v8f __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));

/* The streaming row sums run through K_CLONES (k_common.h) with the same
 * 32 (16) lanes and fold order on every path, so results do not depend on
 * the machine. */

/* 32 interleaved partial sums, folded in lane order. */
K_CLONES static float sum_row_f32(const float *x, int64_t n) {
  v8f a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
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
  v4d a0 = {0}, a1 = {0}, a2 = {0}, a3 = {0};
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

static bool reduce_runs(KReduceOp op, EType ct, const void *src, const Run *runs, int nr, void *acc,
                        Error *err);

/* One reduction split along the kept run `split`: chunk c takes indices
 * c*per .. of that run (all of the others). */
typedef struct ReduceSplit {
  KReduceOp op;
  EType ct;
  const char *src;
  char *acc;
  Run runs[K_MAX_RANK + 1];
  int nr, split;
  int64_t per;
} ReduceSplit;

static bool reduce_slab(void *ctx, int64_t chunk, int worker, Error *err) {
  (void)worker;
  const ReduceSplit *sp = ctx;
  Run runs[K_MAX_RANK + 1];
  memcpy(runs, sp->runs, sizeof(Run) * (size_t)sp->nr);
  Run *r = &runs[sp->split];
  int64_t lo = chunk * sp->per;
  r->size = r->size - lo < sp->per ? r->size - lo : sp->per;
  int es = etype_storage_bytes(sp->ct);
  return reduce_runs(sp->op, sp->ct, sp->src + lo * r->in_stride * es, runs, sp->nr,
                     sp->acc + lo * r->out_stride * es, err);
}

/* Known-op reduction of one operand already in compute type. */
static bool reduce_known(KReduceOp op, EType ct, const void *src, int rank, const int64_t *dims,
                         const bool *red, void *acc, int64_t nout, Error *err) {
  int es = etype_storage_bytes(ct);
  Run runs[K_MAX_RANK + 1];
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
  int64_t ost = 1;
  for (int i = nr - 1; i >= 0; i--) if (!runs[i].reduced) { runs[i].out_stride = ost; ost *= runs[i].size; }
  (void)nout;
  /* Parallel over the outputs: slabs of the largest kept run.  Each output
   * still sees its inputs combined in the same order, so the result does
   * not depend on the thread count; a reduction to one value stays serial. */
  ReduceSplit sp = {op, ct, src, acc, {{0}}, nr, -1, 0};
  memcpy(sp.runs, runs, sizeof(Run) * (size_t)nr);
  for (int i = 0; i < nr; i++)
    if (!runs[i].reduced && (sp.split < 0 || runs[i].size > runs[sp.split].size)) sp.split = i;
  int64_t total = 1;
  for (int i = 0; i < nr; i++) total *= runs[i].size;
  int64_t chunks = sp.split < 0 ? 1 : pool_chunks(total * es, runs[sp.split].size);
  if (chunks <= 1) return reduce_runs(op, ct, src, runs, nr, acc, err);
  int64_t size = runs[sp.split].size;
  sp.per = (size + chunks - 1) / chunks;
  if (size >= 256) sp.per = (sp.per + 63) / 64 * 64; /* whole vectors of outputs */
  return pool_for_err((size + sp.per - 1) / sp.per, reduce_slab, &sp, err);
}

/* The reduction of runs[0..nr) of src into acc, in odometer order. */
static bool reduce_runs(KReduceOp op, EType ct, const void *src, const Run *runs, int nr, void *acc,
                        Error *err) {
  int es = etype_storage_bytes(ct);
  Run last = runs[nr - 1];
  int64_t idx[K_MAX_RANK + 1] = {0};
  const char *s = src;
  char *a = acc;
  for (;;) {
    int64_t io = 0, oo = 0;
    for (int i = 0; i < nr - 1; i++) { io += idx[i] * runs[i].in_stride; oo += idx[i] * runs[i].out_stride; }
    if (last.reduced) {
      if (!reduce_row(op, ct, s + io * es, last.size, a + oo * es, err)) return false;
    } else {
      if (!k_combine(op, ct, a + oo * es, s + io * es, last.size, err)) return false;
    }
    int i = nr - 2;
    for (; i >= 0; i--) {
      if (++idx[i] < runs[i].size) break;
      idx[i] = 0;
    }
    if (i < 0) break;
  }
  return true;
}

static void fill(void *dst, const void *elem, int es, int64_t n) {
  for (int64_t i = 0; i < n; i++) memcpy((char *)dst + i * es, elem, (size_t)es);
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
      void *acc = k_malloc(nout * es, err), *src = NULL;
      if (!acc) return false;
      char init[16];
      k_to_compute(t, inits[v], init, 1);
      fill(acc, init, es, nout);
      const void *data = ops[v].data;
      bool ok = true;
      if (nred > 0 && n > 0) {
        /* Short innermost reduced run: transpose reduced dims to the front so
         * the inner loop runs across outputs instead. */
        int inner = rank - 1;
        while (inner >= 0 && ops[v].dims[inner] == 1) inner--;
        int64_t inner_red = 1;
        for (int i = inner; i >= 0 && red[i]; i--) inner_red *= ops[v].dims[i];
        bool transpose = inner >= 0 && red[inner] && inner_red < 32 && nout > 1;
        if (t != ct || transpose) {
          src = k_malloc(n * es, err);
          if (!src) { k_free(acc); return false; }
          k_to_compute(t, data, src, n);
          data = src;
        }
        int64_t tdims[K_MAX_RANK];
        bool tred[K_MAX_RANK];
        const int64_t *udims = ops[v].dims;
        const bool *ured = red;
        void *tbuf = NULL;
        if (transpose) {
          int perm[K_MAX_RANK], k = 0;
          for (int i = 0; i < rank; i++) if (red[i]) { perm[k] = i; tred[k] = true; tdims[k++] = ops[v].dims[i]; }
          for (int i = 0; i < rank; i++) if (!red[i]) { perm[k] = i; tred[k] = false; tdims[k++] = ops[v].dims[i]; }
          tbuf = k_malloc(n * es, err);
          if (!tbuf) { k_free(acc); k_free(src); return false; }
          k_permute(es, data, rank, ops[v].dims, perm, tbuf);
          data = tbuf;
          udims = tdims;
          ured = tred;
        }
        ok = reduce_known(r->ops[v], ct, data, rank, udims, ured, acc, nout, err);
        k_free(tbuf);
      }
      if (ok) k_from_compute(t, acc, outs[v].data, nout);
      k_free(acc);
      k_free(src);
      if (!ok) return false;
    }
    return true;
  }

  /* Callback: [R, O] layout per operand, then an adjacent-pair tree. */
  bool ok = false;
  void *buf[K_MAX_RANK] = {0}, *odd[K_MAX_RANK] = {0};
  EType types[K_MAX_RANK];
  int es[K_MAX_RANK];
  int perm[K_MAX_RANK], k = 0;
  for (int i = 0; i < rank; i++) if (red[i]) perm[k++] = i;
  for (int i = 0; i < rank; i++) if (!red[i]) perm[k++] = i;
  for (int v = 0; v < nvals; v++) {
    types[v] = ops[v].etype;
    es[v] = etype_storage_bytes(types[v]);
    int64_t rows = nred > 0 ? nred : 1;
    buf[v] = k_malloc(rows * nout * es[v], err);
    odd[v] = k_malloc((rows / 2 + 1) * nout * es[v], err);
    if (!buf[v] || !odd[v]) goto done;
    if (nred > 0) k_permute(es[v], ops[v].data, rank, ops[v].dims, perm, buf[v]);
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
  for (int v = 0; v < nvals; v++) fill(outs[v].data, inits[v], es[v], nout);
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
