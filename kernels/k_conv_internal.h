/* Private to the convolution kernel (k_conv.c) and its special paths
 * (k_conv_paths.c): the spatial geometry worked out once, and helpers both
 * use. */
#ifndef HLO_KERNELS_K_CONV_INTERNAL_H
#define HLO_KERNELS_K_CONV_INTERNAL_H

#include "kernels/k_common.h"
#include "kernels/k_conv.h"

/* Per spatial dim d: input, kernel and output sizes, and map[d][o * ks + k],
 * the input position kernel position k of output position o reads (padding,
 * strides, both dilations and reversal applied), or -1 for none. */
typedef struct ConvGeo {
  int ns;
  const int64_t *in_s, *ks, *os;
  int64_t *const *map;
  int64_t KSP, OSP; /* kernel positions, output positions */
} ConvGeo;

/* Innermost spatial dim, per kernel position k: the outputs [lo, hi) that
 * read an input, and whether they read one contiguous run from base.
 * Arrays of ks[ns - 1] entries, from one k_malloc (conv_runs_free). */
typedef struct ConvRuns {
  int64_t *lo, *hi, *base;
  bool *contig;
} ConvRuns;
bool conv_runs_init(const ConvGeo *g, ConvRuns *r, Error *err);

/* Output row q (the output positions of all spatial dims but the innermost,
 * row-major) at kernel position kk: the offset (elements, input strides sp)
 * of the input row it reads, or false when that falls into padding or
 * between dilated elements. */
static inline bool conv_row_offset(const ConvGeo *g, int64_t q, const int64_t *kk, const int64_t *sp,
                                   int64_t *off) {
  int64_t o = 0;
  for (int d = g->ns - 2; d >= 0; d--) {
    int64_t v = g->map[d][(q % g->os[d]) * g->ks[d] + kk[d]];
    q /= g->os[d];
    if (v < 0) return false;
    o += v * sp[d];
  }
  *off = o;
  return true;
}
void conv_runs_free(ConvRuns *r);

/* Innermost spatial dim, per output position o: the kernel positions
 * [klo, klo + cnt) that read an input, at p0 + (k - klo) * step.  False when
 * some o reads a set that is not such a progression (base dilation).
 * Arrays of os[ns - 1] entries. */
bool conv_kernel_runs(const ConvGeo *g, int64_t *klo, int64_t *cnt, int64_t *p0, int64_t *step);

/* Whether dims p[0..rank) of x are in storage order (size-1 dims ignored). */
bool conv_in_order(const KArray *x, const int *p);
/* Permutes x by perm into a new buffer of compute type ct (or returns x's
 * data when nothing needs doing; *owned is what to k_free). */
void *conv_canon(const KArray *x, const int *perm, EType ct, int64_t n, void **owned, Error *err);

/* The window as k_conv resolved it, per spatial dim (stride, low padding,
 * base and window dilation, reversal; sizes of input, kernel and result). */
typedef struct ConvSpatial {
  int ns;
  const int64_t *in_s, *ks, *os, *stride, *lo, *bd, *wd;
  const bool *rev;
} ConvSpatial;

/* The special paths: 1 done, 0 not applicable (nothing done), -1 error. */
/* A window covering the whole (unpadded, undilated) input: a single dot. */
int conv_full_window_dot(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g,
                         KArray *out, Error *err);
/* Depthwise (one input feature per group), f32, channel-major lhs and
 * result ([B, F, S...], NCHW and the like): a direct loop per plane. */
int conv_depthwise_cmajor(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g,
                          int64_t groups, KArray *out, Error *err);

/* Base dilation (lhs_dilate) > 1 in some dim: one undilated convolution per
 * phase of the output positions, with the sub-kernel of the taps that
 * phase reads (k_conv_phases.c).  Any groups, types and layouts.  0 when an
 * index would overflow (the generic path runs). */
int conv_base_dilated(const KArray *lhs, const KArray *rhs, const KConvParams *p, const ConvSpatial *sp,
                      KArray *out, Error *err);

/* Feature- or batch-grouped, f32, spatial dims innermost in lhs and kernel,
 * kernel rows longer than output rows (the weight gradient of a depthwise
 * convolution): per plane pair, dot products along input rows. */
int conv_grouped_planar(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g,
                        int64_t G, int64_t BG, KArray *out, Error *err);

