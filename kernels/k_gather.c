/* gather: per batch position, clamp the start and copy the slice into a
 * canonical [batch..., offset...] block, then permute to the result order. */
#include "kernels/k_gather.h"

#include "base/thread_pool.h"
#include "kernels/k_common.h"

bool k_load_indices(const KArray *idx, int64_t n, int64_t **out, Error *err) {
  EType t = idx->etype;
  if (etype_kind(t) != EK_SINT && etype_kind(t) != EK_UINT)
    return error_set(err, ERR_RUNTIME, -1, "indices must be integers, not %s", etype_name(t));
  int64_t *p = k_malloc((n + 1) * 8, err);
  if (!p) return false;
  k_cvt(ET_S64, p, t, idx->data, n);
  if (t == ET_U64)
    for (int64_t i = 0; i < n; i++)
      if (p[i] < 0) p[i] = INT64_MAX;
  *out = p;
  return true;
}

/* Copies the box start[]..start[]+size[] of src (row-major, dims) to dst. */
void k_copy_box(int es, const void *src, int rank, const int64_t *dims, const int64_t *start,
                const int64_t *size, void *dst) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= size[i];
  if (n == 0) return;
  if (rank == 0) { memcpy(dst, src, (size_t)es); return; }
  int64_t st[K_MAX_RANK], s = 1;
  for (int i = rank - 1; i >= 0; i--) { st[i] = s; s *= dims[i]; }
  int64_t idx[K_MAX_RANK] = {0};
  size_t run = (size_t)(size[rank - 1] * es);
  char *d = dst;
  for (;;) {
    int64_t off = start[rank - 1];
    for (int i = 0; i < rank - 1; i++) off += (start[i] + idx[i]) * st[i];
    memcpy(d, (const char *)src + off * es, run);
    d += run;
    int i = rank - 2;
    for (; i >= 0; i--) {
      if (++idx[i] < size[i]) break;
      idx[i] = 0;
    }
    if (i < 0) break;
  }
}

static bool in_list(int64_t v, int n, const int64_t *l) {
  for (int i = 0; i < n; i++) if (l[i] == v) return true;
  return false;
}

static bool check_list(const char *what, int n, const int64_t *l, int64_t bound, Error *err) {
  for (int i = 0; i < n; i++) {
    if (l[i] < 0 || l[i] >= bound) return error_set(err, ERR_RUNTIME, -1, "%s entry %lld out of range", what, (long long)l[i]);
    for (int j = 0; j < i; j++)
      if (l[j] == l[i]) return error_set(err, ERR_RUNTIME, -1, "%s entry %lld repeated", what, (long long)l[i]);
  }
  return true;
}

/* The slices of batch positions [chunk * per, ...) into canon: each batch
 * position's slice is its own, so chunks fixed by the size run in
 * parallel with the bytes of one pass. */
typedef struct GatherJob {
  const KArray *operand;
  const KGatherDims *d;
  const int64_t *iv, *ist, *ibpos, *bdims;
  int nbd, IR, R;
  int64_t ivd;
  int64_t slice_n;
  int es;
  char *canon;
  int64_t nb, per;
} GatherJob;

static void gather_chunk(void *ud, int64_t chunk, int worker) {
  (void)worker;
  const GatherJob *j = ud;
  const KGatherDims *d = j->d;
  int64_t first = chunk * j->per, end = first + j->per < j->nb ? first + j->per : j->nb;
  int64_t g[K_MAX_RANK] = {0}, rem = first; /* first's batch index */
  for (int k = j->nbd - 1; k >= 0; k--) {
    g[k] = rem % j->bdims[k];
    rem /= j->bdims[k];
  }
  for (int64_t b = first; b < end; b++) {
    int64_t base = 0;
    for (int k = 0; k < j->nbd; k++) base += g[k] * j->ist[j->ibpos[k]];
    int64_t start[K_MAX_RANK] = {0};
    for (int k = 0; k < d->nstart_map; k++) {
      int64_t dim = d->start_index_map[k];
      int64_t v = j->iv[base + (j->ivd < j->IR ? k * j->ist[j->ivd] : 0)];
      int64_t hi = j->operand->dims[dim] - d->slice_sizes[dim];
      start[dim] = v < 0 ? 0 : v > hi ? hi : v;
    }
    for (int k = 0; k < d->nbatching; k++) {
      int64_t idim = d->start_indices_batching_dims[k];
      int64_t pos = j->ivd < j->IR && idim > j->ivd ? idim - 1 : idim;
      start[d->operand_batching_dims[k]] = g[pos];
    }
    k_copy_box(j->es, j->operand->data, j->R, j->operand->dims, start, d->slice_sizes,
               j->canon + b * j->slice_n * j->es);
    for (int k = j->nbd - 1; k >= 0; k--) {
      if (++g[k] < j->bdims[k]) break;
      g[k] = 0;
    }
  }
}

