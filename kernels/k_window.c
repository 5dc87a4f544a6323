/* reduce-window and select-and-scatter.  Both walk window offsets in
 * row-major order and, for each offset, process every output position at
 * once (one reducer call per offset), so callbacks see whole vectors;
 * reduce-window with a known reducer does so per chunk of output rows, in
 * parallel. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include "base/thread_pool.h"
#include "kernels/k_common.h"
#include "kernels/k_window.h"

bool k_window_out_size(int64_t in, int64_t size, int64_t stride, int64_t lo, int64_t hi,
                       int64_t bd, int64_t wd, int64_t *out, Error *err) {
  if (in < 0 || size < 1 || stride < 1 || bd < 1 || wd < 1)
    return error_set(err, ERR_RUNTIME, -1, "window: invalid size %lld / stride %lld / dilation %lld,%lld",
                     (long long)size, (long long)stride, (long long)bd, (long long)wd);
  int64_t dil_in, padded, dil_w;
  if (in == 0) dil_in = 0;
  else if (__builtin_mul_overflow(in - 1, bd, &dil_in) || __builtin_add_overflow(dil_in, 1, &dil_in))
    return error_set(err, ERR_RUNTIME, -1, "window: size overflow");
  if (__builtin_add_overflow(dil_in, lo, &padded) || __builtin_add_overflow(padded, hi, &padded) ||
      __builtin_mul_overflow(size - 1, wd, &dil_w) || __builtin_add_overflow(dil_w, 1, &dil_w))
    return error_set(err, ERR_RUNTIME, -1, "window: size overflow");
  *out = padded < dil_w ? 0 : (padded - dil_w) / stride + 1;
  return true;
}

/* Per-dim tables: map[d][o * size + k] = input index or -1. */
typedef struct WinMaps {
  int rank;
  int64_t out[K_MAX_RANK], size[K_MAX_RANK], istride[K_MAX_RANK], ostride[K_MAX_RANK];
  int64_t *map[K_MAX_RANK];
  int64_t nout, nwin;
} WinMaps;

static void maps_free(WinMaps *m) {
  for (int d = 0; d < m->rank; d++) k_free(m->map[d]);
}

static bool maps_init(WinMaps *m, const KWindow *w, int rank, const int64_t *in_dims,
                      const int64_t *expect_out, Error *err) {
  memset(m, 0, sizeof *m);
  if (w->rank != rank) return error_set(err, ERR_RUNTIME, -1, "window: rank %d for operand rank %d", w->rank, rank);
  m->rank = rank;
  m->nout = 1;
  m->nwin = 1;
  int64_t st = 1;
  for (int d = rank - 1; d >= 0; d--) { m->istride[d] = st; st *= in_dims[d]; }
  for (int d = 0; d < rank; d++) {
    int64_t size = w->size ? w->size[d] : 1, stride = w->stride ? w->stride[d] : 1;
    int64_t lo = w->pad_lo ? w->pad_lo[d] : 0, hi = w->pad_hi ? w->pad_hi[d] : 0;
    int64_t bd = w->base_dilation ? w->base_dilation[d] : 1, wd = w->window_dilation ? w->window_dilation[d] : 1;
    int64_t o;
    if (!k_window_out_size(in_dims[d], size, stride, lo, hi, bd, wd, &o, err)) { maps_free(m); return false; }
    if (expect_out && expect_out[d] != o) {
      maps_free(m);
      return error_set(err, ERR_RUNTIME, -1, "window: result dimension %d is %lld, expected %lld", d,
                       (long long)expect_out[d], (long long)o);
    }
    m->out[d] = o;
    m->size[d] = size;
    if (!k_mul3(m->nout, o, &m->nout, err) || !k_mul3(m->nwin, size, &m->nwin, err)) { maps_free(m); return false; }
    int64_t cnt, bytes;
    if (!k_mul3(o, size, &cnt, err) || !k_mul3(cnt, (int64_t)sizeof(int64_t), &bytes, err) ||
        !(m->map[d] = k_malloc(bytes, err))) { maps_free(m); return false; }
    for (int64_t oi = 0; oi < o; oi++)
      for (int64_t k = 0; k < size; k++) {
        int64_t pos = oi * stride + k * wd - lo, v = -1;
        if (pos >= 0 && pos % bd == 0 && pos / bd < in_dims[d]) v = pos / bd;
        m->map[d][oi * size + k] = v;
      }
  }
  st = 1;
  for (int d = rank - 1; d >= 0; d--) { m->ostride[d] = st; st *= m->out[d]; }
  return true;
}

