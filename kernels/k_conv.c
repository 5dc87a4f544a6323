/* convolution: canonicalise to lhs [B, S..., IF], kernel [S..., KIF, KOF],
 * out [Bo, OS..., OF]; im2col per row chunk; gemm per group.  f32 without
 * groups takes the direct tiles (k_conv_direct.c) instead, any layout;
 * other types computed in f32 after the canonicalising copies.  Depthwise
 * convolutions (feature groups of one input feature) computed in f32 take a
 * direct loop instead, vectorised over the features of an output row.
 * Channel-major data (NCHW) without groups takes an im2col that needs no
 * permuted copies (conv_cmajor); whole-input windows and channel-major
 * depthwise convolutions have their own paths (k_conv_paths.c); base-dilated
 * ones split into undilated convolutions per output phase (k_conv_phases.c);
 * weight gradients (a kernel window larger than the output, long K) run one
 * GEMM cut along K (k_conv_wgrad.c). */
/* Multiply, then add: no a * b + c fused into one rounding, so that the
 * depthwise and planar loops give the same bytes on every CPU (GCC had
 * fused them in the AVX-512 clones only, whose sums then differed from the
 * AVX2 and baseline clones' in the last bits). */
#ifdef __clang__
#pragma clang fp contract(off)
#else
#pragma GCC optimize("fp-contract=off")
#endif
#include "kernels/k_conv.h"

#include <limits.h>

#include "kernels/k_conv_internal.h"
#include "kernels/k_dot.h"
#include "kernels/k_gemm.h"
#include "kernels/k_movement.h"
#include "base/thread_pool.h"

/* k_permute on the pool (k_transpose: a strided copy in chunks). */
static void permute_par(int es, const void *src, int rank, const int64_t *dims, const int *perm, void *dst) {
  int64_t p[K_MAX_RANK];
  for (int i = 0; i < rank; i++) p[i] = perm[i];
  k_transpose(dst, src, dims, p, rank, (size_t)es);
}

#define PATCH_BYTES (1 << 20)

static bool distinct(int rank, int n, const int64_t *const *lists, const int *counts, Error *err) {
  bool used[K_MAX_RANK] = {false};
  int total = 0;
  for (int l = 0; l < n; l++)
    for (int i = 0; i < counts[l]; i++) {
      int64_t d = lists[l][i];
      if (d < 0 || d >= rank || used[d]) return error_set(err, ERR_RUNTIME, -1, "convolution: bad or repeated dimension number %lld", (long long)d);
      used[d] = true;
      total++;
    }
  if (total != rank) return error_set(err, ERR_RUNTIME, -1, "convolution: dimension numbers do not cover rank %d", rank);
  return true;
}

void *conv_canon(const KArray *x, const int *perm, EType ct, int64_t n, void **owned, Error *err) {
  bool id = true;
  int last = -1;
  for (int i = 0; i < x->rank; i++)
    if (x->dims[perm[i]] != 1) { if (perm[i] < last) id = false; last = perm[i]; }
  *owned = NULL;
  if (id && x->etype == ct) return x->data;
  int es = etype_storage_bytes(x->etype), cs = etype_storage_bytes(ct);
  void *p = x->data, *tmp = NULL;
  if (!id) {
    if (!(tmp = k_malloc(n * es, err))) return NULL;
    permute_par(es, x->data, x->rank, x->dims, perm, tmp);
    p = tmp;
  }
  if (x->etype == ct) { *owned = tmp; return tmp; }
  void *c = k_malloc(n * cs, err);
  if (!c) { k_free(tmp); return NULL; }
  k_cvt(ct, c, x->etype, p, n);
  k_free(tmp);
  *owned = c;
  return c;
}

bool conv_in_order(const KArray *x, const int *p) {
  for (int i = 0, last = -1; i < x->rank; i++)
    if (x->dims[p[i]] != 1) { if (p[i] < last) return false; last = p[i]; }
  return true;
}

bool conv_runs_init(const ConvGeo *g, ConvRuns *r, Error *err) {
  int64_t kl = g->ks[g->ns - 1], OSL = g->os[g->ns - 1];
  const int64_t *m = g->map[g->ns - 1];
  *r = (ConvRuns){0};
  if (!(r->lo = k_malloc((kl * 3 + 1) * 8 + kl + 1, err))) return false;
  r->hi = r->lo + kl;
  r->base = r->hi + kl;
  r->contig = (bool *)(r->base + kl);
  for (int64_t k = 0; k < kl; k++) {
    int64_t first = -1, last = -1;
    for (int64_t o = 0; o < OSL; o++)
      if (m[o * kl + k] >= 0) { if (first < 0) first = o; last = o; }
    r->contig[k] = true;
    if (first < 0) { r->lo[k] = r->hi[k] = r->base[k] = 0; continue; }
    r->lo[k] = first; r->hi[k] = last + 1; r->base[k] = m[first * kl + k];
    for (int64_t o = first; o <= last; o++)
      if (m[o * kl + k] != r->base[k] + (o - first)) { r->contig[k] = false; break; }
  }
  return true;
}

