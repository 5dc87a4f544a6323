/* Elementwise kernels over dense arrays in natural storage (layout/etype.h:
 * sub-byte types one per byte, sN sign-extended; pred 0/1; complex = re, im).
 * Every kernel takes contiguous typed buffers and an element count, knows
 * nothing of shapes or the IR, and returns false with an Error for an
 * op/type combination XLA rejects (e.g. `not` on floats).
 *
 * Semantics follow XLA's CPU backend / HloEvaluator:
 * - bf16, f16 and every f8/f6/f4 type compute in f32 and round the result
 *   back to the type (round to nearest even) after every op;
 * - integer add/sub/mul/negate/abs wrap; x/0 = -1 (signed) or all ones
 *   (unsigned); x%0 = x; INT_MIN/-1 = INT_MIN; INT_MIN%-1 = 0;
 * - shifts by >= the bit width (amount read as unsigned): shl/shr-logical 0,
 *   shr-arithmetic the sign fill;
 * - float maximum/minimum propagate NaN and order -0 < +0;
 * - integer power: x^n for n >= 0 by squaring (wrapping), n < 0 gives 1 when
 *   x == 1 else 0. */
#ifndef HLO_KERNELS_KERNELS_H
#define HLO_KERNELS_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "layout/etype.h"

/* KOP(ENUM, "hlo opcode").  The evaluator finds a kernel by its id: the
 * kernel column of parser/opcodes.def names KU(ENUM) / KB(ENUM) for each
 * elementwise op.  The spellings serve the kernels' own messages ("%s is
 * not defined for element type %s") and k_*_lookup (tests, tools). */
#define K_UNARY_OPS(KOP)                                                        \
  KOP(ABS, "abs") KOP(CEIL, "ceil") KOP(COS, "cosine") KOP(SIN, "sine")         \
  KOP(TAN, "tan") KOP(EXP, "exponential") KOP(EXPM1, "exponential-minus-one")   \
  KOP(FLOOR, "floor") KOP(IMAG, "imag") KOP(REAL, "real")                       \
  KOP(IS_FINITE, "is-finite") KOP(LOG, "log") KOP(LOG1P, "log-plus-one")        \
  KOP(NOT, "not") KOP(LOGISTIC, "logistic") KOP(POPCNT, "popcnt")               \
  KOP(CLZ, "count-leading-zeros") KOP(NEGATE, "negate") KOP(RSQRT, "rsqrt")     \
  KOP(SIGN, "sign") KOP(SQRT, "sqrt") KOP(CBRT, "cbrt") KOP(TANH, "tanh")       \
  KOP(ERF, "erf") KOP(ROUND_AFZ, "round-nearest-afz")                           \
  KOP(ROUND_EVEN, "round-nearest-even")

#define K_BINARY_OPS(KOP)                                                       \
  KOP(ADD, "add") KOP(SUB, "subtract") KOP(MUL, "multiply") KOP(DIV, "divide")  \
  KOP(REM, "remainder") KOP(MAX, "maximum") KOP(MIN, "minimum")                 \
  KOP(POW, "power") KOP(ATAN2, "atan2") KOP(AND, "and") KOP(OR, "or")           \
  KOP(XOR, "xor") KOP(SHL, "shift-left") KOP(SHR_ARITH, "shift-right-arithmetic") \
  KOP(SHR_LOGICAL, "shift-right-logical") KOP(COMPLEX, "complex")

typedef enum {
#define KOP(id, name) KU_##id,
  K_UNARY_OPS(KOP)
#undef KOP
  KU_COUNT
} KUnaryOp;

typedef enum {
#define KOP(id, name) KB_##id,
  K_BINARY_OPS(KOP)
#undef KOP
  KB_COUNT
} KBinaryOp;

typedef enum { KCMP_EQ, KCMP_NE, KCMP_LT, KCMP_LE, KCMP_GT, KCMP_GE } KCmpDir;
/* KCMP_DEFAULT picks FLOAT for floats/complex, SIGNED for sN, UNSIGNED for
 * uN and pred, as XLA does when `type=` is absent. */
