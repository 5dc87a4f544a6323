/* Weight-gradient-shaped convolutions as one GEMM cut along its long K.
 *
 * In k_conv's terms out[b, o, f] = sum over i < KIF, k < KSP of
 * lhs[b, pos(o, k), i] * rhs[k, i, f]: a GEMM of M = OSP * B rows (o, b),
 * N = KOF columns and K = KIF * KSP.  In a filter gradient (XLA's
 * `f01b_i01o->01bf`, `fb01_io01->bf01`, cuDNN's convBackwardFilter) the
 * window o is the small filter (3x3), k runs over the whole image and i over
 * the batch: M and N are small and K is huge.  The generic im2col path cuts
 * M into chunks (a patch row is as long as K, so a 1 MB patch holds a few
 * rows) and its GEMMs come out tiny.  Here the K rows (i, k) are cut into
 * units of about WG_KC; a unit's patch (the im2col transposed, Mt x unit)
 * is built and multiplied by the unit's rows of rhs, accumulating (beta 1)
 * into the result.  Units are grouped into S consecutive slabs and M into
 * tiles, by the sizes alone; a (slab, tile) pool chunk runs its units in
 * order into its own partial result (slab 0 into the result itself), and
 * the partials are added to the result in slab order at the end.  So every
 * output is the same sum in the same order at every thread count.
 *
 * Batch groups (XLA's form of a grouped convolution's weight gradient:
 * lhs batch group g pairs with output features [g * F, +F)) are one such
 * GEMM per group, each writing its columns of the result; groups of fewer
 * than 4 rows or columns (depthwise) are left to conv_grouped_planar.
 *
 * Two patch builders, both without copying the operands first:
 * - spatial-minor (NCHW: lhs and rhs spatial dims innermost, in order): a
 *   unit is some whole rows of one rhs plane i; patch rows (o, b) are runs
 *   along the innermost spatial dim of lhs plane (i, b); GEMM patch x the
 *   rhs plane's rows transposed (tb, rows of rhs feature f).
 * - feature-minor (NHWC; any other layout after a permuting copy): lhs as
 *   [IF, S..., B], rhs as [KIF, KS..., KOF]; patch rows (i, k), each the
 *   B-long runs of lhs that the window positions o read; GEMM patch^T x the
 *   unit's rhs rows (contiguous).
 *
 * f32 on a CPU with AVX2 + FMA takes direct register tiles instead
 * (k_conv_wgrad_direct.c, on the same X and D: lhs in place, rhs in place
 * when its features are innermost); the GEMM serves f64, complex and other
 * CPUs. */
#include <limits.h>

#include "base/thread_pool.h"
#include "kernels/k_conv_internal.h"
#include "kernels/k_gemm.h"

/* K per BLAS call: long enough that the beta = 1 read and write of the
 * result tile (Mt x N per call) costs little against the 2 * Mt * N * K
 * flops, short enough that a patch of many rows stays in cache.  Measured
 * at one thread (CPU time) on the benchmark's filter gradients and the TF
 * dump's 256->256 200x304 shape: 256 beat 512 by 4-10% and 1024 by 10-15%;
 * 128 was as fast on the feature-minor builder, 10% slower on NCHW. */
#define WG_KC 256
/* Patch bytes per worker: stays in a core's L2 until the BLAS packs it. */
#define WG_PATCH_BYTES ((int64_t)1 << 20)
/* Below this K the generic path's row chunks are long enough. */
#define WG_MIN_K 2048
/* Pool chunks (slabs x tiles): enough that a thread the machine's load
 * delays leaves little for the others to wait on; slabs of K at most
 * WG_MAX_SLABS (each but the first one more partial result).  Powers of
 * two, so that 2, 4 and 8 threads split evenly. */
#define WG_MAX_CHUNKS 16
#define WG_MAX_SLABS 8

