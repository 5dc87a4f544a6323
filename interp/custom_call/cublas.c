/* cuBLAS gemm custom calls, as XLA:GPU's gemm rewriter builds them and its
 * thunks read them.  Both compute dot(a, b) with the GemmBackendConfig's
 * dot_dimension_numbers in dot's compute type (f32 for f16/bf16/f32, f64,
 * c64, c128), then:
 *   __cublas$gemm(a, b[, c])  -> alpha * ab + beta * c, the scaling done in
 *       the compute type; epilogue DEFAULT only (the rewriter fuses
 *       epilogues into cublasLt calls only); c is read when beta != 0;
 *   __cublas$lt$matmul(a, b[, c][, bias]) -> d[, aux]:
 *       v = alpha * ab + beta * c + bias, d = act(v), aux = v, where c is an
 *       operand exactly when beta != 0, bias (epilogues BIAS*) is a vector
 *       over b's non-contracting dimensions (the trailing result dimensions)
 *       broadcast over the rest, act is relu (RELU, BIAS_RELU) or the tanh
 *       GELU approximation the rewriter matches (GELU*), and aux is a result
 *       for the *_AUX epilogues only.  Real types evaluate v and act in f64,
 *       rounded to the compute type and then to the result type (cuBLASLt
 *       holds the epilogue in f32 for narrow floats); complex ones take
 *       DEFAULT only.
 * A trailing workspace result (u8/s8[N]) is zeroed.
 *
 * __cublas$triangularSolve(a, b) -> (x, s8[N] workspace) is the HLO
 * triangular-solve XLA's triangular_solve_rewriter replaced, with its
 * TriangularSolveOptions as the JSON backend_config (left_side, lower,
 * unit_diagonal: false when absent; transpose_a by name or number, default
 * NO_TRANSPOSE), computed by kernels/k_linalg.h. */
#include "interp/custom_call/cublas.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/backend_json.h"
#include "interp/custom_call/backend_schemas.h"
#include "interp/eval_views.h"
#include "kernels/k_dot.h"
#include "kernels/k_linalg.h"
#include "kernels/kernels.h"

/* GemmBackendConfig.Epilogue, in enum order. */
enum { EPI_DEFAULT, EPI_BIAS, EPI_RELU, EPI_BIAS_RELU, EPI_GELU, EPI_GELU_AUX, EPI_BIAS_GELU,
       EPI_BIAS_GELU_AUX, EPI_COUNT };

/* n leading sizes equal (dims may be NULL when n is 0). */
static bool dims_eq(const int64_t *a, const int64_t *b, int n) {
  return n <= 0 || !memcmp(a, b, sizeof(int64_t) * (size_t)n);
}

static bool epi_bias(int e) {
  return e == EPI_BIAS || e == EPI_BIAS_RELU || e == EPI_BIAS_GELU || e == EPI_BIAS_GELU_AUX;
}
static bool epi_aux(int e) { return e == EPI_GELU_AUX || e == EPI_BIAS_GELU_AUX; }

typedef struct GemmConfig {
  double alpha_re, alpha_im, beta;
  int nlb, nrb, nlc, nrc;
  int64_t lb[SHAPE_MAX_RANK], rb[SHAPE_MAX_RANK], lc[SHAPE_MAX_RANK], rc[SHAPE_MAX_RANK];
  int epilogue;
  char epilogue_name[32];
} GemmConfig;

bool eval_cublas_known(const char *target) {
  return !strcmp(target, "__cublas$gemm") || !strcmp(target, "__cublas$lt$matmul") ||
         !strcmp(target, "__cublas$triangularSolve");
}

/* The GemmBackendConfig (bare or inside GpuBackendConfig), checked field
 * by field (interp/custom_call/backend_schemas.c); the epilogue DEFAULT when absent. */
