/* Direct f32 filter gradients: register tiles of the small result, fed
 * straight from the operands, no patch and no BLAS.
 *
 * In conv_wgrad's terms (k_conv_wgrad.c) the result is C[o, b, f] = sum
 * over i < I and kernel positions k of X[i, pos(o, k), b] * D[i, k, f], with
 * X = lhs as [I, S..., Bt] and D = rhs as [I, KS..., KOF] (features
 * innermost in both), o the few window positions (3x3) and k the whole
 * image.  A tile holds 6 result rows b x one block of up to 64 features f
 * (AVX-512: 6 x 4 zmm, or 8 or 12 rows of 1 or 2 zmm; AVX2: 6 x 2 ymm) at
 * one position o.  Per step k it loads the block's features of D[i, k] and
 * multiply-adds each row's X[i, pos(o, k), b], broadcast: the forward
 * direct kernel's scheme (k_conv_direct.c) with the roles of the long and
 * short dims swapped.
 * Along the innermost kernel dim, the k an o reads form one run (a start,
 * a count, a stride: conv_kernel_runs), so a tile walks runs, not taps.
 *
 * Summation order, fixed by the shapes alone: the (i, k) are cut into
 * units: per image i, blocks of whole rows of the innermost kernel dim (or
 * pieces of one long row) of about WGD_UNIT_BYTES of rhs per 64 features
 * (more for big results).  The units, in order, are cut into S streams of
 * consecutive units (S from the unit count and the result's size).
 * A unit's sum is one chain of FMAs from zero, in k order; a stream's
 * units are added to its partial result in order (the first stored), and
 * the streams' partial results are added in stream order.  That is the
 * order at every thread count and with every tile shape (the workers take
 * whole streams, and split the tiles of a stream when there are more
 * workers than streams, never a sum), so results are bit-identical on
 * AVX2 and AVX-512 machines and at any --threads.  Within a unit the
 * operands' rows stay in a core's L1 and L2 while all of a worker's tiles
 * use them, and the next unit's rows are prefetched. */
#include <stdint.h>

#include "base/thread_pool.h"
#include "kernels/k_conv_internal.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define WGD_X86 1
#endif

/* A unit's rhs rows for one block of 64 features: in a core's L1 (with
 * the lhs rows one window position reads) while all the tiles of the unit
 * use them; the tiles' accumulators go through memory once per unit. */
#define WGD_UNIT_BYTES (16 << 10)
/* Most kernel rows per unit (one run each, on the stack). */
#define WGD_MAXR 256
/* Streams: at most 2 (2 threads on the forms of scripts/bench-kernels.sh,
 * ms: filter gradient NHWC 1 stream 7.8-8.1, 2 streams 7.2-7.5, 4 streams
 * 7.6-7.8; NCHW 9.1-9.3, 8.3-9.0, 8.7; stride 2 35.6-37.8, 32.0-33.8,
 * 32.0-34.7), of at least 8 units each, and at most 32 MB of partial
 * results besides the result itself. */
#define WGD_MAXSTREAMS 2
#define WGD_STREAM_UNITS 8
#define WGD_STREAM_BYTES ((int64_t)32 << 20)

/* One run of steps: the first X and D elements (offsets), the count; p:
 * the first step's row in the unit's packed D (unit-relative: kernel row
 * q - q0 times the unit's positions per row, plus the position). */
typedef struct WgRun {
  int64_t x, d, n, p;
} WgRun;

/* One tile shape's function (k_conv_wgrad_isa.h). */
typedef void (*WgVariant)(const float *x, const float *d, const WgRun *runs, int64_t nruns, int64_t xstep,
                          int64_t dstep, const int64_t *boff, float *c, int64_t cstride, int nb, int64_t nf,
                          bool first);
typedef void (*WgTile)(int nv, int rows, const float *x, const float *d, const WgRun *runs, int64_t nruns, int64_t xstep,
                       int64_t dstep, const int64_t *boff, float *c, int64_t cstride, int nb, int64_t nf, bool first);

#ifdef WGD_X86
#define ISA _avx512
#define TARGET __attribute__((target("avx512f,fma")))
#define PIXMAX 12
#define NVMAX 4
#define K_VEC_AVX512
#include "kernels/k_vec_f32.h"
#include "kernels/k_conv_wgrad_isa.h" /* (undefines them all) */

