/* convolution through kernels/k_conv.h: dim_labels, window (size, stride,
 * padding incl. negative, lhs/rhs dilation, reversal), feature_group_count,
 * batch_group_count.  operand_precision is ignored (the kernel computes
 * floats in f32/f64 as XLA's CPU backend does). */
#include "interp/eval_conv.h"

#include "interp/eval_views.h"
#include "kernels/k_conv.h"

static bool conv_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                        int nouts, Error *err) {
  (void)in;
  (void)nouts;
  return k_conv(&ins[0], &ins[1], arg, &outs[0], err);
}

bool eval_convolution(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                      Error *err) {
  const Attr *a = ir_attr(in, ATTR_DIM_LABELS);
  if (!a || a->kind != AV_CONV_DIMS)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: needs dim_labels", in->name);
  const ConvDims *cd = &a->v.conv;
  if (shape_is_tuple(rs))
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: result must be an array",
                     in->name);
  EvalWindow w;
  if (!eval_window(in, cd->nspatial, &w, err)) return false;
  KConvParams p = {
      .dn = {cd->nspatial, cd->input_batch, cd->input_feature, cd->input_spatial,
             cd->kernel_input_feature, cd->kernel_output_feature, cd->kernel_spatial,
             cd->output_batch, cd->output_feature, cd->output_spatial},
      .window = w.k,
      .feature_group_count = eval_attr_int(in, ATTR_FEATURE_GROUP_COUNT, 1),
      .batch_group_count = eval_attr_int(in, ATTR_BATCH_GROUP_COUNT, 1),
  };
  return eval_kernel_op(ctx, f, in, rs, 2, conv_kernel, &p, out, err);
}
