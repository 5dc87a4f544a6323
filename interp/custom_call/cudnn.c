/* cuDNN convolution custom calls, as XLA:GPU's conv runner
 * (GetGpuConvConfig / GetGpuConvParams) reads them.  window, dim_labels and
 * feature_group_count always describe the forward convolution
 * X (input) * W (filter) -> Y (output); the kind says which of the three is
 * the result:
 *   convForward(X, W) -> Y
 *   convBiasActivationForward(X, W, bias[, side]) ->
 *       act(conv_result_scale * Y + side_input_scale * side + bias)
 *       (bias: one value per output feature; side: Y's shape and type)
 *   convBackwardInput(Y, W) -> X    (the gradient of Y with respect to X)
 *   convBackwardFilter(X, Y) -> W   (the gradient of Y with respect to W)
 * The two gradients are computed as the ordinary convolutions XLA's conv
 * rewriter turned into these calls (see backward_input / backward_filter),
 * through kernels/k_conv.h.  Results are computed in f32 (f64 for f64) and
 * rounded once to the result type; the fused epilogue is evaluated in f64
 * and rounded to the compute type first.
 * As the runner: the unfused kinds reject conv_result_scale != 1, a nonzero
 * side_input_scale needs a side input, cuDNN has no batch groups and no
 * base (lhs) dilation, and int8 is for the forward kinds only (s8 x s8 ->
 * f32 here: an s8 result's rounding is cuDNN's own). */
#include "interp/custom_call/cudnn.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/backend_json.h"
#include "interp/custom_call/backend_schemas.h"
#include "interp/eval_views.h"
#include "kernels/k_conv.h"
#include "kernels/k_dot.h"
#include "kernels/kernels.h"

typedef enum { CUDNN_FWD, CUDNN_FWD_ACT, CUDNN_BWD_INPUT, CUDNN_BWD_FILTER } CudnnKind;

/* stream_executor::dnn::ActivationMode, in enum order. */
enum { ACT_NONE, ACT_SIGMOID, ACT_RELU, ACT_RELU6, ACT_RELUX, ACT_TANH, ACT_BANDPASS, ACT_ELU,
       ACT_LEAKY_RELU, ACT_GELU_EXACT, ACT_COUNT };

/* n leading sizes equal (dims may be NULL when n is 0). */
static bool dims_eq(const int64_t *a, const int64_t *b, int n) {
  return n <= 0 || !memcmp(a, b, sizeof(int64_t) * (size_t)n);
}

typedef struct CudnnConfig {
  double scale, side_scale, leaky_alpha;
  int act;
} CudnnConfig;

static bool fail(const Instr *in, const char *target, Error *err, const char *msg) {
  return error_set(err, ERR_RUNTIME, in->offset, "%s: %s", target, msg);
}

bool eval_cudnn_known(const char *target) {
  return !strcmp(target, "__cudnn$convForward") || !strcmp(target, "__cudnn$convBackwardInput") ||
         !strcmp(target, "__cudnn$convBackwardFilter") ||
         !strcmp(target, "__cudnn$convBiasActivationForward");
}

static CudnnKind kind_of(const char *target) {
  if (!strcmp(target, "__cudnn$convBackwardInput")) return CUDNN_BWD_INPUT;
  if (!strcmp(target, "__cudnn$convBackwardFilter")) return CUDNN_BWD_FILTER;
  if (!strcmp(target, "__cudnn$convBiasActivationForward")) return CUDNN_FWD_ACT;
  return CUDNN_FWD;
}

/* CudnnConvBackendConfig (bare or inside GpuBackendConfig), checked field
 * by field (interp/custom_call/backend_schemas.c).  An absent conv_result_scale reads
 * as 1 (every config XLA writes has it); the others take their proto
 * defaults. */
static bool read_config(const Instr *in, const char *target, CudnnKind kind, CudnnConfig *c,
                        Error *err) {
  BackendConfig bc;
  if (!backend_config_read(in, target, &SCHEMA_CUDNN_CONV, &SCHEMA_GPU_CUDNN_CONV,
                           "cudnn_conv_backend_config", &bc, err))
    return false;
  c->scale = bc_double(&bc, "conv_result_scale", 1);
  c->side_scale = bc_double(&bc, "side_input_scale", 0);
  c->leaky_alpha = bc_double(&bc, "leakyrelu_alpha", 0);
  c->act = bc_enum(&bc, "activation_mode", &ENUM_ACTIVATION, ACT_NONE);
  bool ok = true;
  /* the runner reads the epilogue for the fused kind only */
  if (kind == CUDNN_FWD_ACT && (c->act == ACT_RELUX || c->act == ACT_BANDPASS))
    ok = bc_unsupported(in, target, &bc, "activation_mode", &ENUM_ACTIVATION,
                        "supported: kNone, kSigmoid, kRelu, kRelu6, kTanh, kElu, kLeakyRelu, "
                        "kGeluExact", err);
  backend_config_free(&bc);
  return ok;
}