#define ISA _avx2
#define TARGET __attribute__((target("avx2,fma")))
#define PIXMAX 6
#define NVMAX 2
#define K_VEC_AVX2
#include "kernels/k_vec_f32.h"
#include "kernels/k_conv_wgrad_isa.h" /* (undefines them all) */
#endif

typedef struct WgDirect {
  const ConvGeo *g;
  const WgradOperands *op;
  int64_t B, F;
  int64_t KL, kouter;          /* innermost kernel dim; rows of it */
  int64_t R, np, pl, nub, U;   /* rows per unit, pieces per row and their length, units per image, units */
  const int64_t *klo, *cnt, *p0, *step;
  int64_t FB, nbb, nfb, ntiles, tpc;
  int64_t S, tcs; /* streams; chunks of tiles per stream */
  int VLn, rows, lastrows; /* floats per vector; rows per tile, and in the last row block's */
  WgTile tile;
  void **scratch; /* per worker: runs of every window position in a unit, and the packed D */
  bool pack;      /* D's features are not contiguous: packed per unit */
} WgDirect;

/* Unit u: image i, kernel rows [q0, q1), innermost positions [k0, k1). */
typedef struct WgUnit {
  int64_t i, q0, q1, k0, k1;
} WgUnit;

static WgUnit wgd_unit(const WgDirect *w, int64_t u) {
  int64_t r = u % w->nub, q0 = r / w->np * w->R, k0 = r % w->np * w->pl;
  return (WgUnit){u / w->nub, q0, q0 + w->R < w->kouter ? q0 + w->R : w->kouter, k0,
                  k0 + w->pl < w->KL ? k0 + w->pl : w->KL};
}

/* Window position o's runs in unit u: image i, kernel rows [q0, q1),
 * innermost positions [k0, k1). */
static int64_t wgd_runs(const WgDirect *w, int64_t o, int64_t i, int64_t q0, int64_t q1, int64_t k0, int64_t k1,
                        WgRun *runs) {
  const ConvGeo *g = w->g;
  const WgradOperands *op = w->op;
  int ns = g->ns;
  int64_t ol = o % g->os[ns - 1], oq = o / g->os[ns - 1], nr = 0;
  int64_t a = w->klo[ol] > k0 ? w->klo[ol] : k0, e = w->klo[ol] + w->cnt[ol] < k1 ? w->klo[ol] + w->cnt[ol] : k1;
  if (a >= e) return 0;
  int64_t kk[K_MAX_RANK] = {0}, q = q0;
  for (int d = ns - 2; d >= 0; d--) { kk[d] = q % g->ks[d]; q /= g->ks[d]; }
  for (q = q0; q < q1; q++) {
    int64_t off;
    if (conv_row_offset(g, oq, kk, op->xs, &off)) {
      int64_t doff = 0;
      for (int d = 0; d < ns - 1; d++) doff += kk[d] * op->ds[d];
      runs[nr].x = i * op->xi + off + (w->p0[ol] + (a - w->klo[ol]) * w->step[ol]) * op->xs[ns - 1];
      runs[nr].d = i * op->di + doff + a * op->ds[ns - 1];
      runs[nr].n = e - a;
      runs[nr].p = (q - q0) * (k1 - k0) + a - k0;
      nr++;
    }
    for (int d = ns - 2; d >= 0; d--) {
      if (++kk[d] < g->ks[d]) break;
      kk[d] = 0;
    }
  }
  return nr;
}

/* Prefetching the next unit into L2 while the tiles work on this one: a
 * unit's lhs rows are new (the next image rows), and the tiles read them a
 * line per step at a stride, which the hardware prefetchers leave to
 * demand misses (the stride-2 filter gradient ran at 38% of peak, its
 * loads waiting on L3).  What a chunk's tiles will read of the next unit
 * (its rows b and features f only) is a list of spans, each `count` rows
 * of `len` bytes `stride` apart; the lines are cut into equal parts, one
 * prefetched after each tile. */
#define WGD_MAXSPANS 128
typedef struct WgSpan {
  const char *base;
  int64_t len, count, stride;
} WgSpan;
typedef struct WgSpans {
  WgSpan s[WGD_MAXSPANS];
  int n;
  int64_t lines, done;     /* lines in all (about); prefetched */
  int64_t si, row, off;    /* the cursor: span, row, byte in the row */
} WgSpans;

