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
  const int64_t *os = g->os, *ks = g->ks;
  int64_t OSL = os[ns - 1], outer = g->OSP / OSL, kl = ks[ns - 1];
  int64_t sp[K_MAX_RANK], ISP = 1; /* input spatial strides */
  for (int d = ns - 1; d >= 0; d--) { sp[d] = ISP; ISP *= g->in_s[d]; }
  void *kown = NULL;
  ConvRuns runs = {0};
  const float *K = conv_canon(rhs, kp, ET_F32, nr, &kown, err); /* [taps, 1, OF] */
  if (!K || !conv_runs_init(g, &runs, err)) {
    k_free(kown);
    return -1;
  }
  const float *L = lhs->data;
  float *O = out->data;
  const int64_t *mlast = g->map[ns - 1];
  for (int64_t b = 0; b < B; b++)
    for (int64_t oc = 0; oc < OF; oc++) {
      const float *plane = L + (b * groups + oc / M) * ISP;
      float *oplane = O + (b * OF + oc) * g->OSP;
      memset(oplane, 0, (size_t)g->OSP * sizeof *oplane);
      /* Taps in order, as the other paths sum them; taps that fall into
       * padding or between dilated elements add nothing. */
      int64_t kk[K_MAX_RANK] = {0};
      for (int64_t tap = 0; tap < g->KSP; tap++) {
        float w = K[tap * OF + oc];
        int64_t k = kk[ns - 1], lo = runs.lo[k], hi = runs.hi[k];
        for (int64_t q = 0; q < outer && lo < hi; q++) {
          int64_t off = 0, rest = q;
          bool valid = true;
          for (int d = ns - 2; d >= 0 && valid; d--) {
            int64_t v = g->map[d][(rest % os[d]) * ks[d] + kk[d]];
            rest /= os[d];
            valid = v >= 0;
            off += v * sp[d];
          }
          if (!valid) continue;
          float *orow = oplane + q * OSL;
          const float *irow = plane + off;
          if (runs.contig[k]) {
            axpy_f32(orow + lo, irow + runs.base[k], w, hi - lo);
          } else {
            for (int64_t o = lo; o < hi; o++) {
              int64_t v = mlast[o * kl + k];
              if (v >= 0) orow[o] += w * irow[v];
            }
          }
        }
        for (int d = ns - 1; d >= 0; d--) {
          if (++kk[d] < ks[d]) break;
          kk[d] = 0;
        }
      }
    }
  k_free(kown);
  conv_runs_free(&runs);
  return 1;
}
