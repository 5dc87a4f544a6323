/* operand_precision={packed_nibble,packed_nibble} on dot and convolution. */
#ifndef HLO_INTERP_EVAL_PACKED_NIBBLE_H
#define HLO_INTERP_EVAL_PACKED_NIBBLE_H

#include <stdbool.h>

#include "base/error.h"
#include "kernels/k_types.h"
#include "parser/ir.h"

/* How many of the instruction's operand precisions are packed_nibble. */
int eval_packed_nibble_count(const Instr *in);

/* One product (dot or convolution) of two dense operands into out. */
typedef bool (*NibbleProductFn)(const KArray *lhs, const KArray *rhs, const void *arg, KArray *out,
                                Error *err);

/* XLA's meaning of packed_nibble (its OperandUpcaster rewrite): every
 * integer element holds two 4-bit values, the low one read as
 * (x << 4) >> 4 and the high one as x >> 4 (arithmetic shifts for signed
 * types, logical for unsigned), and the op is
 *   product(low(lhs), low(rhs)) + product(high(lhs), high(rhs))
 * with each half converted to the result type first. Exactly one
 * packed_nibble operand, or a non-integer operand, is an error. */
bool eval_packed_nibble_product(const Instr *in, const KArray *lhs, const KArray *rhs,
                                NibbleProductFn fn, const void *arg, KArray *out, Error *err);

#endif