static double activate(int act, double x, double alpha) {
  switch (act) {
    case ACT_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case ACT_RELU: return x < 0 ? 0.0 : x;
    case ACT_RELU6: return x < 0 ? 0.0 : x > 6 ? 6.0 : x;
    case ACT_TANH: return tanh(x);
    case ACT_ELU: return x < 0 ? expm1(x) : x;
    case ACT_LEAKY_RELU: return x < 0 ? alpha * x : x;
    case ACT_GELU_EXACT: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    default: return x;
  }
}

static int64_t count(const KArray *a) {
  int64_t n = 1;
  for (int d = 0; d < a->rank; d++) n *= a->dims[d];
  return n;
}

/* A dense copy of w (element size es) with the features regrouped for the
 * backward-input convolution of a grouped forward convolution:
 *   new[..., at ko: j, at ki: g*IFg + i] = old[..., at ki: i, at ko: g*OFg + j]
 * for G groups of IFg input and OFg output features; ndims gets the new
 * sizes.  The new kernel's input features (at ko) are OFg, its output
 * features (at ki) IFg * G. */
static void *regroup_filter(const KArray *w, int es, int64_t ki, int64_t ko, int64_t G,
                            int64_t *ndims) {
  int64_t ifg = w->dims[ki], ofg = w->dims[ko] / G, n = count(w);
  memcpy(ndims, w->dims, sizeof(int64_t) * (size_t)w->rank);
  ndims[ko] = ofg;
  ndims[ki] = ifg * G;
  char *dst = malloc((size_t)(n ? n : 1) * (size_t)es);
  if (!dst) return NULL;
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t e = 0; e < n; e++) {
    int64_t g = idx[ko] / ofg, j = idx[ko] % ofg, i = idx[ki];
    int64_t off = 0;
    for (int d = 0; d < w->rank; d++) {
      int64_t v = d == ko ? j : d == ki ? g * ifg + i : idx[d];
      off = off * ndims[d] + v;
    }
    memcpy(dst + off * es, (const char *)w->data + e * es, (size_t)es);
    for (int d = w->rank - 1; d >= 0 && ++idx[d] == w->dims[d]; d--) idx[d] = 0;
  }
  return dst;
}

/* Reverses a dense array in place along the dimensions marked in flip. */
static bool flip_dims(KArray *a, int es, const bool *flip) {
  int64_t n = count(a);
  char *src = malloc((size_t)(n ? n : 1) * (size_t)es);
  if (!src) return false;
  memcpy(src, a->data, (size_t)n * (size_t)es);
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t e = 0; e < n; e++) {
    int64_t off = 0;
    for (int d = 0; d < a->rank; d++)
      off = off * a->dims[d] + (flip[d] ? a->dims[d] - 1 - idx[d] : idx[d]);
    memcpy((char *)a->data + off * es, src + e * es, (size_t)es);
    for (int d = a->rank - 1; d >= 0 && ++idx[d] == a->dims[d]; d--) idx[d] = 0;
  }
  free(src);
  return true;
}

/* Everything one call needs, gathered and checked before computing. */
typedef struct CudnnCall {
  const Instr *in;
  const char *target;
  CudnnKind kind;
  CudnnConfig cfg;
  const ConvDims *cd;
  EvalWindow w;
  int64_t groups;
  const KArray *x, *wt, *y; /* forward roles: input, filter, output */
} CudnnCall;

/* The forward convolution's shapes must agree with each other (cuDNN's
 * descriptors): batch, features, groups and every spatial output size. */
