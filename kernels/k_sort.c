/* sort: known comparators map keys to order-preserving unsigned integers and
 * run a stable LSD radix sort per row; other comparators run a bitonic
 * network over all rows at once with an original-index tie-break. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include "kernels/k_sort.h"

#include "base/thread_pool.h"
#include "kernels/k_common.h"

/* Order-preserving keys for n elements of t, read with element stride. */
static bool make_keys(EType t, const char *src, int64_t stride, int64_t n, bool total, bool desc,
                      uint64_t *keys, Error *err) {
  int es = etype_storage_bytes(t);
  switch (etype_kind(t)) {
  case EK_FLOAT:
    for (int64_t i = 0; i < n; i++) {
      const char *p = src + i * stride * es;
      uint64_t k;
      if (t == ET_F64) {
        double v;
        memcpy(&v, p, 8);
        uint64_t b;
        if (!total && v == 0) v = 0.0; /* -0 == +0 */
        memcpy(&b, &v, 8);
        k = !total && v != v ? UINT64_MAX : k_f64_key(b);
      } else {
        float v;
        if (t == ET_F32) memcpy(&v, p, 4);
        else k_to_compute(t, p, &v, 1);
        if (!total && v == 0) v = 0.0f;
        uint32_t b;
        memcpy(&b, &v, 4);
        k = !total && v != v ? UINT32_MAX : k_f32_key(b);
      }
      keys[i] = desc ? ~k : k;
    }
    return true;
  case EK_SINT: case EK_UINT: case EK_PRED: {
    bool sg = etype_kind(t) == EK_SINT;
    for (int64_t i = 0; i < n; i++) {
      int64_t v;
      k_cvt(ET_S64, &v, t, src + i * stride * es, 1);
      uint64_t k = sg ? (uint64_t)v ^ 0x8000000000000000ull : (uint64_t)v;
      keys[i] = desc ? ~k : k;
    }
    return true;
  }
  default:
    return error_set(err, ERR_RUNTIME, -1, "sort: no built-in comparison for %s", etype_name(t));
  }
}

/* Fast key extraction for contiguous f32 rows (the common case). */
static void keys_f32(const float *src, int64_t n, bool total, bool desc, uint64_t *keys) {
  for (int64_t i = 0; i < n; i++) {
    float v = src[i];
    if (!total && v == 0) v = 0.0f;
    uint32_t b;
    memcpy(&b, &v, 4);
    uint64_t k = !total && v != v ? UINT32_MAX : k_f32_key(b);
    keys[i] = desc ? ~k & 0xffffffffull : k;
  }
}

/* Stable sort of (keys, idx) by key; tmp arrays of n entries. */
static void radix_sort(uint64_t *keys, uint32_t *idx, int64_t n, uint64_t *tk, uint32_t *ti) {
  if (n < 64) { /* insertion sort */
    for (int64_t i = 1; i < n; i++) {
      uint64_t k = keys[i];
      uint32_t x = idx[i];
      int64_t j = i - 1;
      while (j >= 0 && keys[j] > k) { keys[j + 1] = keys[j]; idx[j + 1] = idx[j]; j--; }
      keys[j + 1] = k;
      idx[j + 1] = x;
    }
    return;
  }
  uint64_t diff = 0;
  for (int64_t i = 1; i < n; i++) diff |= keys[i] ^ keys[0];
  uint64_t *ka_ = keys, *kb = tk;
  uint32_t *ia = idx, *ib = ti;
  for (int pass = 0; pass < 8; pass++) {
    int sh = pass * 8;
    if (((diff >> sh) & 0xff) == 0) continue;
    int64_t cnt[256] = {0};
    for (int64_t i = 0; i < n; i++) cnt[(ka_[i] >> sh) & 0xff]++;
    int64_t s = 0;
    for (int b = 0; b < 256; b++) { int64_t c = cnt[b]; cnt[b] = s; s += c; }
    for (int64_t i = 0; i < n; i++) {
      int64_t p = cnt[(ka_[i] >> sh) & 0xff]++;
      kb[p] = ka_[i];
      ib[p] = ia[i];
    }
    uint64_t *t1 = ka_; ka_ = kb; kb = t1;
    uint32_t *t2 = ia; ia = ib; ib = t2;
  }
  if (ka_ != keys) { memcpy(keys, ka_, (size_t)n * 8); memcpy(idx, ia, (size_t)n * 4); }
}