void conv_runs_free(ConvRuns *r) {
  k_free(r->lo);
  *r = (ConvRuns){0};
}

/* conv_cmajor's work, one chunk per (batch, block of nro output rows),
 * each worker with its own column buffer colb[worker]. */
typedef struct CmajorJob {
  const ConvGeo *g;
  const ConvRuns *runs;
  EType ct;
  int cs;
  int64_t KIF, KOF, ISP, OSP, OSL, outer, nro, nqc, cols;
  const int64_t *sp;
  const char *W, *L;
  char *O;
  void **colb;
} CmajorJob;

static bool cmajor_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  const CmajorJob *j = ctx;
  const ConvGeo *g = j->g;
  int ns = g->ns, cs = j->cs;
  int64_t b = chunk / j->nqc, q0 = chunk % j->nqc * j->nro, OSL = j->OSL, kl = g->ks[ns - 1], KSP = g->KSP;
  int64_t nq = j->outer - q0 < j->nro ? j->outer - q0 : j->nro, n = nq * OSL;
  if (!j->colb[worker] && !(j->colb[worker] = k_malloc(j->cols * j->nro * OSL * cs, err))) return false;
  char *colb = j->colb[worker];
  const int64_t *lo = j->runs->lo, *hi = j->runs->hi, *base = j->runs->base;
  int64_t *const *map = g->map;
  const bool *contig = j->runs->contig;
  size_t rowb = (size_t)(OSL * cs);
  for (int64_t c = 0; c < j->KIF; c++) {
    int64_t kk[K_MAX_RANK] = {0};
    for (int64_t kpos = 0; kpos < KSP; kpos++) {
      char *dst = colb + (c * KSP + kpos) * n * cs;
      int64_t k = kk[ns - 1];
      for (int64_t qi = 0; qi < nq; qi++) {
        char *drow = dst + qi * OSL * cs;
        int64_t off;
        if (!conv_row_offset(g, q0 + qi, kk, j->sp, &off)) { memset(drow, 0, rowb); continue; }
        const char *srow = j->L + ((b * j->KIF + c) * j->ISP + off) * cs;
        if (contig[k]) {
          memset(drow, 0, (size_t)(lo[k] * cs));
          memcpy(drow + lo[k] * cs, srow + base[k] * cs, (size_t)((hi[k] - lo[k]) * cs));
          memset(drow + hi[k] * cs, 0, (size_t)((OSL - hi[k]) * cs));
        } else {
          for (int64_t o = 0; o < OSL; o++) {
            int64_t v = map[ns - 1][o * kl + k];
            if (v < 0) memset(drow + o * cs, 0, (size_t)cs);
            else memcpy(drow + o * cs, srow + v * cs, (size_t)cs);
          }
        }
      }
      for (int d = ns - 1; d >= 0; d--) {
        if (++kk[d] < g->ks[d]) break;
        kk[d] = 0;
      }
    }
  }
  if (!k_gemm_strided(j->ct, false, false, j->KOF, n, j->cols, j->W, j->cols, colb, n,
                      j->O + (b * j->KOF * j->OSP + q0 * OSL) * cs, j->OSP))
    return error_set(err, ERR_RUNTIME, -1, "convolution: gemm sizes out of range");
  return true;
}

/* Channel-major lhs [B, IF, S...] and result [B, OF, OS...] (NCHW and the
 * like), no groups, lhs and result of the compute type: im2col into a
 * [KIF*KSP, pixels] column buffer built from runs of the input's rows, then
 * kernel [KOF, KIF*KSP] x columns straight into the result (row stride OSP),
 * whole innermost output rows per chunk.  No permuting copy of the lhs or
 * the result.  1 done, 0 not applicable (nothing done), -1 error. */