bool k_gather(const KArray *operand, const KArray *indices, const KGatherDims *d, KArray *out, Error *err) {
  int R = operand->rank, IR = indices->rank;
  if (R > K_MAX_RANK || IR > K_MAX_RANK || out->rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "gather: rank too large");
  if (out->etype != operand->etype) return error_set(err, ERR_RUNTIME, -1, "gather: result type differs from operand");
  int64_t ivd = d->index_vector_dim;
  if (ivd < 0 || ivd > IR) return error_set(err, ERR_RUNTIME, -1, "gather: index_vector_dim %lld out of range", (long long)ivd);
  int64_t ivlen = ivd < IR ? indices->dims[ivd] : 1;
  int nbd = ivd < IR ? IR - 1 : IR;
  if (d->nstart_map != ivlen) return error_set(err, ERR_RUNTIME, -1, "gather: start_index_map has %d entries, index vectors have %lld", d->nstart_map, (long long)ivlen);
  if (out->rank != nbd + d->noffset) return error_set(err, ERR_RUNTIME, -1, "gather: result rank %d, expected %d", out->rank, nbd + d->noffset);
  if (d->noffset + d->ncollapsed + d->nbatching != R) return error_set(err, ERR_RUNTIME, -1, "gather: offset + collapsed + batching dims must equal operand rank");
  if (!check_list("gather offset_dims", d->noffset, d->offset_dims, out->rank, err) ||
      !check_list("gather start_index_map", d->nstart_map, d->start_index_map, R, err))
    return false;
  {
    int64_t both[2 * K_MAX_RANK];
    for (int i = 0; i < d->ncollapsed; i++) both[i] = d->collapsed_slice_dims[i];
    for (int i = 0; i < d->nbatching; i++) both[d->ncollapsed + i] = d->operand_batching_dims[i];
    if (!check_list("gather collapsed/batching dims", d->ncollapsed + d->nbatching, both, R, err)) return false;
    if (!check_list("gather start_indices_batching_dims", d->nbatching, d->start_indices_batching_dims, IR, err)) return false;
    for (int i = 0; i < d->nbatching; i++) {
      if (d->start_indices_batching_dims[i] == ivd) return error_set(err, ERR_RUNTIME, -1, "gather: batching dim is the index vector dim");
      if (in_list(d->operand_batching_dims[i], d->nstart_map, d->start_index_map)) return error_set(err, ERR_RUNTIME, -1, "gather: start_index_map names a batching dim");
    }
  }
  int64_t slice_n = 1;
  int64_t offsz[K_MAX_RANK];
  int noff = 0;
  for (int i = 0; i < R; i++) {
    int64_t s = d->slice_sizes[i];
    if (s < 0 || s > operand->dims[i]) return error_set(err, ERR_RUNTIME, -1, "gather: slice size %lld out of range for dimension %d (%lld)", (long long)s, i, (long long)operand->dims[i]);
    bool coll = in_list(i, d->ncollapsed, d->collapsed_slice_dims), bat = in_list(i, d->nbatching, d->operand_batching_dims);
    if ((coll || bat) && s != 1) return error_set(err, ERR_RUNTIME, -1, "gather: collapsed/batching dim %d needs slice size 1", i);
    if (!coll && !bat) offsz[noff++] = s;
    if (!k_mul3(slice_n, s, &slice_n, err)) return false;
  }
  /* Batch shape and the result's dims. */
  int64_t bdims[K_MAX_RANK], ibpos[K_MAX_RANK]; /* batch dim k is indices dim ibpos[k] */
  int k = 0;
  for (int i = 0; i < IR; i++) if (i != ivd) { ibpos[k] = i; bdims[k++] = indices->dims[i]; }
  int64_t nb;
  if (!k_num_elements(nbd, bdims, &nb, err)) return false;
  int perm[K_MAX_RANK], bi = 0;
  for (int o = 0; o < out->rank; o++) {
    int64_t want;
    int kk = -1;
    for (int j = 0; j < d->noffset; j++) if (d->offset_dims[j] == o) kk = j;
    if (kk >= 0) { perm[o] = nbd + kk; want = offsz[kk]; }
    else { perm[o] = bi; want = bdims[bi]; bi++; }
    if (out->dims[o] != want) return error_set(err, ERR_RUNTIME, -1, "gather: result dimension %d is %lld, expected %lld", o, (long long)out->dims[o], (long long)want);
  }
  int64_t total;
  if (!k_mul3(nb, slice_n, &total, err)) return false;
  if (total == 0) return true;
  int64_t nidx;
  if (!k_num_elements(IR, indices->dims, &nidx, err)) return false;
  int64_t *iv = NULL;
  if (!k_load_indices(indices, nidx, &iv, err)) return false;
  int es = etype_storage_bytes(operand->etype);
  bool ident = true;
  for (int o = 0, last = -1; o < out->rank; o++)
    if (out->dims[o] != 1) { if (perm[o] < last) ident = false; last = perm[o]; }
  char *canon = ident ? out->data : k_malloc(total * es, err);
  if (!canon) { k_free(iv); return false; }
  int64_t ist[K_MAX_RANK + 1], s = 1;
  for (int i = IR - 1; i >= 0; i--) { ist[i] = s; s *= indices->dims[i]; }
  ist[IR] = 0;
  GatherJob job = {operand, d, iv, ist, ibpos, bdims, nbd, IR, R, ivd, slice_n, es, canon, nb, 0};
  int64_t nchunks = pool_chunks(total * es, nb);
  job.per = (nb + nchunks - 1) / nchunks;
  pool_for((nb + job.per - 1) / job.per, gather_chunk, &job);
  if (!ident) {
    int64_t cd[K_MAX_RANK];
    for (int j = 0; j < nbd; j++) cd[j] = bdims[j];
    for (int j = 0; j < d->noffset; j++) cd[nbd + j] = offsz[j];
    k_permute(es, canon, out->rank, cd, perm, out->data);
    k_free(canon);
  }
  k_free(iv);
  return true;
}
