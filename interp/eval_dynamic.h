/* Dynamic dimension sizes through the evaluator (docs/interpreter.md,
 * "Dynamic dimensions").
 *
 * An array value whose shape has bounded dynamic dimensions ("<=N") carries
 * the runtime size of each dimension in Value.dyn (interp/value.h).  Ops that
 * create sizes (set-dimension-size, custom-call SliceToDynamic) or read them
 * (get-dimension-size, PadToStatic) do so themselves; for every other op fed
 * a value with a size below its bound, run_one calls the hooks below, which
 * follow XLA's DynamicDimensionInference / DynamicPadder:
 *   - elementwise ops, convert, copy, map, identity custom calls: each
 *     result dimension takes its operands' size;
 *   - broadcast, transpose: sizes move with their dimensions;
 *   - reshape: a dimension group keeps a dynamic size when its valid data is
 *     a prefix of the group (only its major dimension is partial);
 *   - slice: a full slice keeps the size; a partial one works on the bounded
 *     data and its result dimension is static (XLA drops the size there);
 *   - reduce: padding is masked with the init value first, kept dimensions
 *     keep their sizes; dot: padding is masked with zero first (only
 *     contracting dimensions matter), batch and free dimensions keep their
 *     sizes;
 *   - concatenate: the other dimensions keep their sizes; along the
 *     concatenated dimension the valid parts are packed one after another;
 *   - sort, reverse, pad: sizes kept; along the dimensions the op works on
 *     (sort's, reverse's, padded ones) a size below the bound is an error;
 *   - pass-through ops (tuple, get-tuple-element, call, while, conditional,
 *     fusion, ...) hand the Values on unchanged;
 *   - anything else is an error naming the dimension and the op.
 * A result dimension its shape declares static always has the bound as
 * size. */
#ifndef HLO_INTERP_EVAL_DYNAMIC_H
#define HLO_INTERP_EVAL_DYNAMIC_H

#include "interp/eval_internal.h"

/* Operand values swapped for masked copies while one instruction runs. */
typedef struct DynSwap {
  int n;
  int idx[16];      /* instruction index in the frame */
  Value *saved[16]; /* the original value */
  unsigned char fill[16][16]; /* the element its padding got */
} DynSwap;

/* Whether `in` is an op whose operands' sizes run_one must look at (false
 * for pass-through ops and for those that handle sizes themselves); an
 * IR-level property, so plans compute it once per instruction. */
bool eval_dyn_may_apply(const Instr *in);
/* Whether some operand of `in` has a size below its bound (for an `in` that
 * eval_dyn_may_apply accepts; run_one's plan flags say so). */
bool eval_dyn_operands(const Frame *f, const Instr *in);
/* Before `in` runs with such operands: rejects ops that do not support them;
 * for reduce and dot puts masked copies of the operands in the frame. */
bool eval_dyn_before(EvalCtx *ctx, Frame *f, const Instr *in, DynSwap *sw, Error *err);
/* Puts the original operands back. */
void eval_dyn_restore(EvalCtx *ctx, Frame *f, DynSwap *sw);
/* After `in` ran: gives its result (*v, replaced when shared) the sizes the
 * op propagates. */
bool eval_dyn_after(EvalCtx *ctx, const Frame *f, const Instr *in, Value **v, Error *err);

/* set-dimension-size: *v (a fresh copy of operand 0) gets the operand's
 * sizes with dimension `dimensions={d}` set to operand 1 (0..bound). */
bool eval_set_dimension_size(EvalCtx *ctx, const Frame *f, const Instr *in, Value *v,
                             Error *err);

#endif
