/* Direct f32 convolution for feature-innermost data (NHWC and the like):
 * no im2col, no packing of the input (oneDNN's BRGEMM scheme).
 *
 * The output is cut into tiles of PIX consecutive output pixels (batch and
 * output positions flattened, so a tile may span rows) x one block of up to
 * NVMAX vectors of output features, held in registers.  For each kernel tap
 * and each input feature in order, the block's weights are loaded once and
 * each pixel's input value is broadcast and multiply-added into them.  The
 * kernel is repacked once per call into feature blocks [blk][tap][IC][FB],
 * zero-padded past the last output feature, and shared read-only by all
 * workers.  Feature groups run the tiles once per group (blocks
 * [group][blk][tap][IC][FB]) on the same pointer tables, group g's input
 * read from feature g * IC on and its output written from g * OF on.  The
 * result may be a strided view (a base-dilated convolution's phase writing
 * every P-th position of the final result): output pointers come from its
 * strides.  Where a pixel's tap falls into padding, between dilated
 * elements or past the last pixel, it reads a row of zeros: edges need no
 * separate code, and the products are added as im2col's zero patch entries
 * are.  Strides, window dilation and reversal are all in the ConvGeo map.
 *
 * Every output's sum runs in one fixed order in one tile whatever the
 * chunking: segments in order (input-feature ranges of
 * conv_direct_icb(taps), and within a range the rows of taps of the
 * innermost kernel dim), each segment a chain of FMAs from zero over its
 * taps in kernel order and per tap its features in order; the first
 * segment is stored, later ones added.  Results are bit-identical at every
 * thread count, and on AVX2 and AVX-512 machines alike.  The blocked sum
 * is as close to a float64 reference as im2col + OpenBLAS's (whose K is
 * blocked too): one 576-term chain per output on 3x3x64 had 1.4x its rms
 * error, three segments have 0.8x.  AVX-512 and AVX2+FMA versions of
 * the tile (k_conv_direct_isa.h) are picked at run time; other CPUs keep
 * the im2col path. */
#include "base/thread_pool.h"
#include "kernels/k_conv_internal.h"
#include "kernels/k_movement.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DIRECT_X86 1
#endif

typedef struct DirectJob DirectJob;
typedef void (*DirectTiles)(const DirectJob *j, const float *const *tab, float *const *optr, int64_t nt);

struct DirectJob {
  int ns;
  const int64_t *os, *ks;
  int64_t *const *map;
  int64_t KSP, IC, ICB, OF, FB, nblk, npix, ntiles, tpc, pix;
  int64_t G; /* feature groups: IC, OF per group */
  int64_t lsb, lss[K_MAX_RANK], osb, oss[K_MAX_RANK]; /* element strides */
  const float *X, *W, *zero;
  float *O;
  void **scratch; /* per worker: a chunk's pointer tables */
  DirectTiles tiles;
};

#ifdef DIRECT_X86
/* AVX-512: 6 pixels x 4 zmm = 24 accumulators, 4 weight vectors and a
 * broadcast in 32 registers (the loop alone, data in cache: 6 x 4 at
 * ~165 GFLOP/s on one core of 197 peak, 5 x 4 ~155). */
#define ISA _avx512
#define TARGET __attribute__((target("avx512f,fma")))
#define PIX 6
#define NVMAX 4
#define K_VEC_AVX512
#include "kernels/k_vec_f32.h"
#include "kernels/k_conv_direct_isa.h" /* (undefines them all) */

/* AVX2: 6 pixels x 2 ymm = 12 accumulators of 16 registers (forced on an
 * AVX-512 machine: ~95 GFLOP/s on 3x3 64 -> 64, near its ymm peak). */
#define ISA _avx2
#define TARGET __attribute__((target("avx2,fma")))
#define PIX 6
#define NVMAX 2
#define K_VEC_AVX2
#include "kernels/k_vec_f32.h"
#include "kernels/k_conv_direct_isa.h" /* (undefines them all) */
#endif

static int direct_forced = CONV_DIRECT_AUTO;

void conv_direct_force(int isa) { direct_forced = isa; }

bool conv_direct_forced(void) { return direct_forced != CONV_DIRECT_AUTO; }

/* The instruction set to use: the forced one, else the best the CPU has. */
static int direct_isa(void) {
#ifdef DIRECT_X86
  if (direct_forced != CONV_DIRECT_AUTO) return direct_forced;
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) return CONV_DIRECT_OFF;
  return __builtin_cpu_supports("avx512f") ? CONV_DIRECT_AVX512 : CONV_DIRECT_AVX2;
#else
  return CONV_DIRECT_OFF;
#endif
}

int conv_direct_isa(void) { return direct_isa(); }

