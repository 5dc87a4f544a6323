/* XLA:GPU's cuDNN batch-norm custom calls (interp/custom_call/cudnn_bn.c),
 * as its CudnnBatchNormRewriter emits them for the batch-norm HLO ops:
 *   __cudnn$batchNormalizationForwardInference(operand, scale, offset, mean,
 *       variance, epsilon, feature_index) -> output
 *   __cudnn$batchNormalizationForwardTraining(operand, scale, offset,
 *       epsilon, feature_index) -> (output, mean, inv_stddev)
 *   __cudnn$batchNormalizationBackward(operand, scale, mean, inv_stddev,
 *       grad_output, epsilon, feature_index)
 *       -> (grad_operand, grad_scale, grad_offset)
 * epsilon is an f32[] constant, feature_index an s64[] constant. */
#ifndef HLO_INTERP_CUSTOM_CALL_CUDNN_BN_H
#define HLO_INTERP_CUSTOM_CALL_CUDNN_BN_H

#include "interp/eval_internal.h"

/* Whether target is one of the batch-norm targets above. */
bool eval_cudnn_bn_known(const char *target);

bool eval_cudnn_bn(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                   const Shape *rs, Value **out, Error *err);

#endif
