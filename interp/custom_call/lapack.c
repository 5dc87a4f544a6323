/* jaxlib's LAPACK FFI kernels (jaxlib/cpu/lapack_kernels.cc) as JAX's CPU
 * lowering (jaxlib/lapack.py) calls them: the matrices are the last two
 * dimensions, stored column-major (JAX's operand/result layouts), batch
 * dimensions major; each matrix goes through LAPACK in turn.
 *   lapack_?potrf_ffi(a[..., n, n]) -> (factor, info s32[...]), attribute
 *       uplo ('L' = 76 or 'U' = 85): the named triangle holds the Cholesky
 *       factor, the other keeps a's values (JAX masks it afterwards); info
 *       > 0 is the order of the first non-positive leading minor (the
 *       factor is then partly written, as LAPACK leaves it).
 *   lapack_?getrf_ffi(a[..., m, n]) -> (lu, ipiv s32[..., min(m, n)],
 *       info s32[...]): L (unit diagonal, below) and U (on and above) of
 *       P a = L U, ipiv 1-based row interchanges, info > 0 the first zero
 *       pivot of U.
 *   {blas,lapack}_?trsm_ffi(a[..., k, k], b[..., m, n], alpha) -> x:
 *       alpha op(a)^-1 b (side 'L', k = m) or alpha b op(a)^-1 (side 'R',
 *       k = n), attributes side, uplo, trans_x ('N', 'T', 'C'), diag ('N',
 *       'U': unit diagonal, not read); only a's uplo triangle is read.
 * The letter is the element type (s f32, d f64, c c64, z c128).  The
 * attributes come from the typed-FFI backend_config, written by XLA as
 * {uplo = 76 : ui8}.
 *
 * The GPU library calls with the same factorizations run the same way:
 *   __cusolver$cholesky(a) -> (factor, workspace, info), XLA:GPU's
 *       rewrite of the HLO cholesky, CholeskyOptions JSON {"lower": ...};
 *   {cu,hip}solver_getrf[_ffi], {cu,hip}blas_getrf_batched(a) -> (lu, ipiv,
 *       info[, workspace]), jaxlib's GPU LU (cuSOLVER / cuBLAS batched,
 *       the same partial pivoting).
 * Workspaces are zeroed. */
#include "interp/custom_call/lapack.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/backend_json.h"
#include "interp/custom_call/backend_schemas.h"
#include "interp/eval_views.h"

#ifdef HLO_HAVE_LAPACK
/* Fortran LAPACK (32-bit integers); the trailing size_t is the hidden
 * length of the character argument. */
void spotrf_(const char *uplo, const int *n, void *a, const int *lda, int *info, size_t);
void dpotrf_(const char *uplo, const int *n, void *a, const int *lda, int *info, size_t);
void cpotrf_(const char *uplo, const int *n, void *a, const int *lda, int *info, size_t);
void zpotrf_(const char *uplo, const int *n, void *a, const int *lda, int *info, size_t);
void sgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
void dgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
void cgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
void zgetrf_(const int *m, const int *n, void *a, const int *lda, int *ipiv, int *info);
#define TRSM_ARGS                                                                          \
  const char *side, const char *uplo, const char *trans, const char *diag, const int *m,   \
      const int *n, const void *alpha, const void *a, const int *lda, void *b, const int *ldb, \
      size_t, size_t, size_t, size_t
void strsm_(TRSM_ARGS);
void dtrsm_(TRSM_ARGS);
void ctrsm_(TRSM_ARGS);
void ztrsm_(TRSM_ARGS);
#endif

/* n leading sizes equal (dims may be NULL when n is 0). */
static bool dims_eq(const int64_t *a, const int64_t *b, int n) {
  return n <= 0 || !memcmp(a, b, sizeof(int64_t) * (size_t)n);
}

/* The routine name after the type letter: "potrf_ffi", ... (NULL when t
 * is not lapack_?NAME or blas_?NAME). */
static const char *routine(const char *t) {
  const char *p = !strncmp(t, "lapack_", 7) ? t + 7 : !strncmp(t, "blas_", 5) ? t + 5 : NULL;
  return p && *p && strchr("sdcz", *p) ? p + 1 : NULL;
}

/* jaxlib's GPU LU targets: FFI (lu, ipiv, info) and the older descriptor
 * ones with a trailing workspace. */
