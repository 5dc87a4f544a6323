/* scatter: list (target, update) element pairs in update order, skipping
 * out-of-bounds windows, then combine them with k_apply_pairs. */
#include "kernels/k_gather.h"
#include "kernels/k_common.h"

static bool in_list(int64_t v, int n, const int64_t *l) {
  for (int i = 0; i < n; i++) if (l[i] == v) return true;
  return false;
}

static bool check_list(const char *what, int n, const int64_t *l, int64_t bound, Error *err) {
  for (int i = 0; i < n; i++) {
    if (l[i] < 0 || l[i] >= bound) return error_set(err, ERR_RUNTIME, -1, "scatter: %s entry %lld out of range", what, (long long)l[i]);
    for (int j = 0; j < i; j++)
      if (l[j] == l[i]) return error_set(err, ERR_RUNTIME, -1, "scatter: %s entry %lld repeated", what, (long long)l[i]);
  }
  return true;
}

bool k_scatter(int nvals, const KArray *ops, const KArray *indices, const KArray *upds,
               const KScatterDims *d, const KReducer *r, KArray *outs, Error *err) {
  if (nvals < 1 || nvals > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "scatter: bad operand count");
  int R = ops[0].rank, IR = indices->rank, UR = upds[0].rank;
  if (R > K_MAX_RANK || IR > K_MAX_RANK || UR > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "scatter: rank too large");
  for (int v = 0; v < nvals; v++) {
    if (ops[v].rank != R || outs[v].rank != R || upds[v].rank != UR) return error_set(err, ERR_RUNTIME, -1, "scatter: rank mismatch");
    for (int i = 0; i < R; i++)
      if (ops[v].dims[i] != ops[0].dims[i] || outs[v].dims[i] != ops[0].dims[i]) return error_set(err, ERR_RUNTIME, -1, "scatter: operand/result shapes differ");
    for (int i = 0; i < UR; i++)
      if (upds[v].dims[i] != upds[0].dims[i]) return error_set(err, ERR_RUNTIME, -1, "scatter: update shapes differ");
    if (outs[v].etype != ops[v].etype || upds[v].etype != ops[v].etype) return error_set(err, ERR_RUNTIME, -1, "scatter: element types differ");
    if (r->ops && !k_op_valid(r->ops[v], k_compute_etype(ops[v].etype)))
      return error_set(err, ERR_RUNTIME, -1, "scatter: %s is not defined on %s", k_reduce_op_name(r->ops[v]), etype_name(ops[v].etype));
  }
  int64_t ivd = d->index_vector_dim;
  if (ivd < 0 || ivd > IR) return error_set(err, ERR_RUNTIME, -1, "scatter: index_vector_dim out of range");
  int64_t ivlen = ivd < IR ? indices->dims[ivd] : 1;
  int nsd = ivd < IR ? IR - 1 : IR;
  if (d->nscatter_map != ivlen) return error_set(err, ERR_RUNTIME, -1, "scatter: scatter_dims_to_operand_dims has %d entries, index vectors have %lld", d->nscatter_map, (long long)ivlen);
  if (UR != d->nupdate_window + nsd) return error_set(err, ERR_RUNTIME, -1, "scatter: update rank %d, expected %d", UR, d->nupdate_window + nsd);
  if (d->nupdate_window + d->ninserted + d->nbatching != R) return error_set(err, ERR_RUNTIME, -1, "scatter: window + inserted + batching dims must equal operand rank");
  if (!check_list("update_window_dims", d->nupdate_window, d->update_window_dims, UR, err) ||
      !check_list("scatter_dims_to_operand_dims", d->nscatter_map, d->scatter_dims_to_operand_dims, R, err) ||
      !check_list("scatter_indices_batching_dims", d->nbatching, d->scatter_indices_batching_dims, IR, err))
    return false;
  {
    int64_t both[2 * K_MAX_RANK];
    for (int i = 0; i < d->ninserted; i++) both[i] = d->inserted_window_dims[i];
    for (int i = 0; i < d->nbatching; i++) both[d->ninserted + i] = d->input_batching_dims[i];
    if (!check_list("inserted/batching dims", d->ninserted + d->nbatching, both, R, err)) return false;
    for (int i = 0; i < d->nbatching; i++)
      if (d->scatter_indices_batching_dims[i] == ivd) return error_set(err, ERR_RUNTIME, -1, "scatter: batching dim is the index vector dim");
  }
  /* Operand window dims (k-th update window dim -> wop[k]) and sizes. */
  int64_t wop[K_MAX_RANK], wsize[K_MAX_RANK];
  int nw = 0;
  for (int i = 0; i < R; i++) {
    wsize[i] = 1;
    if (!in_list(i, d->ninserted, d->inserted_window_dims) && !in_list(i, d->nbatching, d->input_batching_dims)) wop[nw++] = i;
  }
  for (int k = 0; k < nw; k++) {
    int64_t s = upds[0].dims[d->update_window_dims[k]];
    if (s > ops[0].dims[wop[k]]) return error_set(err, ERR_RUNTIME, -1, "scatter: update window %lld larger than operand dimension %lld", (long long)s, (long long)ops[0].dims[wop[k]]);
    wsize[wop[k]] = s;
  }
  /* Update scatter dims (ascending) must match the indices batch dims. */
  int64_t usd[K_MAX_RANK], ibpos[K_MAX_RANK];
  int ns = 0, k2 = 0;
  for (int i = 0; i < UR; i++) if (!in_list(i, d->nupdate_window, d->update_window_dims)) usd[ns++] = i;
  for (int i = 0; i < IR; i++) if (i != ivd) ibpos[k2++] = i;
  for (int j = 0; j < ns; j++)
    if (upds[0].dims[usd[j]] != indices->dims[ibpos[j]]) return error_set(err, ERR_RUNTIME, -1, "scatter: update scatter dimension %lld is %lld, indices have %lld", (long long)usd[j], (long long)upds[0].dims[usd[j]], (long long)indices->dims[ibpos[j]]);
  int64_t nop, nupd, nidx;
  if (!k_num_elements(R, ops[0].dims, &nop, err) || !k_num_elements(UR, upds[0].dims, &nupd, err) ||
      !k_num_elements(IR, indices->dims, &nidx, err))
    return false;
  bool ok = false;
  int64_t *iv = NULL, *tidx = NULL, *uidx = NULL;
  void *uwork[K_MAX_RANK] = {0};
  void *targets[K_MAX_RANK];
  const void *updp[K_MAX_RANK];
  EType wt[K_MAX_RANK];
  for (int v = 0; v < nvals; v++) {
    int es = etype_storage_bytes(ops[v].etype);
    if (outs[v].data != ops[v].data) memcpy(outs[v].data, ops[v].data, (size_t)(nop * es));
  }
  if (nupd == 0 || nop == 0) return true;
  if (!k_load_indices(indices, nidx, &iv, err)) return false;
  if (!(tidx = k_malloc(nupd * 8, err)) || !(uidx = k_malloc(nupd * 8, err))) goto done;
  int64_t ost[K_MAX_RANK], ust[K_MAX_RANK], ist[K_MAX_RANK + 1], s;
  s = 1; for (int i = R - 1; i >= 0; i--) { ost[i] = s; s *= ops[0].dims[i]; }
  s = 1; for (int i = UR - 1; i >= 0; i--) { ust[i] = s; s *= upds[0].dims[i]; }
  s = 1; for (int i = IR - 1; i >= 0; i--) { ist[i] = s; s *= indices->dims[i]; }
  int64_t np = 0, nwin = 1, nsc = 1;
  for (int k = 0; k < nw; k++) nwin *= upds[0].dims[d->update_window_dims[k]];
  for (int j = 0; j < ns; j++) nsc *= upds[0].dims[usd[j]];
  int64_t g[K_MAX_RANK] = {0};
  for (int64_t gi = 0; gi < nsc; gi++) {
    int64_t ibase = 0, ubase = 0;
    for (int j = 0; j < ns; j++) { ibase += g[j] * ist[ibpos[j]]; ubase += g[j] * ust[usd[j]]; }
    int64_t start[K_MAX_RANK] = {0};
    for (int j = 0; j < d->nscatter_map; j++)
      start[d->scatter_dims_to_operand_dims[j]] = iv[ibase + (ivd < IR ? j * ist[ivd] : 0)];
    for (int j = 0; j < d->nbatching; j++) {
      int64_t idim = d->scatter_indices_batching_dims[j];
      int64_t pos = ivd < IR && idim > ivd ? idim - 1 : idim;
      start[d->input_batching_dims[j]] = g[pos];
    }
    bool inb = true;
    int64_t tbase = 0;
    for (int i = 0; i < R; i++) {
      if (start[i] < 0 || start[i] > ops[0].dims[i] - wsize[i]) { inb = false; break; }
      tbase += start[i] * ost[i];
    }
    if (inb && nwin > 0) {
      int64_t w[K_MAX_RANK] = {0};
      for (int64_t wi = 0; wi < nwin; wi++) {
        int64_t t = tbase, u = ubase;
        for (int k = 0; k < nw; k++) { t += w[k] * ost[wop[k]]; u += w[k] * ust[d->update_window_dims[k]]; }
        tidx[np] = t;
        uidx[np] = u;
        np++;
        for (int k = nw - 1; k >= 0; k--) {
          if (++w[k] < upds[0].dims[d->update_window_dims[k]]) break;
          w[k] = 0;
        }
      }
    }
    for (int j = ns - 1; j >= 0; j--) {
      if (++g[j] < upds[0].dims[usd[j]]) break;
      g[j] = 0;
    }
  }
  EType tt[K_MAX_RANK];
  for (int v = 0; v < nvals; v++) {
    wt[v] = k_work_etype(r, ops[v].etype);
    tt[v] = ops[v].etype;
    targets[v] = outs[v].data; /* converted range by range (k_apply_pairs) */
    updp[v] = upds[v].data;
    if (wt[v] != ops[v].etype) {
      if (!(uwork[v] = k_malloc(nupd * etype_storage_bytes(wt[v]), err))) goto done;
      k_to_compute(ops[v].etype, upds[v].data, uwork[v], nupd);
      updp[v] = uwork[v];
    }
  }
  if (!k_apply_pairs(r, nvals, wt, tt, targets, nop, updp, tidx, uidx, np, err)) goto done;
  ok = true;
done:
  for (int v = 0; v < nvals; v++) k_free(uwork[v]);
  k_free(iv); k_free(tidx); k_free(uidx);
  return ok;
}
