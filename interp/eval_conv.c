/* convolution through kernels/k_conv.h: dim_labels, window (size, stride,
 * padding incl. negative, lhs/rhs dilation, reversal), feature_group_count,
 * batch_group_count.  operand_precision is ignored (the kernel computes
 * floats in f32/f64 as XLA's CPU backend does) except packed_nibble, which
 * changes what the integer operands mean (eval_packed_nibble.h). */
#include "interp/eval_ops.h"

#include <stdlib.h>

#include "interp/eval_packed_nibble.h"
#include "interp/eval_views.h"
#include "kernels/k_conv.h"
#include "kernels/kernels.h"

/* XLA's HloEvaluator converts an operand whose element type differs from
 * the result's to the result type before convolving; the kernel computes
 * wider, which only differs for float operands with an integer or pred
 * result, so those are converted here first (XLA's convert semantics). */
static bool conv_product(const KArray *lhs, const KArray *rhs, const void *arg, KArray *out,
                         Error *err) {
  return k_conv(lhs, rhs, arg, out, err);
}

static bool conv_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                        int nouts, Error *err) {
  (void)nouts;
  if (eval_packed_nibble_count(in))
    return eval_packed_nibble_product(in, &ins[0], &ins[1], conv_product, arg, &outs[0], err);
  EType ot = outs[0].etype;
  KArray ops[2] = {ins[0], ins[1]};
  void *owned[2] = {NULL, NULL};
  bool ok = true;
  for (int i = 0; i < 2 && ok; i++) {
    if (etype_is_float(ot) || etype_is_complex(ot) || !etype_is_float(ops[i].etype)) continue;
    int64_t n = 1;
    for (int d = 0; d < ops[i].rank; d++) n *= ops[i].dims[d];
    owned[i] = malloc((size_t)(n ? n : 1) * (size_t)etype_storage_bytes(ot));
    ok = owned[i] ? k_convert(ot, owned[i], ops[i].etype, ops[i].data, n, err)
                  : error_set(err, ERR_RUNTIME, -1, "out of memory");
    ops[i].etype = ot;
    ops[i].data = owned[i];
  }
  ok = ok && k_conv(&ops[0], &ops[1], arg, &outs[0], err);
  free(owned[0]);
  free(owned[1]);
  return ok;
}

/* Op: convolution
 * Operands: lhs (input), rhs (kernel)
 * Attributes: dim_labels, window (size, stride, pad, lhs_dilate, rhs_dilate,
 *   rhs_reversal); optional feature_group_count, batch_group_count,
 *   operand_precision
 *
 * The windowed product-sum of XLA's ConvGeneralDilated: dim_labels names the
 * batch, feature and spatial dimensions of input, kernel and output; padding may be
 * negative; grouped (feature_group_count) and batch-grouped convolutions included.
 *
 * Rule: XLA operation semantics, ConvWithGeneralPadding (Convolution); float
 *   operands accumulate in f32/f64 as XLA's CPU backend; an operand whose type
 *   differs from the result's is converted to it first, as XLA's HloEvaluator does;
 *   operand_precision is ignored except packed_nibble (two s4 values per byte).
 * Refuses: group counts or sizes that do not divide as the rule needs; element-type
 *   combinations the kernel does not compute (complex operands with a real result).
 */
bool eval_convolution(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                      Error *err) {
  const Attr *a = ir_attr(in, ATTR_DIM_LABELS);
  if (!a || a->kind != AV_CONV_DIMS)
    return error_set(err, ERR_RUNTIME, in->offset, "needs dim_labels");
  const ConvDims *cd = &a->v.conv;
  if (shape_is_tuple(rs))
    return error_set(err, ERR_RUNTIME, in->offset, "result must be an array");
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