static bool gemm_config(const Instr *in, const char *target, GemmConfig *g, Error *err) {
  BackendConfig bc;
  if (!backend_config_read(in, target, &SCHEMA_GEMM, &SCHEMA_GPU_GEMM, "gemm_backend_config",
                           &bc, err))
    return false;
  memset(g, 0, sizeof *g);
  bool ok = true;
  if (!bc_present(&bc, "dot_dimension_numbers"))
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "%s needs a GemmBackendConfig backend_config with "
                   "dot_dimension_numbers", target);
  int prec[8];
  const char *prec_path = "precision_config.operand_precision";
  int np = ok ? bc_enums(&bc, prec_path, &ENUM_PRECISION, prec, 8) : 0;
  if (np < 0)
    ok = bc_unsupported(in, target, &bc, prec_path, NULL,
                        "a dot has two operand precisions", err);
  for (int i = 0; ok && i < np; i++)
    if (prec[i] == 3) /* PACKED_NIBBLE: a different product, not a precision */
      ok = bc_unsupported(in, target, &bc, prec_path, NULL,
                          "PACKED_NIBBLE is not implemented for gemms", err);
  if (ok) {
    /* XLA always writes alpha_real; absent reads as 1, not proto3's 0 */
    g->alpha_re = bc_double(&bc, "alpha_real", 1);
    g->alpha_im = bc_double(&bc, "alpha_imag", 0);
    g->beta = bc_double(&bc, "beta", 0);
    g->epilogue = bc_enum(&bc, "epilogue", &ENUM_EPILOGUE, EPI_DEFAULT);
    snprintf(g->epilogue_name, sizeof g->epilogue_name, "%s", ENUM_EPILOGUE.names[g->epilogue]);
    g->nlb = bc_ints(&bc, "dot_dimension_numbers.lhs_batch_dimensions", g->lb, SHAPE_MAX_RANK);
    g->nrb = bc_ints(&bc, "dot_dimension_numbers.rhs_batch_dimensions", g->rb, SHAPE_MAX_RANK);
    g->nlc = bc_ints(&bc, "dot_dimension_numbers.lhs_contracting_dimensions", g->lc,
                     SHAPE_MAX_RANK);
    g->nrc = bc_ints(&bc, "dot_dimension_numbers.rhs_contracting_dimensions", g->rc,
                     SHAPE_MAX_RANK);
    if (g->nlb < 0 || g->nrb < 0 || g->nlc < 0 || g->nrc < 0 || g->nlb != g->nrb ||
        g->nlc != g->nrc)
      ok = error_set(err, ERR_RUNTIME, in->offset,
                     "%s: backend_config field \"dot_dimension_numbers\": "
                     "lhs and rhs must list as many batch (and contracting) dimensions, at most "
                     "%d", target, SHAPE_MAX_RANK);
  }
  if (ok && !strcmp(target, "__cublas$gemm") && g->epilogue != EPI_DEFAULT)
    ok = bc_unsupported(in, target, &bc, "epilogue", &ENUM_EPILOGUE,
                        "XLA fuses epilogues into __cublas$lt$matmul only", err);
  backend_config_free(&bc);
  return ok;
}

/* acc (n elements of ct) = alpha * acc + beta * c (c NULL: beta term 0),
 * in the compute type (__cublas$gemm). */
static void gemm_scale(EType ct, void *acc, const void *c, int64_t n, const GemmConfig *g) {
  if (etype_is_complex(ct)) {
    for (int64_t i = 0; i < n; i++) {
      double x, y, cx = 0, cy = 0;
      if (ct == ET_C64) {
        x = ((float *)acc)[2 * i], y = ((float *)acc)[2 * i + 1];
        if (c) cx = ((const float *)c)[2 * i], cy = ((const float *)c)[2 * i + 1];
      } else {
        x = ((double *)acc)[2 * i], y = ((double *)acc)[2 * i + 1];
        if (c) cx = ((const double *)c)[2 * i], cy = ((const double *)c)[2 * i + 1];
      }
      double re = g->alpha_re * x - g->alpha_im * y + g->beta * cx;
      double im = g->alpha_re * y + g->alpha_im * x + g->beta * cy;
      if (ct == ET_C64) ((float *)acc)[2 * i] = (float)re, ((float *)acc)[2 * i + 1] = (float)im;
      else ((double *)acc)[2 * i] = re, ((double *)acc)[2 * i + 1] = im;
    }
  } else if (ct == ET_F32) {
    float al = (float)g->alpha_re, be = (float)g->beta, *a = acc;
    for (int64_t i = 0; i < n; i++) a[i] = al * a[i] + (c ? be * ((const float *)c)[i] : 0.0f);
  } else {
    double *a = acc;
    for (int64_t i = 0; i < n; i++) a[i] = g->alpha_re * a[i] + (c ? g->beta * ((const double *)c)[i] : 0.0);
  }
}