/* For window offset k[], the (out, in) pairs with a valid input, in output
 * order, over the output rows [row0, row1) (a row: all dims but the
 * innermost, row-major; rank 1 has one row).  Returns the count. */
static int64_t maps_pairs(const WinMaps *m, const int64_t *k, int64_t row0, int64_t row1, int64_t *oidx,
                          int64_t *iidx) {
  int64_t n = 0;
  if (m->nout == 0) return 0;
  int64_t o[K_MAX_RANK] = {0};
  int r = m->rank;
  if (r == 0) { oidx[0] = 0; iidx[0] = 0; return 1; }
  /* Innermost dim in a tight loop. */
  int last = r - 1;
  const int64_t *ml = m->map[last];
  int64_t ol = m->out[last], sl = m->size[last], kl = k[last], isl = m->istride[last];
  int64_t rest = row0;
  for (int d = last - 1; d >= 0; d--) {
    o[d] = rest % m->out[d];
    rest /= m->out[d];
  }
  for (int64_t row = row0; row < row1; row++) {
    int64_t base_in = 0, base_out = 0;
    bool ok = true;
    for (int d = 0; d < last; d++) {
      int64_t v = m->map[d][o[d] * m->size[d] + k[d]];
      if (v < 0) { ok = false; break; }
      base_in += v * m->istride[d];
      base_out += o[d] * m->ostride[d];
    }
    if (ok)
      for (int64_t x = 0; x < ol; x++) {
        int64_t v = ml[x * sl + kl];
        if (v < 0) continue;
        oidx[n] = base_out + x;
        iidx[n] = base_in + v * isl;
        n++;
      }
    for (int d = last - 1; d >= 0; d--) {
      if (++o[d] < m->out[d]) break;
      o[d] = 0;
    }
  }
  return n;
}

static bool next_offset(const WinMaps *m, int64_t *k) {
  for (int d = m->rank - 1; d >= 0; d--) {
    if (++k[d] < m->size[d]) return true;
    k[d] = 0;
  }
  return false;
}

static void gather(int es, void *dst, const void *src, const int64_t *idx, int64_t n) {
  switch (es) {
  case 1: for (int64_t i = 0; i < n; i++) ((uint8_t *)dst)[i] = ((const uint8_t *)src)[idx[i]]; break;
  case 2: for (int64_t i = 0; i < n; i++) ((uint16_t *)dst)[i] = ((const uint16_t *)src)[idx[i]]; break;
  case 4: for (int64_t i = 0; i < n; i++) ((uint32_t *)dst)[i] = ((const uint32_t *)src)[idx[i]]; break;
  case 8: for (int64_t i = 0; i < n; i++) ((uint64_t *)dst)[i] = ((const uint64_t *)src)[idx[i]]; break;
  default: for (int64_t i = 0; i < n; i++) memcpy((char *)dst + i * es, (const char *)src + idx[i] * es, (size_t)es);
  }
}

static void scatter_copy(int es, void *dst, const void *src, const int64_t *idx, int64_t n) {
  for (int64_t i = 0; i < n; i++) memcpy((char *)dst + idx[i] * es, (const char *)src + i * es, (size_t)es);
}

/* reduce-window's work over output rows [row0, row1) (see maps_pairs): for
 * each window offset in order, the rows' outputs with a valid input fold it
 * into their accumulators.  Each output folds its inputs in window order
 * whichever rows a chunk holds, so chunks of rows run on the pool (known
 * reducers only: a callback reducer runs the evaluator, one at a time) and
 * the result is the same for every thread count. */
typedef struct WinJob {
  const WinMaps *m;
  int nvals;
  const EType *wt;
  const int *es;
  const void *const *srcp;
  void *const *acc;
  const KReducer *r;
  int64_t nrows, row_len, per;
  void **scratch; /* per worker: oidx, iidx, then accg and valg per value */
} WinJob;

