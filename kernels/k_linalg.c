/* cholesky and triangular-solve: per matrix in double or complex double
 * (batch norm is in k_batch_norm.c). */
#include "kernels/k_linalg.h"

#include <math.h>

#include "kernels/k_common.h"

static bool float_or_complex(EType t) { return etype_is_float(t) || etype_is_complex(t); }

/* Loads n elements as complex double (imaginary part 0 for reals). */
static void load_z(EType t, const void *src, kc128 *dst, int64_t n) {
  if (etype_is_complex(t)) { k_cvt(ET_C128, dst, t, src, n); return; }
  double *tmp = (double *)dst; /* widen in place from the back */
  k_cvt(ET_F64, tmp, t, src, n);
  for (int64_t i = n; i-- > 0;) dst[i] = tmp[i];
}

static void store_z(EType t, void *dst, kc128 *src, int64_t n) {
  if (etype_is_complex(t)) { k_cvt(t, dst, ET_C128, src, n); return; }
  double *tmp = (double *)src;
  for (int64_t i = 0; i < n; i++) tmp[i] = creal(src[i]);
  k_cvt(t, dst, ET_F64, tmp, n);
}

static bool batch_of(const KArray *a, int64_t *batch, Error *err) {
  return k_num_elements(a->rank - 2, a->dims, batch, err);
}

bool k_cholesky(const KArray *a, bool lower, KArray *out, Error *err) {
  if (!float_or_complex(a->etype)) return error_set(err, ERR_RUNTIME, -1, "cholesky: %s is not a float or complex type", etype_name(a->etype));
  if (a->rank < 2 || a->rank > K_MAX_RANK || a->dims[a->rank - 1] != a->dims[a->rank - 2])
    return error_set(err, ERR_RUNTIME, -1, "cholesky: operand must be [..., n, n]");
  if (out->etype != a->etype || out->rank != a->rank) return error_set(err, ERR_RUNTIME, -1, "cholesky: result shape differs");
  for (int i = 0; i < a->rank; i++) if (out->dims[i] != a->dims[i]) return error_set(err, ERR_RUNTIME, -1, "cholesky: result shape differs");
  int64_t n = a->dims[a->rank - 1], batch, nn;
  if (!batch_of(a, &batch, err) || !k_mul3(n, n, &nn, err)) return false;
  if (batch == 0 || n == 0) return true;
  kc128 *m = k_malloc(nn * 16, err), *l = k_malloc(nn * 16, err);
  if (!m || !l) { k_free(m); k_free(l); return false; }
  int es = etype_storage_bytes(a->etype);
  for (int64_t b = 0; b < batch; b++) {
    load_z(a->etype, (const char *)a->data + b * nn * es, m, nn);
    /* Work on the lower view.  Upper, as XLA's CholeskyExpander: factor
     * transpose(a) (A_low[i][j] = a[j][i]) and transpose the factor back,
     * no conjugation (U = L^T, U^H U = conj(L L^H) = a). */
    for (int64_t i = 0; i < n * n; i++) l[i] = 0;
    bool failed = false;
    for (int64_t j = 0; j < n; j++) {
      double d = creal(m[j * n + j]);
      for (int64_t k = 0; k < j; k++) d -= creal(l[j * n + k] * conj(l[j * n + k]));
      double djj = sqrt(d); /* NaN when not positive definite */
      failed |= isnan(djj);
      l[j * n + j] = djj;
      for (int64_t i = j + 1; i < n; i++) {
        kc128 s = lower ? m[i * n + j] : m[j * n + i];
        for (int64_t k = 0; k < j; k++) s -= l[i * n + k] * conj(l[j * n + k]);
        l[i * n + j] = s / djj;
      }
    }
    if (failed) /* XLA's expander: a failed factorisation is all NaN */
      for (int64_t i = 0; i < n * n; i++) l[i] = NAN;
    if (!lower) { /* U = L^T */
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) m[i * n + j] = j >= i || failed ? l[j * n + i] : 0;
      store_z(out->etype, (char *)out->data + b * nn * es, m, nn);
    } else {
      store_z(out->etype, (char *)out->data + b * nn * es, l, nn);
    }
  }
  k_free(m);
  k_free(l);
  return true;
}

