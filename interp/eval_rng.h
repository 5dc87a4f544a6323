/* rng, rng-bit-generator and rng-get-and-update-state in the evaluator
 * (eval_rng.c documents the state each one keeps). */
#ifndef HLO_INTERP_EVAL_RNG_H
#define HLO_INTERP_EVAL_RNG_H

#include "interp/eval_internal.h"

bool eval_rng(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
              Error *err);
bool eval_rng_bit_generator(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                            Value **out, Error *err);
bool eval_rng_get_and_update_state(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                                   Value **out, Error *err);

#endif
