/* dot with structured-sparse operands (sparsity=L.d@2:4 / R.d@2:4 and one
 * u16 metadata operand per descriptor): eval_sparse_dot.c. */
#ifndef HLO_INTERP_EVAL_SPARSE_DOT_H
#define HLO_INTERP_EVAL_SPARSE_DOT_H

#include "interp/eval_internal.h"
#include "kernels/k_dot.h"

bool eval_sparse_dot(EvalCtx *ctx, Frame *fr, const Instr *in, const KDotDims *dn,
                     const Shape *rs, Value **out, Error *err);

#endif
