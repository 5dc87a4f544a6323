/* Convolutions that have a better form than im2col + gemm.
 *
 * - A window covering the whole input (no padding, dilation or reversal;
 *   one output position) is a dot over input features and all spatial
 *   dims: the weight gradient of a 1x1 convolution, or a dense layer written
 *   as a convolution.  im2col would build one row per output batch element,
 *   as long as the whole input, and multiply it by the whole kernel each
 *   time; k_dot does one gemm.
 * - A depthwise convolution on channel-major data (NCHW: torch's layout)
 *   is a small 2-d filter run over each contiguous feature plane; done
 *   directly, it needs no permuted copy of the input or the result. */
/* Multiply, then add: no a * b + c fused into one rounding, so that the
 * depthwise and planar loops give the same bytes on every CPU (GCC had
 * fused them in the AVX-512 clones only, whose sums then differed from the
 * AVX2 and baseline clones' in the last bits). */
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif
#include "base/thread_pool.h"
#include "kernels/k_conv_internal.h"
#include "kernels/k_dot.h"

int conv_full_window_dot(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g,
                         KArray *out, Error *err) {
  int ns = g->ns;
  for (int d = 0; d < ns; d++) {
    if (g->os[d] != 1 || g->ks[d] != g->in_s[d]) return 0;
    for (int64_t k = 0; k < g->ks[d]; k++)
      if (g->map[d][k] != k) return 0;
  }
  int64_t lc[K_MAX_RANK], rc[K_MAX_RANK];
  lc[0] = dn->in_feature;
  rc[0] = dn->k_in_feature;
  for (int d = 0; d < ns; d++) {
    lc[1 + d] = dn->in_spatial[d];
    rc[1 + d] = dn->k_spatial[d];
  }
  /* The only dims left are the lhs batch and the kernel output feature, so
   * the result holds [B, OF] or [OF, B] in storage; the dot writes it in
   * place, its operands swapped for the second. */
  int64_t B = lhs->dims[dn->in_batch], OF = rhs->dims[dn->k_out_feature];
  bool batch_first = dn->out_batch < dn->out_feature;
  int64_t dims[2] = {batch_first ? B : OF, batch_first ? OF : B};
  KArray view = {out->etype, 2, dims, out->data};
  KDotDims dd = {0, NULL, NULL, ns + 1, batch_first ? lc : rc, batch_first ? rc : lc};
  return k_dot(batch_first ? lhs : rhs, batch_first ? rhs : lhs, &dd, &view, err) ? 1 : -1;
}

/* o[i] += w * in[i] */
K_CLONES static void axpy_f32(float *restrict o, const float *restrict in, float w, int64_t n) {
  for (int64_t i = 0; i < n; i++) o[i] += w * in[i];
}

/* conv_depthwise_cmajor's work: output planes (batch, feature) in chunks
 * of `per`, each plane summing its taps in order. */
typedef struct DepthwisePlanes {
  const ConvGeo *g;
  const ConvRuns *runs;
  const float *K, *L;
  float *O;
  int64_t groups, OF, M, outer, OSL, ISP;
  const int64_t *sp;
  int64_t planes, per;
} DepthwisePlanes;