static int conv_cmajor(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g,
                       KArray *out, EType ct, int64_t KIF, int64_t KOF, int64_t nr, Error *err) {
#ifndef HLO_HAVE_BLAS
  (void)lhs; (void)rhs; (void)dn; (void)g; (void)out; (void)ct; (void)KIF; (void)KOF; (void)nr; (void)err;
  return 0;
#else
  int ns = g->ns;
  const int64_t *in_s = g->in_s, *os = g->os, KSP = g->KSP, OSP = g->OSP;
  int64_t *const *map = g->map;
  if (ns < 1 || ct == ET_S64 || lhs->etype != ct || out->etype != ct) return 0;
  int lp[K_MAX_RANK], op[K_MAX_RANK], kp[K_MAX_RANK];
  lp[0] = (int)dn->in_batch; lp[1] = (int)dn->in_feature;
  op[0] = (int)dn->out_batch; op[1] = (int)dn->out_feature;
  kp[0] = (int)dn->k_out_feature; kp[1] = (int)dn->k_in_feature;
  for (int d = 0; d < ns; d++) {
    lp[2 + d] = (int)dn->in_spatial[d]; op[2 + d] = (int)dn->out_spatial[d]; kp[2 + d] = (int)dn->k_spatial[d];
  }
  if (!conv_in_order(lhs, lp) || !conv_in_order(out, op)) return 0;
  int64_t cols = KIF * KSP, OSL = os[ns - 1], outer = OSP / OSL, B = lhs->dims[dn->in_batch];
  if (cols > INT_MAX || OSP > INT_MAX || KOF > INT_MAX) return 0;
  int cs = etype_storage_bytes(ct);
  int64_t nro = PATCH_BYTES / (cols * OSL * cs);
  if (nro < 1) nro = 1;
  if (nro > outer) nro = outer;
  int64_t sp[K_MAX_RANK], ISP = 1;
  for (int d = ns - 1; d >= 0; d--) { sp[d] = ISP; ISP *= in_s[d]; }
  ConvRuns runs = {0};
  void *kown = NULL, *colb = NULL;
  int res = -1;
  const char *W = conv_canon(rhs, kp, ct, nr, &kown, err);
  if (!W) goto out;
  /* A 1x1 kernel reading every input position once in order: each batch's
   * [KIF, pixels] input already is the column buffer. */
  bool pointwise = KSP == 1 && ISP == OSP;
  for (int d = 0; d < ns && pointwise; d++)
    for (int64_t o = 0; o < os[d] && pointwise; o++) pointwise = map[d][o] == o;
  if (pointwise) {
    KGemm pg = {.ct = ct, .M = KOF, .N = OSP, .K = KIF, .A = W, .lda = KIF, .B = lhs->data, .ldb = OSP,
                .C = out->data, .ldc = OSP, .nbatch = B, .nbd = 1, .bdims = {B}, .astr = {0},
                .bstr = {KIF * ISP}, .cstr = KOF * OSP};
    if (!k_gemm_run(&pg)) {
      error_set(err, ERR_RUNTIME, -1, "convolution: gemm sizes out of range");
      goto out;
    }
    res = 1;
    goto out;
  }
  if (!conv_runs_init(g, &runs, err)) goto out;
  int nw = pool_threads();
  if (!(colb = k_malloc(nw * (int64_t)sizeof(void *), err))) goto out;
  memset(colb, 0, (size_t)nw * sizeof(void *));
  int64_t nqc = (outer + nro - 1) / nro;
  CmajorJob job = {g, &runs, ct, cs, KIF, KOF, ISP, OSP, OSL, outer, nro, nqc, cols, sp, W,
                   lhs->data, out->data, colb};
  bool ok = pool_for_err(B * nqc, cmajor_chunk, &job, err);
  for (int w = 0; w < nw; w++) k_free(((void **)colb)[w]);
  if (!ok) goto out;
  res = 1;
out:
  k_free(kown); conv_runs_free(&runs); k_free(colb);
  return res;
#endif
}

/* Where the taps of one output row read the canonical lhs. */
typedef struct Taps {
  int ns;
  int64_t OSP, KSP;
  const int64_t *os, *ks, *lstr; /* lstr: canonical lhs strides (elements) */
  int64_t *const *map;           /* per dim: [o * ks + k] -> input position or -1 */
} Taps;

/* Output row `row` (batch b, output position oi...): offs[c] = element offset
 * (from the start of batch b) of the input read by kernel position c, or -1
 * where it falls into padding or between dilated elements.  Returns b. */
static int64_t row_taps(const Taps *t, int64_t row, int64_t *offs) {
  int ns = t->ns;
  int64_t osp = t->OSP ? t->OSP : 1, b = row / osp, orem = row % osp, kk[K_MAX_RANK] = {0};
  /* mrow[d]: this row's map entries for dim d; part[d + 1]: the offset of
   * dims 0..d at the current kernel position (-1 once one is outside), so
   * that the odometer recomputes only the dims that moved. */
  const int64_t *mrow[K_MAX_RANK];
  int64_t part[K_MAX_RANK + 1];
  for (int d = ns - 1; d >= 0; d--) { mrow[d] = t->map[d] + orem % t->os[d] * t->ks[d]; orem /= t->os[d]; }
  part[0] = 0;
  for (int d = 0;;) {
    for (int e = d; e < ns; e++) {
      int64_t v = mrow[e][kk[e]];
      part[e + 1] = part[e] < 0 || v < 0 ? -1 : part[e] + v * t->lstr[1 + e];
    }
    *offs++ = part[ns];
    int e = ns - 1;
    while (e >= 0 && ++kk[e] == t->ks[e]) kk[e--] = 0;
    if (e < 0) break;
    d = e;
  }
  return b;
}

/* A single-tap window that reads input position o for every output
 * position o of every spatial dim (1x1, stride 1, no padding). */
static bool pointwise_map(const Taps *t, const int64_t *in_s) {
  for (int d = 0; d < t->ns; d++) {
    if (t->ks[d] != 1 || t->os[d] != in_s[d]) return false;
    for (int64_t o = 0; o < t->os[d]; o++)
      if (t->map[d][o] != o) return false;
  }
  return true;
}