static bool check_forward(const CudnnCall *c, Error *err) {
  const ConvDims *cd = c->cd;
  const KArray *x = c->x, *w = c->wt, *y = c->y;
  int ns = cd->nspatial;
  if (x->rank != ns + 2 || w->rank != ns + 2 || y->rank != ns + 2)
    return fail(c->in, c->target, err, "input, filter and output must have the dim_labels' rank");
  int64_t G = c->groups;
  if (x->dims[cd->input_batch] != y->dims[cd->output_batch] ||
      x->dims[cd->input_feature] != w->dims[cd->kernel_input_feature] * G ||
      w->dims[cd->kernel_output_feature] != y->dims[cd->output_feature] ||
      w->dims[cd->kernel_output_feature] % G)
    return fail(c->in, c->target, err,
                "input/filter/output batch and feature sizes do not agree (with "
                "feature_group_count)");
  for (int d = 0; d < ns; d++) {
    int64_t o;
    if (c->w.base_dil[d] != 1)
      return fail(c->in, c->target, err, "cuDNN has no base (lhs) dilation");
    if (c->w.size[d] != w->dims[cd->kernel_spatial[d]])
      return fail(c->in, c->target, err, "window size must be the filter's spatial size");
    if (!k_window_out_size(x->dims[cd->input_spatial[d]], c->w.size[d], c->w.stride[d],
                           c->w.lo[d], c->w.hi[d], 1, c->w.win_dil[d], &o, err))
      return false;
    if (o != y->dims[cd->output_spatial[d]])
      return fail(c->in, c->target, err,
                  "output spatial sizes are not those of the window over the input");
  }
  return true;
}

/* Y = conv(X, W): the forward convolution itself. */
static bool forward(const CudnnCall *c, KArray *acc, Error *err) {
  const ConvDims *cd = c->cd;
  KConvParams p = {
      .dn = {cd->nspatial, cd->input_batch, cd->input_feature, cd->input_spatial,
             cd->kernel_input_feature, cd->kernel_output_feature, cd->kernel_spatial,
             cd->output_batch, cd->output_feature, cd->output_spatial},
      .window = c->w.k, .feature_group_count = c->groups, .batch_group_count = 1};
  return k_conv(c->x, c->wt, &p, acc, err);
}

/* dX = conv(dY base-dilated by the stride, W mirrored with its feature
 * roles swapped): per spatial dimension of kernel size K, stride s, window
 * dilation r and forward padding lo, the padding is (K-1)r - lo low and
 * I + lo - 1 - (O-1)s high (so the result has X's size I), and reversal is
 * the forward one negated.  Grouped filters are regrouped so each group's
 * output features become its input features. */
static bool backward_input(const CudnnCall *c, KArray *acc, Error *err) {
  const ConvDims *cd = c->cd;
  int ns = cd->nspatial;
  int64_t lo[SHAPE_MAX_RANK], hi[SHAPE_MAX_RANK], one[SHAPE_MAX_RANK];
  bool rev[SHAPE_MAX_RANK];
  for (int d = 0; d < ns; d++) {
    int64_t K = c->w.size[d], s = c->w.stride[d], r = c->w.win_dil[d];
    int64_t I = c->x->dims[cd->input_spatial[d]], O = c->y->dims[cd->output_spatial[d]];
    lo[d] = (K - 1) * r - c->w.lo[d];
    hi[d] = I + c->w.lo[d] - 1 - (O - 1) * s;
    one[d] = 1;
    rev[d] = !c->w.reversal[d];
  }
  KConvParams p = {
      .dn = {ns, cd->output_batch, cd->output_feature, cd->output_spatial,
             cd->kernel_output_feature, cd->kernel_input_feature, cd->kernel_spatial,
             cd->input_batch, cd->input_feature, cd->input_spatial},
      .window = {ns, c->w.size, one, lo, hi, c->w.stride, c->w.win_dil, rev},
      .feature_group_count = c->groups, .batch_group_count = 1};
  KArray wk = *c->wt;
  int64_t ndims[SHAPE_MAX_RANK];
  void *owned = NULL;
  if (c->groups > 1) {
    owned = regroup_filter(c->wt, etype_storage_bytes(wk.etype), cd->kernel_input_feature,
                           cd->kernel_output_feature, c->groups, ndims);
    if (!owned) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    wk.dims = ndims;
    wk.data = owned;
  }
  bool ok = k_conv(c->y, &wk, &p, acc, err);
  free(owned);
  return ok;
}

/* dW = conv(X with batch and feature swapped, dY as the kernel with its
 * batch as input features): window of dY's spatial size, stride r (the
 * forward window dilation), window dilation s (the forward stride), padding
 * lo low and (K-1)r + (O-1)s + 1 - I - lo high (so the result has W's
 * size K); feature groups become batch groups.  A reversed forward window
 * mirrors the result. */
