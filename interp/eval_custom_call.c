/* Well-known custom-call targets:
 *   TopK           -- XLA's top-k custom call (eval_sort.c);
 *   __cublas$gemm  -- XLA's GPU gemm: alpha * dot(lhs, rhs) + beta * c from
 *                     the GemmBackendConfig JSON (dot dimension numbers,
 *                     alpha_real/alpha_imag, beta, epilogue DEFAULT only),
 *                     computed in dot's compute type and rounded once; a
 *                     tuple result is (result, workspace), the workspace
 *                     zeroed;
 *   AllocateBuffer -- an uninitialised buffer of the result shape (zeros);
 *   PadToStatic    -- (data, size of each dimension): values carry no
 *                     dynamic sizes here, so every size is the bound;
 *   xla_builder.math.{Acos,Acosh,Asin,Asinh,Atan,Cosh}
 *                  -- XlaBuilder's math helpers, elementwise on one
 *                     float/complex operand: C libm for f32/f64 (narrower
 *                     floats computed in f32 and rounded once), <complex.h>
 *                     for c64/c128. */
#include "interp/eval_custom_call.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmplx.h"
#include "interp/eval_builder_lib.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "interp/eval_sort.h"
#include "kernels/k_dot.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"

static bool pad_to_static(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                          Value **out, Error *err) {
  const Value *src = frame_operand(fr, in, 0);
  if (in->noperands != 1 || !src->info || !shape_is_tuple(rs) ||
      rs->ntuple != 1 + src->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: PadToStatic takes one array and returns (data, sizes...)",
                     in->name);
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, src, in, err) && eval_outs_new(ctx, in, rs, &o, err);
  if (ok) memcpy(o.a[0].data, vs.a[0].data, (size_t)src->info->dense_bytes);
  for (int i = 1; ok && i < o.n; i++) {
    if (o.a[i].rank != 0 || !etype_is_int(o.a[i].etype)) {
      ok = error_set(err, ERR_RUNTIME, in->offset, "instruction %s: sizes must be integer scalars",
                     in->name);
      break;
    }
    etype_store_int(o.a[i].etype, src->info->dims[i - 1], o.a[i].data);
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* --- __cublas$gemm --- */

/* The value of JSON key `key` in s (the first occurrence at any depth:
 * GemmBackendConfig's keys are distinct), just past its ':', or NULL.  s has
 * had its string escapes removed. */
static const char *json_value(const char *s, const char *key) {
  size_t n = strlen(key);
  for (const char *p = strchr(s, '"'); p; p = strchr(p + 1, '"')) {
    if (strncmp(p + 1, key, n) || p[1 + n] != '"') continue;
    const char *q = p + 2 + n;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (*q == ':') return q + 1;
  }
  return NULL;
}

static const char *json_skip_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  return p;
}

/* A number, written bare or (proto int64) as a string. */
static bool json_number(const char *s, const char *key, double dflt, double *v) {
  const char *p = json_value(s, key);
  *v = dflt;
  if (!p) return true;
  p = json_skip_ws(p);
  if (*p == '"') p++;
  char *end;
  *v = strtod(p, &end);
  return end != p;
}

/* A list of integers ("1" or 1), at most max. */
static bool json_ints(const char *s, const char *key, int64_t *v, int max, int *n) {
  const char *p = json_value(s, key);
  *n = 0;
  if (!p) return true;
  p = json_skip_ws(p);
  if (*p++ != '[') return false;
  for (;;) {
    p = json_skip_ws(p);
    if (*p == ']') return true;
    if (*p == ',') { p++; continue; }
    if (*p == '"') p++;
    char *end;
    long long x = strtoll(p, &end, 10);
    if (end == p || *n >= max) return false;
    v[(*n)++] = x;
    p = end;
    if (*p == '"') p++;
  }
}

typedef struct GemmConfig {
  double alpha_re, alpha_im, beta;
  int nlb, nrb, nlc, nrc;
  int64_t lb[SHAPE_MAX_RANK], rb[SHAPE_MAX_RANK], lc[SHAPE_MAX_RANK], rc[SHAPE_MAX_RANK];
  char epilogue[32];
} GemmConfig;

