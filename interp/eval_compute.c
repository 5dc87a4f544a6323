/* Ops whose kernels are the compute kernels (kernels/k_*.h of issue 5):
 * dot, reduce, ...  Not wired yet: they report "not supported yet". */
#include "interp/eval_internal.h"

bool eval_compute(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                  bool *handled, Error *err) {
  (void)ctx;
  (void)f;
  (void)in;
  (void)rs;
  (void)out;
  (void)err;
  *handled = false;
  return false;
}
