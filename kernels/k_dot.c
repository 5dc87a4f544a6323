/* dot_general: operand preparation (permute + convert), gemm per batch. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include "kernels/k_dot.h"

#include <limits.h>

#include "kernels/k_common.h"
#include "kernels/k_gemm.h"

#ifdef HLO_HAVE_BLAS
/* Merges dims l[0..n) (outer to inner; size-1 dims ignored) of an array
 * with row-major strides st into one dimension: *stride is the innermost
 * one's stride, 0 when the merged extent is 1.  False when they are not
 * one evenly strided run. */
static bool merge_dims(const int64_t *dims, const int64_t *st, int n, const int64_t *l, int64_t *stride) {
  int64_t prev = -1;
  for (int i = 0; i < n; i++) {
    if (dims[l[i]] == 1) continue;
    if (prev >= 0 && st[prev] != st[l[i]] * dims[l[i]]) return false;
    prev = l[i];
  }
  *stride = prev >= 0 ? st[prev] : 0;
  return true;
}

/* An operand's matrices taken in place: each batch's E1 x E2 matrix
 * (first = the dims the gemm wants as rows: lhs free, rhs contracting) is
 * row-major with row stride *ld, or (*trans) E2 x E1 row-major.  bstr gets
 * the batch dims' strides.  False when the layout does not allow it. */
static bool strided_view(const KArray *x, int nb, const int64_t *bd, int n1, const int64_t *d1, int64_t E1,
                         int n2, const int64_t *d2, int64_t E2, bool *trans, int64_t *ld, int64_t *bstr) {
  int64_t st[K_MAX_RANK], s1, s2;
  int64_t acc = 1;
  for (int i = x->rank - 1; i >= 0; i--) { st[i] = acc; acc *= x->dims[i]; }
  if (!merge_dims(x->dims, st, n1, d1, &s1) || !merge_dims(x->dims, st, n2, d2, &s2)) return false;
  for (int i = 0; i < nb; i++) bstr[i] = st[bd[i]];
  if ((s2 == 1 || E2 == 1) && (E1 == 1 || s1 >= E2)) {
    *trans = false;
    *ld = E1 == 1 ? (E2 > 1 ? E2 : 1) : s1;
  } else if ((s1 == 1 || E1 == 1) && (E2 == 1 || s2 >= E1)) {
    *trans = true;
    *ld = E2 == 1 ? (E1 > 1 ? E1 : 1) : s2;
  } else {
    return false;
  }
  return *ld <= INT_MAX;
}

/* dot on float/complex operands already of the compute type, without any
 * copy: one gemm per batch on strided views.  False (nothing done) when a
 * layout does not allow it. */
static bool dot_in_place(const KArray *lhs, const KArray *rhs, const KDotDims *dn, int nlf, const int64_t *lfree,
                         int nrf, const int64_t *rfree, int64_t M, int64_t N, int64_t K, EType ct, void *C) {
  if (ct == ET_S64 || lhs->etype != ct || rhs->etype != ct || M > INT_MAX || N > INT_MAX || K > INT_MAX || K == 0)
    return false;
  bool ta, tb;
  int64_t lda, ldb, lbs[K_MAX_RANK], rbs[K_MAX_RANK];
  if (!strided_view(lhs, dn->nbatch, dn->lhs_batch, nlf, lfree, M, dn->ncontract, dn->lhs_contract, K, &ta, &lda, lbs) ||
      !strided_view(rhs, dn->nbatch, dn->rhs_batch, dn->ncontract, dn->rhs_contract, K, nrf, rfree, N, &tb, &ldb, rbs))
    return false;
  KGemm g = {.ct = ct, .ta = ta, .tb = tb, .M = M, .N = N, .K = K, .A = lhs->data, .lda = lda,
             .B = rhs->data, .ldb = ldb, .C = C, .ldc = N, .nbatch = 1, .nbd = dn->nbatch, .cstr = M * N};
  for (int i = 0; i < dn->nbatch; i++) {
    g.bdims[i] = lhs->dims[dn->lhs_batch[i]];
    g.nbatch *= g.bdims[i];
    g.astr[i] = lbs[i];
    g.bstr[i] = rbs[i];
  }
  return k_gemm_run(&g);
}
#endif

static bool check_dims(const char *what, int rank, int n, const int64_t *d, bool *used, Error *err) {
  for (int i = 0; i < n; i++) {
    if (d[i] < 0 || d[i] >= rank)
      return error_set(err, ERR_RUNTIME, -1, "dot: %s dimension %lld out of range for rank %d", what, (long long)d[i], rank);
    if (used[d[i]])
      return error_set(err, ERR_RUNTIME, -1, "dot: %s dimension %lld repeated", what, (long long)d[i]);
    used[d[i]] = true;
  }
  return true;
}

