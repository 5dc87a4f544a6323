/* batch-norm-training, -inference and -grad, per feature in double.
 *
 * The operand is streamed in chunks of at most BN_CHUNK elements, each
 * widened to double in a buffer on the stack; only per-feature vectors are
 * allocated.  Why: a whole-operand double copy of a 441 MiB f32 activation
 * is 882 MiB of fresh pages per call, and in an unfused training step
 * (mobilenet_v2: 104 batch norms) faulting those pages in cost more than all
 * the arithmetic.
 *
 * Viewed as [outer, C, inner] (C = dims[feature_index]), element idx belongs
 * to feature (idx / inner) % C; within a chunk the features come in runs of
 * up to `inner` elements, and the inner loops run over one run at a time
 * with the feature fixed. */
#include "kernels/k_linalg.h"

#include <math.h>

#include "base/thread_pool.h"
#include "kernels/k_common.h"

#define BN_CHUNK 4096

typedef struct BnGeo { int64_t outer, c, inner, n; } BnGeo;

static bool bn_geo(const KArray *x, int64_t fi, BnGeo *g, Error *err) {
  if (!etype_is_float(x->etype)) return error_set(err, ERR_RUNTIME, -1, "batch-norm: %s is not a float type", etype_name(x->etype));
  if (fi < 0 || fi >= x->rank) return error_set(err, ERR_RUNTIME, -1, "batch-norm: feature_index %lld out of range", (long long)fi);
  g->outer = 1; g->inner = 1;
  for (int i = 0; i < fi; i++) g->outer *= x->dims[i];
  for (int i = (int)fi + 1; i < x->rank; i++) g->inner *= x->dims[i];
  g->c = x->dims[fi];
  return k_num_elements(x->rank, x->dims, &g->n, err);
}

/* A per-feature vector: C floats, of x's type for the HLO ops; cuDNN's
 * batch norms (interp/custom_call/cudnn_bn.c) keep f32 vectors beside f16
 * data, so any float type is taken. */
static bool vec_ok(const KArray *v, const KArray *x, int64_t c, const char *what, Error *err) {
  if (v->rank != 1 || v->dims[0] != c || !etype_is_float(v->etype))
    return error_set(err, ERR_RUNTIME, -1, "batch-norm: %s must be a float vector [%lld] (operand %s)", what, (long long)c, etype_name(x->etype));
  return true;
}

static bool same_shape(const KArray *a, const KArray *x, const char *what, Error *err) {
  if (a->rank != x->rank || a->etype != x->etype) return error_set(err, ERR_RUNTIME, -1, "batch-norm: %s shape differs from operand", what);
  for (int i = 0; i < x->rank; i++) if (a->dims[i] != x->dims[i]) return error_set(err, ERR_RUNTIME, -1, "batch-norm: %s shape differs from operand", what);
  return true;
}

/* A per-feature vector as double; NULL for none (zeros). */
static double *load_vec(const KArray *v, int64_t c, Error *err) {
  double *p = k_malloc((c + 1) * 8, err);
  if (p && v) k_cvt(ET_F64, p, v->etype, v->data, c);
  if (p && !v) for (int64_t f = 0; f < c; f++) p[f] = 0;
  return p;
}

/* Widens elements [s, s + m) of a into buf. */
static void load_chunk(const KArray *a, int64_t s, int64_t m, double *buf) {
  if (a->etype == ET_F32) { /* the common case, inline so that it vectorises */
    const float *p = (const float *)a->data + s;
    for (int64_t k = 0; k < m; k++) buf[k] = p[k];
    return;
  }
  k_cvt(ET_F64, buf, a->etype, (const char *)a->data + s * etype_storage_bytes(a->etype), m);
}

static void store_chunk(KArray *a, int64_t s, int64_t m, const double *buf) {
  if (a->etype == ET_F32) {
    float *p = (float *)a->data + s;
    for (int64_t k = 0; k < m; k++) p[k] = (float)buf[k];
    return;
  }
  k_cvt(a->etype, (char *)a->data + s * etype_storage_bytes(a->etype), ET_F64, buf, m);
}