typedef struct Wgrad {
  const ConvGeo *g;
  EType ct;
  int cs;
  bool cmajor;
  int64_t B, F, KIF, M, KL, kouter, Ktot; /* B, F, M: per batch group */
  int64_t NG, KOF, xg; /* batch groups, all output features, lhs offset of one group (elements) */
  int64_t U, kc, nblk, nrows; /* units; rows per unit (feature-minor); blocks per plane, rows per block */
  int64_t S, Mt, mtiles;
  const char *X, *D;
  int64_t xi, xb, di, df; /* strides (elements): lhs i and b, rhs i and f */
  int64_t sp[K_MAX_RANK]; /* lhs spatial strides (elements) */
  const int64_t *klo, *cnt, *p0, *step; /* spatial-minor: innermost runs per output position */
  char *C, *part;
  void **patch;
} Wgrad;

/* Feature-minor patch of rows [r0, r1) of K and columns [m0, m1) of M:
 * patch[r - r0][m - m0] = lhs[b, pos(o, k), i] for r = (i, k), m = (o, b). */
static void pack_fminor(const Wgrad *w, int64_t gi, int64_t r0, int64_t r1, int64_t m0, int64_t m1, char *patch) {
  const ConvGeo *g = w->g;
  int ns = g->ns, cs = w->cs;
  const char *X = w->X + gi * w->xg * cs;
  int64_t B = w->B, mt = m1 - m0, o0 = m0 / B, o1 = (m1 - 1) / B;
  for (int64_t r = r0; r < r1; r++) {
    int64_t i = r / g->KSP, k = r % g->KSP, kd[K_MAX_RANK], od[K_MAX_RANK], part[K_MAX_RANK + 1];
    for (int d = ns - 1; d >= 0; d--) { kd[d] = k % g->ks[d]; k /= g->ks[d]; }
    int64_t t = o0;
    for (int d = ns - 1; d >= 0; d--) { od[d] = t % g->os[d]; t /= g->os[d]; }
    char *prow = patch + (r - r0) * mt * cs;
    /* part[d + 1]: offset of dims 0..d at window position od (-1 when
     * outside); the odometer over o recomputes only the dims that moved. */
    part[0] = i * w->xi;
    for (int64_t o = o0, d = 0; o <= o1; o++) {
      for (int e = (int)d; e < ns; e++) {
        int64_t v = g->map[e][od[e] * g->ks[e] + kd[e]];
        part[e + 1] = part[e] < 0 || v < 0 ? -1 : part[e] + v * w->sp[e];
      }
      int64_t off = part[ns];
      int64_t b0 = (m0 > o * B ? m0 : o * B) - o * B, b1 = (m1 < (o + 1) * B ? m1 : (o + 1) * B) - o * B;
      char *dst = prow + (o * B + b0 - m0) * cs;
      if (off < 0) memset(dst, 0, (size_t)((b1 - b0) * cs));
      else memcpy(dst, X + (off + b0) * cs, (size_t)((b1 - b0) * cs));
      int e = ns - 1;
      while (e >= 0 && ++od[e] == g->os[e]) od[e--] = 0;
      d = e < 0 ? 0 : e;
    }
  }
}

/* dst[j] = src[j * st] for j < n, elements of cs bytes (a window
 * dilation: the weight gradient of a strided convolution). */
static void copy_strided(char *dst, const char *src, int64_t st, int64_t n, int cs) {
  if (cs == 4) {
    uint32_t *d = (uint32_t *)(void *)dst;
    const uint32_t *p = (const uint32_t *)(const void *)src;
    for (int64_t j = 0; j < n; j++) d[j] = p[j * st];
  } else if (cs == 8) {
    uint64_t *d = (uint64_t *)(void *)dst;
    const uint64_t *p = (const uint64_t *)(const void *)src;
    for (int64_t j = 0; j < n; j++) d[j] = p[j * st];
  } else {
    for (int64_t j = 0; j < n; j++) memcpy(dst + j * cs, src + j * st * cs, (size_t)cs);
  }
}

/* Spatial-minor patch of plane i, kernel rows [q0, q1) (innermost-dim rows
 * of KL positions) and rows [m0, m1) of M: patch[m - m0][(q - q0) * KL + kl]
 * = lhs[b, pos(o, (q, kl)), i]. */
