/* Grouped forward convolutions through the direct f32 tiles, and base-
 * dilated convolutions (strided input gradients) whose phases write
 * straight into the strided positions of the result (kernels/
 * k_conv_direct.c, k_conv_phases.c).  Each case runs with the AVX-512
 * tile, the AVX2 tile (where the CPU has them) and with the direct path off
 * (im2col, and the phases' buffer and scatter), at 1, 2 and 3 threads, and
 * is checked against
 *   - a plain loop in double written here (every path and thread count,
 *     within float rounding of the sum of |products|; outputs no tap reads
 *     exactly 0, the result having been filled with NaN first),
 *   - the direct tiles bit for bit at every thread count and on both tiles
 *     (the summation order is fixed by the shape: conv_direct_icb), and,
 *     without base dilation, a scalar emulation of that order (as in
 *     test_k_conv_direct.c: per output, per input-feature range of
 *     conv_direct_icb(taps) of its group, per row of taps, one chain of
 *     fmaf from zero; the segments added in order). */
#include <criterion/criterion.h>
#include <math.h>

#include "conv_isas.h"
#include "ktest.h"

typedef struct GCase {
  int ns;
  int64_t B, G, IFg, OFg;
  int64_t in[2], k[2], st[2], lo[2], hi[2], bd[2];
  bool rev, oi;  /* kernel reversed (an input gradient's); kernel [S..., O, I] instead of [S..., I, O] */
  bool cmajor;   /* lhs and result [B, F, S...] (NCHW) instead of [B, S..., F] */
} GCase;

static void run_gcase(const GCase *c, Rng *rng) {
  int ns = c->ns, rank = ns + 2;
  int64_t IF = c->G * c->IFg, OF = c->G * c->OFg;
  int64_t ls[2], ks[2], os[2], lf = c->cmajor ? 1 : rank - 1;
  for (int d = 0; d < ns; d++) {
    ls[d] = os[d] = c->cmajor ? 2 + d : 1 + d;
    ks[d] = d;
  }
  KConvParams p;
  memset(&p, 0, sizeof p);
  p.dn = (KConvDims){ns, 0, lf, ls, c->oi ? ns + 1 : ns, c->oi ? ns : ns + 1, ks, 0, lf, os};
  int64_t wd[2] = {1, 1};
  bool rev[2] = {c->rev, c->rev};
  p.window = (KWindow){ns, NULL, (int64_t *)c->st, (int64_t *)c->lo, (int64_t *)c->hi, (int64_t *)c->bd, wd, rev};
  p.feature_group_count = c->G;
  p.batch_group_count = 1;
  Error err;
  int64_t ld[4], kd[4], od[4], osz[2];
  for (int d = 0; d < ns; d++)
    cr_assert(k_window_out_size(c->in[d], c->k[d], c->st[d], c->lo[d], c->hi[d], c->bd[d], 1, &osz[d], &err));
  ld[0] = od[0] = c->B;
  ld[lf] = IF;
  od[lf] = OF;
  kd[p.dn.k_in_feature] = c->IFg;
  kd[p.dn.k_out_feature] = OF;
  for (int d = 0; d < ns; d++) { ld[ls[d]] = c->in[d]; od[os[d]] = osz[d]; kd[d] = c->k[d]; }
  int64_t nl = prod(rank, ld), nk = prod(rank, kd), no = prod(rank, od);
  float *x = malloc((size_t)(nl + 1) * 4), *w = malloc((size_t)(nk + 1) * 4);
  for (int64_t i = 0; i < nl; i++) x[i] = (float)(2 * rng_unit(rng) - 1);
  for (int64_t i = 0; i < nk; i++) w[i] = (float)(2 * rng_unit(rng) - 1);
  double *ref = calloc((size_t)no + 1, 8), *mag = calloc((size_t)no + 1, 8);
  float *emu = calloc((size_t)no + 1, 4);
  int64_t lst[4], kst[4], ost[4];
  k_row_major_strides(ld, rank, lst); k_row_major_strides(kd, rank, kst); k_row_major_strides(od, rank, ost);
  int64_t KSP = prod(ns, c->k), OSP = prod(ns, osz), kl = c->k[ns - 1], icb = conv_direct_icb(KSP);
  bool dilated = false;
  for (int d = 0; d < ns; d++) dilated = dilated || c->bd[d] > 1;
  /* The plain loops: batch, output positions, output features, taps in
   * kernel order, the group's input features. */
  for (int64_t b = 0; b < c->B; b++)
    for (int64_t q = 0; q < OSP; q++)
      for (int64_t f = 0; f < OF; f++) {
        int64_t o[2], oo = b * ost[0] + f * ost[lf], t = q, g = f / c->OFg;
        for (int d = ns - 1; d >= 0; d--) { o[d] = t % osz[d]; t /= osz[d]; oo += o[d] * ost[os[d]]; }
        double acc = 0, m = 0;
        float e = 0, seg = 0;
        for (int64_t i0 = 0; i0 < c->IFg; i0 += icb)
          for (int64_t tap = 0; tap < KSP; tap++) {
            int64_t kk[2], tt = tap, koff = f * kst[p.dn.k_out_feature], xoff = b * lst[0];
            bool in = true;
            for (int d = ns - 1; d >= 0; d--) { kk[d] = tt % c->k[d]; tt /= c->k[d]; }
            for (int d = 0; d < ns; d++) {
              int64_t kw = c->rev ? c->k[d] - 1 - kk[d] : kk[d];
              int64_t pos = o[d] * c->st[d] + kw - c->lo[d];
              in = in && pos >= 0 && pos % c->bd[d] == 0 && pos / c->bd[d] < c->in[d];
              xoff += pos / c->bd[d] * lst[ls[d]];
              koff += kk[d] * kst[d];
            }
            if (tap % kl == 0) seg = 0;
            int64_t n = c->IFg - i0 < icb ? c->IFg - i0 : icb;
            const float *xr = in ? x + xoff + (g * c->IFg + i0) * lst[lf] : x;
            conv_emulate_range(xr, lst[lf], w + koff + i0 * kst[p.dn.k_in_feature], kst[p.dn.k_in_feature], n, in,
                               &acc, &m, &seg);
            if (tap % kl == kl - 1) e = i0 == 0 && tap == kl - 1 ? seg : e + seg;
          }
        ref[oo] = acc; mag[oo] = m; emu[oo] = e;
      }
  KArray L = ka(ET_F32, rank, ld, x), R = ka(ET_F32, rank, kd, w);
  float *out = malloc((size_t)(no + 1) * 4), *first = NULL;
  for (int v = 0; v < CONV_NISAS; v++) {
    if (!conv_isa_here(v)) continue;
    for (int th = 1; th <= 3; th++) {
      for (int64_t i = 0; i < no; i++) out[i] = NAN;
      KArray O = ka(ET_F32, rank, od, out);
      bool ok = conv_with(conv_isas[v], th, &L, &R, &p, &O, &err);
      cr_assert(ok, "%s", err.msg);
      for (int64_t i = 0; i < no; i++)
        cr_assert(fabs(out[i] - ref[i]) <= 1e-5 * mag[i] + 1e-30, "isa %d threads %d [%lld] %.9g vs %.9g", conv_isas[v], th,
                  (long long)i, out[i], ref[i]);
      if (conv_isas[v] == CONV_DIRECT_OFF) continue;
      if (!first) {
        first = malloc((size_t)(no + 1) * 4);
        memcpy(first, out, (size_t)no * 4);
      }
      cr_assert(memcmp(first, out, (size_t)no * 4) == 0, "isa %d threads %d: not the bytes of the first run", conv_isas[v], th);
      for (int64_t i = 0; i < no && !dilated; i++)
        cr_assert(memcmp(&out[i], &emu[i], 4) == 0, "isa %d G %lld IFg %lld OFg %lld: [%lld] %.9g, emulated %.9g", conv_isas[v],
                  (long long)c->G, (long long)c->IFg, (long long)c->OFg, (long long)i, out[i], emu[i]);
    }
  }
  free(x); free(w); free(ref); free(mag); free(emu); free(out); free(first);
}