/* One tap of a depthwise row: o[g * M + m] += in[g] * k[g * M + m]. */
K_CLONES static void depthwise_tap(float *restrict o, const float *restrict in,
                                   const float *restrict k, int64_t G, int64_t M) {
  if (M == 1) {
    for (int64_t g = 0; g < G; g++) o[g] += in[g] * k[g];
    return;
  }
  for (int64_t g = 0; g < G; g++)
    for (int64_t m = 0; m < M; m++) o[g * M + m] += in[g] * k[g * M + m];
}

/* Depthwise f32: out[row, g * M + m] = sum over kernel positions c (in
 * order) of lhs[tap c, g] * K[c, 0, g * M + m], taps outside the input
 * skipped.  Chunks of rows on the pool, per-worker tap offsets. */
typedef struct DepthwiseRows {
  const Taps *t;
  int64_t rows, G, M, per;
  const float *L, *K;
  float *O;
  int64_t **offs;
} DepthwiseRows;

static bool depthwise_rows(void *ctx, int64_t chunk, int worker, Error *err) {
  const DepthwiseRows *j = ctx;
  const Taps *t = j->t;
  int64_t KOF = j->G * j->M, first = chunk * j->per, last = first + j->per < j->rows ? first + j->per : j->rows;
  if (!j->offs[worker] && !(j->offs[worker] = k_malloc(t->KSP * 8, err))) return false;
  int64_t *offs = j->offs[worker];
  for (int64_t row = first; row < last; row++) {
    int64_t b = row_taps(t, row, offs);
    float *o = j->O + row * KOF;
    memset(o, 0, (size_t)KOF * sizeof *o);
    for (int64_t c = 0; c < t->KSP; c++)
      if (offs[c] >= 0) depthwise_tap(o, j->L + b * t->lstr[0] + offs[c], j->K + c * KOF, j->G, j->M);
  }
  return true;
}

static bool depthwise_f32(const Taps *t, int64_t rows, int64_t G, int64_t M, const float *L,
                          const float *K, float *O, Error *err) {
  int nw = pool_threads();
  int64_t **offs = k_malloc(nw * (int64_t)sizeof *offs, err);
  if (!offs) return false;
  memset(offs, 0, (size_t)nw * sizeof *offs);
  int64_t nchunks = pool_chunks(rows * G * M * 4, rows);
  DepthwiseRows job = {t, rows, G, M, (rows + nchunks - 1) / nchunks, L, K, O, offs};
  bool ok = pool_for_err((rows + job.per - 1) / job.per, depthwise_rows, &job, err);
  for (int w = 0; w < nw; w++) k_free(offs[w]);
  k_free(offs);
  return ok;
}

/* The generic path: im2col of a chunk of output rows into a patch, then
 * patch [rows, cols] x kernel [cols, OFg] per group.  Chunks of rows (a
 * patch of ~PATCH_BYTES, cut by the sizes alone) run on the pool, each
 * worker with its own patch. */
typedef struct ConvIm2col {
  const Taps *taps;
  EType ct;
  int cs;
  int64_t ngroups, BG, Bo, OFg, IFg, KOF, cols, rows_total;
  int64_t chunk, nrc; /* rows per chunk, chunks per group */
  bool allg;          /* a chunk computes every group (else one) */
  const char *L, *K;
  char *O;
  char *kg;                  /* per-group dense kernels (groups only) */
  void **patch, **og;        /* per worker */
} ConvIm2col;