/* Adds a span, merged into one it overlaps along either dim (addresses
 * compared as integers: the spans are of two arrays). */
static void span_add(WgSpans *sp, const char *base, int64_t len, int64_t count, int64_t stride) {
  for (int j = 0; j < sp->n; j++) {
    WgSpan *o = &sp->s[j];
    if (o->stride != stride) continue;
    int64_t d = (int64_t)((uintptr_t)base - (uintptr_t)o->base);
    if (o->count == count && d >= 0 && d <= o->len) { /* along a row */
      if (d + len > o->len) o->len = d + len;
      return;
    }
    if (o->len == len && d % stride == 0 && d >= 0 && d / stride <= o->count) { /* more rows */
      if (d / stride + count > o->count) o->count = d / stride + count;
      return;
    }
  }
  if (sp->n < WGD_MAXSPANS) sp->s[sp->n++] = (WgSpan){base, len, count, stride}; /* else: only a hint */
}

/* The spans of unit u that a chunk's tiles read: lhs rows [b0, b1) and rhs
 * features [f0, f1) (all groups' numbering). */
static void wgd_spans(const WgDirect *w, int64_t u, int64_t b0, int64_t b1, int64_t f0, int64_t f1, WgRun *runs,
                      WgSpans *sp) {
  const WgradOperands *op = w->op;
  const ConvGeo *g = w->g;
  int ns = g->ns;
  const char *X = (const char *)op->X, *D = (const char *)op->D;
  sp->n = 0;
  sp->lines = sp->done = sp->si = sp->row = sp->off = 0;
  WgUnit un = wgd_unit(w, u);
  int64_t i = un.i, q0 = un.q0, q1 = un.q1, k0 = un.k0, k1 = un.k1;
  for (int64_t o = 0; o < g->OSP; o++) {
    int64_t nr = wgd_runs(w, o, i, q0, q1, k0, k1, runs), xstep = w->step[o % g->os[ns - 1]] * op->xs[ns - 1];
    for (int64_t k = 0; k < nr; k++) {
      int64_t n = runs[k].n;
      if (op->xb == 1) /* a pixel's rows b are contiguous */
        span_add(sp, X + (runs[k].x + b0) * 4, (b1 - b0) * 4, n, xstep * 4);
      else /* a row's pixels are, per plane b */
        span_add(sp, X + (runs[k].x + b0 * op->xb) * 4, ((n - 1) * xstep + 1) * 4, b1 - b0, op->xb * 4);
      if (!w->pack) /* a step's features are contiguous */
        span_add(sp, D + (runs[k].d + f0) * 4, (f1 - f0) * 4, n, op->ds[ns - 1] * 4);
      else /* a run's steps are, per feature */
        span_add(sp, D + (runs[k].d + f0 * op->df) * 4, ((n - 1) * op->ds[ns - 1] + 1) * 4, f1 - f0, op->df * 4);
    }
  }
  for (int j = 0; j < sp->n; j++) {
    /* Lines per row: from the row's first line to its last. */
    int64_t mis = (int64_t)((uintptr_t)sp->s[j].base & 63);
    sp->lines += sp->s[j].count * ((mis + sp->s[j].len + 63) / 64);
  }
}

/* Prefetches the spans' lines up to part `upto` of `parts`. */
static void wgd_prefetch(WgSpans *sp, int64_t upto, int64_t parts) {
  int64_t target = sp->lines * upto / parts;
  while (sp->done < target && sp->si < sp->n) {
    const WgSpan *s = &sp->s[sp->si];
    const char *row = s->base + sp->row * s->stride;
    const char *at = (const char *)((uintptr_t)(row + sp->off) & ~(uintptr_t)63);
    __builtin_prefetch(at, 0, 2);
    sp->done++;
    sp->off = at + 64 - row;
    if (sp->off >= s->len) {
      sp->off = 0;
      if (++sp->row == s->count) { sp->row = 0; sp->si++; }
    }
  }
}

/* Unit (image i, kernel rows [q0, q1), innermost positions [k0, k1))'s D
 * for features [f0, f1) from D's own layout into P, [q - q0][k - k0][f -
 * f0] with rows of ps floats: what the tiles read when D's features are
 * not contiguous (NCHW's io01).  Within a unit a feature's positions are
 * a few lines, all in L1 while the steps k go through them. */