#define ONES {1, 1}
#define ZEROS {0, 0}

/* Grouped forward: G = 2, 3, 4; features per group not multiples of the
 * vector widths; batch 1; 1-wide images; strides and asymmetric padding;
 * NCHW through the copies; the [S..., O, I] kernel; a 1-d window. */
Test(k_conv_groups, grouped_forward) {
  Rng rng = {21};
  GCase cases[] = {
    {2, 2, 2, 5, 7, {6, 7}, {3, 3}, ONES, ONES, ONES, ONES, false, false, false},
    {2, 1, 3, 4, 17, {5, 1}, {3, 1}, ONES, {1, 0}, {1, 0}, ONES, false, true, false},
    {2, 3, 4, 32, 32, {7, 9}, {3, 3}, ONES, ONES, ONES, ONES, false, false, false},
    {2, 2, 3, 9, 20, {9, 8}, {3, 2}, {2, 1}, {1, 0}, {0, 1}, ONES, true, false, false},
    {2, 1, 2, 1, 70, {4, 6}, {2, 3}, ONES, ZEROS, {1, 2}, ONES, false, false, false},
    {2, 2, 2, 6, 12, {6, 5}, {3, 3}, ONES, ONES, ONES, ONES, false, true, true},
    {1, 2, 3, 40, 5, {13, 0}, {5, 0}, {2, 0}, {2, 0}, {2, 0}, {1, 0}, false, false, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_gcase(&cases[i], &rng);
}

/* Base dilation 2 and 3 (strided input gradients), phases written straight
 * into the result: reversed 3x3 kernels, odd sizes, phases that read no tap
 * (dilation 3 with a 2-wide kernel: their outputs must be 0), 1x1 phase
 * windows (the tiles take them in a view), grouped, NCHW, batch 1. */
Test(k_conv_groups, phases_into_the_result) {
  Rng rng = {23};
  GCase cases[] = {
    {2, 2, 1, 12, 20, {5, 6}, {3, 3}, ONES, ONES, {2, 2}, {2, 2}, true, true, false},
    {2, 1, 1, 7, 17, {4, 3}, {2, 3}, ONES, {1, 0}, {1, 2}, {3, 2}, true, false, false},
    {2, 2, 2, 5, 9, {4, 5}, {3, 3}, ONES, ONES, {2, 1}, {2, 2}, true, true, false},
    {2, 1, 1, 9, 6, {5, 1}, {3, 1}, {1, 1}, {2, 0}, {2, 0}, {2, 1}, false, false, false},
    {2, 2, 1, 6, 16, {4, 4}, {3, 3}, ONES, ONES, {2, 2}, {2, 2}, true, true, true},
    {1, 3, 3, 4, 5, {9, 0}, {4, 0}, {1, 0}, {3, 0}, {3, 0}, {2, 0}, true, false, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) run_gcase(&cases[i], &rng);
}