bool k_triangular_solve(const KArray *a, const KArray *b, const KTriSolveParams *p, KArray *out, Error *err) {
  EType t = a->etype;
  if (!float_or_complex(t) || b->etype != t || out->etype != t) return error_set(err, ERR_RUNTIME, -1, "triangular-solve: operands must share a float or complex type");
  int r = a->rank;
  if (r < 2 || r > K_MAX_RANK || b->rank != r || out->rank != r) return error_set(err, ERR_RUNTIME, -1, "triangular-solve: rank mismatch");
  int64_t m = a->dims[r - 1];
  if (a->dims[r - 2] != m) return error_set(err, ERR_RUNTIME, -1, "triangular-solve: a must be square");
  for (int i = 0; i < r - 2; i++) if (b->dims[i] != a->dims[i]) return error_set(err, ERR_RUNTIME, -1, "triangular-solve: batch dimensions differ");
  for (int i = 0; i < r; i++) if (out->dims[i] != b->dims[i]) return error_set(err, ERR_RUNTIME, -1, "triangular-solve: result shape differs from b");
  int64_t k = p->left_side ? b->dims[r - 1] : b->dims[r - 2];
  if ((p->left_side ? b->dims[r - 2] : b->dims[r - 1]) != m) return error_set(err, ERR_RUNTIME, -1, "triangular-solve: b does not match a's size %lld", (long long)m);
  int64_t batch, mm, mk;
  if (!batch_of(a, &batch, err) || !k_mul3(m, m, &mm, err) || !k_mul3(m, k, &mk, err)) return false;
  if (batch == 0 || mk == 0) return true;
  kc128 *A = k_malloc(mm * 16, err), *E = k_malloc(mm * 16, err), *B = k_malloc(mk * 16, err), *X = k_malloc(mk * 16, err);
  bool ok = false;
  if (!A || !E || !B || !X) goto done;
  int es = etype_storage_bytes(t);
  /* E = effective left-side matrix, lower or upper triangular. */
  bool tr = p->transpose_a != K_TRANS_NO, cj = p->transpose_a == K_TRANS_ADJOINT;
  bool e_lower = p->lower ^ tr ^ !p->left_side;
  for (int64_t bt = 0; bt < batch; bt++) {
    load_z(t, (const char *)a->data + bt * mm * es, A, mm);
    load_z(t, (const char *)b->data + bt * mk * es, B, mk);
    for (int64_t i = 0; i < m; i++)
      for (int64_t j = 0; j < m; j++) {
        /* T = op(tri(a)); E = left ? T : T^T. */
        int64_t ti = p->left_side ? i : j, tj = p->left_side ? j : i; /* E[i][j] = T[ti][tj] */
        int64_t ai = tr ? tj : ti, aj = tr ? ti : tj;                   /* T[x][y] = a'[ai][aj] */
        bool in_tri = p->lower ? ai >= aj : ai <= aj;
        kc128 v = 0;
        if (ai == aj && p->unit_diagonal) v = 1;
        else if (in_tri) v = cj ? conj(A[ai * m + aj]) : A[ai * m + aj];
        E[i * m + j] = v;
      }
    /* Right-hand sides as columns: Y[i][c] (left: b[i][c]; right: b[c][i]). */
    for (int64_t c = 0; c < k; c++) {
      for (int64_t i = 0; i < m; i++) X[i] = p->left_side ? B[i * k + c] : B[c * m + i];
      if (e_lower) {
        for (int64_t i = 0; i < m; i++) {
          kc128 s = X[i];
          for (int64_t j = 0; j < i; j++) s -= E[i * m + j] * X[j];
          X[i] = s / E[i * m + i];
        }
      } else {
        for (int64_t i = m; i-- > 0;) {
          kc128 s = X[i];
          for (int64_t j = i + 1; j < m; j++) s -= E[i * m + j] * X[j];
          X[i] = s / E[i * m + i];
        }
      }
      for (int64_t i = 0; i < m; i++) {
        if (p->left_side) B[i * k + c] = X[i];
        else B[c * m + i] = X[i];
      }
    }
    store_z(t, (char *)out->data + bt * mk * es, B, mk);
  }
  ok = true;
done:
  k_free(A); k_free(E); k_free(B); k_free(X);
  return ok;
}