/* Compute type for a dot with these types. */
EType k_dot_compute_type(EType l, EType r, EType o) {
  bool cpx = etype_is_complex(l) || etype_is_complex(r) || etype_is_complex(o);
  bool wide = l == ET_F64 || r == ET_F64 || o == ET_F64 || l == ET_C128 || r == ET_C128 || o == ET_C128;
  if (cpx) return wide ? ET_C128 : ET_C64;
  if (etype_is_float(o)) return wide ? ET_F64 : ET_F32;
  if (etype_is_float(l) || etype_is_float(r)) return wide ? ET_F64 : ET_F32;
  return ET_S64;
}

/* Lays x out as [batch, a..., b...] in compute type ct, where the caller
 * asks for order (batch, first, second); if the array is already in that
 * order or the swapped one (batch, second, first) and of type ct, it is used
 * as is and *trans says which.  *buf receives any allocation. */
static bool prepare(const KArray *x, EType ct, int nb, const int64_t *bd, int nf, const int64_t *fd,
                    int nc, const int64_t *cd, bool free_first, const void **outp, bool *trans,
                    void **buf, Error *err) {
  int perm[K_MAX_RANK], perm2[K_MAX_RANK], r = 0, r2 = 0;
  for (int i = 0; i < nb; i++) perm[r++] = (int)bd[i];
  for (int i = 0; i < nb; i++) perm2[r2++] = (int)bd[i];
  const int64_t *f1 = free_first ? fd : cd, *f2 = free_first ? cd : fd;
  int n1 = free_first ? nf : nc, n2 = free_first ? nc : nf;
  for (int i = 0; i < n1; i++) perm[r++] = (int)f1[i];
  for (int i = 0; i < n2; i++) perm[r++] = (int)f2[i];
  for (int i = 0; i < n2; i++) perm2[r2++] = (int)f2[i];
  for (int i = 0; i < n1; i++) perm2[r2++] = (int)f1[i];
  /* Identity check ignoring size-1 dims (they do not move data). */
  bool id1 = true, id2 = true;
  int last1 = -1, last2 = -1;
  for (int i = 0; i < x->rank; i++) {
    if (x->dims[perm[i]] != 1) { if (perm[i] < last1) id1 = false; last1 = perm[i]; }
    if (x->dims[perm2[i]] != 1) { if (perm2[i] < last2) id2 = false; last2 = perm2[i]; }
  }
  int64_t n;
  if (!k_num_elements(x->rank, x->dims, &n, err)) return false;
  *buf = NULL;
  *trans = false;
  const void *src = x->data;
  if (!id1 && id2) *trans = true;
  void *pbuf = NULL;
  if (!id1 && !id2) {
    int es = etype_storage_bytes(x->etype);
    int64_t bytes;
    if (!k_mul3(n, es, &bytes, err)) return false;
    pbuf = k_malloc(bytes, err);
    if (!pbuf) return false;
    k_permute(es, x->data, x->rank, x->dims, perm, pbuf);
    src = pbuf;
  }
  if (x->etype == ct) {
    *outp = src;
    *buf = pbuf;
    return true;
  }
  int64_t bytes;
  if (!k_mul3(n, etype_storage_bytes(ct), &bytes, err)) { k_free(pbuf); return false; }
  void *cbuf = k_malloc(bytes, err);
  if (!cbuf) { k_free(pbuf); return false; }
  k_cvt(ct, cbuf, x->etype, src, n);
  k_free(pbuf);
  *outp = cbuf;
  *buf = cbuf;
  return true;
}

