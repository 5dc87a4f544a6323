/* The pretty forms (as stablehlo-opt and JAX print them) of the ops in
 * mlir_emit_nn.c and mlir_emit_dyn.c, read into the attributes of their
 * generic form so that one path converts both:
 *
 *   stablehlo.convolution(%a, %b) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
 *       window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1],
 *                 rhs_dilate = [1, 1], reverse = [false, false]} {feature_group_count = 1 : i64, ...}
 *   stablehlo.dynamic_conv(%a, %b, %pad) dim_numbers = ..., window = {...} {...}
 *   stablehlo.rng %a, %b, %shape, distribution = NORMAL
 *   stablehlo.rng_bit_generator %s, algorithm = PHILOX
 *   stablehlo.fft %x, type = FFT, length = [16]
 *   stablehlo.cholesky %a, lower = true
 *   stablehlo.reduce_precision %x, format = e5m2
 *   stablehlo.get_dimension_size %x, dim = 1
 *   stablehlo.dynamic_iota %shape, dim = 0
 *   stablehlo.dynamic_broadcast_in_dim %x, %shape, dims = [2, 1]
 *   stablehlo.composite "name" %a, %b {decomposition = @f, ...}
 *   stablehlo.dynamic_reshape / dynamic_pad / real_dynamic_slice / uniform_(de)quantize %a, ...
 *
 * The caller (mlir_ops.c) then reads the attribute dictionary and types.
 * select_and_scatter, triangular_solve, batch_norm_* and dynamic_gather
 * have no pretty form: printers write them generically. */
#include <stdio.h>
#include <string.h>

#include "parser/mlir_internal.h"

/* %a, %b, ... (none is fine); stops before ", word". */
static void operands(MState *st, MOp *op) {
  if (!mlir_peek(st, "%")) return;
  do mlir_op_operand(st, op);
  while (mlir_peek(st, ", %") ? mlir_accept(st, ",") : false);
}

static void put(MState *st, MOp *op, const char *key, MAttr *v) {
  if (op->nattrs == 64) mlir_fail(st, op->off, "more than 64 attributes");
  op->akeys[op->nattrs] = key;
  op->avals[op->nattrs++] = v;
}

/* ", word = <attribute>" stored under key; a bare integer is read without
 * a ": type" after it (that is the op's type). */
static void keyword(MState *st, MOp *op, const char *word, const char *key) {
  mlir_expect(st, ",");
  if (!mlir_accept_word(st, word)) mlir_fail(st, mlir_off(st), "expected '%s = ...' in %s", word, op->name);
  mlir_expect(st, "=");
  int64_t off = mlir_off(st), v;
  if (mlir_int(st, &v)) {
    MAttr *a = arena_alloc(st->arena, sizeof *a);
    if (!a) mlir_fail(st, -1, "out of memory");
    a->kind = MA_INT, a->offset = off, a->i = v;
    put(st, op, key, a);
    return;
  }
  put(st, op, key, mlir_attr(st));
}

/* "dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" kept as text
 * (mlir_emit_nn.c reads it, as it reads #stablehlo.conv<...>), then the
 * optional "window = {...}" under the generic attribute names. */
static void conv_pretty(MState *st, MOp *op) {
  static const char *const WIN[][2] = {{"stride", "window_strides"}, {"pad", "padding"},
                                       {"lhs_dilate", "lhs_dilation"}, {"rhs_dilate", "rhs_dilation"},
                                       {"reverse", "window_reversal"}};
  mlir_expect(st, "(");
  operands(st, op);
  mlir_expect(st, ")");
  if (!mlir_accept_word(st, "dim_numbers")) mlir_fail(st, mlir_off(st), "expected 'dim_numbers = [...]x[...]->[...]'");
  mlir_expect(st, "=");
  mlir_skip(st);
  MAttr *dn = arena_alloc(st->arena, sizeof *dn);
  if (!dn) mlir_fail(st, -1, "out of memory");
  dn->kind = MA_WORD;
  dn->offset = mlir_off(st);
  const char *start = st->p;
  mlir_skip_group(st);
  if (!mlir_accept(st, "x")) mlir_fail(st, mlir_off(st), "expected 'x' after the input dimensions");
  mlir_skip_group(st);
  mlir_expect(st, "->");
  mlir_skip_group(st);
  dn->s = mlir_strdup(st, start, (size_t)(st->p - start));
  put(st, op, "dimension_numbers", dn);
  if (!mlir_peek(st, ",")) return;
  mlir_expect(st, ",");
  if (!mlir_accept_word(st, "window")) mlir_fail(st, mlir_off(st), "expected 'window = {...}'");
  mlir_expect(st, "=");
  MAttr *w = mlir_attr(st);
  if (w->kind != MA_DICT) mlir_fail(st, w->offset, "expected 'window = {...}'");
  for (int i = 0; i < w->n; i++) {
    int k = 0;
    while (k < 5 && strcmp(w->keys[i], WIN[k][0]) != 0) k++;
    if (k == 5)
      mlir_fail(st, w->items[i]->offset, "unknown window field '%s' (stride, pad, lhs_dilate, rhs_dilate or reverse)",
                w->keys[i]);
    put(st, op, WIN[k][1], w->items[i]);
  }
}

