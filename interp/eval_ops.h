/* Every evaluator function: the eval column of parser/opcodes.def names
 * one per opcode, and eval.c builds eval_of[] from this header alone.  All
 * have the EvalFn signature (eval_internal.h); each file's own helpers
 * stay in its own header. */
#ifndef HLO_INTERP_EVAL_OPS_H
#define HLO_INTERP_EVAL_OPS_H

#include "interp/eval_internal.h"

#define EVAL_FN(name)                                                                      \
  bool name(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out, Error *err)

/* eval_values.c */
EVAL_FN(eval_parameter);
EVAL_FN(eval_constant);
EVAL_FN(eval_tuple);
EVAL_FN(eval_get_tuple_element);
EVAL_FN(eval_pass_through); /* opt-barrier, domain, add-dependency */
EVAL_FN(eval_after_all);
EVAL_FN(eval_replica_id);
EVAL_FN(eval_partition_id);
EVAL_FN(eval_get_dimension_size);

/* eval_movement.c */
EVAL_FN(eval_move); /* broadcast, reshape, transpose, slice, reverse */
EVAL_FN(eval_pad);
EVAL_FN(eval_concatenate);
EVAL_FN(eval_dynamic_slice);
EVAL_FN(eval_dynamic_update_slice);
EVAL_FN(eval_iota);
EVAL_FN(eval_copy);
EVAL_FN(eval_bitcast);
EVAL_FN(eval_set_dimension_size_op);

/* eval_control.c */
EVAL_FN(eval_call);
EVAL_FN(eval_while);
EVAL_FN(eval_conditional);
EVAL_FN(eval_map);
EVAL_FN(eval_fusion);
EVAL_FN(eval_async_start);
EVAL_FN(eval_async_update);
EVAL_FN(eval_async_done); /* async-done and the *-done of collectives */
EVAL_FN(eval_copy_start);
EVAL_FN(eval_copy_done);
EVAL_FN(eval_custom_call);

/* eval_elementwise.c: every op with a kernel in the kernel column */
EVAL_FN(eval_elementwise);

/* eval_compute.c */
EVAL_FN(eval_dot);
EVAL_FN(eval_reduce); /* reduce, reduce-window */
EVAL_FN(eval_select_and_scatter);
EVAL_FN(eval_stochastic_convert);

/* eval_gather.c */
EVAL_FN(eval_gather);
EVAL_FN(eval_scatter);

/* eval_sort.c */
EVAL_FN(eval_sort);
EVAL_FN(eval_topk);

/* eval_conv.c, eval_fft.c, eval_ragged.c, eval_scan.c */
EVAL_FN(eval_convolution);
EVAL_FN(eval_fft);
EVAL_FN(eval_ragged_dot);
EVAL_FN(eval_scan);

/* eval_linalg.c */
EVAL_FN(eval_cholesky);
EVAL_FN(eval_triangular_solve);
EVAL_FN(eval_batch_norm); /* batch-norm-training, -inference and -grad */

/* eval_rng.c */
EVAL_FN(eval_rng);
EVAL_FN(eval_rng_bit_generator);
EVAL_FN(eval_rng_get_and_update_state);

/* eval_feed.c */
EVAL_FN(eval_infeed);
EVAL_FN(eval_outfeed);

/* collective/collectives.c: all-reduce, all-gather, reduce-scatter,
 * all-to-all, collective-permute, collective-broadcast, -start forms */
EVAL_FN(eval_collective);

/* collective/send_recv.c */
EVAL_FN(eval_send);
EVAL_FN(eval_send_done);
EVAL_FN(eval_recv);
EVAL_FN(eval_recv_done);

/* eval.c: an opcode the evaluator does not run (dynamic-reshape) */
EVAL_FN(eval_unsupported_op);

#undef EVAL_FN

#endif
