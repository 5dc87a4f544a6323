/* The arithmetic of the collectives, as one device computes its result
 * from its group's dense operands (gathered by interp/collective/collectives.c at the
 * rendezvous).  Members are in the group's listed order, which is the order
 * of concatenation and of reduction.  outs are the device's dense results,
 * one per operand, already allocated; their sizes are checked. */
#ifndef HLO_INTERP_COLLECTIVE_COMPUTE_H
#define HLO_INTERP_COLLECTIVE_COMPUTE_H

#include "interp/eval_internal.h"
#include "kernels/k_types.h"

typedef struct CollectiveInputs {
  int n;                    /* group size */
  int me;                   /* this device's position in the group */
  int nops;                 /* operands per member (same shapes everywhere) */
  const KArray *const *ops; /* ops[j][i]: member j's operand i */
} CollectiveInputs;

/* Each operand reduced over the members with the to_apply scalar reducer,
 * left to right: known ops as tight loops, others evaluated over whole
 * vectors. */
bool collective_all_reduce(EvalCtx *ctx, const Instr *in, const CollectiveInputs *g,
                           KArray *outs, Error *err);
/* The same reduction of this device's shard (its position) of
 * dimensions={d}. */
bool collective_reduce_scatter(EvalCtx *ctx, const Instr *in, const CollectiveInputs *g,
                               KArray *outs, Error *err);
/* The members' operands concatenated along dimensions={d}. */
bool collective_all_gather(const Instr *in, const CollectiveInputs *g, KArray *outs, Error *err);
/* Array form (dimensions={d}): split into group-size chunks along d, chunk
 * j to member j, the received chunks concatenated along d; tuple form:
 * operand j to member j. */
bool collective_all_to_all(const Instr *in, const CollectiveInputs *g, KArray *outs, Error *err);
/* Copies of src's nops arrays (a permute source, a broadcast root), or
 * zeros when src is NULL; mine gives the sizes. */
bool collective_copy_from(const Instr *in, const KArray *src, const KArray *mine, int nops,
                          KArray *outs, Error *err);

#endif