/* conv_direct_ok; a view (a phase of a base-dilated convolution) takes
 * the tiles for 1x1 windows too: the GEMM would need a copy into it. */
static bool direct_ok(const ConvGeo *g, int64_t IC, int64_t OF, bool view) {
  if (direct_isa() == CONV_DIRECT_OFF || g->ns < 1 || IC < 1 || OF < 1 || g->KSP < 1) return false;
  if (direct_forced != CONV_DIRECT_AUTO) return true; /* tests: every shape */
  /* Measured at one thread against im2col + OpenBLAS (8x56x56x64 input,
   * 3x3, pad 1): 1 or 2 output features lose (4.9 against 3.8 ms for 1:
   * a tile then uses 1/16 of its vectors), 4 win (5.3 against 8.2 ms). */
  if (OF < 4) return false;
  /* A 1x1 window reading every input position in order needs no im2col:
   * the input is the GEMM's operand.  That single GEMM tied with the
   * tiles at 64 -> 64 features and won at 64 -> 32 (5.9 against 10.6 ms,
   * 32x56x56) and 16 -> 64; the tiles won at 128 -> 128 (30 against 47
   * ms). */
  bool pointwise = g->KSP == 1;
  for (int d = 0; d < g->ns && pointwise; d++) {
    pointwise = g->os[d] == g->in_s[d];
    for (int64_t o = 0; o < g->os[d] && pointwise; o++) pointwise = g->map[d][o] == o;
  }
  return !pointwise || OF >= 128 || view;
}

bool conv_direct_ok(const ConvGeo *g, int64_t IC, int64_t OF) { return direct_ok(g, IC, OF, false); }

int64_t conv_direct_icb(int64_t KSP) {
  /* A range's weights for a block of 64 output features (KSP x ICB x 64
   * floats) stay within ~512 KB, a quarter of a core's L2, while all of a
   * chunk's tiles use them (3x3x512 -> 512 features: ranges of 224).
   * Ranges of L1 size (~32 KB) were no faster on 3x3 64 -> 64 and 256 ->
   * 256 (the accumulators go through memory once per range and every
   * range re-reads the tiles' inputs).  Multiples of 16 features (whole
   * cache lines of input); the same for both tiles, so that AVX2 and
   * AVX-512 machines sum in the same order. */
  int64_t icb = ((int64_t)512 << 10) / (KSP * 64 * 4);
  return icb >= 16 ? icb / 16 * 16 : icb < 1 ? 1 : icb;
}

/* Element stride of dim d of a row-major array. */
static int64_t stride_of(const KArray *x, int64_t d) {
  int64_t s = 1;
  for (int i = x->rank - 1; i > d; i--) s *= x->dims[i];
  return s;
}

/* One chunk: tiles [t0, t0 + nt).  Builds each pixel's output pointer and
 * per-tap input pointers, then runs the tiles through every feature block. */
static bool direct_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  const DirectJob *j = ctx;
  int ns = j->ns;
  int64_t P = j->pix, KSP = j->KSP, t0 = chunk * j->tpc;
  int64_t nt = j->ntiles - t0 < j->tpc ? j->ntiles - t0 : j->tpc;
  if (!j->scratch[worker] && !(j->scratch[worker] = k_malloc(j->tpc * P * (KSP + 1) * (int64_t)sizeof(void *), err)))
    return false;
  const float **tab = j->scratch[worker];
  float **optr = (float **)(tab + j->tpc * P * KSP);
  /* The first pixel's batch and output positions, then an odometer. */
  int64_t o[K_MAX_RANK], b = t0 * P;
  for (int d = ns - 1; d >= 0; d--) { o[d] = b % j->os[d]; b /= j->os[d]; }
  for (int64_t i = 0; i < nt * P; i++) {
    const float **tp = tab + (i / P) * KSP * P + i % P; /* [tile][tap][pixel] */
    if (t0 * P + i >= j->npix) {
      optr[i] = NULL;
      for (int64_t t = 0; t < KSP; t++) tp[t * P] = j->zero;
      continue;
    }
    const int64_t *mrow[K_MAX_RANK], *ml = NULL;
    int64_t oo = 0;
    for (int d = 0; d < ns; d++) {
      ml = mrow[d] = j->map[d] + o[d] * j->ks[d];
      oo += o[d] * j->oss[d];
    }
    optr[i] = j->O + b * j->osb + oo;
    const float *xb = j->X + b * j->lsb;
    /* Taps in order: the outer dims' offset once per row of taps, then
     * the innermost dim's positions along it. */
    int64_t kk[K_MAX_RANK], kl = j->ks[ns - 1], sl = j->lss[ns - 1];
    for (int d = 0; d < ns; d++) kk[d] = 0; /* not = {0}: a rep stos per pixel */
    for (int64_t t = 0; t < KSP; t += kl) {
      int64_t off = 0;
      for (int d = 0; d < ns - 1 && off >= 0; d++) {
        int64_t v = mrow[d][kk[d]];
        off = v < 0 ? -1 : off + v * j->lss[d];
      }
      const float **row = tp + t * P;
      for (int64_t k = 0; k < kl; k++) row[k * P] = off < 0 || ml[k] < 0 ? j->zero : xb + off + ml[k] * sl;
      for (int d = ns - 2; d >= 0 && ++kk[d] == j->ks[d]; d--) kk[d] = 0;
    }
    int d = ns - 1;
    while (d >= 0 && ++o[d] == j->os[d]) o[d--] = 0;
    if (d < 0) b++;
  }
  j->tiles(j, tab, optr, nt);
  return true;
}

