/* infeed and outfeed in the evaluator (eval_feed.c), through the
 * EvalCtx.infeed / EvalCtx.outfeed callbacks the runner installs. */
#ifndef HLO_INTERP_EVAL_FEED_H
#define HLO_INTERP_EVAL_FEED_H

#include "interp/eval_internal.h"

bool eval_infeed(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                 Error *err);
bool eval_outfeed(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                  Error *err);

#endif