/* cuBLASLt's GELU: the tanh approximation. */
static double gelu_tanh(double x) {
  const double k = 0.7978845608028654; /* sqrt(2 / pi) */
  return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

static int64_t count(const KArray *a) {
  int64_t n = 1;
  for (int d = 0; d < a->rank; d++) n *= a->dims[d];
  return n;
}

/* The real cublasLt epilogue: d = act(alpha * acc + beta * c + bias), aux
 * the pre-activation value; evaluated in f64, rounded to the compute type
 * (what the GPU holds: f32 for narrow floats), then to the result's. */
static bool lt_epilogue(const GemmConfig *g, EType ct, void *acc, const KArray *c,
                        const KArray *bias, KArray *d, KArray *aux, Error *err) {
  int64_t n = count(d), nb = bias ? count(bias) : 1;
  double *v = malloc((size_t)(n ? n : 1) * sizeof(double));
  double *cv = c ? malloc((size_t)(n ? n : 1) * sizeof(double)) : NULL;
  double *bv = bias ? malloc((size_t)(nb ? nb : 1) * sizeof(double)) : NULL;
  bool ok = v && (!c || cv) && (!bias || bv);
  if (!ok) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  ok = ok && k_convert(ET_F64, v, ct, acc, n, err) &&
       (!c || k_convert(ET_F64, cv, c->etype, c->data, n, err)) &&
       (!bias || k_convert(ET_F64, bv, bias->etype, bias->data, nb, err));
  for (int64_t i = 0; ok && i < n; i++) {
    double x = g->alpha_re * v[i];
    if (c) x += g->beta * cv[i];
    if (bias) x += bv[i % nb];
    v[i] = x;
  }
  if (ok && aux)
    ok = k_convert(ct, acc, ET_F64, v, n, err) && k_convert(aux->etype, aux->data, ct, acc, n, err);
  bool relu = g->epilogue == EPI_RELU || g->epilogue == EPI_BIAS_RELU;
  bool gelu = g->epilogue >= EPI_GELU;
  for (int64_t i = 0; ok && (relu || gelu) && i < n; i++)
    v[i] = relu ? (v[i] < 0 ? 0.0 : v[i]) : gelu_tanh(v[i]);
  ok = ok && k_convert(ct, acc, ET_F64, v, n, err) && k_convert(d->etype, d->data, ct, acc, n, err);
  free(v);
  free(cv);
  free(bv);
  return ok;
}

static bool same_dims(const KArray *a, const KArray *b) {
  return a->rank == b->rank && dims_eq(a->dims, b->dims, a->rank);
}

/* The bias covers b's non-contracting dimensions: the trailing ones of the
 * result. */
static bool check_bias(const Instr *in, const char *target, const GemmConfig *g, const KArray *b,
                       const KArray *bias, const KArray *d, Error *err) {
  int nf = b->rank - g->nrb - g->nrc;
  bool ok = etype_is_float(bias->etype) && nf >= 0 && bias->rank == nf && nf <= d->rank &&
            (nf == 0 || dims_eq(bias->dims, d->dims + (d->rank - nf), nf));
  if (!ok)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s: the bias must be a float array of b's non-contracting "
                     "dimensions (the result's last %d)",
                     target, nf);
  return true;
}

/* --- __cublas$triangularSolve --- */

static bool trsm_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                        int nouts, Error *err) {
  (void)in;
  for (int i = 1; i < nouts; i++) { /* workspace */
    int64_t m = count(&outs[i]);
    if (m > 0) memset(outs[i].data, 0, (size_t)m * (size_t)etype_storage_bytes(outs[i].etype));
  }
  return k_triangular_solve(&ins[0], &ins[1], arg, &outs[0], err);
}

static bool triangular_solve(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  static const char *const target = "__cublas$triangularSolve";
  if (in->noperands != 2)
    return error_set(err, ERR_RUNTIME, in->offset, "%s takes a and b",
                     target);
  BackendConfig bc;
  if (!backend_config_read(in, target, &SCHEMA_TRIANGULAR_SOLVE, NULL, NULL, &bc, err))
    return false;
  KTriSolveParams p = {bc_bool(&bc, "left_side"), bc_bool(&bc, "lower"),
                       bc_bool(&bc, "unit_diagonal"), K_TRANS_NO};
  /* absent (TRANSPOSE_INVALID) reads as NO_TRANSPOSE, as XLA's solver */
  int t = bc_enum(&bc, "transpose_a", &ENUM_TRANSPOSE, 1);
  bool ok = true;
  if (t == 2) p.transpose_a = K_TRANS_T;
  else if (t == 3) p.transpose_a = K_TRANS_ADJOINT;
  else if (t != 1 && bc_present(&bc, "transpose_a"))
    ok = bc_unsupported(in, target, &bc, "transpose_a", &ENUM_TRANSPOSE,
                        "supported: NO_TRANSPOSE, TRANSPOSE, ADJOINT", err);
  backend_config_free(&bc);
  if (!ok) return false;
  return eval_kernel_op(ctx, fr, in, rs, 2, trsm_kernel, &p, out, err);
}

