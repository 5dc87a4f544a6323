/* Collectives: all-reduce, all-gather, reduce-scatter, all-to-all,
 * collective-permute, collective-broadcast (and their -start forms).
 *
 * A single-device run (EvalCtx.rendezvous NULL) runs each as a group of
 * one.  In a multi-device run every device meets the others at the
 * rendezvous (interp/collective/rendezvous.h), publishes dense views of its operands,
 * computes its own result from its group's operands (groups per
 * interp/collective/groups.h; the group's listed order is the order of
 * concatenation and of the reduction), then waits until everyone has read
 * before its operands may be released. */
#ifndef HLO_INTERP_COLLECTIVE_COLLECTIVES_H
#define HLO_INTERP_COLLECTIVE_COLLECTIVES_H

#include "interp/eval_internal.h"

bool eval_collective(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err);

#endif
