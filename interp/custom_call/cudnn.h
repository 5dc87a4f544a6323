/* XLA:GPU's cuDNN convolution custom calls (interp/custom_call/cudnn.c):
 *   __cudnn$convForward, __cudnn$convBackwardInput,
 *   __cudnn$convBackwardFilter, __cudnn$convBiasActivationForward.
 * Each carries window=, dim_labels=, feature_group_count= describing the
 * FORWARD convolution (input, filter) -> output, and returns
 * (result, u8[N] scratch): the scratch is zeroed. */
#ifndef HLO_INTERP_CUSTOM_CALL_CUDNN_H
#define HLO_INTERP_CUSTOM_CALL_CUDNN_H

#include "interp/eval_internal.h"

/* Whether target is one of the convolution targets above. */
bool eval_cudnn_known(const char *target);

bool eval_cudnn_conv(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                     const Shape *rs, Value **out, Error *err);

#endif