/* Runs the body (the trailing arguments) for each run [k0, k1) of chunk [s, s + m) with feature f. */
#define BN_RUNS(g, s, m, ...)                                                    \
  do {                                                                           \
    int64_t f_ = ((s) / (g).inner) % (g).c, r_ = (s) % (g).inner;               \
    for (int64_t k0 = 0; k0 < (m);) {                                            \
      int64_t k1 = k0 + ((g).inner - r_ < (m) - k0 ? (g).inner - r_ : (m) - k0); \
      const int64_t f = f_;                                                      \
      __VA_ARGS__;                                                               \
      k0 = k1;                                                                   \
      r_ = 0;                                                                    \
      if (++f_ == (g).c) f_ = 0;                                                 \
    }                                                                            \
  } while (0)

#define BN_CHUNKS(g, s, m) \
  for (int64_t s = 0, m = (g).n < BN_CHUNK ? (g).n : BN_CHUNK; s < (g).n; s += m, m = (g).n - s < BN_CHUNK ? (g).n - s : BN_CHUNK)

/* The feature sums, in one fixed order: the operand in BN_CHUNK chunks, in
 * each chunk the runs of one feature summed into acc, acc added to the
 * feature's sum.  So feature f's sum adds, for each outer index o in turn,
 * its run [(o * C + f) * inner, +inner) cut where a multiple of BN_CHUNK
 * falls -- which a loop over f alone can reproduce exactly.  Features are
 * therefore summed in parallel (chunks of features on the pool) when their
 * runs are long enough to be read in place (BN_RUN_MIN elements: NCHW-like
 * layouts); NHWC-like ones (inner 1) keep one serial pass. */
#define BN_RUN_MIN 64

/* Runs body for each segment [s0, s0 + len) of feature f, in sum order. */
#define BN_FEATURE_SEGMENTS(g, f, ...)                                          \
  for (int64_t o_ = 0; o_ < (g).outer; o_++) {                                  \
    int64_t base_ = (o_ * (g).c + (f)) * (g).inner;                             \
    for (int64_t a_ = 0; a_ < (g).inner;) {                                     \
      int64_t cut_ = ((base_ + a_) / BN_CHUNK + 1) * BN_CHUNK - base_;          \
      int64_t b_ = cut_ < (g).inner ? cut_ : (g).inner;                         \
      const int64_t s0 = base_ + a_, len = b_ - a_;                             \
      __VA_ARGS__;                                                              \
      a_ = b_;                                                                  \
    }                                                                           \
  }

/* Per-feature sums over x (and gy): with dev, sum[f] += (x - dev[f])^2; with
 * gy, sum[f] += gy * (x - dev[f]) and sum2[f] += gy; else sum[f] += x. */
typedef struct FeatureSums {
  const KArray *x, *gy;
  const BnGeo *g;
  const double *dev;
  double *sum, *sum2;
  int64_t per;
} FeatureSums;

static void sums_features(void *ud, int64_t chunk, int worker) {
  (void)worker;
  const FeatureSums *j = ud;
  const BnGeo g = *j->g;
  double xb[BN_CHUNK], gb[BN_CHUNK];
  int64_t f1 = (chunk + 1) * j->per < g.c ? (chunk + 1) * j->per : g.c;
  for (int64_t f = chunk * j->per; f < f1; f++) {
    double sum = 0, sum2 = 0, d = j->dev ? j->dev[f] : 0;
    BN_FEATURE_SEGMENTS(g, f, {
      load_chunk(j->x, s0, len, xb);
      if (j->gy) {
        load_chunk(j->gy, s0, len, gb);
        double sc = 0, so = 0;
        for (int64_t k = 0; k < len; k++) { sc += gb[k] * (xb[k] - d); so += gb[k]; }
        sum += sc; sum2 += so;
      } else {
        double acc = 0;
        if (j->dev) for (int64_t k = 0; k < len; k++) acc += (xb[k] - d) * (xb[k] - d);
        else for (int64_t k = 0; k < len; k++) acc += xb[k];
        sum += acc;
      }
    });
    j->sum[f] = sum;
    if (j->sum2) j->sum2[f] = sum2;
  }
}