static bool gpu_getrf(const char *t) {
  return !strcmp(t, "cusolver_getrf_ffi") || !strcmp(t, "hipsolver_getrf_ffi") ||
         !strcmp(t, "cusolver_getrf") || !strcmp(t, "hipsolver_getrf") ||
         !strcmp(t, "cublas_getrf_batched") || !strcmp(t, "hipblas_getrf_batched");
}

bool eval_lapack_known(const char *t) {
  const char *r = routine(t);
  if (!strcmp(t, "__cusolver$cholesky") || gpu_getrf(t)) return true;
  return r && (!strcmp(r, "trsm_ffi") ||
               (t[0] == 'l' && (!strcmp(r, "potrf_ffi") || !strcmp(r, "getrf_ffi"))));
}

static EType letter_type(char c) {
  return c == 's' ? ET_F32 : c == 'd' ? ET_F64 : c == 'c' ? ET_C64 : ET_C128;
}

/* JAX's layout for a rank-r matrix array: minor_to_major (r-2, r-1, r-3,
 * ..., 0).  Other layouts would hand LAPACK a different matrix. */
static bool jax_layout(const Shape *s) {
  int r = s->rank;
  if (r < 2 || s->layout.rank != r || !s->layout.minor_to_major) return false;
  const int64_t *m = s->layout.minor_to_major;
  if (m[0] != r - 2 || m[1] != r - 1) return false;
  for (int k = 2; k < r; k++)
    if (m[k] != r - 1 - k) return false;
  return true;
}

/* A character attribute of the typed-FFI backend_config s: a number (76
 * 'L', 85 'U', ...) or a quoted letter after the key and '=' or ':'; 0
 * when absent. */
static int char_attr(const char *s, const char *key) {
  size_t n = strlen(key);
  for (const char *p = strstr(s, key); p; p = strstr(p + 1, key)) {
    bool start = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
    const char *q = p + n;
    if (!start || isalnum((unsigned char)*q) || *q == '_') continue;
    while (*q == ' ' || *q == '"') q++;
    if (*q != '=' && *q != ':') continue;
    q++;
    while (*q == ' ' || *q == '"' || *q == '\'') q++;
    if (*q >= '0' && *q <= '9') return (int)strtol(q, NULL, 10);
    return (unsigned char)*q;
  }
  return 0;
}

typedef struct LapackCall {
  const char *target;
  bool potrf;
  EType et;
  char uplo, side, trans, diag; /* LAPACK's letters */
  int nleaves, info_leaf, ws_leaf; /* result leaves; ws_leaf -1: no workspace */
} LapackCall;

static bool fail(const Instr *in, const char *target, Error *err, const char *msg) {
  return error_set(err, ERR_RUNTIME, in->offset, "%s: %s", target, msg);
}

/* m x n row-major src -> column-major dst (or back when to_col is false). */
static void transpose_matrix(char *dst, const char *src, int64_t m, int64_t n, int es,
                             bool to_col) {
  for (int64_t i = 0; i < m; i++)
    for (int64_t j = 0; j < n; j++) {
      int64_t r = i * n + j, c = j * m + i;
      memcpy(dst + (to_col ? c : r) * es, src + (to_col ? r : c) * es, (size_t)es);
    }
}