static void pack_cmajor(const Wgrad *w, int64_t gi, int64_t i, int64_t q0, int64_t q1, int64_t m0, int64_t m1,
                        char *patch) {
  const ConvGeo *g = w->g;
  int ns = g->ns, cs = w->cs;
  int64_t KL = w->KL, OSL = g->os[ns - 1], B = w->B, kcols = (q1 - q0) * KL;
  for (int64_t m = m0; m < m1; m++) {
    int64_t o = m / B, b = m % B, ol = o % OSL, oq = o / OSL;
    int64_t lo = w->klo[ol], n = w->cnt[ol], st = w->step[ol];
    const char *plane = w->X + (i * w->xi + gi * w->xg + b * w->xb) * cs;
    char *prow = patch + (m - m0) * kcols * cs;
    int64_t kk[K_MAX_RANK] = {0}, q = q0;
    for (int d = ns - 2; d >= 0; d--) { kk[d] = q % g->ks[d]; q /= g->ks[d]; }
    for (q = q0; q < q1; q++) {
      char *drow = prow + (q - q0) * KL * cs;
      int64_t off;
      if (n == 0 || !conv_row_offset(g, oq, kk, w->sp, &off)) {
        memset(drow, 0, (size_t)(KL * cs));
      } else {
        const char *irow = plane + (off + w->p0[ol]) * cs;
        memset(drow, 0, (size_t)(lo * cs));
        if (st == 1) memcpy(drow + lo * cs, irow, (size_t)(n * cs));
        else copy_strided(drow + lo * cs, irow, st, n, cs);
        memset(drow + (lo + n) * cs, 0, (size_t)((KL - lo - n) * cs));
      }
      for (int d = ns - 2; d >= 0; d--) {
        if (++kk[d] < g->ks[d]) break;
        kk[d] = 0;
      }
    }
  }
}

/* One (batch group, slab, tile) chunk: its units in order, the first
 * overwriting.  Group gi's result is columns [gi * F, +F) of [M, KOF]. */
static bool wgrad_chunk(void *ctx, int64_t c, int worker, Error *err) {
  const Wgrad *w = ctx;
  int cs = w->cs;
  int64_t gi = c / (w->S * w->mtiles), s = c % (w->S * w->mtiles) / w->mtiles, t = c % w->mtiles;
  int64_t F = w->F, KOF = w->KOF;
  int64_t m0 = t * w->Mt, m1 = m0 + w->Mt < w->M ? m0 + w->Mt : w->M, mr = m1 - m0;
  int64_t ukmax = w->cmajor ? w->nrows * w->KL : w->kc;
  if (!w->patch[worker] && !(w->patch[worker] = k_malloc(w->Mt * ukmax * cs, err))) return false;
  char *patch = w->patch[worker];
  char *Ct = (s == 0 ? w->C : w->part + (s - 1) * w->M * KOF * cs) + (m0 * KOF + gi * F) * cs;
  int64_t u0 = w->U * s / w->S, u1 = w->U * (s + 1) / w->S;
  for (int64_t u = u0; u < u1; u++) {
    bool ok;
    if (w->cmajor) {
      int64_t i = u / w->nblk, q0 = u % w->nblk * w->nrows;
      int64_t q1 = q0 + w->nrows < w->kouter ? q0 + w->nrows : w->kouter, kcols = (q1 - q0) * w->KL;
      pack_cmajor(w, gi, i, q0, q1, m0, m1, patch);
      ok = k_gemm_one(w->ct, false, true, u > u0, mr, F, kcols, patch, kcols,
                      w->D + (i * w->di + gi * F * w->df + q0 * w->KL) * cs, w->df, Ct, KOF);
    } else {
      int64_t r0 = u * w->kc, r1 = r0 + w->kc < w->Ktot ? r0 + w->kc : w->Ktot;
      pack_fminor(w, gi, r0, r1, m0, m1, patch);
      ok = k_gemm_one(w->ct, true, false, u > u0, mr, F, r1 - r0, patch, mr, w->D + (r0 * KOF + gi * F) * cs, KOF,
                      Ct, KOF);
    }
    if (!ok) return error_set(err, ERR_RUNTIME, -1, "convolution: gemm sizes out of range");
  }
  return true;
}