typedef struct Geo { int64_t outer, n, inner, rows; } Geo;

static void apply_perm(int es, const char *src, char *dst, const Geo *g, int64_t row, const uint32_t *perm) {
  int64_t o = row / g->inner, in = row % g->inner;
  const char *s = src + (o * g->n * g->inner + in) * es;
  char *d = dst + (o * g->n * g->inner + in) * es;
  int64_t st = g->inner * es;
  switch (es) {
  case 4: for (int64_t i = 0; i < g->n; i++) memcpy(d + i * st, s + perm[i] * st, 4); break;
  case 8: for (int64_t i = 0; i < g->n; i++) memcpy(d + i * st, s + perm[i] * st, 8); break;
  default: for (int64_t i = 0; i < g->n; i++) memcpy(d + i * st, s + perm[i] * st, (size_t)es); break;
  }
}

/* Bitonic network over all rows; perm[row * P + pos] = original index. */
static bool sort_callback(int nops, const KArray *ops, const Geo *g, const KComparator *c, uint32_t *perm, Error *err) {
  int64_t n = g->n, P = 1;
  while (P < n) P <<= 1;
  uint32_t *pp = k_malloc(g->rows * P * 4, err);
  if (!pp) return false;
  for (int64_t r = 0; r < g->rows; r++)
    for (int64_t i = 0; i < P; i++) pp[r * P + i] = (uint32_t)i;
  int64_t maxpairs = g->rows * (P / 2);
  bool ok = false;
  void *a[K_MAX_RANK] = {0}, *b[K_MAX_RANK] = {0};
  int64_t *pr = NULL, *pi = NULL, *pl = NULL;
  uint8_t *res = NULL;
  int es[K_MAX_RANK];
  for (int k = 0; k < nops; k++) {
    es[k] = etype_storage_bytes(ops[k].etype);
    if (!(a[k] = k_malloc(2 * maxpairs * es[k] + es[k], err)) || !(b[k] = k_malloc(2 * maxpairs * es[k] + es[k], err))) goto done;
  }
  if (!(pr = k_malloc(maxpairs * 8 + 8, err)) || !(pi = k_malloc(maxpairs * 8 + 8, err)) ||
      !(pl = k_malloc(maxpairs * 8 + 8, err)) || !(res = k_malloc(2 * maxpairs + 2, err)))
    goto done;
  for (int64_t kk = 2; kk <= P; kk <<= 1)
    for (int64_t j = kk >> 1; j > 0; j >>= 1) {
      int64_t np = 0;
      for (int64_t r = 0; r < g->rows; r++)
        for (int64_t i = 0; i < P; i++) {
          int64_t l = i ^ j;
          if (l <= i) continue;
          uint32_t oi = pp[r * P + i], ol = pp[r * P + l];
          bool asc = (i & kk) == 0;
          if (oi >= n || ol >= n) { /* padding sorts last */
            bool swap = asc ? (oi >= n && (ol < n || ol < oi)) : (ol >= n && (oi < n || oi < ol));
            if (swap) { pp[r * P + i] = ol; pp[r * P + l] = oi; }
            continue;
          }
          pr[np] = r; pi[np] = i; pl[np] = l; np++;
        }
      if (np == 0) continue;
      /* Rows 0..np: less(e_i, e_l); rows np..2np: less(e_l, e_i). */
      for (int k = 0; k < nops; k++) {
        for (int64_t q = 0; q < np; q++) {
          int64_t r = pr[q], o = r / g->inner, in = r % g->inner;
          int64_t base = o * n * g->inner + in;
          const char *src = ops[k].data;
          const char *ei = src + (base + (int64_t)pp[r * P + pi[q]] * g->inner) * es[k];
          const char *el = src + (base + (int64_t)pp[r * P + pl[q]] * g->inner) * es[k];
          memcpy((char *)a[k] + q * es[k], ei, (size_t)es[k]);
          memcpy((char *)b[k] + q * es[k], el, (size_t)es[k]);
          memcpy((char *)a[k] + (np + q) * es[k], el, (size_t)es[k]);
          memcpy((char *)b[k] + (np + q) * es[k], ei, (size_t)es[k]);
        }
      }
      if (!c->fn(c->ctx, nops, (const void *const *)a, (const void *const *)b, res, 2 * np, err)) goto done;
      for (int64_t q = 0; q < np; q++) {
        int64_t r = pr[q], i = pi[q], l = pl[q];
        uint32_t oi = pp[r * P + i], ol = pp[r * P + l];
        bool lt_il = res[q] != 0, lt_li = res[np + q] != 0;
        bool l_before_i = lt_li || (!lt_il && ol < oi);
        bool asc = (i & kk) == 0;
        if (asc ? l_before_i : !l_before_i) { pp[r * P + i] = ol; pp[r * P + l] = oi; }
      }
    }
  for (int64_t r = 0; r < g->rows; r++) memcpy(perm + r * n, pp + r * P, (size_t)n * 4);
  ok = true;
done:
  for (int k = 0; k < nops; k++) { k_free(a[k]); k_free(b[k]); }
  k_free(pp); k_free(pr); k_free(pi); k_free(pl); k_free(res);
  return ok;
}