static void wgd_pack(const WgDirect *w, int64_t i, int64_t q0, int64_t q1, int64_t k0, int64_t k1, int64_t f0,
                     int64_t f1, float *P, int64_t ps) {
  const WgradOperands *op = w->op;
  int ns = w->g->ns;
  int64_t kk[K_MAX_RANK] = {0}, q = q0, df = op->df, dk = op->ds[ns - 1], nf = f1 - f0;
  for (int d = ns - 2; d >= 0; d--) { kk[d] = q % w->g->ks[d]; q /= w->g->ks[d]; }
  for (q = q0; q < q1; q++) {
    int64_t base = i * op->di + f0 * df + k0 * dk;
    for (int d = 0; d < ns - 1; d++) base += kk[d] * op->ds[d];
    for (int64_t k = 0; k < k1 - k0; k++) {
      const float *src = op->D + base + k * dk;
      float *dst = P + ((q - q0) * (k1 - k0) + k) * ps;
      for (int64_t f = 0; f < nf; f++) dst[f] = src[f * df];
    }
    for (int d = ns - 2; d >= 0; d--) {
      if (++kk[d] < w->g->ks[d]) break;
      kk[d] = 0;
    }
  }
}

/* One chunk: of stream s, tiles [t0, t0 + tpc), ordered (group, row
 * block, feature block, o), through the stream's units in order.  o
 * innermost: a row block's lhs elements for all window positions (a few
 * lines per step) stay in L1 with the unit's rhs rows.  Row blocks before
 * feature blocks: two workers in one stream read halves of the lhs (the
 * bigger operand of a strided gradient) rather than all of it. */
static bool wgd_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  const WgDirect *w = ctx;
  const WgradOperands *op = w->op;
  int64_t s = chunk / w->tcs, t0 = chunk % w->tcs * w->tpc, t1 = t0 + w->tpc < w->ntiles ? t0 + w->tpc : w->ntiles;
  int64_t ua = s * w->U / w->S, ue = (s + 1) * w->U / w->S;
  float *C = s == 0 ? op->C : op->part + (s - 1) * w->g->OSP * w->B * op->KOF;
  int64_t OSP = w->g->OSP, ns = w->g->ns, R = w->R;
  /* Per worker: each window position's runs in the unit, then their
   * counts and steps, then (when packing) the unit's D at a line
   * boundary, rows of ps floats. */
  int64_t psz = w->pack ? R * w->pl * ((op->KOF + 15) / 16 * 16) * (int64_t)sizeof(float) + 64 : 0;
  if (!w->scratch[worker] && !(w->scratch[worker] = k_malloc(OSP * (R * (int64_t)sizeof(WgRun) + 16) + psz, err)))
    return false;
  WgRun *runs = w->scratch[worker];
  int64_t *nruns = (int64_t *)(void *)(runs + OSP * R), *xstep = nruns + OSP;
  float *P = (float *)(((uintptr_t)(xstep + OSP) + 63) & ~(uintptr_t)63);
  /* The rows b and features f the chunk's tiles read. */
  int64_t cb0 = INT64_MAX, cb1 = 0, cf0 = INT64_MAX, cf1 = 0;
  for (int64_t t = t0; t < t1; t += OSP) {
    int64_t fb = t / OSP % w->nfb, bb = t / (OSP * w->nfb) % w->nbb, gi = t / (OSP * w->nfb * w->nbb);
    int64_t b0 = gi * w->B + bb * w->rows, f0 = gi * w->F + fb * w->FB;
    int64_t b1 = b0 + (w->B - bb * w->rows < w->rows ? w->B - bb * w->rows : w->rows);
    int64_t f1 = f0 + (w->F - fb * w->FB < w->FB ? w->F - fb * w->FB : w->FB);
    if (b0 < cb0) cb0 = b0;
    if (b1 > cb1) cb1 = b1;
    if (f0 < cf0) cf0 = f0;
    if (f1 > cf1) cf1 = f1;
  }
  int64_t ps = (cf1 - cf0 + 15) / 16 * 16;
  WgSpans next;
  int64_t boffs[12];
  for (int64_t u = ua; u < ue; u++) {
    next.n = 0;
    next.lines = next.done = next.si = 0;
    if (u + 1 < ue) wgd_spans(w, u + 1, cb0, cb1, cf0, cf1, runs, &next);
    WgUnit un = wgd_unit(w, u);
    int64_t i = un.i, q0 = un.q0, q1 = un.q1, k0 = un.k0, k1 = un.k1;
    for (int64_t o = 0; o < OSP; o++) {
      nruns[o] = wgd_runs(w, o, i, q0, q1, k0, k1, runs + o * R);
      xstep[o] = w->step[o % w->g->os[ns - 1]] * op->xs[ns - 1];
      if (w->pack)
        for (int64_t k = 0; k < nruns[o]; k++) runs[o * R + k].d = runs[o * R + k].p * ps;
    }
    /* The tiles' D: in place, or this unit's features [cf0, cf1) packed. */
    const float *D = op->D;
    int64_t dstep = op->ds[ns - 1], df0 = 0;
    if (w->pack) {
      wgd_pack(w, i, q0, q1, k0, k1, cf0, cf1, P, ps);
      D = P;
      dstep = ps;
      df0 = cf0;
    }
    for (int64_t t = t0; t < t1; t++) {
      int64_t o = t % OSP, fb = t / OSP % w->nfb, bb = t / (OSP * w->nfb) % w->nbb, gi = t / (OSP * w->nfb * w->nbb);
      int64_t b0 = bb * w->rows, nb = w->B - b0 < w->rows ? w->B - b0 : w->rows;
      int64_t f0 = fb * w->FB, nf = w->F - f0 < w->FB ? w->F - f0 : w->FB;
      int rows = bb == w->nbb - 1 ? w->lastrows : w->rows;
      for (int p = 0; p < rows; p++) boffs[p] = (p < nb ? p : nb - 1) * op->xb;
      w->tile((int)((nf + w->VLn - 1) / w->VLn), rows, op->X + (gi * w->B + b0) * op->xb, D + (gi * w->F + f0 - df0),
              runs + o * R, nruns[o], xstep[o], dstep, boffs,
              C + (o * w->B + b0) * op->KOF + gi * w->F + f0, op->KOF, (int)nb, nf, u == ua);
      wgd_prefetch(&next, t - t0 + 1, t1 - t0);
    }
  }
  return true;
}