static void depthwise_planes(void *ctx, int64_t chunk, int worker) {
  (void)worker;
  const DepthwisePlanes *j = ctx;
  const ConvGeo *g = j->g;
  const ConvRuns *runs = j->runs;
  int ns = g->ns;
  int64_t OF = j->OF, OSL = j->OSL, kl = g->ks[ns - 1], first = chunk * j->per;
  int64_t last = first + j->per < j->planes ? first + j->per : j->planes;
  const int64_t *mlast = g->map[ns - 1];
  for (int64_t p = first; p < last; p++) {
    int64_t b = p / OF, oc = p % OF;
    const float *plane = j->L + (b * j->groups + oc / j->M) * j->ISP;
    float *oplane = j->O + p * g->OSP;
    memset(oplane, 0, (size_t)g->OSP * sizeof *oplane);
    /* Taps in order, as the other paths sum them; taps that fall into
     * padding or between dilated elements add nothing. */
    int64_t kk[K_MAX_RANK] = {0};
    for (int64_t tap = 0; tap < g->KSP; tap++) {
      float w = j->K[tap * OF + oc];
      int64_t k = kk[ns - 1], lo = runs->lo[k], hi = runs->hi[k];
      for (int64_t q = 0; q < j->outer && lo < hi; q++) {
        int64_t off;
        if (!conv_row_offset(g, q, kk, j->sp, &off)) continue;
        float *orow = oplane + q * OSL;
        const float *irow = plane + off;
        if (runs->contig[k]) {
          axpy_f32(orow + lo, irow + runs->base[k], w, hi - lo);
        } else {
          for (int64_t o = lo; o < hi; o++) {
            int64_t v = mlast[o * kl + k];
            if (v >= 0) orow[o] += w * irow[v];
          }
        }
      }
      for (int d = ns - 1; d >= 0; d--) {
        if (++kk[d] < g->ks[d]) break;
        kk[d] = 0;
      }
    }
  }
}

int conv_depthwise_cmajor(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g,
                          int64_t groups, KArray *out, Error *err) {
  int ns = g->ns;
  if (ns < 1 || lhs->etype != ET_F32 || rhs->etype != ET_F32 || out->etype != ET_F32) return 0;
  int lp[K_MAX_RANK], op[K_MAX_RANK], kp[K_MAX_RANK];
  lp[0] = (int)dn->in_batch; lp[1] = (int)dn->in_feature;
  op[0] = (int)dn->out_batch; op[1] = (int)dn->out_feature;
  for (int d = 0; d < ns; d++) {
    lp[2 + d] = (int)dn->in_spatial[d];
    op[2 + d] = (int)dn->out_spatial[d];
    kp[d] = (int)dn->k_spatial[d];
  }
  kp[ns] = (int)dn->k_in_feature;
  kp[ns + 1] = (int)dn->k_out_feature;
  if (!conv_in_order(lhs, lp) || !conv_in_order(out, op)) return 0;

  int64_t B = lhs->dims[dn->in_batch], OF = rhs->dims[dn->k_out_feature], M = OF / groups, nr;
  if (!k_num_elements(rhs->rank, rhs->dims, &nr, err)) return -1;
  int64_t OSL = g->os[ns - 1], outer = g->OSP / OSL;
  int64_t sp[K_MAX_RANK], ISP = 1; /* input spatial strides */
  for (int d = ns - 1; d >= 0; d--) { sp[d] = ISP; ISP *= g->in_s[d]; }
  void *kown = NULL;
  ConvRuns runs = {0};
  const float *K = conv_canon(rhs, kp, ET_F32, nr, &kown, err); /* [taps, 1, OF] */
  if (!K || !conv_runs_init(g, &runs, err)) {
    k_free(kown);
    return -1;
  }
  int64_t planes = B * OF, nchunks = pool_chunks(planes * g->OSP * 4, planes);
  DepthwisePlanes job = {g, &runs, K, lhs->data, out->data, groups, OF, M, outer, OSL, ISP, sp,
                         planes, (planes + nchunks - 1) / nchunks};
  pool_for((planes + job.per - 1) / job.per, depthwise_planes, &job);
  k_free(kown);
  conv_runs_free(&runs);
  return 1;
}

/* sum over j < n of a[j * as] * b[j]; eight partial sums when a is
 * contiguous so that the loop vectorises. */
K_CLONES static float dot_f32(const float *restrict a, int64_t as, const float *restrict b, int64_t n) {
  if (as != 1) {
    float s = 0;
    for (int64_t j = 0; j < n; j++) s += a[j * as] * b[j];
    return s;
  }
  float p[8] = {0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8)
    for (int l = 0; l < 8; l++) p[l] += a[j + l] * b[j + l];
  float s = ((p[0] + p[1]) + (p[2] + p[3])) + ((p[4] + p[5]) + (p[6] + p[7]));
  for (; j < n; j++) s += a[j] * b[j];
  return s;
}

