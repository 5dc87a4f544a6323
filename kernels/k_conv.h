/* convolution (operation semantics "ConvWithGeneralPadding", HLO
 * `convolution` with dim_labels, window and group counts).
 *
 *   out[b, o..., f] = sum over kernel positions k..., input features i of
 *       lhs[bl, pos(o, k)..., fg * IFg + i] * rhs[k'..., i, f]
 * where pos = o * stride + k * window_dilation - pad_lo, taken in the
 * base-dilated input (positions between dilated elements and outside it
 * contribute zero), k' = size - 1 - k on reversed dims,
 * feature groups split lhs features and kernel output features into
 * feature_group_count consecutive groups, and batch groups split the lhs batch
 * into batch_group_count consecutive groups paired with consecutive groups of
 * kernel output features (StableHLO's definition).
 *
 * Every element type of dot (k_dot.h) is accepted, with dot's compute types.
 * f32 convolutions without batch groups run a direct register-tiled kernel
 * (k_conv_direct.c) where it is faster; otherwise the computation is
 * im2col + gemm (BLAS sgemm/dgemm/cgemm/zgemm for floats, exact wrapping
 * integer gemm for integers), chunked to bound memory, or one of the
 * special paths of k_conv.c. */
#ifndef HLO_KERNELS_K_CONV_H
#define HLO_KERNELS_K_CONV_H

#include "kernels/k_window.h"
#include "kernels/k_types.h"

/* Dimension numbers: which array dimension plays which role (dim_labels
 * "b01f_01io->b01f" is in_batch 0, in_spatial {1,2}, in_feature 3, ...). */
typedef struct KConvDims {
  int nspatial;
  int64_t in_batch, in_feature;
  const int64_t *in_spatial;
  int64_t k_in_feature, k_out_feature;
  const int64_t *k_spatial;
  int64_t out_batch, out_feature;
  const int64_t *out_spatial;
} KConvDims;

typedef struct KConvParams {
  KConvDims dn;
  /* rank == nspatial; size may be NULL (kernel spatial sizes are used),
   * otherwise it must match them.  base_dilation = lhs_dilation,
   * window_dilation = rhs_dilation. */
  KWindow window;
  int64_t feature_group_count; /* >= 1 */
  int64_t batch_group_count;   /* >= 1 */
} KConvParams;

bool k_conv(const KArray *lhs, const KArray *rhs, const KConvParams *p, KArray *out, Error *err);

#endif