static bool im2col_chunk(void *ctx, int64_t c, int worker, Error *err) {
  const ConvIm2col *j = ctx;
  const Taps *t = j->taps;
  int cs = j->cs;
  int64_t r0 = c % j->nrc * j->chunk, cols = j->cols, OFg = j->OFg;
  int64_t nrow = j->rows_total - r0 < j->chunk ? j->rows_total - r0 : j->chunk;
  /* The groups [g0, g1) this chunk computes: all of them (allg) or one. */
  int64_t g0 = j->allg ? 0 : c / j->nrc, g1 = j->allg ? j->ngroups : g0 + 1, ng = g1 - g0;
  /* One allocation per worker: the patch, then (8-byte aligned) the tap
   * offsets.  Patch rows hold ng groups' columns one after another. */
  int64_t pbytes = (j->chunk * ng * cols * cs + 7) / 8 * 8;
  if (!j->patch[worker] && !(j->patch[worker] = k_malloc(pbytes + t->KSP * 8, err))) return false;
  char *patch = j->patch[worker];
  int64_t *offs = (int64_t *)(void *)(patch + pbytes);
  size_t run = (size_t)(j->IFg * cs);
  for (int64_t rI = 0; rI < nrow; rI++) {
    int64_t b = row_taps(t, r0 + rI, offs);
    for (int64_t gi = g0; gi < g1; gi++) {
      int64_t fg = j->BG > 1 ? 0 : gi, bg = j->BG > 1 ? gi : 0;
      const char *lb = j->L + ((bg * j->Bo + b) * t->lstr[0] + fg * j->IFg) * cs;
      char *dst = patch + (rI * ng + gi - g0) * cols * cs;
      for (int64_t k = 0; k < t->KSP; k++) {
        if (offs[k] >= 0) memcpy(dst + k * run, lb + offs[k] * cs, run);
        else memset(dst + k * run, 0, run);
      }
    }
  }
  if (j->ngroups == 1) {
    k_gemm(j->ct, false, false, nrow, OFg, cols, patch, j->K, j->O + r0 * j->KOF * cs);
    return true;
  }
  for (int64_t gi = g0; gi < g1; gi++) {
    char *o = j->O + (r0 * j->KOF + gi * OFg) * cs, *a = patch + (gi - g0) * cols * cs;
    /* Group gi's kernel is columns [gi * OFg, +OFg) of K: strided in place. */
    if (k_gemm_strided(j->ct, false, false, nrow, OFg, cols, a, ng * cols, j->K + gi * OFg * cs, j->KOF, o, j->KOF))
      continue;
    /* No BLAS for ct (then allg is off and the patch is dense). */
    if (j->allg) return error_set(err, ERR_RUNTIME, -1, "convolution: gemm sizes out of range");
    if (!j->og[worker] && !(j->og[worker] = k_malloc(j->chunk * OFg * cs, err))) return false;
    char *og = j->og[worker];
    k_gemm(j->ct, false, false, nrow, OFg, cols, a, j->kg + gi * cols * OFg * cs, og);
    for (int64_t rI = 0; rI < nrow; rI++)
      memcpy(o + rI * j->KOF * cs, og + rI * OFg * cs, (size_t)(OFg * cs));
  }
  return true;
}

static bool conv_im2col(ConvIm2col *j, Error *err) {
  int cs = j->cs;
  j->chunk = PATCH_BYTES / (j->cols * cs);
  /* Groups through the BLAS: one patch row holds every group's columns
   * (one tap-offset computation per row instead of one per group), the
   * whole patch still ~PATCH_BYTES (4x that, 2.8 MB for 4 groups of 3x3x32,
   * was slower: the BLAS packs it from beyond a core's L2). */
#ifdef HLO_HAVE_BLAS
  j->allg = j->ngroups > 1 && j->ct != ET_S64 && j->cols <= INT_MAX / j->ngroups && j->KOF <= INT_MAX;
#else
  j->allg = false;
#endif
  if (j->allg) j->chunk /= j->ngroups;
  if (j->chunk < 1) j->chunk = 1;
  if (j->chunk > j->rows_total) j->chunk = j->rows_total;
  j->nrc = (j->rows_total + j->chunk - 1) / j->chunk;
  int nw = pool_threads();
  bool ok = false;
  j->patch = k_malloc(2 * nw * (int64_t)sizeof *j->patch, err);
  if (!j->patch) return false;
  memset(j->patch, 0, 2 * (size_t)nw * sizeof *j->patch);
  j->og = j->patch + nw;
  if (j->ngroups > 1) {
    /* For when the BLAS cannot stride (no BLAS, integers): each group's
     * kernel columns as a dense matrix. */
    if (!(j->kg = k_malloc(j->cols * j->KOF * cs, err))) goto out;
    for (int64_t gi = 0; gi < j->ngroups; gi++)
      for (int64_t r = 0; r < j->cols; r++)
        memcpy(j->kg + (gi * j->cols + r) * j->OFg * cs, j->K + (r * j->KOF + gi * j->OFg) * cs,
               (size_t)(j->OFg * cs));
  }
  ok = pool_for_err((j->allg ? 1 : j->ngroups) * j->nrc, im2col_chunk, j, err);
out:
  for (int w = 0; w < 2 * nw; w++) k_free(j->patch[w]);
  k_free(j->patch);
  k_free(j->kg);
  return ok;
}

/* conv_into_view's fallback for a view the direct path does not take: the
 * result computed row-major into a buffer, then copied into the view. */
static bool conv_via_copy(const KArray *lhs, const KArray *rhs, const KConvParams *p, KArray *out, const int64_t *ostr,
                          Error *err) {
  int es = etype_storage_bytes(out->etype);
  int64_t n = 1, ts[K_MAX_RANK];
  for (int i = 0; i < out->rank; i++) n *= out->dims[i];
  void *t = k_malloc(n * es + es, err);
  if (!t) return false;
  KArray tv = {out->etype, out->rank, out->dims, t};
  bool ok = conv_into_view(lhs, rhs, p, &tv, NULL, err);
  k_row_major_strides(out->dims, out->rank, ts);
  if (ok) k_strided_copy(out->data, ostr, t, ts, out->dims, out->rank, (size_t)es);
  k_free(t);
  return ok;
}

bool k_conv(const KArray *lhs, const KArray *rhs, const KConvParams *p, KArray *out, Error *err) {
  return conv_into_view(lhs, rhs, p, out, NULL, err);
}