bool conv_kernel_runs(const ConvGeo *g, int64_t *klo, int64_t *cnt, int64_t *p0, int64_t *step) {
  int64_t kl = g->ks[g->ns - 1], OSL = g->os[g->ns - 1];
  const int64_t *m = g->map[g->ns - 1];
  for (int64_t o = 0; o < OSL; o++) {
    const int64_t *row = m + o * kl;
    int64_t a = 0;
    while (a < kl && row[a] < 0) a++;
    int64_t b = a;
    while (b < kl && row[b] >= 0) b++;
    for (int64_t k = b; k < kl; k++)
      if (row[k] >= 0) return false;
    klo[o] = a; cnt[o] = b - a; p0[o] = a < kl ? row[a] : 0;
    step[o] = b - a > 1 ? row[a + 1] - row[a] : 1;
    for (int64_t k = a; k < b; k++)
      if (row[k] != p0[o] + (k - a) * step[o]) return false;
  }
  return true;
}

/* Stride (elements) of dim d of a row-major array. */
static int64_t dim_stride(const KArray *x, int64_t d) {
  int64_t s = 1;
  for (int i = x->rank - 1; i > d; i--) s *= x->dims[i];
  return s;
}

/* conv_grouped_planar's work: output planes (batch, feature) in chunks of
 * `per`, each worker with its own double accumulator plane acc[worker]. */
typedef struct PlanarJob {
  const ConvGeo *g;
  const float *L, *K;
  float *C;
  int64_t Bo, OF, OFg, BG, KIF, OSL, outer, kouter, lsb, lsf, ksi, kso;
  const int64_t *sp, *klo, *cnt, *p0, *step;
  double **acc;
  int64_t OSP, planes, per;
} PlanarJob;

static bool planar_planes(void *ctx, int64_t chunk, int worker, Error *err) {
  const PlanarJob *j = ctx;
  const ConvGeo *g = j->g;
  int ns = g->ns;
  int64_t KL = g->ks[ns - 1], OSL = j->OSL, first = chunk * j->per;
  int64_t last = first + j->per < j->planes ? first + j->per : j->planes;
  if (!j->acc[worker] && !(j->acc[worker] = k_malloc(j->OSP * 8 + 8, err))) return false;
  double *acc = j->acc[worker];
  for (int64_t p = first; p < last; p++) {
    int64_t bo = p / j->OF, of = p % j->OF;
    int64_t gi = of / j->OFg, fg = j->BG > 1 ? 0 : gi, bg = j->BG > 1 ? gi : 0;
    /* Each output sums IF x kernel-plane products (a whole batch and
     * image): rows are summed in f32, the rows' sums in double. */
    for (int64_t o = 0; o < j->OSP; o++) acc[o] = 0;
    for (int64_t ki = 0; ki < j->KIF; ki++) {
      const float *iplane = j->L + (bg * j->Bo + bo) * j->lsb + (fg * j->KIF + ki) * j->lsf;
      const float *kplane = j->K + ki * j->ksi + of * j->kso;
      for (int64_t q = 0; q < j->outer; q++) {
        double *orow = acc + q * OSL;
        int64_t kk[K_MAX_RANK] = {0};
        for (int64_t r = 0; r < j->kouter; r++) {
          int64_t off;
          if (conv_row_offset(g, q, kk, j->sp, &off)) {
            const float *irow = iplane + off, *krow = kplane + r * KL;
            for (int64_t o = 0; o < OSL; o++)
              if (j->cnt[o]) orow[o] += dot_f32(irow + j->p0[o], j->step[o], krow + j->klo[o], j->cnt[o]);
          }
          for (int d = ns - 2; d >= 0; d--) {
            if (++kk[d] < g->ks[d]) break;
            kk[d] = 0;
          }
        }
      }
    }
    float *oplane = j->C + p * j->OSP;
    for (int64_t o = 0; o < j->OSP; o++) oplane[o] = (float)acc[o];
  }
  return true;
}

