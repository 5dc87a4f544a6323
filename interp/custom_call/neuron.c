/* AWS Neuron custom calls found in torch-neuronx (torch-xla on Trainium)
 * dumps.  Their meaning is fixed by torch-neuronx's lowering
 * (torch_neuronx/xla_impl/ops.py), which documents each with a reference
 * HLO:
 *   AwsNeuronGelu(x)           exact GELU, x * Phi(x) = x/2 (1 + erf(x/sqrt 2))
 *   AwsNeuronGeluApprxTanh(x)  x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 *   AwsNeuronGeluBackward(x)   d GELU / dx = Phi(x) + x phi(x); torch-neuronx
 *                              multiplies the incoming gradient afterwards
 *   AwsNeuronSoftmax(x), backend_config="d"
 *                              exp(x - max_d x) / sum_d exp(x - max_d x)
 *   AwsNeuronSoftmaxBackward(g, y), backend_config="d"
 *                              y * (g - sum_d (g * y))
 * (AwsNeuronTransferWithStaticRing, an identity the Neuron compiler erases,
 * is with the other identity targets in eval_control.c.)  Float types only; f64 is
 * computed in double, the others in float and rounded once. */
#include "interp/custom_call/neuron.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "interp/eval_views.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"

typedef enum { NEURON_GELU, NEURON_GELU_TANH, NEURON_GELU_BACKWARD } NeuronUnary;

static double gelu(double x) { return 0.5 * x * (1.0 + erf(x * M_SQRT1_2)); }

static double gelu_tanh(double x) {
  const double k = 0.7978845608028654; /* sqrt(2/pi) */
  return 0.5 * x * (1.0 + tanh(k * (x + 0.044715 * x * x * x)));
}

static double gelu_grad(double x) {
  const double inv_sqrt_2pi = 0.3989422804014327;
  return 0.5 * (1.0 + erf(x * M_SQRT1_2)) + x * inv_sqrt_2pi * exp(-0.5 * x * x);
}

/* The float forms, block by block: the operand converted to f32, the
 * transcendental through the vector kernels (glibc's erff, tanhf and expf
 * bit for bit: kernels/k_unary), the arithmetic written as the scalar
 *   gelu:      0.5f * x * (1.0f + erff(x * (float)M_SQRT1_2))
 *   gelu_tanh: 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)))
 *   gelu_grad: 0.5f * (1.0f + erff(x * (float)M_SQRT1_2))
 *              + x * inv_sqrt_2pi * expf(-0.5f * x * x)
 * with no contraction into FMAs (this file is built without them), so every
 * element is what the scalar formula gives; blocks run on the pool (a
 * 1.5M-element bf16 GELU took 130 ns per element one libm call at a time). */
enum { GELU_BLOCK = 2048 };

typedef struct GeluJob {
  NeuronUnary op;
  EType t;
  int es;
  const char *x;
  char *y;
  int64_t n;
} GeluJob;

static void gelu_block(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const GeluJob *j = ctx;
  float x[GELU_BLOCK], a[GELU_BLOCK], f[GELU_BLOCK], y[GELU_BLOCK];
  int64_t lo = chunk * GELU_BLOCK, m = j->n - lo < GELU_BLOCK ? j->n - lo : GELU_BLOCK;
  Error e; /* f32 erf, tanh and exp cannot fail */
  etype_convert_array(ET_F32, x, j->t, j->x + lo * j->es, m);
  if (j->op == NEURON_GELU_TANH) {
    const float k = 0.7978845608f;
    for (int64_t i = 0; i < m; i++) a[i] = k * (x[i] + 0.044715f * x[i] * x[i] * x[i]);
    k_unary(KU_TANH, ET_F32, f, a, m, &e);
    for (int64_t i = 0; i < m; i++) y[i] = 0.5f * x[i] * (1.0f + f[i]);
  } else {
    for (int64_t i = 0; i < m; i++) a[i] = x[i] * (float)M_SQRT1_2;
    k_unary(KU_ERF, ET_F32, f, a, m, &e);
    if (j->op == NEURON_GELU) {
      for (int64_t i = 0; i < m; i++) y[i] = 0.5f * x[i] * (1.0f + f[i]);
    } else {
      const float inv_sqrt_2pi = 0.3989422804f;
      for (int64_t i = 0; i < m; i++) a[i] = -0.5f * x[i] * x[i];
      k_unary(KU_EXP, ET_F32, y, a, m, &e); /* y: exp, then the result */
      for (int64_t i = 0; i < m; i++) y[i] = 0.5f * (1.0f + f[i]) + x[i] * inv_sqrt_2pi * y[i];
    }
  }
  etype_convert_array(j->t, j->y + lo * j->es, ET_F32, y, m);
}

