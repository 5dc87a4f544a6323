/* The host side of infeed, outfeed and host transfers (eval_feed.c),
 * through the EvalCtx.infeed / EvalCtx.outfeed callbacks the runner
 * installs; the evaluators themselves are in eval_ops.h. */
#ifndef HLO_INTERP_EVAL_FEED_H
#define HLO_INTERP_EVAL_FEED_H

#include "interp/eval_internal.h"

/* The host side of host transfers (interp/collective/send_recv.c), shared with infeed /
 * outfeed: a value of shape s (tuples, tokens) built from the infeed
 * queue; each array leaf of v handed to the outfeed (dropped without
 * one). */
bool eval_feed_take(EvalCtx *ctx, const Shape *s, Value **out, Error *err);
bool eval_feed_give(EvalCtx *ctx, const Value *v, Error *err);

#endif
