/* cholesky, triangular-solve, batch-norm-training/-inference/-grad
 * (eval_linalg.c), reached through eval_of[] (opcodes.def). */
#ifndef HLO_INTERP_EVAL_LINALG_H
#define HLO_INTERP_EVAL_LINALG_H

#include "interp/eval_internal.h"

bool eval_cholesky(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                   Error *err);
bool eval_triangular_solve(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                           Error *err);
/* batch-norm-training, -inference and -grad (by in->op). */
bool eval_batch_norm(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err);

#endif