/* C += partial slabs 1..S-1, in slab order, over elements [e0, e1). */
typedef struct WgradSum {
  const Wgrad *w;
  int64_t n, per; /* real elements; per chunk */
  bool dbl;
} WgradSum;

static void wgrad_sum(void *ctx, int64_t c, int worker) {
  (void)worker;
  const WgradSum *j = ctx;
  int64_t e0 = c * j->per, e1 = e0 + j->per < j->n ? e0 + j->per : j->n;
  for (int64_t s = 1; s < j->w->S; s++) {
    if (j->dbl) {
      double *C = (double *)(void *)j->w->C;
      const double *P = (const double *)(const void *)j->w->part + (s - 1) * j->n;
      for (int64_t e = e0; e < e1; e++) C[e] += P[e];
    } else {
      float *C = (float *)(void *)j->w->C;
      const float *P = (const float *)(const void *)j->w->part + (s - 1) * j->n;
      for (int64_t e = e0; e < e1; e++) C[e] += P[e];
    }
  }
}

/* Row-major stride (elements) of dim d of x. */
static int64_t stride_of(const KArray *x, int64_t d) {
  int64_t s = 1;
  for (int i = x->rank - 1; i > d; i--) s *= x->dims[i];
  return s;
}

/* Whether x's spatial dims sp[0..ns) are its innermost dims, in order. */
static bool spatial_innermost(const KArray *x, int ns, const int64_t *sp) {
  for (int d = 0; d < ns; d++)
    if (sp[d] != x->rank - ns + d) return false;
  return true;
}

/* Unit and tile sizes, from the sizes alone. */
static void wgrad_plan(Wgrad *w) {
  int64_t uk;
  if (w->cmajor) {
    w->nrows = (WG_KC + w->KL / 2) / w->KL;
    if (w->nrows < 1) w->nrows = 1;
    if (w->nrows > w->kouter) w->nrows = w->kouter;
    w->nblk = (w->kouter + w->nrows - 1) / w->nrows;
    w->nrows = (w->kouter + w->nblk - 1) / w->nblk; /* even blocks */
    w->U = w->KIF * w->nblk;
    uk = w->nrows * w->KL;
  } else {
    w->U = (w->Ktot + WG_KC - 1) / WG_KC;
    w->kc = (w->Ktot + w->U - 1) / w->U;
    uk = w->kc;
  }
  int64_t mt = WG_PATCH_BYTES / (uk * w->cs) / 16 * 16;
  if (mt < 16) mt = 16;
  w->mtiles = (w->M + mt - 1) / mt;
  w->Mt = (w->M + w->mtiles - 1) / w->mtiles;
  if (w->mtiles > 1) w->Mt = (w->Mt + 15) / 16 * 16;
  w->mtiles = (w->M + w->Mt - 1) / w->Mt;
  /* Slabs of at least 4 units each. */
  w->S = 1;
  while (w->S < WG_MAX_SLABS && w->NG * w->S * 2 * w->mtiles <= WG_MAX_CHUNKS && w->U >= 8 * w->S) w->S *= 2;
}