static bool win_rows(void *ctx, int64_t chunk, int worker, Error *err) {
  const WinJob *j = ctx;
  int64_t row0 = chunk * j->per, row1 = row0 + j->per < j->nrows ? row0 + j->per : j->nrows;
  int64_t cnt = (row1 - row0) * j->row_len, base = row0 * j->row_len, most = j->per * j->row_len;
  /* regions of 16-byte multiples: every value's elements stay aligned */
#define WIN_REGION(bytes) (((bytes) + 15) / 16 * 16)
  if (!j->scratch[worker]) {
    int64_t bytes = most * 16;
    for (int v = 0; v < j->nvals; v++) bytes += 2 * WIN_REGION(most * j->es[v]);
    if (!(j->scratch[worker] = k_malloc(bytes, err))) return false;
  }
  int64_t *oidx = j->scratch[worker], *iidx = oidx + most;
  void *accg[K_MAX_RANK], *valg[K_MAX_RANK], *accp[K_MAX_RANK];
  char *p = (char *)(iidx + most);
  for (int v = 0; v < j->nvals; v++) {
    accg[v] = p;
    valg[v] = p + WIN_REGION(most * j->es[v]);
    p += 2 * WIN_REGION(most * j->es[v]);
  }
#undef WIN_REGION
  int64_t k[K_MAX_RANK] = {0};
  do {
    int64_t n = maps_pairs(j->m, k, row0, row1, oidx, iidx);
    if (n == 0) continue;
    bool full = n == cnt; /* then oidx is base, base + 1, ... */
    for (int v = 0; v < j->nvals; v++) {
      gather(j->es[v], valg[v], j->srcp[v], iidx, n);
      if (!full) gather(j->es[v], accg[v], j->acc[v], oidx, n);
      accp[v] = full ? (char *)j->acc[v] + base * j->es[v] : accg[v];
    }
    if (!k_reducer_apply(j->r, j->nvals, j->wt, accp, (const void *const *)valg, n, err)) return false;
    if (!full)
      for (int v = 0; v < j->nvals; v++) scatter_copy(j->es[v], j->acc[v], accg[v], oidx, n);
  } while (next_offset(j->m, k));
  return true;
}

bool k_reduce_window(int nvals, const KArray *ops, const void *const *inits, const KWindow *w,
                     const KReducer *r, KArray *outs, Error *err) {
  if (nvals < 1 || nvals > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "reduce-window: bad operand count");
  int rank = ops[0].rank;
  if (rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "reduce-window: rank too large");
  for (int v = 0; v < nvals; v++) {
    if (ops[v].rank != rank || outs[v].rank != rank) return error_set(err, ERR_RUNTIME, -1, "reduce-window: rank mismatch");
    for (int d = 0; d < rank; d++)
      if (ops[v].dims[d] != ops[0].dims[d] || outs[v].dims[d] != outs[0].dims[d])
        return error_set(err, ERR_RUNTIME, -1, "reduce-window: operands differ in shape");
    if (outs[v].etype != ops[v].etype) return error_set(err, ERR_RUNTIME, -1, "reduce-window: result type differs");
    if (r->ops && !k_op_valid(r->ops[v], k_compute_etype(ops[v].etype)))
      return error_set(err, ERR_RUNTIME, -1, "reduce-window: %s is not defined on %s", k_reduce_op_name(r->ops[v]), etype_name(ops[v].etype));
  }
  WinMaps m;
  if (!maps_init(&m, w, rank, ops[0].dims, outs[0].dims, err)) return false;
  int64_t nin;
  if (!k_num_elements(rank, ops[0].dims, &nin, err)) { maps_free(&m); return false; }
  bool ok = false;
  EType wt[K_MAX_RANK];
  int es[K_MAX_RANK];
  void *src[K_MAX_RANK] = {0}, *acc[K_MAX_RANK] = {0};
  const void *srcp[K_MAX_RANK];
  void **scratch = NULL;
  int nw = pool_threads();
  if (m.nout == 0) { ok = true; goto done; }
  if (!(scratch = k_malloc(nw * (int64_t)sizeof *scratch, err))) goto done;
  memset(scratch, 0, (size_t)nw * sizeof *scratch);
  int64_t wbytes = 0; /* bytes gathered per window offset, for the chunking */
  for (int v = 0; v < nvals; v++) {
    wt[v] = k_work_etype(r, ops[v].etype);
    es[v] = etype_storage_bytes(wt[v]);
    wbytes += es[v];
    srcp[v] = ops[v].data;
    if (wt[v] != ops[v].etype) {
      if (!(src[v] = k_malloc(nin * es[v], err))) goto done;
      k_to_compute(ops[v].etype, ops[v].data, src[v], nin);
      srcp[v] = src[v];
    }
    if (!(acc[v] = k_malloc(m.nout * es[v], err))) goto done;
    char init[16];
    if (wt[v] != ops[v].etype) k_to_compute(ops[v].etype, inits[v], init, 1);
    else memcpy(init, inits[v], (size_t)es[v]);
    for (int64_t i = 0; i < m.nout; i++) memcpy((char *)acc[v] + i * es[v], init, (size_t)es[v]);
  }
  if (m.nwin > 0 && nin > 0) {
    int64_t row_len = rank ? m.out[rank - 1] : 1, nrows = m.nout / row_len;
    double work = (double)m.nout * (double)m.nwin * (double)wbytes;
    int64_t nchunks = r->ops ? pool_chunks(work < 1e18 ? (int64_t)work : (int64_t)1e18, nrows) : 1;
    WinJob j = {&m, nvals, wt, es, srcp, acc, r, nrows, row_len, (nrows + nchunks - 1) / nchunks, scratch};
    if (!pool_for_err((nrows + j.per - 1) / j.per, win_rows, &j, err)) goto done;
  }
  for (int v = 0; v < nvals; v++) {
    if (wt[v] != ops[v].etype) k_from_compute(ops[v].etype, acc[v], outs[v].data, m.nout);
    else memcpy(outs[v].data, acc[v], (size_t)(m.nout * es[v]));
  }
  ok = true;
done:
  for (int v = 0; v < nvals; v++) { k_free(src[v]); k_free(acc[v]); }
  for (int w2 = 0; scratch && w2 < nw; w2++) k_free(scratch[w2]);
  k_free(scratch);
  maps_free(&m);
  return ok;
}

