/* Well-known custom-call targets:
 *   TopK           -- XLA's top-k custom call (eval_sort.c);
 *   PartialReduce  -- the TPU approximate top-k stage XLA's ApproxTopK
 *                     emits (eval_partial_reduce.c);
 *   __cublas$gemm  -- XLA's GPU gemm: alpha * dot(lhs, rhs) + beta * c from
 *                     the GemmBackendConfig JSON (dot dimension numbers,
 *                     alpha_real/alpha_imag, beta, epilogue DEFAULT only),
 *                     computed in dot's compute type and rounded once; a
 *                     tuple result is (result, workspace), the workspace
 *                     zeroed;
 *   AllocateBuffer -- an uninitialised buffer of the result shape (zeros);
 *   PadToStatic    -- (data with its padding zeroed, size of each
 *                     dimension);
 *   SliceToDynamic -- (data, sizes...) -> data with those dynamic sizes
 *                     (interp/eval_dynamic.h);
 *   xla_builder.math.*
 *                  -- XlaBuilder's math helpers (eval_builder_math.c);
 *   xla_builder.{matrix.Einsum, matrix.GetMatrixDiagonalViaGather,
 *                prng.ScramblePhiloxKey, tridiagonal.TridiagonalSolver}
 *                  -- other XlaBuilder helpers (eval_builder_lib.c). */
#include "interp/eval_custom_call.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmplx.h"
#include "interp/backend_json.h"
#include "interp/eval_builder_math.h"
#include "interp/eval_builder_lib.h"
#include "interp/eval_cudnn.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "interp/eval_partial_reduce.h"
#include "interp/eval_sort.h"
#include "kernels/k_dot.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"

/* PadToStatic(x) -> (data, size of each dimension): the data at x's bounds
 * with its padding zeroed (XLA leaves it unspecified), sizes as the result's
 * integer scalars. */
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
  if (ok && (o.a[0].etype != src->info->etype || o.a[0].rank != src->info->rank ||
             memcmp(o.a[0].dims, src->info->dims, sizeof(int64_t) * (size_t)src->info->rank)))
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "instruction %s: PadToStatic's data must have the operand's bounds", in->name);
  if (ok) {
    const ArrayInfo *ai = src->info;
    char *d = o.a[0].data;
    memcpy(d, vs.a[0].data, (size_t)ai->dense_bytes);
    int64_t idx[SHAPE_MAX_RANK] = {0};
    for (int64_t i = 0; src->dyn && i < ai->elements; i++) {
      bool pad = false;
      for (int k = 0; k < ai->rank && !pad; k++) pad = idx[k] >= src->dyn[k];
      if (pad) memset(d + i * ai->esize, 0, (size_t)ai->esize);
      for (int k = ai->rank - 1; k >= 0 && ++idx[k] == ai->dims[k]; k--) idx[k] = 0;
    }
  }
  for (int i = 1; ok && i < o.n; i++) {
    if (o.a[i].rank != 0 || !etype_is_int(o.a[i].etype)) {
      ok = error_set(err, ERR_RUNTIME, in->offset, "instruction %s: sizes must be integer scalars",
                     in->name);
      break;
    }
    etype_store_int(o.a[i].etype, value_dim_size(src, i - 1), o.a[i].data);
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* SliceToDynamic(data, size_0, ..., size_{r-1}) -> data as a dynamic array:
 * element (i, j, ...) of the result is element (i, j, ...) of data for
 * indices below the sizes (XLA's GPU/CPU emitters), so the data keeps its
 * place and only the sizes are new.  A static result dimension takes only
 * its bound. */
static bool slice_to_dynamic(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  const Value *src = in->noperands >= 1 ? frame_operand(fr, in, 0) : NULL;
  if (!src || !src->info || !shape_is_array(rs) || rs->rank != src->info->rank ||
      rs->etype != src->info->etype || in->noperands != 1 + rs->rank ||
      memcmp(rs->dims, src->info->dims, sizeof(int64_t) * (size_t)rs->rank))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: SliceToDynamic takes an array and one size per dimension "
                     "and returns the array's type and bounds",
                     in->name);
  int64_t sz[SHAPE_MAX_RANK];
  for (int d = 0; d < rs->rank; d++) {
    const Value *s = frame_operand(fr, in, 1 + d);
    if (!s->info || s->info->rank != 0 || !etype_is_int(s->info->etype))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: SliceToDynamic size %d must be an integer scalar",
                       in->name, d);
    const void *p;
    void *tmp;
    if (!value_dense_read(&ctx->vc, s, &p, &tmp, err)) return false;
    sz[d] = etype_load_i64(s->info->etype, p);
    free(tmp);
    bool dynamic = rs->dynamic && rs->dynamic[d];
    if (sz[d] < 0 || sz[d] > rs->dims[d] || (!dynamic && sz[d] != rs->dims[d]))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: SliceToDynamic size %" PRId64 " for %s dimension %d "
                       "(bound %" PRId64 ") is out of range",
                       in->name, sz[d], dynamic ? "dynamic" : "static", d, rs->dims[d]);
  }
  char who[300];
  eval_who(in, who, sizeof who);
  Value *v;
  if (!value_coerce(&ctx->vc, (Value *)src, rs, who, &v, err)) return false;
  if (v->refs > 1) { /* src itself: its sizes are not ours to change */
    Value *w = value_wrap_buffer(v->shape, v->info, v->buf);
    value_unref(&ctx->vc, v);
    if (!(v = w)) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (!value_set_dyn(v, sz)) {
    value_unref(&ctx->vc, v);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  *out = v;
  return true;
}

/* --- __cublas$gemm --- */

typedef struct GemmConfig {
  double alpha_re, alpha_im, beta;
  int nlb, nrb, nlc, nrc;
  int64_t lb[SHAPE_MAX_RANK], rb[SHAPE_MAX_RANK], lc[SHAPE_MAX_RANK], rc[SHAPE_MAX_RANK];
  char epilogue[32];
} GemmConfig;

static bool gemm_config(const Instr *in, GemmConfig *g, Error *err) {
  bool oom;
  char *s = backend_json_text(in, &oom);
  if (oom) return error_set(err, ERR_RUNTIME, in->offset, "out of memory");
  if (!s)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: __cublas$gemm needs a GemmBackendConfig backend_config",
                     in->name);
  memset(g, 0, sizeof *g);
  strcpy(g->epilogue, "DEFAULT");
  if (json_value(s, "epilogue") && !json_string(s, "epilogue", g->epilogue, sizeof g->epilogue))
    g->epilogue[0] = 0;
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

bool eval_custom_call_known(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                            const Shape *rs, Value **out, bool *handled, Error *err) {
  *handled = true;
  if (!strcmp(target, "TopK")) return eval_topk_custom_call(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "PartialReduce")) return eval_partial_reduce(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "PadToStatic")) return pad_to_static(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "SliceToDynamic")) return slice_to_dynamic(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "__cublas$gemm")) return cublas_gemm(ctx, fr, in, rs, out, err);
  if (eval_cudnn_known(target)) return eval_cudnn_conv(ctx, fr, in, target, rs, out, err);
  if (!strncmp(target, "xla_builder.math.", 17))
    return eval_builder_math(ctx, fr, in, target + 17, rs, out, handled, err);
  if (eval_builder_lib_known(target)) return eval_builder_lib(ctx, fr, in, target, rs, out, err);
  if (!strcmp(target, "AllocateBuffer") && shape_is_array(rs)) {
    char who[300];
    eval_who(in, who, sizeof who);
    return value_new_array(&ctx->vc, rs, true, who, out, err);
  }
  *handled = false;
  return false;
}