int conv_grouped_planar(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g,
                        int64_t G, int64_t BG, KArray *out, Error *err) {
  int ns = g->ns, rank = ns + 2;
  if (ns < 1 || lhs->etype != ET_F32 || rhs->etype != ET_F32 || out->etype != ET_F32) return 0;
  int64_t KL = g->ks[ns - 1], OSL = g->os[ns - 1];
  if (KL <= OSL) return 0; /* small kernels: im2col or the depthwise paths */
  for (int d = 0; d < ns; d++)
    if (dn->in_spatial[d] != rank - ns + d || dn->k_spatial[d] != rank - ns + d) return 0;
  int64_t *runs = k_malloc(OSL * 4 * 8 + 8, err);
  if (!runs) return -1;
  int64_t *klo = runs, *cnt = runs + OSL, *p0 = runs + 2 * OSL, *step = runs + 3 * OSL;
  if (!conv_kernel_runs(g, klo, cnt, p0, step)) {
    k_free(runs);
    return 0;
  }
  int op[K_MAX_RANK], perm[K_MAX_RANK];
  op[0] = (int)dn->out_batch; op[1] = (int)dn->out_feature;
  for (int d = 0; d < ns; d++) op[2 + d] = (int)dn->out_spatial[d];
  for (int i = 0; i < rank; i++) perm[op[i]] = i;
  int64_t Bo = out->dims[dn->out_batch], OF = out->dims[dn->out_feature], KIF = rhs->dims[dn->k_in_feature];
  int64_t OFg = OF / (G * BG), OSP = g->OSP, KSP = g->KSP, outer = OSP / OSL, kouter = KSP / KL;
  int64_t lsb = dim_stride(lhs, dn->in_batch), lsf = dim_stride(lhs, dn->in_feature);
  int64_t ksi = dim_stride(rhs, dn->k_in_feature), kso = dim_stride(rhs, dn->k_out_feature);
  int64_t sp[K_MAX_RANK], ISP = 1;
  for (int d = ns - 1; d >= 0; d--) { sp[d] = ISP; ISP *= g->in_s[d]; }
  /* Results [Bo, OF, OS...], permuted into place unless already there. */
  bool direct = conv_in_order(out, op);
  float *C = direct ? out->data : k_malloc(Bo * OF * OSP * 4 + 4, err);
  int nw = pool_threads();
  double **acc = C ? k_malloc(nw * (int64_t)sizeof *acc, err) : NULL;
  if (!acc) {
    if (!direct) k_free(C);
    k_free(runs);
    return -1;
  }
  memset(acc, 0, (size_t)nw * sizeof *acc);
  int64_t planes = Bo * OF, nchunks = pool_chunks(planes * OSP * 4, planes);
  PlanarJob job = {g, lhs->data, rhs->data, C, Bo, OF, OFg, BG, KIF, OSL, outer, kouter, lsb, lsf, ksi, kso,
                   sp, klo, cnt, p0, step, acc, OSP, planes, (planes + nchunks - 1) / nchunks};
  bool ok = pool_for_err((planes + job.per - 1) / job.per, planar_planes, &job, err);
  for (int w = 0; w < nw; w++) k_free(acc[w]);
  k_free(acc);
  if (!ok) {
    if (!direct) k_free(C);
    k_free(runs);
    return -1;
  }
  if (!direct) {
    int64_t cdims[K_MAX_RANK];
    for (int i = 0; i < rank; i++) cdims[i] = out->dims[op[i]];
    k_permute(4, C, rank, cdims, perm, out->data);
    k_free(C);
  }
  k_free(runs);
  return 1;
}