/* The known comparators' sort over a chunk of rows (k_sort). */
typedef struct SortRows {
  int nops;
  const KArray *ops;
  KArray *outs;
  const Geo *g;
  const KComparator *c;
  int64_t per;         /* rows per chunk */
  uint32_t *perm, *ti; /* g->n per worker */
  uint64_t *keys, *tk;
} SortRows;

static bool sort_rows(void *ud, int64_t chunk, int worker, Error *err) {
  const SortRows *s = ud;
  const Geo *g = s->g;
  size_t w = (size_t)worker * (size_t)g->n;
  uint32_t *perm = s->perm + w, *ti = s->ti + w;
  uint64_t *keys = s->keys + w, *tk = s->tk + w;
  const KArray *key = &s->ops[s->c->key];
  bool desc = s->c->kind == K_CMP_GT;
  int kes = etype_storage_bytes(key->etype);
  int64_t end = (chunk + 1) * s->per < g->rows ? (chunk + 1) * s->per : g->rows;
  for (int64_t r = chunk * s->per; r < end; r++) {
    int64_t o = r / g->inner, in = r % g->inner;
    const char *src = (const char *)key->data + (o * g->n * g->inner + in) * kes;
    if (key->etype == ET_F32 && g->inner == 1) keys_f32((const float *)src, g->n, s->c->total_order, desc, keys);
    else if (!make_keys(key->etype, src, g->inner, g->n, s->c->total_order, desc, keys, err)) return false;
    for (int64_t i = 0; i < g->n; i++) perm[i] = (uint32_t)i;
    radix_sort(keys, perm, g->n, tk, ti);
    for (int k = 0; k < s->nops; k++)
      apply_perm(etype_storage_bytes(s->ops[k].etype), s->ops[k].data, s->outs[k].data, g, r, perm);
  }
  return true;
}