/* The same sums in one serial pass over the operand (short runs). */
static void sums_serial(const FeatureSums *j) {
  const BnGeo g = *j->g;
  double xb[BN_CHUNK], gb[BN_CHUNK];
  const double *dev = j->dev;
  for (int64_t f = 0; f < g.c; f++) {
    j->sum[f] = 0;
    if (j->sum2) j->sum2[f] = 0;
  }
  BN_CHUNKS(g, s, m) {
    load_chunk(j->x, s, m, xb);
    if (j->gy) load_chunk(j->gy, s, m, gb);
    BN_RUNS(g, s, m, {
      if (j->gy) {
        double sc = 0, so = 0;
        for (int64_t k = k0; k < k1; k++) { sc += gb[k] * (xb[k] - dev[f]); so += gb[k]; }
        j->sum[f] += sc; j->sum2[f] += so;
      } else {
        double acc = 0;
        if (dev) for (int64_t k = k0; k < k1; k++) acc += (xb[k] - dev[f]) * (xb[k] - dev[f]);
        else for (int64_t k = k0; k < k1; k++) acc += xb[k];
        j->sum[f] += acc;
      }
    });
  }
}

static void feature_sums2(const KArray *x, const KArray *gy, const BnGeo *g, const double *dev, double *sum,
                          double *sum2) {
  FeatureSums j = {x, gy, g, dev, sum, sum2, 1};
  if (g->inner < BN_RUN_MIN || g->c < 2) {
    sums_serial(&j);
    return;
  }
  int64_t nchunks = pool_chunks(g->n * etype_storage_bytes(x->etype), g->c);
  j.per = (g->c + nchunks - 1) / nchunks;
  pool_for((g->c + j.per - 1) / j.per, sums_features, &j);
}

/* sum[f] += x over the operand; with dev, sum[f] += (x - dev[f])^2. */
static void feature_sums(const KArray *x, const BnGeo *g, const double *dev, double *sum) {
  feature_sums2(x, NULL, g, dev, sum, NULL);
}

/* out = (x - mean) / sd * scale + offset, sd = sqrt(var + eps) per feature:
 * each element on its own, so BN_CHUNK-sized chunks run in parallel. */
typedef struct Normalize {
  const KArray *x;
  const BnGeo *g;
  const double *M, *SD, *S, *B;
  KArray *out;
} Normalize;

static void normalize_chunk(void *ud, int64_t chunk, int worker) {
  (void)worker;
  const Normalize *j = ud;
  const BnGeo *g = j->g;
  double xb[BN_CHUNK];
  int64_t s = chunk * BN_CHUNK, m = g->n - s < BN_CHUNK ? g->n - s : BN_CHUNK;
  load_chunk(j->x, s, m, xb);
  BN_RUNS(*g, s, m, {
    for (int64_t k = k0; k < k1; k++) xb[k] = (xb[k] - j->M[f]) / j->SD[f] * j->S[f] + j->B[f];
  });
  store_chunk(j->out, s, m, xb);
}

static void normalize(const KArray *x, const BnGeo *g, const double *M, const double *SD, const double *S,
                      const double *B, KArray *out) {
  Normalize j = {x, g, M, SD, S, B, out};
  pool_for((g->n + BN_CHUNK - 1) / BN_CHUNK, normalize_chunk, &j);
}

static double *std_devs(const double *V, int64_t c, double eps, Error *err) {
  double *sd = k_malloc((c + 1) * 8, err);
  if (sd) for (int64_t f = 0; f < c; f++) sd[f] = sqrt(V[f] + eps);
  return sd;
}