static bool lapack_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                          int nouts, Error *err) {
  const LapackCall *c = arg;
  const KArray *a = &ins[0];
  int r = a->rank;
  bool shapes = r >= 2 && a->etype == c->et && nouts == c->nleaves &&
                outs[0].etype == c->et && outs[0].rank == r &&
                dims_eq(outs[0].dims, a->dims, r);
  int64_t m = shapes ? a->dims[r - 2] : 0, n = shapes ? a->dims[r - 1] : 0, k = m < n ? m : n;
  const KArray *info = shapes ? &outs[c->info_leaf] : NULL, *ipiv = c->potrf ? NULL : &outs[1];
  shapes = shapes && (!c->potrf || m == n) && info->etype == ET_S32 && info->rank == r - 2 &&
           dims_eq(info->dims, a->dims, r - 2);
  if (shapes && ipiv)
    shapes = ipiv->etype == ET_S32 && ipiv->rank == r - 1 && ipiv->dims[r - 2] == k &&
             dims_eq(ipiv->dims, a->dims, r - 2);
  if (!shapes)
    return fail(in, c->target, err,
                c->ws_leaf >= 0 ? "takes a[..., n, n] of a float or complex type and returns "
                                  "(factor, workspace, info s32[...])"
                : c->potrf ? "takes a[..., n, n] of the target's type and returns (factor, info "
                             "s32[...])"
                         : "takes a[..., m, n] of the target's type and returns (lu, ipiv "
                           "s32[..., min(m, n)], info s32[...])");
  if (m > 0x7fffffff || n > 0x7fffffff) return fail(in, c->target, err, "matrix too large for LAPACK");
#ifndef HLO_HAVE_LAPACK
  (void)k;
  return fail(in, c->target, err, "hlorun was built without LAPACK");
#else
  if (c->ws_leaf >= 0) {
    int64_t wn = 1;
    for (int d = 0; d < outs[c->ws_leaf].rank; d++) wn *= outs[c->ws_leaf].dims[d];
    if (wn > 0)
      memset(outs[c->ws_leaf].data, 0, (size_t)wn * (size_t)etype_storage_bytes(outs[c->ws_leaf].etype));
  }
  int es = etype_storage_bytes(c->et);
  int64_t batch = 1, mn = m * n;
  for (int d = 0; d < r - 2; d++) batch *= a->dims[d];
  char *w = malloc((size_t)(mn ? mn : 1) * (size_t)es);
  if (!w) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  int im = (int)m, in_ = (int)n, lda = im > 1 ? im : 1;
  for (int64_t b = 0; b < batch; b++) {
    const char *src = (const char *)a->data + b * mn * es;
    char *dst = (char *)outs[0].data + b * mn * es;
    int *inf = (int *)info->data + b;
    transpose_matrix(w, src, m, n, es, true);
    *inf = 0;
    if (c->potrf) {
      switch (c->et) {
        case ET_F32: spotrf_(&c->uplo, &in_, w, &lda, inf, 1); break;
        case ET_F64: dpotrf_(&c->uplo, &in_, w, &lda, inf, 1); break;
        case ET_C64: cpotrf_(&c->uplo, &in_, w, &lda, inf, 1); break;
        default: zpotrf_(&c->uplo, &in_, w, &lda, inf, 1); break;
      }
    } else if (mn > 0) {
      int *piv = (int *)ipiv->data + b * k;
      switch (c->et) {
        case ET_F32: sgetrf_(&im, &in_, w, &lda, piv, inf); break;
        case ET_F64: dgetrf_(&im, &in_, w, &lda, piv, inf); break;
        case ET_C64: cgetrf_(&im, &in_, w, &lda, piv, inf); break;
        default: zgetrf_(&im, &in_, w, &lda, piv, inf); break;
      }
    }
    transpose_matrix(dst, w, m, n, es, false);
  }
  free(w);
  return true;
#endif
}

/* x = alpha * op(a)^-1 b (side 'L') or alpha * b op(a)^-1 (side 'R'),
 * per matrix of the batch, by BLAS ?trsm. */
