/* Helpers shared by the StableHLO ops with their own semantics
 * (mlir_emit_nn.c: convolution, select_and_scatter, rng, fft, linear
 * algebra, batch norm, ...; mlir_emit_dyn.c: the dynamic ops with static
 * result types).  Attributes are read in either spelling: array<i64: ...>,
 * [..], dense<[..]> and splats dense<N> : tensor<KxT> (expanded to K). */
#ifndef HLO_PARSER_MLIR_NN_H
#define HLO_PARSER_MLIR_NN_H

#include "parser/mlir_internal.h"

/* The integers of attribute `key`, nested lists read flat, a one-value
 * dense splat repeated to `want` values (want < 0: any count).  Absent:
 * `want` copies of dflt when dflt_ok, else an error.  Returns the count;
 * a count other than `want` is an error naming the attribute. */
int nn_ints(MState *st, const MOp *op, const char *key, int64_t *out, int want, bool dflt_ok, int64_t dflt);
/* The same for booleans (true/false or 0/1; dense<false> splats). */
int nn_bools(MState *st, const MOp *op, const char *key, bool *out, int want);
/* An enum or word attribute's text ("FFT" from #stablehlo<fft_type FFT>),
 * or NULL when absent; an error when it is not a word. */
const char *nn_word(MState *st, const MOp *op, const char *key);
/* A boolean attribute (true/false), dflt when absent. */
bool nn_bool(MState *st, const MOp *op, const char *key, bool dflt);
/* An integer attribute, required. */
int64_t nn_int(MState *st, const MOp *op, const char *key);
/* "3x1", "0_1x0_0" from n values (pairs: 2n values). */
const char *nn_dims_text(MState *st, const int64_t *v, int n, bool pairs);
/* "{1,2}" from n values. */
const char *nn_list_text(MState *st, const int64_t *v, int n);
/* "[1, 2]" for messages. */
const char *nn_shape_text(MState *st, const int64_t *v, int n);
/* The result type of op, one tensor. */
MType *nn_result(MState *st, const MOp *op);
/* Checks the op has n operands (and one result unless results < 0). */
void nn_arity(MState *st, const MOp *op, int n, int results);
/* Convolution (and dynamic_conv with its padding given): writes the HLO
 * convolution; the padding comes from `pad` (2 per spatial dim) when not
 * NULL, else from the `padding` attribute. */
void nn_emit_conv(MState *st, MOp *op, const int64_t *pad);

/* The integers of value v when it is a constant of the computation being
 * written (a literal, or a splat: a broadcast scalar literal), at most cap
 * of them: the count, or -1 when v is not an integer constant. */
int nn_const_ints(MState *st, const MValue *v, int64_t *out, int cap);

/* The dynamic ops (mlir_emit_dyn.c): true when op was one of them. */
bool nn_emit_dynamic(MState *st, MOp *op, const char *shortname);

#endif