static bool backward_filter(const CudnnCall *c, KArray *acc, Error *err) {
  const ConvDims *cd = c->cd;
  int ns = cd->nspatial;
  int64_t size[SHAPE_MAX_RANK], hi[SHAPE_MAX_RANK], one[SHAPE_MAX_RANK];
  bool norev[SHAPE_MAX_RANK], flip[SHAPE_MAX_RANK] = {false}, any = false;
  for (int d = 0; d < ns; d++) {
    int64_t K = c->w.size[d], s = c->w.stride[d], r = c->w.win_dil[d];
    int64_t I = c->x->dims[cd->input_spatial[d]], O = c->y->dims[cd->output_spatial[d]];
    size[d] = O;
    hi[d] = (K - 1) * r + (O - 1) * s + 1 - I - c->w.lo[d];
    one[d] = 1;
    norev[d] = false;
    flip[cd->kernel_spatial[d]] = c->w.reversal[d];
    any = any || c->w.reversal[d];
  }
  KConvParams p = {
      .dn = {ns, cd->input_feature, cd->input_batch, cd->input_spatial, cd->output_batch,
             cd->output_feature, cd->output_spatial, cd->kernel_input_feature,
             cd->kernel_output_feature, cd->kernel_spatial},
      .window = {ns, size, c->w.win_dil, c->w.lo, hi, one, c->w.stride, norev},
      .feature_group_count = 1, .batch_group_count = c->groups};
  if (!k_conv(c->x, c->y, &p, acc, err)) return false;
  if (any && !flip_dims(acc, etype_storage_bytes(acc->etype), flip))
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  return true;
}

/* out = act(scale * acc + side_scale * side + bias[feature]) in f64,
 * rounded to the compute type (cuDNN's f32 for narrow floats), then to the
 * result type. */
static bool epilogue(const CudnnCall *c, KArray *acc, const KArray *bias,
                     const KArray *side, KArray *res, Error *err) {
  int64_t n = count(res), nf = res->dims[c->cd->output_feature], inner = 1;
  for (int d = (int)c->cd->output_feature + 1; d < res->rank; d++) inner *= res->dims[d];
  double *v = malloc((size_t)(n ? n : 1) * sizeof(double));
  double *b = malloc((size_t)(nf ? nf : 1) * sizeof(double));
  double *sd = side ? malloc((size_t)(n ? n : 1) * sizeof(double)) : NULL;
  bool ok = v && b && (!side || sd);
  if (!ok) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  ok = ok && k_convert(ET_F64, v, acc->etype, acc->data, n, err) &&
       k_convert(ET_F64, b, bias->etype, bias->data, nf, err) &&
       (!side || k_convert(ET_F64, sd, side->etype, side->data, n, err));
  for (int64_t i = 0; ok && i < n; i++) {
    double x = c->cfg.scale * v[i] + b[(i / inner) % nf];
    if (side) x += c->cfg.side_scale * sd[i];
    v[i] = activate(c->cfg.act, x, c->cfg.leaky_alpha);
  }
  ok = ok && k_convert(acc->etype, acc->data, ET_F64, v, n, err) &&
       k_convert(res->etype, res->data, acc->etype, acc->data, n, err);
  free(v);
  free(b);
  free(sd);
  return ok;
}

static bool same_dims(const KArray *a, const KArray *b) {
  return a->rank == b->rank && dims_eq(a->dims, b->dims, a->rank);
}

/* Element types as the runner dispatches them: one float type for all
 * three arrays, or (forward kinds) s8 input and filter with an f32 result. */
static bool check_types(const CudnnCall *c, const KArray *op0, const KArray *op1,
                        const KArray *res, Error *err) {
  EType t = op0->etype;
  bool flt = t == ET_F16 || t == ET_BF16 || t == ET_F32 || t == ET_F64;
  if (flt && op1->etype == t && res->etype == t) return true;
  if (t == ET_S8 && op1->etype == ET_S8 && (c->kind == CUDNN_FWD || c->kind == CUDNN_FWD_ACT)) {
    if (res->etype == ET_F32) return true;
    return fail(c->in, c->target, err, "an int8 convolution is supported with an f32 result only");
  }
  return error_set(err, ERR_RUNTIME, c->in->offset,
                   "%s: unsupported element types %s, %s -> %s (f16, bf16, f32, "
                   "f64 throughout%s)",
                   c->target, etype_name(t), etype_name(op1->etype),
                   etype_name(res->etype),
                   c->kind == CUDNN_FWD || c->kind == CUDNN_FWD_ACT ? ", or s8 x s8 -> f32" : "");
}