bool k_batch_norm_training(const KArray *x, const KArray *scale, const KArray *offset, double eps,
                           int64_t fi, KArray *out, KArray *mean, KArray *var, Error *err) {
  BnGeo g;
  if (!bn_geo(x, fi, &g, err) || !vec_ok(scale, x, g.c, "scale", err) || !vec_ok(offset, x, g.c, "offset", err) ||
      !vec_ok(mean, x, g.c, "mean", err) || !vec_ok(var, x, g.c, "variance", err) || !same_shape(out, x, "result", err))
    return false;
  double *S = load_vec(scale, g.c, err), *B = load_vec(offset, g.c, err);
  double *M = load_vec(NULL, g.c, err), *V = load_vec(NULL, g.c, err), *SD = NULL;
  bool ok = S && B && M && V;
  if (ok) {
    double cnt = (double)(g.outer * g.inner);
    feature_sums(x, &g, NULL, M);
    for (int64_t f = 0; f < g.c; f++) M[f] /= cnt;
    /* XLA forms the mean in the operand's type and measures deviations from
     * that rounded mean (its TrainingLargeInputs test: {1e7, 1e7 + 1} in f32
     * has mean 1e7 and variance 0.5, not 1e7 + 0.5 and 0.25), so the mean is
     * rounded through its own type (the operand's, for the HLO op) before it
     * is used. */
    k_cvt(mean->etype, mean->data, ET_F64, M, g.c);
    k_cvt(ET_F64, M, mean->etype, mean->data, g.c);
    feature_sums(x, &g, M, V);
    for (int64_t f = 0; f < g.c; f++) V[f] /= cnt;
    ok = (SD = std_devs(V, g.c, eps, err)) != NULL;
  }
  if (ok) {
    normalize(x, &g, M, SD, S, B, out);
    k_cvt(var->etype, var->data, ET_F64, V, g.c);
  }
  k_free(S); k_free(B); k_free(M); k_free(V); k_free(SD);
  return ok;
}

bool k_batch_norm_inference(const KArray *x, const KArray *scale, const KArray *offset, const KArray *mean,
                            const KArray *var, double eps, int64_t fi, KArray *out, Error *err) {
  BnGeo g;
  if (!bn_geo(x, fi, &g, err) || !vec_ok(scale, x, g.c, "scale", err) || !vec_ok(offset, x, g.c, "offset", err) ||
      !vec_ok(mean, x, g.c, "mean", err) || !vec_ok(var, x, g.c, "variance", err) || !same_shape(out, x, "result", err))
    return false;
  double *S = load_vec(scale, g.c, err), *B = load_vec(offset, g.c, err);
  double *M = load_vec(mean, g.c, err), *V = load_vec(var, g.c, err);
  double *SD = V ? std_devs(V, g.c, eps, err) : NULL;
  bool ok = S && B && M && V && SD;
  if (ok) normalize(x, &g, M, SD, S, B, out);
  k_free(S); k_free(B); k_free(M); k_free(V); k_free(SD);
  return ok;
}

/* grad_x per element (its feature's sums known): chunks on the pool. */
typedef struct GradX {
  const KArray *x, *gy;
  const BnGeo *g;
  const double *S, *M, *VE, *RS, *SC, *SO;
  KArray *gx;
} GradX;

static void grad_x_chunk(void *ud, int64_t chunk, int worker) {
  (void)worker;
  const GradX *j = ud;
  const BnGeo g = *j->g;
  double xb[BN_CHUNK], gb[BN_CHUNK], cnt = (double)(g.outer * g.inner);
  int64_t s = chunk * BN_CHUNK, m = g.n - s < BN_CHUNK ? g.n - s : BN_CHUNK;
  load_chunk(j->x, s, m, xb);
  load_chunk(j->gy, s, m, gb);
  BN_RUNS(g, s, m, {
    double cl = j->SC[f] / cnt / j->VE[f], dl = j->SO[f] / cnt, a = j->S[f] * j->RS[f];
    for (int64_t k = k0; k < k1; k++) xb[k] = a * (gb[k] - dl - cl * (xb[k] - j->M[f]));
  });
  store_chunk(j->gx, s, m, xb);
}

/* The gradients given, per feature, VE = var + eps, RS = 1 / sd and SD = sd
 * (SD NULL: grad_scale multiplies by RS instead of dividing by SD). */