bool conv_into_view(const KArray *lhs, const KArray *rhs, const KConvParams *p, KArray *out, const int64_t *ostr,
                    Error *err) {
  const KConvDims *dn = &p->dn;
  int ns = dn->nspatial, rank = ns + 2;
  if (ns < 0 || rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "convolution: bad spatial rank %d", ns);
  if (lhs->rank != rank || rhs->rank != rank || out->rank != rank)
    return error_set(err, ERR_RUNTIME, -1, "convolution: operands must have rank %d", rank);
  {
    int64_t a[] = {dn->in_batch, dn->in_feature}, b[] = {dn->k_in_feature, dn->k_out_feature}, c[] = {dn->out_batch, dn->out_feature};
    const int64_t *l1[] = {a, dn->in_spatial}, *l2[] = {b, dn->k_spatial}, *l3[] = {c, dn->out_spatial};
    int cnt[] = {2, ns};
    if (!distinct(rank, 2, l1, cnt, err) || !distinct(rank, 2, l2, cnt, err) || !distinct(rank, 2, l3, cnt, err)) return false;
  }
  if (p->window.rank != ns) return error_set(err, ERR_RUNTIME, -1, "convolution: window rank %d, expected %d", p->window.rank, ns);
  int64_t G = p->feature_group_count, BG = p->batch_group_count;
  int64_t B = lhs->dims[dn->in_batch], IF = lhs->dims[dn->in_feature];
  int64_t KIF = rhs->dims[dn->k_in_feature], KOF = rhs->dims[dn->k_out_feature];
  if (G < 1 || BG < 1 || (G > 1 && BG > 1)) return error_set(err, ERR_RUNTIME, -1, "convolution: bad group counts %lld/%lld", (long long)G, (long long)BG);
  if (IF % G || KIF != IF / G) return error_set(err, ERR_RUNTIME, -1, "convolution: input features %lld, kernel input features %lld, feature_group_count %lld", (long long)IF, (long long)KIF, (long long)G);
  if (KOF % (G * BG)) return error_set(err, ERR_RUNTIME, -1, "convolution: kernel output features %lld not divisible by group count", (long long)KOF);
  if (B % BG) return error_set(err, ERR_RUNTIME, -1, "convolution: batch %lld not divisible by batch_group_count %lld", (long long)B, (long long)BG);
  int64_t Bo = B / BG;
  if (out->dims[dn->out_batch] != Bo || out->dims[dn->out_feature] != KOF)
    return error_set(err, ERR_RUNTIME, -1, "convolution: result batch/feature sizes %lld/%lld, expected %lld/%lld",
                     (long long)out->dims[dn->out_batch], (long long)out->dims[dn->out_feature], (long long)Bo, (long long)KOF);
  EType lt = lhs->etype, rt = rhs->etype, ot = out->etype;
  if ((etype_is_complex(lt) || etype_is_complex(rt)) && !etype_is_complex(ot))
    return error_set(err, ERR_RUNTIME, -1, "convolution: complex operands need a complex result");
  if (!etype_is_float(ot) && !etype_is_complex(ot) && (etype_is_float(lt) || etype_is_float(rt)))
    return error_set(err, ERR_RUNTIME, -1, "convolution: float operands with integer result %s", etype_name(ot));
  if (!etype_is_array(lt) || !etype_is_array(rt) || !etype_is_array(ot) || etype_kind(lt) == EK_OPAQUE || etype_kind(rt) == EK_OPAQUE || etype_kind(ot) == EK_OPAQUE)
    return error_set(err, ERR_RUNTIME, -1, "convolution: unsupported element types");

  /* Spatial geometry. */
  int64_t in_s[K_MAX_RANK], ks[K_MAX_RANK], os[K_MAX_RANK], stride[K_MAX_RANK], lo[K_MAX_RANK], bd[K_MAX_RANK], wd[K_MAX_RANK];
  bool rev[K_MAX_RANK];
  int64_t KSP = 1, OSP = 1;
  for (int d = 0; d < ns; d++) {
    const KWindow *w = &p->window;
    in_s[d] = lhs->dims[dn->in_spatial[d]];
    ks[d] = rhs->dims[dn->k_spatial[d]];
    if (w->size && w->size[d] != ks[d]) return error_set(err, ERR_RUNTIME, -1, "convolution: window size %lld differs from kernel size %lld", (long long)w->size[d], (long long)ks[d]);
    stride[d] = w->stride ? w->stride[d] : 1;
    lo[d] = w->pad_lo ? w->pad_lo[d] : 0;
    int64_t hi = w->pad_hi ? w->pad_hi[d] : 0;
    bd[d] = w->base_dilation ? w->base_dilation[d] : 1;
    wd[d] = w->window_dilation ? w->window_dilation[d] : 1;
    rev[d] = w->reversal && w->reversal[d];
    if (ks[d] == 0) { os[d] = 0; } /* empty kernel: XLA gives an empty window too */
    else if (!k_window_out_size(in_s[d], ks[d], stride[d], lo[d], hi, bd[d], wd[d], &os[d], err)) return false;
    if (out->dims[dn->out_spatial[d]] != os[d])
      return error_set(err, ERR_RUNTIME, -1, "convolution: result spatial dimension %d is %lld, expected %lld", d,
                       (long long)out->dims[dn->out_spatial[d]], (long long)os[d]);
    if (!k_mul3(KSP, ks[d], &KSP, err) || !k_mul3(OSP, os[d], &OSP, err)) return false;
  }
  int64_t nl, nr, no;
  if (!k_num_elements(rank, lhs->dims, &nl, err) || !k_num_elements(rank, rhs->dims, &nr, err) ||
      !k_num_elements(rank, out->dims, &no, err))
    return false;
  if (no == 0) return true;
  bool base_dilated = false;
  for (int d = 0; d < ns; d++) base_dilated = base_dilated || bd[d] > 1;
  if (ostr && (base_dilated || KSP == 0 || KIF == 0 || BG > 1)) return conv_via_copy(lhs, rhs, p, out, ostr, err);
  if (base_dilated && KSP > 0) {
    ConvSpatial sp = {ns, in_s, ks, os, stride, lo, bd, wd, rev};
    int r = conv_base_dilated(lhs, rhs, p, &sp, out, err);
    if (r != 0) return r > 0;
  }
  EType ct = k_dot_compute_type(lt, rt, ot);
  int cs = etype_storage_bytes(ct);
  bool ok = false;
  void *lown = NULL, *rown = NULL, *oc = NULL;
  int64_t *map[K_MAX_RANK] = {0};
  int lperm[K_MAX_RANK], rperm[K_MAX_RANK], operm[K_MAX_RANK], oinv[K_MAX_RANK];
  lperm[0] = (int)dn->in_batch;
  for (int d = 0; d < ns; d++) lperm[1 + d] = (int)dn->in_spatial[d];
  lperm[ns + 1] = (int)dn->in_feature;
  for (int d = 0; d < ns; d++) rperm[d] = (int)dn->k_spatial[d];
  rperm[ns] = (int)dn->k_in_feature;
  rperm[ns + 1] = (int)dn->k_out_feature;
  for (int d = 0; d < ns; d++) {
    if (!(map[d] = k_malloc((os[d] * ks[d] + 1) * 8, err))) goto done;
    for (int64_t o = 0; o < os[d]; o++)
      for (int64_t k = 0; k < ks[d]; k++) {
        int64_t kw = rev[d] ? ks[d] - 1 - k : k;
        int64_t pos = o * stride[d] + kw * wd[d] - lo[d], v = -1;
        if (pos >= 0 && pos % bd[d] == 0 && pos / bd[d] < in_s[d]) v = pos / bd[d];
        map[d][o * ks[d] + k] = v;
      }
  }
  ConvGeo geo = {ns, in_s, ks, os, map, KSP, OSP};
  if (ostr) { /* a view: the direct tiles write into it, or a copy does */
    int r = conv_direct_f32_view(lhs, rhs, dn, &geo, G, out, ostr, err);
    ok = r > 0 || (r == 0 && conv_via_copy(lhs, rhs, p, out, ostr, err));
    goto done;
  }
  if (G == 1 && BG == 1 && KSP > 0 && KIF > 0 && KOF > 0) {
    int r = conv_full_window_dot(lhs, rhs, dn, &geo, out, err);
    if (r == 0) r = conv_wgrad(lhs, rhs, dn, &geo, ct, 1, out, err);
    if (r == 0) r = conv_direct_f32(lhs, rhs, dn, &geo, out, err);
    /* Other types computed in f32 (bf16, f16) take the direct tiles after
     * the generic path's converting copies below, rather than the in-place
     * im2col; 1x1 windows keep the in-place GEMM. */
    bool direct = ct == ET_F32 && KSP > 1 && conv_direct_ok(&geo, KIF, KOF);
    if (r == 0 && !direct) r = conv_cmajor(lhs, rhs, dn, &geo, out, ct, KIF, KOF, nr, err);
    if (r != 0) { ok = r > 0; goto done; }
  }
  if (G == 1 && BG > 1 && KSP > 0 && KIF > 0 && KOF > 0) {
    int r = conv_wgrad(lhs, rhs, dn, &geo, ct, BG, out, err);
    if (r != 0) { ok = r > 0; goto done; }
  }
  if (G > 1 && BG == 1 && KIF == 1 && KSP > 0) {
    int r = conv_depthwise_cmajor(lhs, rhs, dn, &geo, G, out, err);
    if (r != 0) { ok = r > 0; goto done; }
  }
  if (G * BG > 1 && KSP > 0 && KIF > 0) {
    int r = conv_grouped_planar(lhs, rhs, dn, &geo, G, BG, out, err);
    if (r != 0) { ok = r > 0; goto done; }
  }
  if (G > 1 && BG == 1 && KSP > 0 && KIF > 0) {
    /* Grouped f32: the direct tiles per group (8x56x56, 3x3, one
     * thread: 4 groups of 32 -> 32 features 15 ms against im2col's 29,
     * 32 of 2 -> 8 15 against 39, 64 of 1 -> 4 NHWC 21 against 37).
     * After the channel-major depthwise loop (13 ms against the tiles' 34
     * on 64 of 1 -> 4 NCHW) and the planar weight-gradient loop. */
    int r = conv_direct_f32_view(lhs, rhs, dn, &geo, G, out, NULL, err);
    if (r != 0) { ok = r > 0; goto done; }
  }
  const char *L = conv_canon(lhs, lperm, ct, nl, &lown, err);
  if (!L) goto done;
  const char *K = conv_canon(rhs, rperm, ct, nr, &rown, err);
  if (!K) goto done;
  /* Canonical out [Bo, OS..., KOF]; operm maps out dim -> canonical dim. */
  oinv[0] = (int)dn->out_batch;
  for (int d = 0; d < ns; d++) oinv[1 + d] = (int)dn->out_spatial[d];
  oinv[ns + 1] = (int)dn->out_feature;
  for (int i = 0; i < rank; i++) operm[oinv[i]] = i;
  bool out_id = true;
  for (int i = 0, last = -1; i < rank; i++)
    if (out->dims[oinv[i]] != 1) { if (oinv[i] < last) out_id = false; last = oinv[i]; }
  char *O;
  if (out_id && ot == ct) O = out->data;
  else if (!(O = oc = k_malloc(no * cs, err))) goto done;

  int64_t ngroups = G * BG, OFg = KOF / ngroups, IFg = KIF;
  int64_t cols, rows_total;
  if (!k_mul3(KSP, IFg, &cols, err) || !k_mul3(Bo, OSP, &rows_total, err)) goto done;
  int64_t lstr[K_MAX_RANK]; /* canonical lhs strides (elements) */
  lstr[rank - 1] = 1;
  for (int i = rank - 2; i >= 0; i--) lstr[i] = lstr[i + 1] * lhs->dims[lperm[i + 1]];
  Taps taps = {ns, OSP, KSP, os, ks, lstr, map};
  if (cols == 0 || OFg == 0) {
    memset(O, 0, (size_t)(no * cs));
  } else if (ngroups == 1 && KSP == 1 && pointwise_map(&taps, in_s)) {
    /* 1x1, stride 1, no padding: the canonical lhs [B x S..., IF] already
     * is the patch of every output row; one tiled GEMM, no copy. */
    k_gemm(ct, false, false, rows_total, OFg, cols, L, K, O);
  } else if (ngroups == 1 && ct == ET_F32 && conv_direct_ok(&geo, IFg, OFg)) {
    /* The direct tiles on the canonical arrays. */
    int64_t cl[K_MAX_RANK], ck[K_MAX_RANK], co[K_MAX_RANK], sp[K_MAX_RANK], kp[K_MAX_RANK];
    for (int i = 0; i < rank; i++) { cl[i] = lhs->dims[lperm[i]]; ck[i] = rhs->dims[rperm[i]]; co[i] = out->dims[oinv[i]]; }
    for (int d = 0; d < ns; d++) { sp[d] = 1 + d; kp[d] = d; }
    KConvDims cdn = {ns, 0, ns + 1, sp, ns, ns + 1, kp, 0, ns + 1, sp};
    KArray cL = {ET_F32, rank, cl, (void *)L}, cK = {ET_F32, rank, ck, (void *)K}, cO = {ET_F32, rank, co, O};
    int r = conv_direct_f32(&cL, &cK, &cdn, &geo, &cO, err);
    if (r <= 0) {
      if (r == 0) error_set(err, ERR_RUNTIME, -1, "convolution: direct path refused canonical operands");
      goto done;
    }
  } else if (G > 1 && IFg == 1 && ct == ET_F32) {
    if (!depthwise_f32(&taps, rows_total, G, OFg, (const float *)L, (const float *)K, (float *)O, err)) goto done;
  } else {
    ConvIm2col job = {&taps, ct, cs, ngroups, BG, Bo, OFg, IFg, KOF, cols, rows_total, 0, 0, false, L, K, O, NULL, NULL, NULL};
    if (!conv_im2col(&job, err)) goto done;
  }
  if (oc) {
    /* Canonical -> the result's dimension order and type. */
    int64_t cdims[K_MAX_RANK];
    for (int i = 0; i < rank; i++) cdims[i] = out->dims[oinv[i]];
    if (!out_id && ot == ct) {
      permute_par(cs, oc, rank, cdims, operm, out->data);
      ok = true;
      goto done;
    }
    if (!out_id) {
      void *tmp = k_malloc(no * cs, err);
      if (!tmp) goto done;
      permute_par(cs, oc, rank, cdims, operm, tmp);
      k_free(oc);
      oc = tmp;
    }
    k_cvt(ot, out->data, ct, oc, no);
  }
  ok = true;
done:
  for (int d = 0; d < ns; d++) k_free(map[d]);
  k_free(lown); k_free(rown); k_free(oc);
  return ok;
}
