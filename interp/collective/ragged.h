/* ragged-all-to-all(input, output, input_offsets, send_sizes,
 * output_offsets, recv_sizes), as XLA's GPU runtime runs it
 * (xla/backends/gpu/runtime/ragged_all_to_all_thunk.cc, memcpy form).
 *
 * Rows are the slices along dimension 0 (the other dimensions of input and
 * output must agree).  The four index operands are integer vectors of one
 * length T = N * U for a group of N: U updates per peer.  Member j sends,
 * for update i and peer p (k = p * U + i), its input rows
 * [input_offsets[k], input_offsets[k] + send_sizes[k]) to peer p, which
 * stores them at rows output_offsets[k].. of its output: output offsets
 * are in the receiver's output.  The result starts as this device's
 * `output` operand; rows nobody writes keep it.  Senders are applied in
 * group order, updates in (i, p) order, so overlapping writes keep the
 * last.  recv_sizes[j * U + i] must equal what member j sends here for
 * update i (XLA's NCCL form receives that many rows).  Offsets or sizes
 * out of range are errors naming the member, never a wild copy. */
#ifndef HLO_INTERP_COLLECTIVE_RAGGED_H
#define HLO_INTERP_COLLECTIVE_RAGGED_H

#include "interp/collective/compute.h"

bool collective_ragged_all_to_all(const Instr *in, const CollectiveInputs *g, KArray *out,
                                  Error *err);

#endif