bool conv_wgrad_direct_ok(int64_t B, int64_t F) {
  int isa = conv_direct_isa();
  if (isa == CONV_DIRECT_OFF) return false;
  if (conv_direct_forced()) return true; /* tests: every shape */
  return B >= 4 && F >= 4;
}

/* The units and streams (WgDirect's R .. U, S): by the sizes alone. */
static void wgd_plan(WgDirect *w) {
  const ConvGeo *g = w->g;
  int ns = g->ns;
  w->B = w->op->Bt / w->op->BG;
  w->F = w->op->KOF / w->op->BG;
  w->KL = g->ks[ns - 1];
  w->kouter = g->KSP / g->ks[ns - 1];
  /* Steps per unit: a unit's rhs rows for 64 features (or all of F when
   * fewer) fill about WGD_UNIT_BYTES, twice or four times that when the
   * result is over 256 or 512 KB: every unit reads and writes all of it,
   * and once it leaves L2 that traffic costs more than rhs rows from L2
   * (one thread, 200x304 256 -> 256, 2.4 MB of result: 50% of a core's
   * peak at 16 KB, 59% at 32, 62% at 64; the 295 KB result of the
   * stride-2 16x112x112 64 -> 128 ran as fast at 16 as at 32 KB, and
   * slower at 64).  Whole rows of the innermost kernel dim, or pieces
   * of a long row; by the sizes alone. */
  int64_t cbytes = g->OSP * w->B * w->op->KOF * 4;
  int64_t ub = WGD_UNIT_BYTES * (cbytes > (512 << 10) ? 4 : cbytes > (256 << 10) ? 2 : 1);
  int64_t fw = w->F < 64 ? w->F : 64, T = ub / (4 * (fw > 0 ? fw : 1));
  if (T > WGD_MAXR * w->KL) T = WGD_MAXR * w->KL;
  if (w->KL >= T) {
    w->R = 1;
    w->np = (w->KL + T / 2) / T;
    if (w->np < 1) w->np = 1;
    w->pl = (w->KL + w->np - 1) / w->np;
  } else {
    w->R = (T + w->KL / 2) / w->KL;
    if (w->R > w->kouter) w->R = w->kouter;
    int64_t nrb = (w->kouter + w->R - 1) / w->R;
    w->R = (w->kouter + nrb - 1) / nrb; /* even blocks */
    w->np = 1;
    w->pl = w->KL;
  }
  w->nub = (w->kouter + w->R - 1) / w->R * w->np;
  w->U = w->op->NI * w->nub;
  /* Streams, by the sizes alone.  Workers that split one stream's tiles
   * each read parts of every unit's lines while doing a part of its work
   * (and, likely, the hardware prefetchers fetch the other parts too):
   * with one stream, 2 threads took 1.14-1.27x the CPU time of one on
   * the filter gradients of scripts/bench-kernels.sh (4 batch groups of
   * 32: 1.5x faster than one thread); with two, 1.0-1.05x (1.9x
   * faster). */
  w->S = w->U / WGD_STREAM_UNITS;
  if (w->S > WGD_MAXSTREAMS) w->S = WGD_MAXSTREAMS;
  if (w->S < 1) w->S = 1;
  while (w->S > 1 && (w->S - 1) * cbytes > WGD_STREAM_BYTES) w->S--;
}

