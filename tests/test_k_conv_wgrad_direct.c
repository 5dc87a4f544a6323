/* The direct f32 filter gradient (kernels/k_conv_wgrad_direct.c), through
 * k_conv on convolutions of the weight-gradient shape (XLA's
 * f01b_i01o->01bf and fb01_io01->bf01: a window as large as the image, a
 * result as small as a filter), with batch groups, padding, window
 * dilation (the gradient of a strided convolution), 1 and 2 spatial dims,
 * an lhs that is not f32 (read through a converting copy).  Each case runs
 * with the AVX-512 tile, the AVX2 tile (where the CPU has them) and with
 * the direct paths off (the BLAS path), at 1 and 3 threads, and is checked
 * against
 *   - a naive loop in double (every path, within float rounding of the sum
 *     of |products|), and
 *   - for the tiles, bit for bit, a scalar emulation of their order: per
 *     output, units in order (per image, blocks of whole innermost kernel
 *     rows, or pieces of one long row, sized from the feature count and
 *     the result's size as the kernel says), each a chain of fmaf from zero over the
 *     unit's kernel positions in order, skipping those in padding; the
 *     units cut into 2 streams of consecutive units when there are at
 *     least 16 (1 stream otherwise); per stream, the first unit's sum
 *     stored and later ones added; stream 0's sum + stream 1's. */
#include <criterion/criterion.h>
#include <math.h>

#include "conv_isas.h"
#include "ktest.h"

typedef struct Case {
  int ns;
  int64_t N, C, F, BG; /* images (lhs features), lhs batch (all groups), result features (all groups), groups */
  int64_t in[2], win[2], lo[2], hi[2], wd[2];
  bool nchw;   /* fb01_io01->bf01 instead of f01b_i01o->01bf */
  bool lbf16;  /* lhs bf16 (compute in f32) */
} Case;

/* The tiles' units for a kernel innermost dim of KL, kouter rows of it and
 * F features per group: rows per unit R, pieces per row np of pl each. */
static void plan(int64_t KL, int64_t kouter, int64_t F, int64_t cbytes, int64_t *R, int64_t *np, int64_t *pl) {
  if (F < 1) F = 1;
  int64_t fw = F < 64 ? F : 64, T = (16 << 10) * (cbytes > (512 << 10) ? 4 : cbytes > (256 << 10) ? 2 : 1) / (4 * fw);
  if (T > 256 * KL) T = 256 * KL;
  if (KL >= T) {
    *R = 1;
    *np = (KL + T / 2) / T;
    if (*np < 1) *np = 1;
    *pl = (KL + *np - 1) / *np;
  } else {
    *R = (T + KL / 2) / KL;
    if (*R > kouter) *R = kouter;
    int64_t nrb = (kouter + *R - 1) / *R;
    *R = (kouter + nrb - 1) / nrb;
    *np = 1;
    *pl = KL;
  }
}

/* Runs one case; returns its stream count, times 10 when its unit count
 * is odd (streams of unequal length). */