static bool trsm_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                        int nouts, Error *err) {
  const LapackCall *c = arg;
  const KArray *a = &ins[0], *b = &ins[1], *alpha = &ins[2];
  int r = b->rank;
  bool ok = nouts == 1 && r >= 2 && a->rank == r && a->etype == c->et && b->etype == c->et &&
            alpha->etype == c->et && alpha->rank == 0 && outs[0].etype == c->et &&
            outs[0].rank == r && dims_eq(outs[0].dims, b->dims, r) &&
            dims_eq(a->dims, b->dims, r - 2);
  int64_t m = ok ? b->dims[r - 2] : 0, n = ok ? b->dims[r - 1] : 0, k = c->side == 'L' ? m : n;
  ok = ok && a->dims[r - 2] == k && a->dims[r - 1] == k;
  if (!ok)
    return fail(in, c->target, err,
                "takes a[..., k, k], b[..., m, n] and a scalar alpha of the target's type (k = m "
                "on the left, n on the right) and returns b's shape");
  if (m > 0x7fffffff || n > 0x7fffffff) return fail(in, c->target, err, "matrix too large for BLAS");
#ifndef HLO_HAVE_LAPACK
  return fail(in, c->target, err, "hlorun was built without LAPACK");
#else
  int es = etype_storage_bytes(c->et);
  int64_t batch = 1, mn = m * n, kk = k * k;
  for (int d = 0; d < r - 2; d++) batch *= b->dims[d];
  char *wa = malloc((size_t)(kk ? kk : 1) * (size_t)es), *wb = malloc((size_t)(mn ? mn : 1) * (size_t)es);
  if (!wa || !wb) {
    free(wa);
    free(wb);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  int im = (int)m, in_ = (int)n, lda = k > 1 ? (int)k : 1, ldb = im > 1 ? im : 1;
  for (int64_t i = 0; i < batch && mn > 0; i++) {
    transpose_matrix(wa, (const char *)a->data + i * kk * es, k, k, es, true);
    transpose_matrix(wb, (const char *)b->data + i * mn * es, m, n, es, true);
    switch (c->et) {
      case ET_F32: strsm_(&c->side, &c->uplo, &c->trans, &c->diag, &im, &in_, alpha->data, wa, &lda, wb, &ldb, 1, 1, 1, 1); break;
      case ET_F64: dtrsm_(&c->side, &c->uplo, &c->trans, &c->diag, &im, &in_, alpha->data, wa, &lda, wb, &ldb, 1, 1, 1, 1); break;
      case ET_C64: ctrsm_(&c->side, &c->uplo, &c->trans, &c->diag, &im, &in_, alpha->data, wa, &lda, wb, &ldb, 1, 1, 1, 1); break;
      default: ztrsm_(&c->side, &c->uplo, &c->trans, &c->diag, &im, &in_, alpha->data, wa, &lda, wb, &ldb, 1, 1, 1, 1); break;
    }
    transpose_matrix((char *)outs[0].data + i * mn * es, wb, m, n, es, false);
  }
  free(wa);
  free(wb);
  return true;
#endif
}

/* side, uplo, trans_x, diag of a trsm call, each one of its letters. */
static bool trsm_attrs(const Instr *in, LapackCall *c, Error *err) {
  bool oom;
  char *s = backend_json_text(in, &oom);
  if (oom) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  int side = s ? char_attr(s, "side") : 0, uplo = s ? char_attr(s, "uplo") : 0;
  int trans = s ? char_attr(s, "trans_x") : 0, diag = s ? char_attr(s, "diag") : 0;
  free(s);
  if ((side != 'L' && side != 'R') || (uplo != 'L' && uplo != 'U') ||
      (trans != 'N' && trans != 'T' && trans != 'C') || (diag != 'N' && diag != 'U'))
    return fail(in, c->target, err,
                "needs the attributes side (L/R), uplo (L/U), trans_x (N/T/C) and diag (N/U) as "
                "character codes");
  c->side = (char)side, c->uplo = (char)uplo, c->trans = (char)trans, c->diag = (char)diag;
  return true;
}

static bool check_layout(const Instr *in, const char *target, const Shape *rs, Error *err) {
  const Attr *olc = ir_attr(in, ATTR_OPERAND_LAYOUT_CONSTRAINTS);
  if (olc && olc->kind == AV_SHAPE_LIST && olc->v.shapes.n == 1 &&
      (!jax_layout(&olc->v.shapes.v[0]) || !jax_layout(&rs->tuple[0])))
    return fail(in, target, err,
                "the matrices must be laid out column-major with batch dimensions major (layout "
                "{r-2, r-1, r-3, ..., 0})");
  return true;
}

/* jaxlib's GPU LU (cuSOLVER getrf or cuBLAS getrfBatched, the same
 * partial-pivoting factorization): (lu, ipiv, info[, workspace]) of a
 * float or complex matrix array, as lapack_?getrf_ffi. */
static bool gpu_getrf_call(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                           const Shape *rs, Value **out, Error *err) {
  const Shape *as = in->noperands == 1 ? &in->operands[0]->shape : NULL;
  if (!as || !shape_is_tuple(rs) || rs->ntuple < 3 || rs->ntuple > 4 || !shape_is_array(as))
    return fail(in, target, err, "takes one matrix array and returns (lu, ipiv, info[, workspace])");
  LapackCall c = {.target = target, .potrf = false, .et = as->etype, .nleaves = rs->ntuple,
                  .info_leaf = 2, .ws_leaf = rs->ntuple == 4 ? 3 : -1};
  if (c.et != ET_F32 && c.et != ET_F64 && c.et != ET_C64 && c.et != ET_C128)
    return fail(in, target, err, "the matrix must be f32, f64, c64 or c128");
  if (!check_layout(in, target, rs, err)) return false;
  return eval_kernel_op(ctx, fr, in, rs, 1, lapack_kernel, &c, out, err);
}

/* XLA:GPU's Cholesky (cusolver_rewriter): __cusolver$cholesky(a) ->
 * (factor, workspace, info) with CholeskyOptions {"lower": ...} (false
 * when absent) -- potrf on each matrix as above, the workspace zeroed. */
static bool cusolver_cholesky(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                              Value **out, Error *err) {
  const char *target = "__cusolver$cholesky";
  const Shape *as = in->noperands == 1 ? &in->operands[0]->shape : NULL;
  if (!as || !shape_is_tuple(rs) || rs->ntuple != 3 || !shape_is_array(as))
    return fail(in, target, err, "takes one matrix array and returns (factor, workspace, info)");
  LapackCall c = {.target = target, .potrf = true, .et = as->etype, .nleaves = 3, .info_leaf = 2,
                  .ws_leaf = 1};
  if (c.et != ET_F32 && c.et != ET_F64 && c.et != ET_C64 && c.et != ET_C128)
    return fail(in, target, err, "the matrix must be f32, f64, c64 or c128");
  if (!check_layout(in, target, rs, err)) return false;
  BackendConfig bc;
  if (!backend_config_read(in, target, &SCHEMA_CHOLESKY, NULL, NULL, &bc, err)) return false;
  c.uplo = bc_bool(&bc, "lower") ? 'L' : 'U';
  backend_config_free(&bc);
  return eval_kernel_op(ctx, fr, in, rs, 1, lapack_kernel, &c, out, err);
}

bool eval_lapack(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target, const Shape *rs,
                 Value **out, Error *err) {
  if (!strcmp(target, "__cusolver$cholesky")) return cusolver_cholesky(ctx, fr, in, rs, out, err);
  if (gpu_getrf(target)) return gpu_getrf_call(ctx, fr, in, target, rs, out, err);
  const char *name = routine(target);
  LapackCall c = {.target = target, .potrf = !strcmp(name, "potrf_ffi"),
                  .et = letter_type(name[-1])};
  c.nleaves = c.potrf ? 2 : 3;
  c.info_leaf = c.potrf ? 1 : 2;
  c.ws_leaf = -1;
  if (!strcmp(name, "trsm_ffi")) {
    if (in->noperands != 3 || !shape_is_array(rs))
      return fail(in, target, err, "takes a, b and alpha and returns one array");
    const Attr *olc = ir_attr(in, ATTR_OPERAND_LAYOUT_CONSTRAINTS);
    if (olc && olc->kind == AV_SHAPE_LIST && olc->v.shapes.n == 3 &&
        (!jax_layout(&olc->v.shapes.v[0]) || !jax_layout(&olc->v.shapes.v[1]) || !jax_layout(rs)))
      return fail(in, target, err,
                  "the matrices must be laid out column-major with batch dimensions major (JAX's "
                  "layout {r-2, r-1, r-3, ..., 0})");
    if (!trsm_attrs(in, &c, err)) return false;
    return eval_kernel_op(ctx, fr, in, rs, 3, trsm_kernel, &c, out, err);
  }
  if (in->noperands != 1 || !shape_is_tuple(rs) || rs->ntuple != (c.potrf ? 2 : 3))
    return fail(in, target, err,
                c.potrf ? "takes one matrix array and returns (factor, info)"
                        : "takes one matrix array and returns (lu, ipiv, info)");
  if (!check_layout(in, target, rs, err)) return false;
  if (c.potrf) {
    bool oom;
    char *s = backend_json_text(in, &oom);
    if (oom) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    int u = s ? char_attr(s, "uplo") : 0;
    free(s);
    if (u != 'L' && u != 'U')
      return fail(in, target, err, "needs the attribute uplo = 76 ('L') or 85 ('U')");
    c.uplo = (char)u;
  }
  return eval_kernel_op(ctx, fr, in, rs, 1, lapack_kernel, &c, out, err);
}