int64_t conv_wgrad_direct_streams(const ConvGeo *g, const WgradOperands *op) {
  WgDirect w = {.g = g, .op = op};
  wgd_plan(&w);
  return w.S;
}

bool conv_wgrad_direct(const ConvGeo *g, const int64_t *klo, const int64_t *cnt, const int64_t *p0,
                       const int64_t *step, const WgradOperands *op, Error *err) {
  WgDirect w = {.g = g, .op = op, .klo = klo, .cnt = cnt, .p0 = p0, .step = step, .pack = op->df != 1};
#ifdef WGD_X86
  if (conv_direct_isa() == CONV_DIRECT_AVX512) { w.FB = 64; w.VLn = 16; w.tile = wg_tile_any__avx512; }
  else { w.FB = 16; w.VLn = 8; w.tile = wg_tile_any__avx2; }
#else
  return error_set(err, ERR_RUNTIME, -1, "convolution: no direct filter-gradient tile on this CPU");
#endif
  wgd_plan(&w);
  /* Blocks of 1 or 2 AVX-512 vectors take 12 rows, the last block 8 or
   * 12; or all 8, if that wastes fewer rows: 6 x 2 spent 8 loads on 12
   * multiply-adds per step, 12 x 2 spends 14 on 24.  4 batch groups of
   * 32 rows and features, one thread: 6 rows 94 GFLOP/s, 12 rows (the
   * last block a third empty) 102, 8 rows 110; later, in one run, 8 rows
   * 106-111, 12 + 12 + 8 rows 111-114. */
  w.rows = w.lastrows = 6;
  if (w.FB == 64 && w.F <= 32) {
    int64_t rem = w.B - (w.B - 1) / 12 * 12, last = rem <= 8 ? 8 : 12;
    bool eights = (8 - w.B % 8) % 8 < last - rem;
    w.rows = eights ? 8 : 12;
    w.lastrows = eights ? 8 : (int)last;
  }
  w.nbb = (w.B + w.rows - 1) / w.rows;
  w.nfb = (w.F + w.FB - 1) / w.FB;
  w.ntiles = g->OSP * op->BG * w.nbb * w.nfb;
  if (w.U == 0 || w.ntiles == 0) {
    memset(op->C, 0, (size_t)(g->OSP * w.B * op->KOF) * sizeof *op->C);
    return true;
  }
  /* Every chunk streams the rows and features its tiles read through its
   * stream's units: whole streams when there are as many as threads,
   * else each stream's tiles cut into as many chunks as make up the
   * threads.  How the tiles are split does not change any sum. */
  int nw = pool_threads();
  w.tcs = nw > w.S ? (nw + w.S - 1) / w.S : 1;
  if (w.tcs > w.ntiles) w.tcs = w.ntiles;
  w.tpc = (w.ntiles + w.tcs - 1) / w.tcs;
  w.tcs = (w.ntiles + w.tpc - 1) / w.tpc;
  if (!(w.scratch = k_malloc(nw * (int64_t)sizeof *w.scratch, err))) return false;
  memset(w.scratch, 0, (size_t)nw * sizeof *w.scratch);
  bool ok = pool_for_err(w.S * w.tcs, wgd_chunk, &w, err);
  for (int i = 0; i < nw; i++) k_free(w.scratch[i]);
  k_free(w.scratch);
  return ok;
}