int conv_wgrad(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g, EType ct, int64_t BG,
               KArray *out, Error *err) {
#ifndef HLO_HAVE_BLAS
  (void)lhs; (void)rhs; (void)dn; (void)g; (void)ct; (void)BG; (void)out; (void)err;
  return 0;
#else
  int ns = g->ns, rank = ns + 2;
  if (ns < 1 || (ct != ET_F32 && ct != ET_F64 && ct != ET_C64 && ct != ET_C128)) return 0;
  int64_t Bt = lhs->dims[dn->in_batch], KIF = rhs->dims[dn->k_in_feature], KOF = rhs->dims[dn->k_out_feature];
  int64_t B = Bt / BG, F = KOF / BG;
  if (g->KSP <= g->OSP || KIF * g->KSP < WG_MIN_K) return 0;
  /* Batch groups of a few rows or columns (depthwise weight gradients):
   * conv_grouped_planar's dot products suit them better. */
  if (BG > 1 && (B < 4 || F < 4)) return 0;
  Wgrad w = {.g = g, .ct = ct, .cs = etype_storage_bytes(ct), .B = B, .F = F, .KIF = KIF, .M = g->OSP * B,
             .KL = g->ks[ns - 1], .kouter = g->KSP / g->ks[ns - 1], .Ktot = KIF * g->KSP, .NG = BG, .KOF = KOF};
  if (w.M > INT_MAX || KOF > INT_MAX || w.KL > INT_MAX || w.M * KOF > (INT64_MAX / 64)) return 0;
  int cs = w.cs;
  int64_t *runs = NULL;
  void *lown = NULL, *rown = NULL;
  char *cbuf = NULL;
  int res = -1;
  /* Innermost kernel positions per window position as runs: both the
   * direct tiles and the spatial-minor builder need them. */
  int64_t OSL = g->os[ns - 1];
  if (!(runs = k_malloc(OSL * 4 * 8, err))) return -1;
  w.klo = runs; w.cnt = runs + OSL; w.p0 = runs + 2 * OSL; w.step = runs + 3 * OSL;
  bool have_runs = conv_kernel_runs(g, runs, runs + OSL, runs + 2 * OSL, runs + 3 * OSL);
  /* f32 takes the direct tiles (k_conv_wgrad_direct.c) on the
   * feature-minor operands; otherwise spatial-minor straight from the
   * operands when it can. */
  bool tiles = have_runs && ct == ET_F32 && conv_wgrad_direct_ok(B, F);
  w.cmajor = !tiles && have_runs && lhs->etype == ct && rhs->etype == ct &&
             spatial_innermost(lhs, ns, dn->in_spatial) && spatial_innermost(rhs, ns, dn->k_spatial) &&
             stride_of(rhs, dn->k_out_feature) <= INT_MAX;
  WgradOperands wo = {.NI = KIF, .Bt = Bt, .BG = BG, .KOF = KOF};
  if (tiles) {
    /* The tiles broadcast lhs elements from any layout, and load rhs
     * features as vectors: lhs and rhs read in place when f32 (rhs packed
     * a unit at a time when its output features are not innermost);
     * others as canonical copies. */
    int rp[K_MAX_RANK];
    int64_t nl, nr;
    if (!k_num_elements(rank, lhs->dims, &nl, err) || !k_num_elements(rank, rhs->dims, &nr, err)) goto out;
    if (lhs->etype == ET_F32) {
      wo.X = lhs->data;
      wo.xi = stride_of(lhs, dn->in_feature); wo.xb = stride_of(lhs, dn->in_batch);
      for (int d = 0; d < ns; d++) wo.xs[d] = stride_of(lhs, dn->in_spatial[d]);
    } else {
      int lp[K_MAX_RANK];
      lp[0] = (int)dn->in_feature; lp[ns + 1] = (int)dn->in_batch;
      for (int d = 0; d < ns; d++) lp[1 + d] = (int)dn->in_spatial[d];
      if (!(wo.X = conv_canon(lhs, lp, ct, nl, &lown, err))) goto out;
      int64_t s = Bt; /* [IF, S..., B] */
      for (int d = ns - 1; d >= 0; d--) { wo.xs[d] = s; s *= g->in_s[d]; }
      wo.xi = s; wo.xb = 1;
    }
    rp[0] = (int)dn->k_in_feature; rp[ns + 1] = (int)dn->k_out_feature;
    for (int d = 0; d < ns; d++) rp[1 + d] = (int)dn->k_spatial[d];
    if (rhs->etype == ET_F32) {
      wo.D = rhs->data;
      wo.df = stride_of(rhs, dn->k_out_feature);
      wo.di = stride_of(rhs, dn->k_in_feature);
      for (int d = 0; d < ns; d++) wo.ds[d] = stride_of(rhs, dn->k_spatial[d]);
    } else {
      if (!(wo.D = conv_canon(rhs, rp, ct, nr, &rown, err))) goto out;
      int64_t s = KOF; /* [KIF, KS..., KOF] */
      for (int d = ns - 1; d >= 0; d--) { wo.ds[d] = s; s *= g->ks[d]; }
      wo.di = s;
      wo.df = 1;
    }
  } else if (w.cmajor) {
    w.X = lhs->data; w.D = rhs->data;
    w.xi = stride_of(lhs, dn->in_feature); w.xb = stride_of(lhs, dn->in_batch);
    w.di = stride_of(rhs, dn->k_in_feature); w.df = stride_of(rhs, dn->k_out_feature);
    w.xg = B * w.xb;
    for (int64_t d = ns - 1, s = 1; d >= 0; d--) { w.sp[d] = s; s *= g->in_s[d]; }
  } else {
    int lp[K_MAX_RANK], rp[K_MAX_RANK];
    int64_t nl, nr;
    lp[0] = (int)dn->in_feature; lp[ns + 1] = (int)dn->in_batch;
    rp[0] = (int)dn->k_in_feature; rp[ns + 1] = (int)dn->k_out_feature;
    for (int d = 0; d < ns; d++) { lp[1 + d] = (int)dn->in_spatial[d]; rp[1 + d] = (int)dn->k_spatial[d]; }
    if (!k_num_elements(rank, lhs->dims, &nl, err) || !k_num_elements(rank, rhs->dims, &nr, err)) goto out;
    if (!(w.X = conv_canon(lhs, lp, ct, nl, &lown, err)) || !(w.D = conv_canon(rhs, rp, ct, nr, &rown, err)))
      goto out;
    int64_t s = Bt; /* [IF, S..., B] */
    for (int d = ns - 1; d >= 0; d--) { w.sp[d] = s; s *= g->in_s[d]; }
    w.xi = s;
    w.xg = B;
  }
  if (tiles) w.S = conv_wgrad_direct_streams(g, &wo);
  else wgrad_plan(&w);
  /* The result as [OS..., B, F]: in place when the output is laid out so. */
  int op[K_MAX_RANK], perm[K_MAX_RANK];
  for (int d = 0; d < ns; d++) op[d] = (int)dn->out_spatial[d];
  op[ns] = (int)dn->out_batch; op[ns + 1] = (int)dn->out_feature;
  bool direct = out->etype == ct && conv_in_order(out, op);
  int64_t mf = w.M * KOF;
  if (!(cbuf = k_malloc((direct ? 0 : mf) * cs + (w.S - 1) * mf * cs + 8, err))) goto out;
  w.C = direct ? out->data : cbuf;
  w.part = direct ? cbuf : cbuf + mf * cs;
  if (tiles) {
    wo.C = (float *)(void *)w.C;
    wo.part = (float *)(void *)w.part;
    if (!conv_wgrad_direct(g, w.klo, w.cnt, w.p0, w.step, &wo, err)) goto out;
  } else {
    int nw = pool_threads();
    if (!(w.patch = k_malloc(nw * (int64_t)sizeof *w.patch, err))) goto out;
    memset(w.patch, 0, (size_t)nw * sizeof *w.patch);
    bool ok = pool_for_err(w.NG * w.S * w.mtiles, wgrad_chunk, &w, err);
    for (int i = 0; i < nw; i++) k_free(w.patch[i]);
    k_free(w.patch);
    if (!ok) goto out;
  }
  if (w.S > 1) {
    bool cpx = ct == ET_C64 || ct == ET_C128;
    WgradSum sj = {&w, mf * (cpx ? 2 : 1), 0, ct == ET_F64 || ct == ET_C128};
    int64_t nch = pool_chunks(mf * cs * w.S, sj.n);
    sj.per = (sj.n + nch - 1) / nch;
    pool_for((sj.n + sj.per - 1) / sj.per, wgrad_sum, &sj);
  }
  if (!direct) {
    /* [OS..., B, F] -> the result's dimension order and type. */
    int64_t cdims[K_MAX_RANK];
    for (int i = 0; i < rank; i++) { cdims[i] = out->dims[op[i]]; perm[op[i]] = i; }
    if (out->etype == ct) {
      k_permute(cs, w.C, rank, cdims, perm, out->data);
    } else {
      char *tmp = k_malloc(mf * cs, err);
      if (!tmp) goto out;
      k_permute(cs, w.C, rank, cdims, perm, tmp);
      k_cvt(out->etype, out->data, ct, tmp, mf);
      k_free(tmp);
    }
  }
  res = 1;
out:
  k_free(runs); k_free(lown); k_free(rown); k_free(cbuf);
  return res;
#endif
}