static int64_t elements(const KArray *a) {
  int64_t n = 1;
  for (int d = 0; d < a->rank; d++) n *= a->dims[d];
  return n;
}

static bool same_shape(const KArray *a, const KArray *b) {
  return a->etype == b->etype && a->rank == b->rank &&
         (a->rank == 0 || !memcmp(a->dims, b->dims, sizeof(int64_t) * (size_t)a->rank));
}

static bool float_operands(const Instr *in, const char *target, const KArray *ins, int nin,
                           const KArray *out, Error *err) {
  for (int i = 0; i < nin; i++)
    if (!same_shape(&ins[i], out))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "%s: every operand must have the result's shape",
                       target);
  if (!etype_is_float(out->etype))
    return error_set(err, ERR_RUNTIME, in->offset, "%s of %s: only float types",
                     target, etype_name(out->etype));
  return true;
}

static bool unary_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                         int nouts, Error *err) {
  NeuronUnary op = *(const NeuronUnary *)arg;
  static const char *const names[] = {"AwsNeuronGelu", "AwsNeuronGeluApprxTanh",
                                      "AwsNeuronGeluBackward"};
  if (nouts != 1)
    return error_set(err, ERR_RUNTIME, in->offset, "%s returns one array",
                     names[op]);
  if (!float_operands(in, names[op], ins, 1, &outs[0], err)) return false;
  EType t = outs[0].etype;
  int64_t n = elements(&outs[0]);
  if (t == ET_F64) {
    double (*fd)(double) = op == NEURON_GELU ? gelu : op == NEURON_GELU_TANH ? gelu_tanh : gelu_grad;
    const double *x = ins[0].data;
    double *y = outs[0].data;
    for (int64_t i = 0; i < n; i++) y[i] = fd(x[i]);
  } else {
    GeluJob job = {op, t, etype_storage_bytes(t), ins[0].data, outs[0].data, n};
    pool_for((n + GELU_BLOCK - 1) / GELU_BLOCK, gelu_block, &job);
  }
  return true;
}

/* The softmax dimension from backend_config ("3"; negative counts from the
 * end, as torch-neuronx normalises before writing it). */
static bool softmax_dim(const Instr *in, const char *target, int rank, int *dim, Error *err) {
  const Attr *a = ir_attr(in, ATTR_BACKEND_CONFIG);
  const char *s = a && (a->kind == AV_STRING || a->kind == AV_STRING_OR_RAW) ? a->v.s : NULL;
  char *end = NULL;
  long d = s ? strtol(s, &end, 10) : 0;
  if (!s || end == s || *end) {
    if (rank == 0) return *dim = 0, true;
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s needs the dimension as backend_config=\"N\"",
                     target);
  }
  if (d < 0) d += rank;
  if (d < 0 || d >= (rank ? rank : 1))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "%s: dimension %s out of range for rank %d", target,
                     s, rank);
  *dim = (int)d;
  return true;
}

/* Element (o, j, k) of an array seen as [outer, n, inner], as double. */
typedef struct Rows {
  EType t;
  int es;
  int64_t outer, n, inner;
} Rows;

static double load(const Rows *r, const void *base, int64_t i) {
  if (r->t == ET_F64) return ((const double *)base)[i];
  if (r->t == ET_F32) return ((const float *)base)[i];
  return etype_load_f32(r->t, (const char *)base + i * r->es);
}

static void store(const Rows *r, void *base, int64_t i, double v) {
  if (r->t == ET_F64) ((double *)base)[i] = v;
  else if (r->t == ET_F32) ((float *)base)[i] = (float)v;
  else etype_store_f32(r->t, (float)v, (char *)base + i * r->es);
}

/* One softmax (or its gradient) along j for every (o, k), with a scratch
 * vector over k so the inner dimension is walked contiguously.  Sums are
 * accumulated in double (f32 inputs then round once per result). */