/* reduce_precision's "format = e5m2". */
static void precision_format(MState *st, MOp *op) {
  mlir_expect(st, ",");
  if (!mlir_accept_word(st, "format")) mlir_fail(st, mlir_off(st), "expected 'format = eNmM'");
  mlir_expect(st, "=");
  int64_t off = mlir_off(st);
  const char *f = mlir_ident(st);
  int e, m, used = 0;
  if (!f || sscanf(f, "e%dm%d%n", &e, &m, &used) != 2 || f[used])
    mlir_fail(st, off, "expected a format eNmM (exponent and mantissa bits), e.g. e5m10");
  for (int i = 0; i < 2; i++) {
    MAttr *a = arena_alloc(st->arena, sizeof *a);
    if (!a) mlir_fail(st, -1, "out of memory");
    a->kind = MA_INT, a->offset = off, a->i = i ? m : e;
    put(st, op, i ? "mantissa_bits" : "exponent_bits", a);
  }
}

bool mlir_pretty_nn(MState *st, MOp *op, const char *sn) {
  if (strcmp(sn, "convolution") == 0 || strcmp(sn, "dynamic_conv") == 0) {
    conv_pretty(st, op);
  } else if (strcmp(sn, "rng") == 0) {
    operands(st, op);
    keyword(st, op, "distribution", "rng_distribution");
  } else if (strcmp(sn, "rng_bit_generator") == 0) {
    mlir_op_operand(st, op);
    keyword(st, op, "algorithm", "rng_algorithm");
  } else if (strcmp(sn, "fft") == 0) {
    mlir_op_operand(st, op);
    keyword(st, op, "type", "fft_type");
    keyword(st, op, "length", "fft_length");
  } else if (strcmp(sn, "cholesky") == 0) {
    mlir_op_operand(st, op);
    if (mlir_peek(st, ",")) keyword(st, op, "lower", "lower");
  } else if (strcmp(sn, "reduce_precision") == 0) {
    mlir_op_operand(st, op);
    precision_format(st, op);
  } else if (strcmp(sn, "get_dimension_size") == 0 || strcmp(sn, "dynamic_iota") == 0) {
    mlir_op_operand(st, op);
    keyword(st, op, "dim", sn[0] == 'g' ? "dimension" : "iota_dimension");
  } else if (strcmp(sn, "dynamic_broadcast_in_dim") == 0) {
    operands(st, op);
    keyword(st, op, "dims", "broadcast_dimensions");
  } else if (strcmp(sn, "composite") == 0) {
    int64_t off = mlir_off(st);
    MAttr *name = arena_alloc(st->arena, sizeof *name);
    if (!name) mlir_fail(st, -1, "out of memory");
    name->kind = MA_STR, name->offset = off;
    if (!(name->s = mlir_string(st))) mlir_fail(st, off, "expected the composite's name \"...\"");
    put(st, op, "name", name);
    operands(st, op);
  } else if (strcmp(sn, "dynamic_reshape") == 0 || strcmp(sn, "dynamic_pad") == 0 ||
             strcmp(sn, "real_dynamic_slice") == 0 || strcmp(sn, "uniform_quantize") == 0 ||
             strcmp(sn, "uniform_dequantize") == 0) {
    operands(st, op);
  } else {
    return false;
  }
  return true;
}