static bool run(CudnnCall *c, EvalViews *vs, EvalOuts *o, Error *err) {
  KArray *res = &o->a[0];
  const KArray *op0 = &vs->a[0], *op1 = &vs->a[1];
  if (!check_types(c, op0, op1, res, err)) return false;
  switch (c->kind) {
    case CUDNN_BWD_INPUT: c->x = res, c->wt = op1, c->y = op0; break;
    case CUDNN_BWD_FILTER: c->x = op0, c->wt = res, c->y = op1; break;
    default: c->x = op0, c->wt = op1, c->y = res; break;
  }
  if (!check_forward(c, err)) return false;
  const KArray *bias = NULL, *side = NULL;
  if (c->kind == CUDNN_FWD_ACT) {
    bias = &vs->a[2];
    side = vs->n > 3 ? &vs->a[3] : NULL;
    if (bias->rank != 1 || bias->dims[0] != res->dims[c->cd->output_feature] ||
        !etype_is_float(bias->etype))
      return fail(c->in, c->target, err, "bias must be a float vector of the output features");
    if (side && (!same_dims(side, res) || side->etype != res->etype))
      return fail(c->in, c->target, err, "the side input must have the result's shape and type");
    if (!side && c->cfg.side_scale != 0)
      return fail(c->in, c->target, err, "side_input_scale is not 0 but there is no side input");
  } else if (c->cfg.scale != 1) {
    return fail(c->in, c->target, err,
                "conv_result_scale must be 1 (only convBiasActivationForward scales)");
  }
  EType ct = k_dot_compute_type(op0->etype, op1->etype, res->etype);
  int64_t n = count(res);
  KArray acc = *res;
  acc.etype = ct;
  acc.data = malloc((size_t)(n ? n : 1) * (size_t)etype_storage_bytes(ct));
  if (!acc.data) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  bool ok = c->kind == CUDNN_BWD_INPUT    ? backward_input(c, &acc, err)
            : c->kind == CUDNN_BWD_FILTER ? backward_filter(c, &acc, err)
                                          : forward(c, &acc, err);
  if (ok)
    ok = c->kind == CUDNN_FWD_ACT ? epilogue(c, &acc, bias, side, res, err)
                                  : k_convert(res->etype, res->data, ct, acc.data, n, err);
  free(acc.data);
  return ok;
}

bool eval_cudnn_conv(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                     const Shape *rs, Value **out, Error *err) {
  CudnnCall c = {.in = in, .target = target, .kind = kind_of(target)};
  const Attr *a = ir_attr(in, ATTR_DIM_LABELS);
  if (!a || a->kind != AV_CONV_DIMS) return fail(in, target, err, "needs dim_labels");
  c.cd = &a->v.conv;
  int ns = c.cd->nspatial;
  if (c.cd->input_rank != ns + 2 || c.cd->kernel_rank != ns + 2 || c.cd->output_rank != ns + 2)
    return fail(in, target, err, "vectorized ('?') dim_labels are not supported");
  int nmin = c.kind == CUDNN_FWD_ACT ? 3 : 2, nmax = c.kind == CUDNN_FWD_ACT ? 4 : 2;
  if (in->noperands < nmin || in->noperands > nmax)
    return fail(in, target, err,
                c.kind == CUDNN_FWD_ACT ? "takes input, filter, bias and an optional side input"
                : c.kind == CUDNN_BWD_INPUT  ? "takes the output gradient and the filter"
                : c.kind == CUDNN_BWD_FILTER ? "takes the input and the output gradient"
                                             : "takes input and filter");
  c.groups = eval_attr_int(in, ATTR_FEATURE_GROUP_COUNT, 1);
  if (c.groups < 1) return fail(in, target, err, "feature_group_count must be positive");
  if (eval_attr_int(in, ATTR_BATCH_GROUP_COUNT, 1) != 1)
    return fail(in, target, err, "cuDNN convolutions have no batch_group_count");
  if (!read_config(in, target, c.kind, &c.cfg, err) || !eval_window(in, ns, &c.w, err))
    return false;
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  ok = ok && eval_view_operands(ctx, fr, in, in->noperands, &vs, err);
  ok = ok && eval_outs_new(ctx, in, rs, &o, err);
  if (ok && o.n < 1) ok = fail(in, target, err, "returns (result, u8[N] scratch)");
  ok = ok && run(&c, &vs, &o, err);
  for (int i = 1; ok && i < o.n; i++) { /* scratch */
    int64_t m = count(&o.a[i]);
    if (m > 0) memset(o.a[i].data, 0, (size_t)m * (size_t)etype_storage_bytes(o.a[i].etype));
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}