static bool grad_body(const KArray *x, const KArray *scale, const KArray *mean, const double *VE,
                      const double *RS, const double *SD, const KArray *gy, const BnGeo *gp,
                      KArray *gx, KArray *gscale, KArray *goffset, Error *err) {
  const BnGeo g = *gp;
  double *S = load_vec(scale, g.c, err), *M = load_vec(mean, g.c, err);
  double *SC = load_vec(NULL, g.c, err), *SO = load_vec(NULL, g.c, err);
  bool ok = S && M && SC && SO;
  if (ok) {
    /* sum(gy * (x - mean)) and sum(gy) */
    feature_sums2(x, gy, &g, M, SC, SO);
    /* grad_x = scale / sd * (gy - sum(gy) / n - sum(gy (x - mean)) / (n var') (x - mean)) */
    GradX j = {x, gy, &g, S, M, VE, RS, SC, SO, gx};
    pool_for((g.n + BN_CHUNK - 1) / BN_CHUNK, grad_x_chunk, &j);
    for (int64_t f = 0; f < g.c; f++) SC[f] = SD ? SC[f] / SD[f] : SC[f] * RS[f];
    k_cvt(gscale->etype, gscale->data, ET_F64, SC, g.c);
    k_cvt(goffset->etype, goffset->data, ET_F64, SO, g.c);
  }
  k_free(S); k_free(M); k_free(SC); k_free(SO);
  return ok;
}

static bool grad_check(const KArray *x, const KArray *scale, const KArray *mean, const KArray *var,
                       const KArray *gy, int64_t fi, KArray *gx, KArray *gscale, KArray *goffset,
                       const char *var_name, BnGeo *g, Error *err) {
  return bn_geo(x, fi, g, err) && vec_ok(scale, x, g->c, "scale", err) &&
         vec_ok(mean, x, g->c, "mean", err) && vec_ok(var, x, g->c, var_name, err) &&
         same_shape(gy, x, "grad_output", err) && same_shape(gx, x, "grad_operand", err) &&
         vec_ok(gscale, x, g->c, "grad_scale", err) && vec_ok(goffset, x, g->c, "grad_offset", err);
}

bool k_batch_norm_grad(const KArray *x, const KArray *scale, const KArray *mean, const KArray *var,
                       const KArray *gy, double eps, int64_t fi, KArray *gx, KArray *gscale,
                       KArray *goffset, Error *err) {
  BnGeo g;
  if (!grad_check(x, scale, mean, var, gy, fi, gx, gscale, goffset, "variance", &g, err))
    return false;
  double *V = load_vec(var, g.c, err), *RS = load_vec(NULL, g.c, err), *SD = load_vec(NULL, g.c, err);
  bool ok = V && RS && SD;
  for (int64_t f = 0; ok && f < g.c; f++) {
    V[f] += eps;
    SD[f] = sqrt(V[f]);
    RS[f] = 1.0 / SD[f];
  }
  ok = ok && grad_body(x, scale, mean, V, RS, SD, gy, &g, gx, gscale, goffset, err);
  k_free(V); k_free(RS); k_free(SD);
  return ok;
}

bool k_batch_norm_grad_inv_stddev(const KArray *x, const KArray *scale, const KArray *mean,
                                  const KArray *inv_stddev, const KArray *gy, int64_t fi,
                                  KArray *gx, KArray *gscale, KArray *goffset, Error *err) {
  BnGeo g;
  if (!grad_check(x, scale, mean, inv_stddev, gy, fi, gx, gscale, goffset, "inv_stddev", &g, err))
    return false;
  double *RS = load_vec(inv_stddev, g.c, err), *VE = load_vec(NULL, g.c, err);
  bool ok = RS && VE;
  for (int64_t f = 0; ok && f < g.c; f++) VE[f] = 1.0 / (RS[f] * RS[f]);
  ok = ok && grad_body(x, scale, mean, VE, RS, NULL, gy, &g, gx, gscale, goffset, err);
  k_free(RS); k_free(VE);
  return ok;
}