bool k_dot(const KArray *lhs, const KArray *rhs, const KDotDims *dn, KArray *out, Error *err) {
  int lr = lhs->rank, rr = rhs->rank;
  if (lr > K_MAX_RANK || rr > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "dot: rank too large");
  EType lt = lhs->etype, rt = rhs->etype, ot = out->etype;
  if (!etype_is_array(lt) || !etype_is_array(rt) || !etype_is_array(ot) ||
      etype_kind(lt) == EK_TOKEN || etype_kind(ot) == EK_OPAQUE)
    return error_set(err, ERR_RUNTIME, -1, "dot: unsupported element types");
  if (etype_is_complex(lt) != etype_is_complex(ot) && etype_is_complex(lt))
    return error_set(err, ERR_RUNTIME, -1, "dot: complex operands need a complex result (%s x %s -> %s)",
                     etype_name(lt), etype_name(rt), etype_name(ot));
  if (etype_is_complex(rt) && !etype_is_complex(ot))
    return error_set(err, ERR_RUNTIME, -1, "dot: complex operands need a complex result (%s x %s -> %s)",
                     etype_name(lt), etype_name(rt), etype_name(ot));
  if (!etype_is_float(ot) && !etype_is_complex(ot) && (etype_is_float(lt) || etype_is_float(rt)))
    return error_set(err, ERR_RUNTIME, -1, "dot: float operands with integer result %s", etype_name(ot));
  bool lused[K_MAX_RANK] = {false}, rused[K_MAX_RANK] = {false};
  if (dn->nbatch < 0 || dn->ncontract < 0) return error_set(err, ERR_RUNTIME, -1, "dot: bad dimension numbers");
  if (!check_dims("lhs batch", lr, dn->nbatch, dn->lhs_batch, lused, err) ||
      !check_dims("rhs batch", rr, dn->nbatch, dn->rhs_batch, rused, err) ||
      !check_dims("lhs contracting", lr, dn->ncontract, dn->lhs_contract, lused, err) ||
      !check_dims("rhs contracting", rr, dn->ncontract, dn->rhs_contract, rused, err))
    return false;
  int64_t B = 1, K = 1, M = 1, N = 1;
  int64_t odims[K_MAX_RANK];
  int orank = 0;
  for (int i = 0; i < dn->nbatch; i++) {
    int64_t a = lhs->dims[dn->lhs_batch[i]], b = rhs->dims[dn->rhs_batch[i]];
    if (a != b) return error_set(err, ERR_RUNTIME, -1, "dot: batch dimension sizes differ (%lld vs %lld)", (long long)a, (long long)b);
    if (!k_mul3(B, a, &B, err)) return false;
    odims[orank++] = a;
  }
  for (int i = 0; i < dn->ncontract; i++) {
    int64_t a = lhs->dims[dn->lhs_contract[i]], b = rhs->dims[dn->rhs_contract[i]];
    if (a != b) return error_set(err, ERR_RUNTIME, -1, "dot: contracting dimension sizes differ (%lld vs %lld)", (long long)a, (long long)b);
    if (!k_mul3(K, a, &K, err)) return false;
  }
  int64_t lfree[K_MAX_RANK], rfree[K_MAX_RANK];
  int nlf = 0, nrf = 0;
  for (int i = 0; i < lr; i++) if (!lused[i]) { lfree[nlf++] = i; if (!k_mul3(M, lhs->dims[i], &M, err)) return false; odims[orank++] = lhs->dims[i]; }
  for (int i = 0; i < rr; i++) if (!rused[i]) { rfree[nrf++] = i; if (!k_mul3(N, rhs->dims[i], &N, err)) return false; if (orank >= K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "dot: result rank too large"); odims[orank++] = rhs->dims[i]; }
  if (orank != out->rank) return error_set(err, ERR_RUNTIME, -1, "dot: result rank %d, expected %d", out->rank, orank);
  for (int i = 0; i < orank; i++)
    if (odims[i] != out->dims[i]) return error_set(err, ERR_RUNTIME, -1, "dot: result dimension %d is %lld, expected %lld", i, (long long)out->dims[i], (long long)odims[i]);
  int64_t BM, BMN;
  if (!k_mul3(B, M, &BM, err) || !k_mul3(BM, N, &BMN, err)) return false;
  if (BMN == 0) return true;
  EType ct = k_dot_compute_type(lt, rt, ot);
  int cs = etype_storage_bytes(ct);
#ifdef HLO_HAVE_BLAS
  if (ot == ct && dot_in_place(lhs, rhs, dn, nlf, lfree, nrf, rfree, M, N, K, ct, out->data)) return true;
#endif
  const void *A, *Bm;
  void *abuf = NULL, *bbuf = NULL, *cbuf = NULL;
  bool ta, tb;
  if (!prepare(lhs, ct, dn->nbatch, dn->lhs_batch, nlf, lfree, dn->ncontract, dn->lhs_contract, true, &A, &ta, &abuf, err))
    return false;
  if (!prepare(rhs, ct, dn->nbatch, dn->rhs_batch, nrf, rfree, dn->ncontract, dn->rhs_contract, false, &Bm, &tb, &bbuf, err)) {
    k_free(abuf);
    return false;
  }
  void *C = out->data;
  if (ot != ct) {
    int64_t bytes;
    if (!k_mul3(BMN, cs, &bytes, err) || !(cbuf = k_malloc(bytes, err))) { k_free(abuf); k_free(bbuf); return false; }
    C = cbuf;
  }
  k_gemm_batch(ct, ta, tb, M, N, K, B, A, Bm, C);
  if (cbuf) k_cvt(ot, out->data, ct, cbuf, BMN);
  k_free(abuf);
  k_free(bbuf);
  k_free(cbuf);
  return true;
}
