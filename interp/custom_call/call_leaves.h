/* The buffers a user's custom call sees (FFI handlers and old-style CPU
 * functions alike): every operand leaf as dense row-major data, tuples
 * flattened in order as XLA:CPU passes them, and one fresh dense buffer per
 * result leaf, zero-filled so that a handler that leaves part of a result
 * unwritten gives the same bytes on every run. */
#ifndef HLO_INTERP_CUSTOM_CALL_CALL_LEAVES_H
#define HLO_INTERP_CUSTOM_CALL_CALL_LEAVES_H

#include "interp/eval_views.h"

typedef struct CallLeaves {
  EvalViews ins; /* array operand leaves */
  /* Per operand leaf in order: its index in ins, or -1 for a token. */
  int nleaves;
  int leaf_view[EVAL_MAX_VIEWS];
  EvalOuts outs; /* result leaves (rs: an array or a tuple of arrays) */
} CallLeaves;

/* Views of every operand leaf of `in` and fresh zeroed results for rs.
 * Sub-byte element types are refused (their packing is not defined for a
 * handler).  On failure everything taken is given back. */
bool call_leaves_open(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                      const Shape *rs, CallLeaves *cl, Error *err);
/* Releases the operand views and, when ok, commits the results into *out;
 * else drops them.  Returns ok && the commit succeeded. */
bool call_leaves_close(EvalCtx *ctx, const Shape *rs, CallLeaves *cl, bool ok, Value **out,
                       Error *err);

#endif