static bool softmax_rows(const Rows *r, const void *x, const void *y, void *out, bool backward,
                         Error *err) {
  double *acc = malloc(sizeof(double) * 2 * (size_t)(r->inner ? r->inner : 1));
  if (!acc) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  double *mx = acc, *sum = acc + r->inner;
  for (int64_t o = 0; o < r->outer; o++) {
    int64_t base = o * r->n * r->inner;
    for (int64_t k = 0; k < r->inner; k++) mx[k] = -INFINITY, sum[k] = 0;
    if (!backward) {
      for (int64_t j = 0; j < r->n; j++)
        for (int64_t k = 0; k < r->inner; k++) {
          /* NaN propagates, as XLA's max reduction does. */
          double v = load(r, x, base + j * r->inner + k);
          if (!(v <= mx[k]) && !isnan(mx[k])) mx[k] = v;
        }
      for (int64_t j = 0; j < r->n; j++)
        for (int64_t k = 0; k < r->inner; k++)
          sum[k] += exp(load(r, x, base + j * r->inner + k) - mx[k]);
      for (int64_t j = 0; j < r->n; j++)
        for (int64_t k = 0; k < r->inner; k++) {
          int64_t i = base + j * r->inner + k;
          store(r, out, i, exp(load(r, x, i) - mx[k]) / sum[k]);
        }
    } else {
      /* x = incoming gradient g, y = the softmax output. */
      for (int64_t j = 0; j < r->n; j++)
        for (int64_t k = 0; k < r->inner; k++) {
          int64_t i = base + j * r->inner + k;
          sum[k] += load(r, x, i) * load(r, y, i);
        }
      for (int64_t j = 0; j < r->n; j++)
        for (int64_t k = 0; k < r->inner; k++) {
          int64_t i = base + j * r->inner + k;
          store(r, out, i, load(r, y, i) * (load(r, x, i) - sum[k]));
        }
    }
  }
  free(acc);
  return true;
}

static bool softmax_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                           int nouts, Error *err) {
  bool backward = *(const bool *)arg;
  const char *target = backward ? "AwsNeuronSoftmaxBackward" : "AwsNeuronSoftmax";
  if (nouts != 1)
    return error_set(err, ERR_RUNTIME, in->offset, "%s returns one array",
                     target);
  int dim = 0;
  if (!float_operands(in, target, ins, backward ? 2 : 1, &outs[0], err) ||
      !softmax_dim(in, target, outs[0].rank, &dim, err))
    return false;
  Rows r = {outs[0].etype, etype_storage_bytes(outs[0].etype), 1, 1, 1};
  for (int d = 0; d < outs[0].rank; d++) {
    if (d < dim) r.outer *= outs[0].dims[d];
    else if (d == dim) r.n = outs[0].dims[d];
    else r.inner *= outs[0].dims[d];
  }
  if (r.outer * r.n * r.inner == 0) return true;
  return softmax_rows(&r, ins[0].data, backward ? ins[1].data : NULL, outs[0].data, backward,
                      err);
}

/* The targets, their operand counts and kernels. */
static const NeuronUnary gelu_op = NEURON_GELU, tanh_op = NEURON_GELU_TANH,
                         grad_op = NEURON_GELU_BACKWARD;
static const bool fwd = false, bwd = true;
static const struct {
  const char *name;
  int noperands;
  EvalKernelFn kernel;
  const void *arg;
} targets[] = {
    {"AwsNeuronGelu", 1, unary_kernel, &gelu_op},
    {"AwsNeuronGeluApprxTanh", 1, unary_kernel, &tanh_op},
    {"AwsNeuronGeluBackward", 1, unary_kernel, &grad_op},
    {"AwsNeuronSoftmax", 1, softmax_kernel, &fwd},
    {"AwsNeuronSoftmaxBackward", 2, softmax_kernel, &bwd},
};

static int find(const char *target) {
  for (int i = 0; i < (int)(sizeof targets / sizeof targets[0]); i++)
    if (!strcmp(target, targets[i].name)) return i;
  return -1;
}

bool eval_neuron_known(const char *target) { return find(target) >= 0; }

bool eval_neuron_custom_call(EvalCtx *ctx, Frame *f, const Instr *in, const char *target,
                             const Shape *rs, Value **out, Error *err) {
  int i = find(target);
  if (i < 0)
    return error_set(err, ERR_RUNTIME, in->offset, "custom-call target \"%s\" is not supported",
                     target);
  if (in->noperands != targets[i].noperands)
    return error_set(err, ERR_RUNTIME, in->offset, "custom-call %s takes %d operand%s, got %d",
                     target, targets[i].noperands, targets[i].noperands == 1 ? "" : "s",
                     in->noperands);
  return eval_kernel_op(ctx, f, in, rs, targets[i].noperands, targets[i].kernel,
                        targets[i].arg, out, err);
}