static int run_case(const Case *c, Rng *rng) {
  int ns = c->ns, rank = ns + 2;
  int64_t B = c->C / c->BG, F = c->F / c->BG;
  int64_t ls[2], ks[2], os[2], osz[2];
  KConvParams p;
  memset(&p, 0, sizeof p);
  Error err;
  for (int d = 0; d < ns; d++) {
    ls[d] = ks[d] = c->nchw ? 2 + d : 1 + d;
    os[d] = c->nchw ? 2 + d : d;
    cr_assert(k_window_out_size(c->in[d], c->win[d], 1, c->lo[d], c->hi[d], 1, c->wd[d], &osz[d], &err));
  }
  /* lhs: feature N, batch C; rhs: in N, out F; result: batch B, feature F. */
  if (c->nchw) p.dn = (KConvDims){ns, 1, 0, ls, 0, 1, ks, 0, 1, os};
  else p.dn = (KConvDims){ns, ns + 1, 0, ls, 0, ns + 1, ks, ns, ns + 1, os};
  int64_t one[2] = {1, 1};
  p.window = (KWindow){ns, NULL, one, c->lo, c->hi, NULL, c->wd, NULL};
  p.feature_group_count = 1;
  p.batch_group_count = c->BG;
  int64_t ld[4], kd[4], od[4];
  ld[p.dn.in_feature] = c->N; ld[p.dn.in_batch] = c->C;
  kd[p.dn.k_in_feature] = c->N; kd[p.dn.k_out_feature] = c->F;
  od[p.dn.out_batch] = B; od[p.dn.out_feature] = c->F;
  for (int d = 0; d < ns; d++) { ld[ls[d]] = c->in[d]; kd[ks[d]] = c->win[d]; od[os[d]] = osz[d]; }
  int64_t nl = prod(rank, ld), nk = prod(rank, kd), no = prod(rank, od);
  float *x = malloc((size_t)(nl + 1) * 4), *w = malloc((size_t)(nk + 1) * 4);
  for (int64_t i = 0; i < nl; i++) x[i] = (float)(2 * rng_unit(rng) - 1);
  for (int64_t i = 0; i < nk; i++) w[i] = (float)(2 * rng_unit(rng) - 1);
  uint16_t *xb = NULL;
  if (c->lbf16) { /* the lhs as bf16, and x as the values it holds */
    xb = malloc((size_t)(nl + 1) * 2);
    k_cvt(ET_BF16, xb, ET_F32, x, nl);
    k_cvt(ET_F32, x, ET_BF16, xb, nl);
  }
  double *ref = calloc((size_t)no + 1, 8), *mag = calloc((size_t)no + 1, 8);
  float *emu = calloc((size_t)no + 1, 4);
  int64_t lst[4], kst[4], ost[4];
  k_row_major_strides(ld, rank, lst); k_row_major_strides(kd, rank, kst); k_row_major_strides(od, rank, ost);
  int64_t KL = c->win[ns - 1], kouter = ns == 2 ? c->win[0] : 1, R, np, pl;
  int64_t OSP = ns == 2 ? osz[0] * osz[1] : osz[0];
  plan(KL, kouter, F, OSP * B * c->F * 4, &R, &np, &pl);
  int64_t U = c->N * ((kouter + R - 1) / R) * ((KL + pl - 1) / pl), S = U >= 16 ? 2 : 1;
  for (int64_t b = 0; b < B; b++)
    for (int64_t q = 0; q < OSP; q++)
      for (int64_t f = 0; f < c->F; f++) {
        int64_t o[2] = {ns == 2 ? q / osz[1] : q, ns == 2 ? q % osz[1] : 0}, g = f / F;
        int64_t oo = b * ost[p.dn.out_batch] + f * ost[p.dn.out_feature];
        for (int d = 0; d < ns; d++) oo += o[d] * ost[os[d]];
        double acc = 0, m = 0;
        float e[2] = {0, 0};
        int64_t u = 0;
        for (int64_t i = 0; i < c->N; i++)
          for (int64_t r0 = 0; r0 < kouter; r0 += R)
            for (int64_t k0 = 0; k0 < KL; k0 += pl, u++) {
              float unit = 0;
              for (int64_t r = r0; r < r0 + R && r < kouter; r++)
                for (int64_t k = k0; k < k0 + pl && k < KL; k++) {
                  int64_t kk[2] = {ns == 2 ? r : k, k}, xoff = i * lst[p.dn.in_feature] + (g * B + b) * lst[p.dn.in_batch];
                  int64_t koff = i * kst[p.dn.k_in_feature] + f * kst[p.dn.k_out_feature];
                  bool in = true;
                  for (int d = 0; d < ns; d++) {
                    int64_t pos = o[d] + kk[d] * c->wd[d] - c->lo[d];
                    in = in && pos >= 0 && pos < c->in[d];
                    xoff += pos * lst[ls[d]];
                    koff += kk[d] * kst[ks[d]];
                  }
                  if (!in) continue;
                  acc += (double)x[xoff] * w[koff];
                  m += fabs((double)x[xoff] * w[koff]);
                  unit = fmaf(x[xoff], w[koff], unit);
                }
              int64_t s = S - 1; /* stream s: units [s U / S, (s + 1) U / S) */
              while (s * U / S > u) s--;
              e[s] = u == s * U / S ? unit : e[s] + unit;
            }
        ref[oo] = acc; mag[oo] = m; emu[oo] = S == 2 ? e[0] + e[1] : e[0];
      }
  KArray L = c->lbf16 ? ka(ET_BF16, rank, ld, xb) : ka(ET_F32, rank, ld, x), Rk = ka(ET_F32, rank, kd, w);
  float *out = malloc((size_t)(no + 1) * 4);
  for (int v = 0; v < CONV_NISAS; v++)
    for (int t = 1; t <= 3; t += 2) {
      if (!conv_isa_here(v)) continue;
      for (int64_t i = 0; i < no; i++) out[i] = NAN;
      KArray O = ka(ET_F32, rank, od, out);
      bool ok = conv_with(conv_isas[v], t, &L, &Rk, &p, &O, &err);
      cr_assert(ok, "%s", err.msg);
      for (int64_t i = 0; i < no; i++) {
        cr_assert(fabs(out[i] - ref[i]) <= 1e-5 * mag[i] + 1e-30, "isa %d [%lld] %.9g vs %.9g", conv_isas[v],
                  (long long)i, out[i], ref[i]);
        if (conv_isas[v] != CONV_DIRECT_OFF)
          cr_assert(memcmp(&out[i], &emu[i], 4) == 0,
                    "isa %d threads %d, ns %d N %lld C %lld F %lld BG %lld nchw %d: [%lld] %.9g, emulated %.9g",
                    conv_isas[v], t, ns, (long long)c->N, (long long)c->C, (long long)c->F, (long long)c->BG, c->nchw,
                    (long long)i, out[i], emu[i]);
      }
    }
  free(x); free(w); free(xb); free(ref); free(mag); free(emu); free(out);
  return (int)S * (U % 2 ? 10 : 1);
}