/* Weight-gradient shape (kernel window larger than the output, long K =
 * kernel input features x kernel positions), no feature groups, BG >= 1
 * batch groups (a grouped convolution's weight gradient), float or complex
 * compute type ct with a BLAS: one GEMM per batch group cut along K into
 * units summed in a fixed order (k_conv_wgrad.c). */
int conv_wgrad(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g, EType ct, int64_t BG,
               KArray *out, Error *err);

/* Direct f32 convolution (k_conv_direct.c): no groups (see
 * conv_direct_f32_view for them), no base dilation
 * left to do, input and output features innermost (NHWC and the like), any
 * kernel layout; register tiles of output pixels x output features, AVX-512
 * or AVX2+FMA.  0 when not applicable (other types or layouts, or not
 * conv_direct_ok). */
int conv_direct_f32(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g, KArray *out,
                    Error *err);
/* The same with G >= 1 feature groups (group g: input features from
 * g * IC, IC the kernel's, output features from g * OF, OF a G-th of the
 * result's) into a result with element strides ostr (NULL: row-major; a
 * strided view, as a base-dilated convolution's phase writes). */
int conv_direct_f32_view(const KArray *lhs, const KArray *rhs, const KConvDims *dn, const ConvGeo *g, int64_t G,
                         KArray *out, const int64_t *ostr, Error *err);
/* k_conv into a result with element strides ostr (NULL: row-major): the
 * direct path in place where it runs, else through a row-major copy. */
bool conv_into_view(const KArray *lhs, const KArray *rhs, const KConvParams *p, KArray *out, const int64_t *ostr,
                    Error *err);
/* Whether the direct path runs (and beats im2col + BLAS) for this window
 * and IC -> OF features: a CPU with AVX2 and FMA, no tiny output feature
 * counts, no 1x1 window that is a plain GEMM already (unless wide). */
bool conv_direct_ok(const ConvGeo *g, int64_t IC, int64_t OF);
/* Which tile conv_direct_f32 uses: the best the CPU has (AUTO), none (OFF),
 * or a given one (tests: both tiles on an AVX-512 machine, for every shape
 * the tiles can take, whether or not they pay). */
enum { CONV_DIRECT_AUTO, CONV_DIRECT_OFF, CONV_DIRECT_AVX2, CONV_DIRECT_AVX512 };
void conv_direct_force(int isa);
/* The tile the direct paths use now (the forced one, else the CPU's best),
 * and whether one is forced. */
int conv_direct_isa(void);
bool conv_direct_forced(void);
/* The input features per range of the direct path's summation order: each
 * output is a sum of segments in order, ranges outermost and the rows of
 * taps (innermost kernel dim) within; a segment is a chain of fused
 * multiply-adds from zero over its taps in kernel order and, per tap, the
 * range's features in order. */
int64_t conv_direct_icb(int64_t KSP);

/* Direct f32 filter gradient (k_conv_wgrad_direct.c), in conv_wgrad's
 * terms: C[o, b, f] = sum over i, k of X[i, pos(o, k), b] * D[i, k, f] for
 * NI images i, Bt = BG * B rows b in BG batch groups, KOF features f (F =
 * KOF / BG per group); C is [OS..., B, KOF] (row-major); X and D are read
 * through the strides (elements) below. */
typedef struct WgradOperands {
  const float *X, *D;
  float *C;    /* the result, [OS..., B, KOF]: stream 0's sum */
  float *part; /* streams 1 .. S-1's sums, each the result's size (S: conv_wgrad_direct_streams) */
  int64_t xi, xb, xs[K_MAX_RANK]; /* X: image, row, spatial dims */
  int64_t di, ds[K_MAX_RANK], df; /* D: image, kernel spatial dims, features (1: contiguous) */
  int64_t NI, Bt, BG, KOF;
} WgradOperands;
/* Whether the direct tiles run (a direct tile on this CPU) for B rows and
 * F features per group. */
bool conv_wgrad_direct_ok(int64_t B, int64_t F);
/* The streams S the tiles sum in, by the shapes alone: the caller adds
 * op->part's S - 1 sums to op->C, in order. */
int64_t conv_wgrad_direct_streams(const ConvGeo *g, const WgradOperands *op);
/* klo, cnt, p0, step: conv_kernel_runs of g (which must hold). */
bool conv_wgrad_direct(const ConvGeo *g, const int64_t *klo, const int64_t *cnt, const int64_t *p0,
                       const int64_t *step, const WgradOperands *op, Error *err);

#endif
