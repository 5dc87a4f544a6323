/* reduce, reduce-window, select-and-scatter (operation semantics "Reduce",
 * "ReduceWindow", "SelectAndScatter").
 *
 * Reducers (k_types.h KReducer): either one known op per operand, run as
 * typed loops, or a KReduceFn callback applied to whole vectors.
 *
 * Summation order (floating point; XLA leaves it to the backend):
 *   - f32/f64 accumulate in their own type, no widening.  A reduction over
 *     the innermost (contiguous) dimension keeps 32 (f32) / 16 (f64) partial
 *     sums interleaved over the row, folded in lane order at the end -- the
 *     shape of XLA CPU's vectorised row reduction; reductions over outer
 *     dimensions accumulate each result element sequentially in index order.
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

/* Window description shared by reduce-window, select-and-scatter and
 * convolution.  Any pointer may be NULL for its default (stride 1, padding 0,
 * dilation 1, no reversal).  Padding may be negative. */
typedef struct KWindow {
  int rank;
  const int64_t *size;
  const int64_t *stride;
  const int64_t *pad_lo, *pad_hi;
  const int64_t *base_dilation;
  const int64_t *window_dilation;
  const bool *reversal; /* convolution only */
} KWindow;

/* Result size of one windowed dimension (0 when the window does not fit);
 * false on invalid parameters or overflow. */
bool k_window_out_size(int64_t in, int64_t size, int64_t stride, int64_t lo, int64_t hi,
                       int64_t base_dil, int64_t win_dil, int64_t *out, Error *err);

/* Variadic reduce-window.  Padding and base-dilation holes take no part in the
 * reduction (the accumulator starts at init, as XLA's evaluator). */
bool k_reduce_window(int nvals, const KArray *operands, const void *const *inits,
                     const KWindow *w, const KReducer *r, KArray *outs, Error *err);

/* select(a, b) == true keeps a (the earlier element in the window). */
typedef enum { K_SEL_NONE = 0, K_SEL_GE, K_SEL_GT, K_SEL_LE, K_SEL_LT } KSelectOp;
/* out[j] = select(a[j], b[j]) for n pairs (element type of the operand). */
typedef bool (*KSelectFn)(void *ctx, const void *a, const void *b, uint8_t *out, int64_t n,
                          Error *err);
typedef struct KSelect {
  KSelectOp op; /* known comparison, or K_SEL_NONE to use fn */
  KSelectFn fn;
  void *ctx;
} KSelect;

/* For every window position: pick an element of operand (row-major window
 * order, first candidate kept while select(kept, next) is true; padding never
 * selected), then out[picked] = scatter(out[picked], source[position]).  out
 * starts as init everywhere.  Windows have no dilation (XLA's op has none). */
bool k_select_and_scatter(const KArray *operand, const KSelect *sel, const KArray *source,
                          const void *init, const KWindow *w, const KReducer *scatter,
                          KArray *out, Error *err);

#endif