bool eval_cublas_gemm(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                      const Shape *rs, Value **out, Error *err) {
  if (!strcmp(target, "__cublas$triangularSolve"))
    return triangular_solve(ctx, fr, in, rs, out, err);
  GemmConfig g;
  if (!gemm_config(in, target, &g, err)) return false;
  bool lt = !strcmp(target, "__cublas$lt$matmul");
  bool has_c = g.beta != 0, has_bias = epi_bias(g.epilogue), has_aux = epi_aux(g.epilogue);
  int nin = 2 + has_c + has_bias;
  if (lt ? in->noperands != nin : (in->noperands < nin || in->noperands > 3))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s takes a, b%s%s (beta %g, epilogue %s), not %d operands",
                     target, has_c ? ", c" : "", has_bias ? ", bias" : "", g.beta,
                     g.epilogue_name, in->noperands);
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  ok = ok && eval_view_operands(ctx, fr, in, nin, &vs, err);
  ok = ok && eval_outs_new(ctx, in, rs, &o, err);
  if (ok && o.n < 1 + has_aux)
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "%s with epilogue %s returns (d, aux[, workspace])",
                   target, g.epilogue_name);
  if (!ok) {
    eval_views_free(&vs);
    return eval_outs_close(ctx, rs, &o, false, out, err);
  }
  KArray *r = &o.a[0], *aux = has_aux ? &o.a[1] : NULL;
  const KArray *c = has_c ? &vs.a[2] : NULL, *bias = has_bias ? &vs.a[2 + has_c] : NULL;
  EType ct = k_dot_compute_type(vs.a[0].etype, vs.a[1].etype, r->etype);
  int64_t n = count(r);
  if (!etype_is_float(ct) && !etype_is_complex(ct))
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "%s of %s: only float and complex gemms", target,
                   etype_name(r->etype));
  if (ok && etype_is_complex(ct) && g.epilogue != EPI_DEFAULT)
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "%s: backend_config field \"epilogue\": value \"%s\" is not "
                   "supported; complex gemms take DEFAULT only", target,
                   g.epilogue_name);
  if (ok && c && !same_dims(c, r))
    ok = error_set(err, ERR_RUNTIME, in->offset, "%s: c must have the result's shape",
                   target);
  if (ok && aux && (!same_dims(aux, r) || !etype_is_float(aux->etype)))
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "%s: aux must be a float array of the result's shape",
                   target);
  if (ok && bias) ok = check_bias(in, target, &g, &vs.a[1], bias, r, err);
  int cs = etype_storage_bytes(ct);
  void *acc = ok ? malloc((size_t)(n ? n : 1) * (size_t)cs) : NULL;
  if (ok && !acc) ok = error_set(err, ERR_RUNTIME, in->offset, "out of memory");
  if (ok) {
    KDotDims dn = {g.nlb, g.lb, g.rb, g.nlc, g.lc, g.rc};
    KArray ka = *r;
    ka.etype = ct;
    ka.data = acc;
    ok = k_dot(&vs.a[0], &vs.a[1], &dn, &ka, err);
  }
  if (ok && lt && !etype_is_complex(ct)) {
    ok = lt_epilogue(&g, ct, acc, c, bias, r, aux, err);
  } else if (ok) {
    void *cc = c ? malloc((size_t)(n ? n : 1) * (size_t)cs) : NULL;
    if (c && !cc) ok = error_set(err, ERR_RUNTIME, in->offset, "out of memory");
    ok = ok && (!c || k_convert(ct, cc, c->etype, c->data, n, err));
    if (ok && (g.alpha_re != 1 || g.alpha_im != 0 || c)) gemm_scale(ct, acc, cc, n, &g);
    ok = ok && k_convert(r->etype, r->data, ct, acc, n, err);
    free(cc);
  }
  for (int i = 1 + has_aux; ok && i < o.n; i++) { /* workspace */
    int64_t m = count(&o.a[i]);
    if (m > 0) memset(o.a[i].data, 0, (size_t)m * (size_t)etype_storage_bytes(o.a[i].etype));
  }
  free(acc);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