static bool gemm_config(const Instr *in, GemmConfig *g, Error *err) {
  const Attr *a = ir_attr(in, ATTR_BACKEND_CONFIG);
  if (!a || (a->kind != AV_STRING_OR_RAW && a->kind != AV_STRING) || !a->v.s)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: __cublas$gemm needs a GemmBackendConfig backend_config",
                     in->name);
  size_t len = strlen(a->v.s);
  char *s = malloc(len + 1), *w = s;
  if (!s) return error_set(err, ERR_RUNTIME, in->offset, "out of memory");
  for (const char *r = a->v.s; *r; r++)
    if (!(*r == '\\' && r[1] == '"')) *w++ = *r; /* \" -> " */
  *w = 0;
  memset(g, 0, sizeof *g);
  strcpy(g->epilogue, "DEFAULT");
  const char *e = json_value(s, "epilogue");
  if (e) {
    e = json_skip_ws(e);
    size_t k = 0;
    if (*e == '"')
      for (e++; *e && *e != '"' && k + 1 < sizeof g->epilogue; e++) g->epilogue[k++] = *e;
    g->epilogue[k] = 0;
  }
  bool ok = json_value(s, "dot_dimension_numbers") &&
            json_number(s, "alpha_real", 1, &g->alpha_re) &&
            json_number(s, "alpha_imag", 0, &g->alpha_im) && json_number(s, "beta", 0, &g->beta) &&
            json_ints(s, "lhs_batch_dimensions", g->lb, SHAPE_MAX_RANK, &g->nlb) &&
            json_ints(s, "rhs_batch_dimensions", g->rb, SHAPE_MAX_RANK, &g->nrb) &&
            json_ints(s, "lhs_contracting_dimensions", g->lc, SHAPE_MAX_RANK, &g->nlc) &&
            json_ints(s, "rhs_contracting_dimensions", g->rc, SHAPE_MAX_RANK, &g->nrc);
  free(s);
  if (!ok || g->nlb != g->nrb || g->nlc != g->nrc)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: __cublas$gemm: unreadable GemmBackendConfig (alpha, beta, "
                     "dot_dimension_numbers)", in->name);
  if (strcmp(g->epilogue, "DEFAULT"))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: __cublas$gemm epilogue %s is not supported (only DEFAULT)",
                     in->name, g->epilogue);
  return true;
}

/* acc (n elements of ct) = alpha * acc + beta * c (c NULL: beta term 0). */
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

static bool cublas_gemm(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                        Error *err) {
  GemmConfig g;
  if (!gemm_config(in, &g, err)) return false;
  int nin = g.beta != 0 ? 3 : 2;
  if (in->noperands < nin || in->noperands > 3)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: __cublas$gemm takes lhs, rhs%s", in->name,
                     nin == 3 ? " and c (beta is not 0)" : " (and c when beta is not 0)");
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  for (int i = 0; i < nin && ok; i++) ok = eval_view(ctx, &vs, frame_operand(fr, in, i), in, err);
  ok = ok && eval_outs_new(ctx, in, rs, &o, err);
  if (!ok) {
    eval_views_free(&vs);
    return eval_outs_close(ctx, rs, &o, false, out, err);
  }
  KArray *r = &o.a[0];
  EType ct = k_dot_compute_type(vs.a[0].etype, vs.a[1].etype, r->etype);
  int64_t n = 1;
  for (int d = 0; d < r->rank; d++) n *= r->dims[d];
  if (!etype_is_float(ct) && !etype_is_complex(ct))
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "instruction %s: __cublas$gemm of %s: only float and complex gemms", in->name,
                   etype_name(r->etype));
  if (ok && nin == 3 && (vs.a[2].rank != r->rank || memcmp(vs.a[2].dims, r->dims, sizeof(int64_t) * (size_t)r->rank)))
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "instruction %s: __cublas$gemm: c must have the result's shape", in->name);
  int cs = etype_storage_bytes(ct);
  void *acc = ok ? malloc((size_t)(n ? n : 1) * (size_t)cs) : NULL,
       *c = ok && nin == 3 ? malloc((size_t)(n ? n : 1) * (size_t)cs) : NULL;
  if (ok && (!acc || (nin == 3 && !c))) ok = error_set(err, ERR_RUNTIME, in->offset, "out of memory");
  if (ok) {
    KDotDims dn = {g.nlb, g.lb, g.rb, g.nlc, g.lc, g.rc};
    KArray ka = *r;
    ka.etype = ct;
    ka.data = acc;
    ok = k_dot(&vs.a[0], &vs.a[1], &dn, &ka, err) &&
         (nin < 3 || k_convert(ct, c, vs.a[2].etype, vs.a[2].data, n, err));
  }
  if (ok) {
    if (g.alpha_re != 1 || g.alpha_im != 0 || nin == 3) gemm_scale(ct, acc, c, n, &g);
    ok = k_convert(r->etype, r->data, ct, acc, n, err);
  }
  for (int i = 1; ok && i < o.n; i++) { /* workspace */
    int64_t m = 1;
    for (int d = 0; d < o.a[i].rank; d++) m *= o.a[i].dims[d];
    if (m > 0) memset(o.a[i].data, 0, (size_t)m * (size_t)etype_storage_bytes(o.a[i].etype));
  }
  free(acc);
  free(c);
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* --- xla_builder.math.* --- */

