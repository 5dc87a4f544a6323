/* reduce (operation semantics "Reduce"); reduce-window and
 * select-and-scatter are in k_window.h, with the same reducers and order.
 *
 * Reducers (k_types.h KReducer): either one known op per operand, run as
 * typed loops, or a KReduceFn callback applied to whole vectors.
 *
 * Summation order (floating point; XLA leaves it to the backend):
 *   - f32/f64 accumulate in their own type, no widening.  A reduction over
 *     the innermost (contiguous) dimension keeps 32 (f32) / 16 (f64) partial
 *     sums interleaved over the row (each from -0.0, so a row of -0.0 sums
 *     to -0.0), folded in lane order at the end -- the
 *     shape of XLA CPU's vectorised row reduction; reductions over outer
 *     dimensions accumulate each result element sequentially in index order.
 *   - Blocks: when one result element folds more than 16384 inputs, the
 *     outermost reduced dimension (run of adjacent reduced dimensions) whose
 *     inner part passes 16384 is cut into blocks of about 16384 inputs per
 *     result element; each block is folded as above, starting from the op's
 *     identity (-0.0 for add, -inf for max, ...), and the block results are
 *     combined with the accumulator in block order.  The blocks depend on the
 *     shape alone, never on the thread count, and run in parallel (so do full
 *     reductions and a few long rows).  Exact ops (integers, max/min, the
 *     bit ops) give the same result as without blocks; float sums and
 *     products round differently, and never worse: a serial fold of n values
 *     has the error bound (n-1)u*sum|x|, nb blocks of m have (m-1 + nb-1)u*
 *     sum|x| (for interleaved rows m/32 + 31 + nb - 1 against n/32 + 31),
 *     and m-1 + nb-1 <= m*nb - 1 always (products: unless a block's partial
 *     product over- or underflows where the serial one did not).  Complex
 *     types are never cut.
 *   - bf16/f16/f8 accumulate in f32 and round to the element type once at
 *     the end (XLA's CPU backend upcasts these reductions the same way).
 *   - Callbacks see a left-to-right pairwise tree: adjacent partial results
 *     are combined (v0 . v1) . (v2 . v3) ..., never reordered, so only
 *     associativity is assumed (not commutativity); the init value is
 *     combined last as f(init, total).  Empty reductions return init.
 */
#ifndef HLO_KERNELS_K_REDUCE_H
#define HLO_KERNELS_K_REDUCE_H

#include "kernels/k_types.h"

/* N operands of identical dims; inits[i] is a scalar of operands[i].etype;
 * dims: the dimensions to reduce (any order, no repeats).  outs[i] has the
 * operand dims with the reduced ones removed, type operands[i].etype. */
bool k_reduce(int nvals, const KArray *operands, const void *const *inits, int ndims,
              const int64_t *dims, const KReducer *r, KArray *outs, Error *err);

#endif