typedef enum { KCMP_DEFAULT, KCMP_FLOAT, KCMP_TOTALORDER, KCMP_SIGNED, KCMP_UNSIGNED } KCmpType;

const char *k_unary_name(KUnaryOp op);   /* HLO opcode spelling */
const char *k_binary_name(KBinaryOp op);
bool k_unary_lookup(const char *name, KUnaryOp *op);   /* false if unknown */
bool k_binary_lookup(const char *name, KBinaryOp *op);
bool k_cmp_dir_lookup(const char *name, KCmpDir *dir);  /* "EQ", "LT", ... */
bool k_cmp_type_lookup(const char *name, KCmpType *ct); /* "FLOAT", "TOTALORDER", ... */

/* Element type of the result: is-finite -> pred; abs/real/imag of c64/c128
 * -> f32/f64; complex(f32, f32) -> c64; otherwise t.  ET_INVALID when the
 * op does not accept t. */
EType k_unary_result_type(KUnaryOp op, EType t);
EType k_binary_result_type(KBinaryOp op, EType t);

/* out has n elements of k_unary_result_type(op, t). */
bool k_unary(KUnaryOp op, EType t, void *restrict out, const void *restrict in, int64_t n, Error *err);
/* a, b: n elements of t each; out may not alias them. */
bool k_binary(KBinaryOp op, EType t, void *restrict out, const void *a, const void *b, int64_t n,
              Error *err);
/* k_binary with one operand a scalar *s (the first when s_first): the
 * same bits as k_binary with s repeated n times.  Only where
 * k_binary_scalar_takes(op, t): f32/f64 add, subtract, multiply, divide,
 * maximum, minimum. */
bool k_binary_scalar_takes(KBinaryOp op, EType t);
void k_binary_scalar(KBinaryOp op, EType t, void *restrict out, const void *a, const void *s,
                     bool s_first, int64_t n);
/* out: n pred bytes. */
bool k_compare(KCmpDir dir, KCmpType ct, EType t, uint8_t *restrict out, const void *a, const void *b,
               int64_t n, Error *err);

/* out[i] = pred[i] ? on_true[i] : on_false[i]; pred_scalar: pred[0] for all. */
bool k_select(EType t, void *restrict out, const uint8_t *pred, bool pred_scalar, const void *on_true,
              const void *on_false, int64_t n, Error *err);
/* out[i] = min(max(lo, x[i]), hi) with XLA's float max/min (NaN: lo, then x,
 * then hi wins); lo/hi read at
 * index 0 when the *_scalar flag is set. */
bool k_clamp(EType t, void *restrict out, const void *lo, bool lo_scalar, const void *x, const void *hi,
             bool hi_scalar, int64_t n, Error *err);

/* `convert`: etype_convert_array with validation (no tuples/tokens). */
bool k_convert(EType dst_t, void *restrict out, EType src_t, const void *in, int64_t n, Error *err);
/* `stochastic-convert` of float operand `in` with unsigned random bits `rnd`
 * of the same width to a signed integer type (XLA's decomposition). */
bool k_stochastic_convert(EType dst_t, void *restrict out, EType src_t, const void *in,
                          EType rnd_t, const void *rnd, int64_t n, Error *err);

/* `bitcast-convert`: reinterprets the bits of n_in elements of src_t
 * (each etype_bits wide, packed little-endian) as elements of dst_t.  With
 * different widths the minor dimension grows (narrower dst) or shrinks;
 * k_bitcast_convert_count gives the number of dst elements (-1 when the
 * widths do not divide). */
int64_t k_bitcast_convert_count(EType dst_t, EType src_t, int64_t n_in);
bool k_bitcast_convert(EType dst_t, void *restrict out, EType src_t, const void *in, int64_t n_in,
                       Error *err);

/* `reduce-precision` with XLA's bit algorithm (narrow types go through f32 as
 * HloEvaluator does): round mantissa to nearest even, exponent overflow to
 * inf, underflow (incl. subnormals) to signed zero, NaN kept (or inf when
 * mantissa_bits == 0). */
bool k_reduce_precision(EType t, void *restrict out, const void *in, int64_t n, int exponent_bits,
                        int mantissa_bits, Error *err);

#endif