typedef struct MathFn {
  const char *name;
  float (*f)(float);
  double (*d)(double);
  float complex (*cf)(float complex);
  double complex (*cd)(double complex);
} MathFn;

static const MathFn math_fns[] = {
    {"Acos", acosf, acos, cacosf, cacos},     {"Acosh", acoshf, acosh, cacoshf, cacosh},
    {"Asin", asinf, asin, casinf, casin},     {"Asinh", asinhf, asinh, casinhf, casinh},
    {"Atan", atanf, atan, catanf, catan},     {"Cosh", coshf, cosh, ccoshf, ccosh},
};

static bool builder_math(EvalCtx *ctx, Frame *fr, const Instr *in, const MathFn *m,
                         const Shape *rs, Value **out, Error *err) {
  const Value *src = in->noperands == 1 ? frame_operand(fr, in, 0) : NULL;
  if (!src || !src->info || !shape_is_array(rs))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: xla_builder.math.%s takes one array and returns one",
                     in->name, m->name);
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, src, in, err) && eval_outs_new(ctx, in, rs, &o, err);
  const KArray *a = ok ? &vs.a[0] : NULL;
  KArray *r = ok ? &o.a[0] : NULL;
  int64_t n = 1;
  if (ok) {
    for (int d = 0; d < r->rank; d++) n *= r->dims[d];
    if (a->etype != r->etype || a->rank != r->rank ||
        (r->rank > 0 && memcmp(a->dims, r->dims, sizeof(int64_t) * (size_t)r->rank)))
      ok = error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: xla_builder.math.%s: the result must have the operand's shape",
                     in->name, m->name);
    else if (!etype_is_float(r->etype) && !etype_is_complex(r->etype))
      ok = error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: xla_builder.math.%s of %s: only float and complex types",
                     in->name, m->name, etype_name(r->etype));
  }
  if (ok) {
    EType t = r->etype;
    if (t == ET_F32) {
      const float *x = a->data;
      float *y = r->data;
      for (int64_t i = 0; i < n; i++) y[i] = m->f(x[i]);
    } else if (t == ET_F64) {
      const double *x = a->data;
      double *y = r->data;
      for (int64_t i = 0; i < n; i++) y[i] = m->d(x[i]);
    } else if (t == ET_C64) {
      const float *x = a->data;
      float *y = r->data;
      for (int64_t i = 0; i < n; i++) {
        float complex z = m->cf(CMPLXF(x[2 * i], x[2 * i + 1]));
        y[2 * i] = crealf(z);
        y[2 * i + 1] = cimagf(z);
      }
    } else if (t == ET_C128) {
      const double *x = a->data;
      double *y = r->data;
      for (int64_t i = 0; i < n; i++) {
        double complex z = m->cd(CMPLX(x[2 * i], x[2 * i + 1]));
        y[2 * i] = creal(z);
        y[2 * i + 1] = cimag(z);
      }
    } else if (etype_is_float(t)) {
      int es = etype_storage_bytes(t);
      const char *x = a->data;
      char *y = r->data;
      for (int64_t i = 0; i < n; i++)
        etype_store_f32(t, m->f(etype_load_f32(t, x + i * es)), y + i * es);
    } else {
      ok = error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: xla_builder.math.%s of %s is not supported", in->name,
                     m->name, etype_name(t));
    }
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

bool eval_custom_call_known(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                            const Shape *rs, Value **out, bool *handled, Error *err) {
  *handled = true;
  if (!strcmp(target, "TopK")) return eval_topk_custom_call(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "PadToStatic")) return pad_to_static(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "__cublas$gemm")) return cublas_gemm(ctx, fr, in, rs, out, err);
  if (!strncmp(target, "xla_builder.math.", 17))
    for (size_t i = 0; i < sizeof math_fns / sizeof math_fns[0]; i++)
      if (!strcmp(target + 17, math_fns[i].name))
        return builder_math(ctx, fr, in, &math_fns[i], rs, out, err);
  if (eval_builder_lib_known(target)) return eval_builder_lib(ctx, fr, in, target, rs, out, err);
  if (!strcmp(target, "AllocateBuffer") && shape_is_array(rs)) {
    char who[300];
    eval_who(in, who, sizeof who);
    return value_new_array(&ctx->vc, rs, true, who, out, err);
  }
  *handled = false;
  return false;
}