bool k_sort(int nops, const KArray *ops, int64_t dim, const KComparator *c, KArray *outs, Error *err) {
  if (nops < 1 || nops > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "sort: bad operand count");
  int rank = ops[0].rank;
  if (rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "sort: rank too large");
  if (rank == 0 ? dim != 0 : (dim < 0 || dim >= rank)) return error_set(err, ERR_RUNTIME, -1, "sort: dimension %lld out of range", (long long)dim);
  for (int k = 0; k < nops; k++) {
    if (ops[k].rank != rank || outs[k].rank != rank) return error_set(err, ERR_RUNTIME, -1, "sort: rank mismatch");
    for (int i = 0; i < rank; i++)
      if (ops[k].dims[i] != ops[0].dims[i] || outs[k].dims[i] != ops[0].dims[i]) return error_set(err, ERR_RUNTIME, -1, "sort: operand shapes differ");
    if (outs[k].etype != ops[k].etype) return error_set(err, ERR_RUNTIME, -1, "sort: result type differs");
    if (ops[k].data == outs[k].data) return error_set(err, ERR_RUNTIME, -1, "sort: results must not alias operands");
  }
  if (c->kind != K_CMP_CALLBACK && (c->key < 0 || c->key >= nops)) return error_set(err, ERR_RUNTIME, -1, "sort: comparator key operand %d out of range", c->key);
  if (c->kind == K_CMP_CALLBACK && !c->fn) return error_set(err, ERR_RUNTIME, -1, "sort: no comparator");
  int64_t total;
  if (!k_num_elements(rank, ops[0].dims, &total, err)) return false;
  Geo g = {1, rank ? ops[0].dims[dim] : 1, 1, 0};
  for (int i = 0; i < (int)dim; i++) g.outer *= ops[0].dims[i];
  for (int i = (int)dim + 1; i < rank; i++) g.inner *= ops[0].dims[i];
  g.rows = g.outer * g.inner;
  if (total == 0) return true;
  if (g.n > UINT32_MAX) return error_set(err, ERR_RUNTIME, -1, "sort: dimension too long");
  bool ok = false;
  uint32_t *perm = NULL, *ti = NULL;
  uint64_t *keys = NULL, *tk = NULL;
  if (c->kind == K_CMP_CALLBACK) {
    if (!(perm = k_malloc(total * 4, err))) return false;
    if (!sort_callback(nops, ops, &g, c, perm, err)) goto done;
    for (int64_t r = 0; r < g.rows; r++)
      for (int k = 0; k < nops; k++) apply_perm(etype_storage_bytes(ops[k].etype), ops[k].data, outs[k].data, &g, r, perm + r * g.n);
  } else {
    /* Rows are independent: chunks of rows (fixed by the data size) in
     * parallel, each worker with its own scratch. */
    int workers = pool_threads();
    int64_t wn = (int64_t)workers * g.n;
    if (!(perm = k_malloc(wn * 4, err)) || !(ti = k_malloc(wn * 4, err)) ||
        !(keys = k_malloc(wn * 8, err)) || !(tk = k_malloc(wn * 8, err)))
      goto done;
    int64_t nchunks = pool_chunks(total * 8, g.rows);
    SortRows sr = {nops, ops, outs, &g, c, (g.rows + nchunks - 1) / nchunks, perm, ti, keys, tk};
    if (!pool_for_err((g.rows + sr.per - 1) / sr.per, sort_rows, &sr, err)) goto done;
  }
  ok = true;
done:
  k_free(perm); k_free(ti); k_free(keys); k_free(tk);
  return ok;
}

bool k_topk(const KArray *x, int64_t k, bool largest, KArray *values, KArray *indices, Error *err) {
  int rank = x->rank;
  if (rank < 1 || rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "topk: operand must have rank >= 1");
  int64_t n = x->dims[rank - 1];
  if (k < 0 || k > n) return error_set(err, ERR_RUNTIME, -1, "topk: k=%lld out of range for %lld elements", (long long)k, (long long)n);
  if (values->rank != rank || indices->rank != rank || values->etype != x->etype || indices->etype != ET_S32)
    return error_set(err, ERR_RUNTIME, -1, "topk: results must be (%s values, s32 indices) of rank %d", etype_name(x->etype), rank);
  for (int i = 0; i < rank; i++) {
    int64_t want = i == rank - 1 ? k : x->dims[i];
    if (values->dims[i] != want || indices->dims[i] != want) return error_set(err, ERR_RUNTIME, -1, "topk: result dimension %d must be %lld", i, (long long)want);
  }
  if (n > INT32_MAX) return error_set(err, ERR_RUNTIME, -1, "topk: dimension too long for s32 indices");
  int64_t rows;
  if (!k_num_elements(rank - 1, x->dims, &rows, err)) return false;
  if (rows == 0 || k == 0) return true;
  int es = etype_storage_bytes(x->etype);
  uint64_t *keys = k_malloc(n * 8, err), *tk = k_malloc(n * 8, err);
  uint32_t *perm = k_malloc(n * 4, err), *ti = k_malloc(n * 4, err);
  bool ok = false;
  if (!keys || !tk || !perm || !ti) goto done;
  for (int64_t r = 0; r < rows; r++) {
    const char *src = (const char *)x->data + r * n * es;
    if (!make_keys(x->etype, src, 1, n, true, largest, keys, err)) goto done;
    for (int64_t i = 0; i < n; i++) perm[i] = (uint32_t)i;
    radix_sort(keys, perm, n, tk, ti);
    for (int64_t i = 0; i < k; i++) {
      memcpy((char *)values->data + (r * k + i) * es, src + (int64_t)perm[i] * es, (size_t)es);
      ((int32_t *)indices->data)[r * k + i] = (int32_t)perm[i];
    }
  }
  ok = true;
done:
  k_free(keys); k_free(tk); k_free(perm); k_free(ti);
  return ok;
}