/* Known comparisons on compute types: out[i] = a[i] OP b[i]. */
#define CMP_TYPES(X) X(F32, float) X(F64, double) X(S8, int8_t) X(S16, int16_t) X(S32, int32_t) \
  X(S64, int64_t) X(U8, uint8_t) X(U16, uint16_t) X(U32, uint32_t) X(U64, uint64_t) X(PRED, uint8_t)
#define CMP_LOOP(ET, T)                                                                           \
  static void cmp_##ET(KSelectOp op, const void *a_, const void *b_, uint8_t *o, int64_t n) {      \
    const T *a = a_, *b = b_;                                                                     \
    switch (op) {                                                                                 \
    case K_SEL_GE: for (int64_t i = 0; i < n; i++) o[i] = a[i] >= b[i]; break;                    \
    case K_SEL_GT: for (int64_t i = 0; i < n; i++) o[i] = a[i] > b[i]; break;                     \
    case K_SEL_LE: for (int64_t i = 0; i < n; i++) o[i] = a[i] <= b[i]; break;                    \
    default: for (int64_t i = 0; i < n; i++) o[i] = a[i] < b[i]; break;                           \
    }                                                                                             \
  }
CMP_TYPES(CMP_LOOP)

static bool compare_known(KSelectOp op, EType ct, const void *a, const void *b, uint8_t *o, int64_t n, Error *err) {
  switch (ct) {
#define CMP_CASE(ET, T) case ET_##ET: cmp_##ET(op, a, b, o, n); return true;
    CMP_TYPES(CMP_CASE)
  default: return error_set(err, ERR_RUNTIME, -1, "select: comparison not defined on %s", etype_name(ct));
  }
}

