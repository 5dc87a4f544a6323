/* infeed: result (data, token), data built leaf by leaf (row-major tuple
 * order) from ctx->infeed; outfeed: each array leaf of operand 0 handed to
 * ctx->outfeed, result a token.  infeed_config / outfeed_config are not
 * interpreted (they name device-side queues). */
#include "interp/eval_feed.h"

#include <stdlib.h>

static bool build(EvalCtx *ctx, const Shape *s, Value **out, Error *err);

bool eval_feed_take(EvalCtx *ctx, const Shape *s, Value **out, Error *err) {
  if (!ctx->infeed) return error_set(err, ERR_RUNTIME, -1, "no infeed data");
  return build(ctx, s, out, err);
}

static bool feed_leaf(void *ud, const Shape *s, const char *desc, Value **out, Error *err) {
  (void)desc;
  EvalCtx *ctx = ud;
  return ctx->infeed(ctx->feed_ud, ctx, s, out, err);
}

static bool build(EvalCtx *ctx, const Shape *s, Value **out, Error *err) {
  return value_build(&ctx->vc, s, "infeed data", feed_leaf, ctx, out, err);
}

/* Op: infeed
 * Operands: token
 * Attributes: optional infeed_config (not interpreted)
 *
 * Result (data, token): each array leaf of data takes the next array of the run's
 * infeed queue (--infeed files in order, then --random-inputs data).
 *
 * Rule: XLA operation semantics, Infeed; one host queue (docs/interpreter.md,
 *   "Infeed and outfeed").
 * Refuses: running out of infeed data (without --random-inputs); an infeed array
 *   that does not fit its leaf (the dtype rules of --inputs).
 */
bool eval_infeed(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                 Error *err) {
  (void)fr;
  if (!shape_is_tuple(rs) || rs->ntuple != 2)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "infeed returns (data, token)");
  if (!ctx->infeed)
    return error_set(err, ERR_RUNTIME, in->offset, "no infeed data");
  Value *el[2] = {NULL, NULL};
  if (!build(ctx, &rs->tuple[0], &el[0], err)) return false;
  el[1] = value_new_token(&rs->tuple[1]);
  *out = el[1] ? value_new_tuple(rs, 2, el) : NULL;
  if (!*out) {
    value_unref(&ctx->vc, el[0]);
    value_unref(&ctx->vc, el[1]);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return true;
}

static bool send(EvalCtx *ctx, const Value *v, Error *err) {
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++)
      if (!send(ctx, v->elems[i], err)) return false;
    return true;
  }
  return !v->info || ctx->outfeed(ctx->feed_ud, ctx, v, err);
}

bool eval_feed_give(EvalCtx *ctx, const Value *v, Error *err) {
  return !ctx->outfeed || send(ctx, v, err);
}

/* Op: outfeed
 * Operands: data, token
 * Attributes: optional outfeed_shape, outfeed_config (not interpreted)
 *
 * Hands each array leaf of data to the run's outfeed queue (--outfeed-dir writes
 * them as outfeed{N}.npy in execution order; without it they are discarded).
 * Result: a token.
 *
 * Rule: XLA operation semantics, Outfeed; one host queue.
 * Refuses: an outfeed file that cannot be written.
 */
bool eval_outfeed(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                  Error *err) {
  if (in->noperands < 1)
    return error_set(err, ERR_RUNTIME, in->offset, "outfeed needs data");
  if (ctx->outfeed && !send(ctx, frame_operand(fr, in, 0), err)) return false;
  *out = value_new_token(rs);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}