/* Row and feature counts around the tiles' 6, 8 and 12 rows and their
 * 8, 16 and 64 features (masked last vectors), in both layouts.  (The
 * filter-gradient path takes images x kernel positions >= 2048.) */
Test(k_conv_wgrad_direct, rows_and_features) {
  Rng rng = {11};
  int64_t CF[][2] = {{1, 1}, {5, 3}, {6, 8}, {7, 17}, {13, 64}, {32, 70}, {37, 5}, {12, 33}};
  for (int a = 0; a < 8; a++) {
    Case c = {2, 2, CF[a][0], CF[a][1], 1, {32, 32}, {32, 32}, {1, 1}, {1, 1}, {1, 1}, a % 2 == 1, false};
    run_case(&c, &rng);
  }
}

/* Batch groups (a grouped convolution's filter gradient): 2 and 3 groups
 * of 4 rows and features; groups of 32 features take 8 rows (32 per
 * group) or 12 (36). */
Test(k_conv_wgrad_direct, batch_groups) {
  Rng rng = {12};
  Case cs[] = {
      {2, 2, 8, 8, 2, {32, 32}, {32, 32}, {1, 1}, {1, 1}, {1, 1}, false, false},
      {2, 2, 12, 12, 3, {32, 33}, {32, 32}, {1, 0}, {1, 1}, {1, 1}, true, false},
      {2, 2, 64, 64, 2, {32, 32}, {32, 32}, {1, 1}, {1, 1}, {1, 1}, false, false},
      {2, 2, 72, 64, 2, {32, 32}, {32, 32}, {1, 1}, {1, 1}, {1, 1}, false, false},
  };
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) run_case(&cs[i], &rng);
}

/* Window dilation (the gradient of a strided convolution), uneven
 * padding, 1 spatial dim, long rows cut into pieces (300 > the 64
 * positions a unit of 64 features takes; 2000 > 819 for 5 features), many
 * short rows per unit, and a bf16 lhs. */
Test(k_conv_wgrad_direct, windows_and_units) {
  Rng rng = {13};
  Case cs[] = {
      {2, 3, 16, 24, 1, {63, 63}, {31, 31}, {0, 0}, {1, 1}, {2, 2}, false, false},
      {2, 12, 9, 20, 1, {40, 30}, {19, 9}, {2, 0}, {1, 1}, {2, 3}, true, false},
      {1, 7, 7, 64, 1, {300, 0}, {300, 0}, {1, 0}, {1, 0}, {1, 1}, false, false},
      {1, 2, 6, 5, 1, {2000, 0}, {2000, 0}, {0, 0}, {2, 0}, {1, 1}, true, false},
      {2, 21, 7, 2, 1, {20, 5}, {20, 5}, {1, 1}, {1, 1}, {1, 1}, false, false},
      {2, 2, 10, 33, 1, {32, 32}, {32, 32}, {1, 1}, {1, 1}, {1, 1}, false, true},
      {2, 2, 10, 33, 1, {32, 32}, {32, 32}, {1, 1}, {1, 1}, {1, 1}, true, true},
      /* Results of 288 and 540 KB: units of twice and four times the rhs
       * bytes. */
      {1, 1, 32, 256, 1, {2056, 0}, {2048, 0}, {0, 0}, {0, 0}, {1, 1}, false, false},
      {1, 1, 48, 256, 1, {2058, 0}, {2048, 0}, {0, 0}, {0, 0}, {1, 1}, true, false},
  };
  /* The streams: one (under 16 units), two of equal and of unequal
   * length (an odd unit count, as the first case's 21). */
  bool one = false, two = false, odd = false;
  for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
    int s = run_case(&cs[i], &rng);
    one = one || s % 10 == 1;
    two = two || s % 10 == 2;
    odd = odd || s == 20;
  }
  cr_assert(one && two && odd, "stream counts covered: one %d, two %d, two unequal %d", one, two, odd);
}