bool k_select_and_scatter(const KArray *operand, const KSelect *sel, const KArray *source,
                          const void *init, const KWindow *w, const KReducer *scatter,
                          KArray *out, Error *err) {
  int rank = operand->rank;
  if (rank > K_MAX_RANK || source->rank != rank || out->rank != rank)
    return error_set(err, ERR_RUNTIME, -1, "select-and-scatter: rank mismatch");
  if (source->etype != operand->etype || out->etype != operand->etype)
    return error_set(err, ERR_RUNTIME, -1, "select-and-scatter: element types differ");
  if (w->base_dilation || w->window_dilation) {
    for (int d = 0; d < rank; d++)
      if ((w->base_dilation && w->base_dilation[d] != 1) || (w->window_dilation && w->window_dilation[d] != 1))
        return error_set(err, ERR_RUNTIME, -1, "select-and-scatter: dilation is not supported");
  }
  for (int d = 0; d < rank; d++)
    if (out->dims[d] != operand->dims[d]) return error_set(err, ERR_RUNTIME, -1, "select-and-scatter: result shape differs from operand");
  EType t = operand->etype;
  if (scatter->ops && !k_op_valid(scatter->ops[0], k_compute_etype(t)))
    return error_set(err, ERR_RUNTIME, -1, "select-and-scatter: %s is not defined on %s", k_reduce_op_name(scatter->ops[0]), etype_name(t));
  if (sel->op == K_SEL_NONE && !sel->fn) return error_set(err, ERR_RUNTIME, -1, "select-and-scatter: no select function");
  WinMaps m;
  if (!maps_init(&m, w, rank, operand->dims, source->dims, err)) return false;
  int64_t nin;
  if (!k_num_elements(rank, operand->dims, &nin, err)) { maps_free(&m); return false; }
  bool ok = false;
  EType ct = k_compute_etype(t);                /* known select compares here */
  EType wt = k_work_etype(scatter, t);          /* scatter works here */
  int es = etype_storage_bytes(t), ces = etype_storage_bytes(ct), wes = etype_storage_bytes(wt);
  int64_t P = m.nout;
  int64_t *oidx = NULL, *iidx = NULL, *selidx = NULL, *cmpo = NULL, *cmpi = NULL, *tidx = NULL, *uidx = NULL;
  void *opc = NULL, *va = NULL, *vb = NULL, *outw = NULL, *srcw = NULL;
  uint8_t *res = NULL;
  const void *opd = operand->data;
  int ses = es;
  if (sel->op != K_SEL_NONE && ct != t) {
    if (!(opc = k_malloc(nin * ces, err))) goto done;
    k_to_compute(t, operand->data, opc, nin);
    opd = opc;
    ses = ces;
  }
  if (!(oidx = k_malloc((P + 1) * 8, err)) || !(iidx = k_malloc((P + 1) * 8, err)) ||
      !(selidx = k_malloc((P + 1) * 8, err)) || !(cmpo = k_malloc((P + 1) * 8, err)) ||
      !(cmpi = k_malloc((P + 1) * 8, err)) || !(va = k_malloc((P + 1) * ses, err)) ||
      !(vb = k_malloc((P + 1) * ses, err)) || !(res = k_malloc(P + 1, err)))
    goto done;
  for (int64_t p = 0; p < P; p++) selidx[p] = -1;
  int64_t k[K_MAX_RANK] = {0};
  if (P > 0 && nin > 0 && m.nwin > 0) do {
    int64_t n = maps_pairs(&m, k, 0, rank && m.nout ? m.nout / m.out[rank - 1] : 1, oidx, iidx), nc = 0;
    for (int64_t j = 0; j < n; j++) {
      if (selidx[oidx[j]] < 0) selidx[oidx[j]] = iidx[j];
      else { cmpo[nc] = oidx[j]; cmpi[nc] = iidx[j]; nc++; }
    }
    if (nc == 0) continue;
    for (int64_t j = 0; j < nc; j++) {
      memcpy((char *)va + j * ses, (const char *)opd + selidx[cmpo[j]] * ses, (size_t)ses);
      memcpy((char *)vb + j * ses, (const char *)opd + cmpi[j] * ses, (size_t)ses);
    }
    if (sel->op != K_SEL_NONE) {
      if (!compare_known(sel->op, ct, va, vb, res, nc, err)) goto done;
    } else if (!sel->fn(sel->ctx, va, vb, res, nc, err)) goto done;
    for (int64_t j = 0; j < nc; j++)
      if (!res[j]) selidx[cmpo[j]] = cmpi[j];
  } while (next_offset(&m, k));
  /* Scatter phase, in window-position order. */
  if (!(outw = k_malloc(nin * wes, err)) || !(srcw = k_malloc((P + 1) * wes, err))) goto done;
  {
    char iw[16];
    if (wt != t) k_to_compute(t, init, iw, 1);
    else memcpy(iw, init, (size_t)es);
    for (int64_t i = 0; i < nin; i++) memcpy((char *)outw + i * wes, iw, (size_t)wes);
    if (wt != t) k_to_compute(t, source->data, srcw, P);
    else memcpy(srcw, source->data, (size_t)(P * es));
  }
  if (!(tidx = k_malloc((P + 1) * 8, err)) || !(uidx = k_malloc((P + 1) * 8, err))) goto done;
  int64_t np = 0;
  for (int64_t p = 0; p < P; p++)
    if (selidx[p] >= 0) { tidx[np] = selidx[p]; uidx[np] = p; np++; }
  {
    void *targets[1] = {outw};
    const void *upd[1] = {srcw};
    if (!k_apply_pairs(scatter, 1, &wt, NULL, targets, nin, upd, tidx, uidx, np, err)) goto done;
  }
  if (wt != t) k_from_compute(t, outw, out->data, nin);
  else memcpy(out->data, outw, (size_t)(nin * es));
  ok = true;
done:
  k_free(oidx); k_free(iidx); k_free(selidx); k_free(cmpo); k_free(cmpi); k_free(tidx); k_free(uidx);
  k_free(opc); k_free(va); k_free(vb); k_free(outw); k_free(srcw); k_free(res);
  maps_free(&m);
  return ok;
}