int conv_direct_f32(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g, KArray *out,
                    Error *err) {
  return conv_direct_f32_view(lhs, rhs, dn, g, 1, out, NULL, err);
}

int conv_direct_f32_view(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g, int64_t G,
                         KArray *out, const int64_t *ostr, Error *err) {
  int ns = g->ns, isa = direct_isa();
  if (lhs->etype != ET_F32 || rhs->etype != ET_F32 || out->etype != ET_F32 || G < 1) return 0;
  /* Per group: IC input features (the kernel's), OF output features. */
  int64_t ICt = lhs->dims[dn->in_feature], OFt = out->dims[dn->out_feature], KSP = g->KSP;
  int64_t IC = rhs->dims[dn->k_in_feature], OF = OFt / G;
  if (ICt != IC * G || OFt != OF * G || rhs->dims[dn->k_out_feature] != OFt) return 0;
  if (!direct_ok(g, IC, OF, ostr != NULL)) return 0;
  int64_t ost[K_MAX_RANK]; /* the result's element strides (a view's, or row-major) */
  for (int i = 0; i < out->rank; i++) ost[i] = ostr ? ostr[i] : stride_of(out, i);

  DirectJob j = {.ns = ns, .os = g->os, .ks = g->ks, .map = g->map, .KSP = KSP, .IC = IC, .OF = OF, .G = G,
                 .X = lhs->data, .O = out->data};
  /* An lhs whose features are not innermost (NCHW) is copied to
   * [B, S..., IF] first (the tiles broadcasting from 64 planes in place
   * took 23 ms against 17 with the copy on NCHW 8x64x56x56, 3x3), and
   * such results go through a [B, S..., OF] buffer copied into place. */
  bool lin = ICt == 1 || stride_of(lhs, dn->in_feature) == 1;
  bool inner = OFt == 1 || ost[dn->out_feature] == 1;
  int64_t nv;
#ifdef DIRECT_X86
  if (isa == CONV_DIRECT_AVX512) { j.pix = 6; nv = 4; j.FB = 64; j.tiles = tiles__avx512; }
  else { j.pix = 6; nv = 2; j.FB = 16; j.tiles = tiles__avx2; }
#else
  return 0;
#endif
  j.ICB = conv_direct_icb(KSP);
  j.nblk = (OF + j.FB - 1) / j.FB;
  j.npix = out->dims[dn->out_batch] * g->OSP;
  j.ntiles = (j.npix + j.pix - 1) / j.pix;
  /* Canonical [B, S..., F] strides for the copies. */
  int64_t lst = ICt, cst = OFt, B = lhs->dims[dn->in_batch];
  for (int d = ns - 1; d >= 0; d--) {
    j.lss[d] = lin ? stride_of(lhs, dn->in_spatial[d]) : lst;
    j.oss[d] = inner ? ost[dn->out_spatial[d]] : cst;
    lst *= g->in_s[d];
    cst *= g->os[d];
  }
  j.lsb = lin ? stride_of(lhs, dn->in_batch) : lst;
  j.osb = inner ? ost[dn->out_batch] : cst;
  /* Chunks of at least 32 tiles (a range's weights are fetched once per
   * chunk) and ~2M multiply-adds, at most 256 tiles and 16 MB of pointer
   * tables per worker (huge windows), at least 8 chunks when there are
   * enough tiles (2 threads share the work evenly); all cut by the shape
   * alone. */
  int64_t macs = j.pix * OFt * KSP * IC;
  j.tpc = ((int64_t)1 << 21) / macs + 1;
  if (j.tpc < 32) j.tpc = 32;
  if (j.tpc > 256) j.tpc = 256;
  if (j.tpc > (j.ntiles + 7) / 8) j.tpc = (j.ntiles + 7) / 8;
  while (j.tpc > 1 && j.tpc * j.pix * (KSP + 1) > (2 << 20)) j.tpc /= 2;

  /* Packed weights: per group and feature block, [tap][IC][nv * VL] with
   * nv the block's vector count (the last block's features zero-padded);
   * then the zero row, as long as all groups' features (a group reads it
   * from its first feature on). */
  int64_t wn = G * j.nblk * KSP * IC * j.FB;
  float *Wraw = k_malloc(wn * 4 + ICt * 4 + 64, err), *tmpl = NULL, *tmpo = NULL;
  float *W = Wraw ? (float *)(((uintptr_t)Wraw + 63) & ~(uintptr_t)63) : NULL;
  int nw = pool_threads();
  void **scratch = W ? k_malloc(nw * (int64_t)sizeof *scratch, err) : NULL;
  if (scratch && ((!lin && !(tmpl = k_malloc(B * lst * 4, err))) || (!inner && !(tmpo = k_malloc(j.npix * OFt * 4, err))))) {
    k_free(scratch);
    scratch = NULL;
  }
  if (!scratch) {
    k_free(Wraw);
    k_free(tmpl);
    return -1;
  }
  memset(scratch, 0, (size_t)nw * sizeof *scratch);
  float *zero = W + wn;
  memset(zero, 0, (size_t)ICt * 4);
  if (tmpl) {
    int64_t dims[K_MAX_RANK], ds[K_MAX_RANK], ss[K_MAX_RANK];
    dims[0] = B; ds[0] = j.lsb; ss[0] = stride_of(lhs, dn->in_batch);
    for (int d = 0; d < ns; d++) { dims[1 + d] = g->in_s[d]; ds[1 + d] = j.lss[d]; ss[1 + d] = stride_of(lhs, dn->in_spatial[d]); }
    dims[ns + 1] = ICt; ds[ns + 1] = 1; ss[ns + 1] = stride_of(lhs, dn->in_feature);
    k_strided_copy(tmpl, ds, lhs->data, ss, dims, ns + 2, 4);
    j.X = tmpl;
  }
  if (tmpo) j.O = tmpo;
  int64_t kst[K_MAX_RANK], ksi = stride_of(rhs, dn->k_in_feature), kso = stride_of(rhs, dn->k_out_feature);
  for (int d = 0; d < ns; d++) kst[d] = stride_of(rhs, dn->k_spatial[d]);
  int64_t vl = j.FB / nv;
  const float *K = rhs->data;
  for (int64_t gb = 0; gb < G * j.nblk; gb++) {
    int64_t blk = gb % j.nblk, f0 = blk * j.FB, nf = OF - f0 < j.FB ? OF - f0 : j.FB, row = (nf + vl - 1) / vl * vl;
    float *wb = W + gb * KSP * IC * j.FB;
    f0 += gb / j.nblk * OF; /* the group's first kernel output feature */
    int64_t kk[K_MAX_RANK] = {0};
    for (int64_t t = 0; t < KSP; t++) {
      int64_t koff = 0;
      for (int d = 0; d < ns; d++) koff += kk[d] * kst[d];
      for (int64_t c = 0; c < IC; c++) {
        float *dst = wb + (t * IC + c) * row;
        const float *src = K + koff + c * ksi + f0 * kso;
        for (int64_t f = 0; f < nf; f++) dst[f] = src[f * kso];
        for (int64_t f = nf; f < row; f++) dst[f] = 0;
      }
      for (int d = ns - 1; d >= 0 && ++kk[d] == g->ks[d]; d--) kk[d] = 0;
    }
  }
  j.W = W;
  j.zero = zero;
  j.scratch = scratch;
  bool ok = pool_for_err((j.ntiles + j.tpc - 1) / j.tpc, direct_chunk, &j, err);
  if (ok && tmpo) {
    int64_t dims[K_MAX_RANK], ds[K_MAX_RANK], ss[K_MAX_RANK];
    dims[0] = out->dims[dn->out_batch]; ds[0] = ost[dn->out_batch]; ss[0] = j.osb;
    for (int d = 0; d < ns; d++) { dims[1 + d] = g->os[d]; ds[1 + d] = ost[dn->out_spatial[d]]; ss[1 + d] = j.oss[d]; }
    dims[ns + 1] = OFt; ds[ns + 1] = ost[dn->out_feature]; ss[ns + 1] = 1;
    k_strided_copy(out->data, ds, tmpo, ss, dims, ns + 2, 4);
  }
  for (int w = 0; w < nw; w++) k_free(scratch[w]);
  k_free(scratch);
  k_free(Wraw);
  k_free(tmpl);
  k_free(tmpo);
  return ok ? 1 : -1;
}
