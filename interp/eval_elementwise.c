/* Elementwise ops: the evaluator's side of kernels/kernels.h.
 *
 * When every array operand has the result's layout (memory space aside) and
 * nothing is packed, the kernel runs straight over the physical buffers,
 * padding slots included (they are re-zeroed afterwards): no conversion at
 * all, whatever the tiling.  An operand in another layout but of the
 * result's element size is converted into the result's layout, and a
 * broadcast scalar is used as it is (its bytes are the same in any layout
 * without padding): torch-xla dumps multiply {0,1} arrays by {1,0}
 * broadcasts all the time.  Otherwise operands are read through dense
 * row-major views and the result is stored back into its layout. */
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "interp/eval_elementwise.h"
#include "interp/eval_internal.h"
#include "interp/eval_views.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"
#include "parser/infer.h"


static bool same_arrangement(const ArrayInfo *a, const ArrayInfo *b) {
  if (a->rank != b->rank || a->packed || b->packed) return false;
  for (int k = 0; k < a->rank; k++)
    if (a->dims[k] != b->dims[k]) return false;
  if (a->identity && b->identity) return true;
  Layout x = a->shape->layout, y = b->shape->layout;
  x.memory_space = y.memory_space = 0;
  x.element_size_bits = y.element_size_bits = 0; /* not packed: natural width */
  return layout_equal(&x, &y);
}

/* Operand k is a scalar broadcast (the same element everywhere) and
 * neither it nor the result has padding slots. */
static bool splat_operand(const Instr *in, int k, const ArrayInfo *a, const ArrayInfo *r) {
  const Instr *o = in->operands[k];
  return o->op == OP_BROADCAST && o->noperands == 1 && o->operands[0]->shape.rank == 0 && !a->packed &&
         a->plan.slots == a->elements && r->plan.slots == r->elements && a->elements == r->elements;
}

/* Opcode -> elementwise kernel: the kernel column of parser/opcodes.def
 * (KU_* / KB_* ids of kernels/kernels.h, or an EwKind with its own kernel
 * entry point). */
typedef struct EwOp {
  EwKind kind;
  short id; /* KUnaryOp or KBinaryOp */
} EwOp;

static const EwOp ew_op_of[OP_COUNT] = {
    [OP_INVALID] = {EW_NONE, 0},
#define KU(id) {EW_UNARY, KU_##id}
#define KB(id) {EW_BINARY, KB_##id}
#define KE(kind) {EW_##kind, 0}
#define K_NONE {EW_NONE, 0}
#define OPCODE(id, text, lo, hi, cls, infer, eval, kernel, ...) [OP_##id] = kernel,
#include "parser/opcodes.def"
#undef OPCODE
#undef K_NONE
#undef KE
#undef KB
#undef KU
};

/* Whether op is a plain unary or binary elementwise op, and which. */
bool ew_lookup(Opcode op, EwKind *kind, KUnaryOp *u, KBinaryOp *b) {
  EwOp e = ew_op_of[op];
  *kind = e.kind;
  if (e.kind == EW_UNARY) *u = (KUnaryOp)e.id;
  else if (e.kind == EW_BINARY) *b = (KBinaryOp)e.id;
  else return false;
  return true;
}

bool ew_parse_cmp(const Instr *in, KCmpDir *dir, KCmpType *ct, Error *err) {
  const Attr *d = ir_attr(in, ATTR_DIRECTION);
  if (!d || d->kind != AV_ENUM || !k_cmp_dir_lookup(d->v.s, dir))
    return error_set(err, ERR_RUNTIME, in->offset, "compare needs a direction");
  *ct = KCMP_DEFAULT;
  const Attr *t = ir_attr(in, ATTR_TYPE);
  if (t && (t->kind != AV_ENUM || !k_cmp_type_lookup(t->v.s, ct)))
    return error_set(err, ERR_RUNTIME, in->offset, "unknown comparison type");
  return true;
}


bool ew_kernel(const EwCall *c, void *dst, const void *const *src, int64_t n, Error *err) {
  const Instr *in = c->in;
  EType t0 = c->t0;
  switch (c->kind) {
  case EW_UNARY: return k_unary(c->uop, t0, dst, src[0], n, err);
  case EW_BINARY: return k_binary(c->bop, t0, dst, src[0], src[1], n, err);
  case EW_COMPARE: return k_compare(c->dir, c->ct, t0, dst, src[0], src[1], n, err);
  case EW_SELECT: return k_select(c->rt, dst, src[0], c->scalar[0], src[1], src[2], n, err);
  case EW_CLAMP: return k_clamp(c->rt, dst, src[0], c->scalar[0], src[1], src[2], c->scalar[2], n, err);
  case EW_CONVERT: return k_convert(c->rt, dst, t0, src[0], n, err);
  case EW_BITCAST_CONVERT: return k_bitcast_convert(c->rt, dst, t0, src[0], n, err);
  case EW_REDUCE_PRECISION: {
    const Attr *e = ir_attr(in, ATTR_EXPONENT_BITS), *m = ir_attr(in, ATTR_MANTISSA_BITS);
    EVAL_ASSERT(e && m && e->kind == AV_INT && m->kind == AV_INT); /* required attributes */
    return k_reduce_precision(t0, dst, src[0], n, (int)e->v.i, (int)m->v.i, err);
  }
  case EW_NONE: case EW_BROADCAST: case EW_SKIP: return true; /* only in fused groups */
  }
  return true;
}

/* The kernel writing into the buffer of operand `donor` (dst == its data):
 * block by block through a scratch block, so that no kernel sees its output
 * alias an input (they take restrict pointers); each block of every operand
 * is read before the same block of the donor is overwritten. */
static bool ew_kernel_donated(const EwCall *c, int nops, const int *esize, void *dst, int rsize,
                              const void *const *src, int64_t n, Error *err) {
  enum { SCRATCH = 32768 };
  _Alignas(64) unsigned char scratch[SCRATCH];
  int64_t block = SCRATCH / rsize;
  for (int64_t at = 0; at < n; at += block) {
    int64_t m = n - at < block ? n - at : block;
    const void *s[3] = {0};
    for (int k = 0; k < nops; k++)
      s[k] = c->scalar[k] ? src[k] : (const unsigned char *)src[k] + at * esize[k];
    if (!ew_kernel(c, scratch, s, m, err)) return false;
    memcpy((unsigned char *)dst + at * rsize, scratch, (size_t)(m * rsize));
  }
  return true;
}

/* One elementwise call split into chunks over the pool: chunk boundaries
 * depend on the element count and sizes only, and every element is computed
 * alone, so the bytes are the same for every thread count. */
typedef struct EwSplit {
  const EwCall *c;
  int nops;
  int esize[3];
  void *dst;
  int rsize;
  const void *src[3];
  int64_t n;
  bool donated; /* dst is an operand's buffer (ew_kernel_donated) */
  int64_t per;  /* elements per chunk */
} EwSplit;

static bool ew_split_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  (void)worker;
  const EwSplit *sp = ctx;
  int64_t lo = chunk * sp->per, m = sp->n - lo < sp->per ? sp->n - lo : sp->per;
  const void *s[3] = {0};
  for (int k = 0; k < sp->nops; k++)
    s[k] = sp->c->scalar[k] ? sp->src[k] : (const unsigned char *)sp->src[k] + lo * sp->esize[k];
  void *d = (unsigned char *)sp->dst + lo * sp->rsize;
  if (sp->donated) return ew_kernel_donated(sp->c, sp->nops, sp->esize, d, sp->rsize, s, m, err);
  return ew_kernel(sp->c, d, s, m, err);
}

static bool ew_split(EwSplit *sp, Error *err) {
  int64_t bytes = sp->n * sp->rsize;
  for (int k = 0; k < sp->nops; k++)
    if (!sp->c->scalar[k]) bytes += sp->n * sp->esize[k];
  int64_t chunks = pool_chunks(bytes, (sp->n + 255) / 256);
  sp->per = (sp->n + chunks - 1) / chunks;
  sp->per = (sp->per + 63) / 64 * 64; /* whole cache lines for every type */
  chunks = (sp->n + sp->per - 1) / sp->per;
  return pool_for_err(chunks, ew_split_chunk, sp, err);
}

/* Op: add, subtract, multiply, divide, remainder, power, maximum, minimum,
 *   atan2, complex
 * Operands: two arrays of the same shape
 * Attributes: none
 *
 * The arithmetic of each pair of elements. Integers wrap; x/0 is -1 (signed)
 * or all ones (unsigned), x%0 is x; float maximum/minimum propagate NaN and
 * order -0 < +0; complex makes a c64/c128 from real and imaginary parts.
 *
 * Rule: XLA operation semantics, element-wise binary arithmetic; narrow floats
 *   compute in f32 and round back (kernels/kernels.h).
 * Refuses: an element type the op does not take (e.g. atan2 on integers).
 */
/* Op: and, or, xor, not, shift-left, shift-right-arithmetic,
 *   shift-right-logical, popcnt, count-leading-zeros
 * Operands: one or two arrays of the same shape (pred or integers)
 * Attributes: none
 *
 * Bitwise logic (logical on pred) and shifts of each element; a shift by the
 * bit width or more gives 0, or the sign fill for shift-right-arithmetic.
 *
 * Rule: XLA operation semantics, element-wise binary and unary bit operations.
 * Refuses: float or complex operands.
 */
/* Op: abs, negate, sign, ceil, floor, round-nearest-afz, round-nearest-even,
 *   is-finite, real, imag
 * Operands: one array
 * Attributes: none
 *
 * Per element: magnitude (abs of complex is its modulus), negation, sign (-1,
 * 0, +1, NaN kept), rounding up, down, half away from zero or half to even;
 * is-finite gives pred; real and imag take the parts of a complex (of a real:
 * itself and 0).
 *
 * Rule: XLA operation semantics, element-wise unary functions.
 * Refuses: an element type the op does not take (e.g. ceil on integers).
 */
/* Op: exponential, exponential-minus-one, log, log-plus-one, logistic, sine,
 *   cosine, tan, tanh, sqrt, rsqrt, cbrt, erf
 * Operands: one array (float or complex)
 * Attributes: optionally result_accuracy
 *
 * The function of each element, to within a few ulps of the correctly rounded
 * result; narrow floats compute in f32 and round back.
 *
 * Rule: XLA operation semantics, element-wise unary functions (HloEvaluator
 *   results).
 * Refuses: integer operands.
 */
/* Op: compare
 * Operands: two arrays of the same shape
 * Attributes: direction; optionally type (FLOAT, TOTALORDER, SIGNED, UNSIGNED)
 *
 * A pred array: direction (EQ, NE, LT, LE, GT, GE) of each pair; the default
 * type follows the element type; TOTALORDER orders -NaN < -inf < ... < -0 < +0
 * < ... < inf < NaN.
 *
 * Rule: XLA operation semantics, element-wise comparison.
 * Refuses: nothing the verifier accepts.
 */
/* Op: select
 * Operands: a pred array (or scalar), two arrays of the same shape (or tuples
 *   with a scalar pred)
 * Attributes: none
 *
 * on_true where the predicate holds, on_false elsewhere, element by element;
 * with a scalar predicate the whole operand is picked.
 *
 * Rule: XLA operation semantics, Select.
 * Refuses: nothing the verifier accepts.
 */
/* Op: clamp
 * Operands: min, operand, max (min and max may be scalars)
 * Attributes: none
 *
 * Each element limited to [min, max]: min(max(operand, min), max) with XLA's
 * NaN-propagating maximum and minimum.
 *
 * Rule: XLA operation semantics, Clamp.
 * Refuses: nothing the verifier accepts.
 */
/* Op: convert
 * Operands: an array
 * Attributes: none
 *
 * Each element converted to the result type: floats round to nearest even, to
 * integers they truncate toward zero and saturate (NaN gives 0); to pred,
 * nonzero is true.
 *
 * Rule: XLA operation semantics, ConvertElementType.
 * Refuses: conversions from or to complex the kernel does not define.
 */
/* Op: bitcast-convert
 * Operands: an array
 * Attributes: none
 *
 * The bits of each element reinterpreted as the result type; a narrower result
 * type adds a minor dimension, a wider one removes it.
 *
 * Rule: XLA operation semantics, BitcastConvertType.
 * Refuses: nothing the verifier accepts.
 */
/* Op: reduce-precision
 * Operands: a float array
 * Attributes: exponent_bits, mantissa_bits
 *
 * Each element rounded as if stored with that many exponent and mantissa bits
 * (to nearest even; overflow to inf, underflow to signed zero, NaN kept), in
 * its own type.
 *
 * Rule: XLA operation semantics, ReducePrecision (the bit algorithm of
 *   HloEvaluator).
 * Refuses: nothing the verifier accepts.
 */
bool eval_elementwise(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                      Error *err) {
  EwKind kind;
  KUnaryOp uop = 0;
  KBinaryOp bop = 0;
  ew_lookup(in->op, &kind, &uop, &bop);
  if (kind == EW_NONE) return eval_unsupported(in, err); /* a row naming the wrong evaluator */
  int nops = in->noperands;
  if (nops > 3)
    return error_set(err, ERR_RUNTIME, in->offset, "too many operands");
  Value *ops[3] = {0};
  for (int k = 0; k < nops; k++) {
    ops[k] = frame_operand(f, in, k);
    if (!ops[k]->info || !ops[k]->buf) {
      if (kind == EW_SELECT && k > 0 && ops[k]->ntuple) {
        /* select between tuples with a scalar predicate */
        continue;
      }
      return error_set(err, ERR_RUNTIME, in->offset, "operand %d is not an array", k);
    }
  }
  if (kind == EW_SELECT && (ops[1]->ntuple || ops[2]->ntuple || !shape_is_array(rs))) {
    const void *pd;
    DenseTmp tmp;
    if (!ops[0]->info || !value_dense_read(&ctx->vc, ops[0], &pd, &tmp, err)) return false;
    bool p = *(const uint8_t *)pd != 0;
    value_tmp_free(&tmp);
    return value_coerce(&ctx->vc, p ? ops[1] : ops[2], rs, "", out, err);
  }
  const ArrayInfo *ri = value_array_info(&ctx->vc, rs, err);
  if (!ri) return false;
  /* Which operands are broadcast scalars (clamp bounds, select predicate). */
  bool scalar[3] = {false, false, false};
  for (int k = 0; k < nops; k++)
    scalar[k] = ops[k]->info->rank == 0 && ri->rank > 0 &&
                ((kind == EW_CLAMP && k != 1) || (kind == EW_SELECT && k == 0));
  bool physical = kind != EW_BITCAST_CONVERT && !ri->packed, rearrange[3] = {false, false, false};
  for (int k = 0; k < nops && physical; k++) {
    const ArrayInfo *a = ops[k]->info;
    if (scalar[k] || same_arrangement(a, ri) || splat_operand(in, k, a, ri)) continue;
    if (!a->packed && a->esize == ri->esize && a->rank == ri->rank) rearrange[k] = true;
    else physical = false;
  }
  if (kind == EW_BITCAST_CONVERT && ri->identity && ops[0]->info->identity) physical = true;
  /* The result takes the buffer of an operand that dies here when nothing
   * else holds it and it has the result's arrangement and size: no fresh
   * pages for it (as XLA's buffer assignment shares such buffers). */
  int donor = -1;
  for (int k = 0; k < nops && physical && kind != EW_BITCAST_CONVERT && donor < 0; k++) {
    const ArrayInfo *a = ops[k]->info;
    if (!scalar[k] && !rearrange[k] && same_arrangement(a, ri) && a->esize == ri->esize &&
        a->space == ri->space && a->phys_bytes == ri->phys_bytes && !ops[k]->dyn &&
        eval_can_donate(f, in, k))
      donor = k;
  }
  Value *v;
  if (donor >= 0) {
    if (!(v = value_wrap_buffer(rs, ri, ops[donor]->buf))) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  } else if (!value_new_array(&ctx->vc, rs, false, "", &v, err)) {
    return false;
  }
  const void *src[3] = {0};
  DenseTmp tmps[3] = {{NULL}, {NULL}, {NULL}};
  void *dst;
  DenseTmp dtmp = {NULL};
  int64_t n;
  bool ok = true;
  if (physical) {
    for (int k = 0; k < nops && ok; k++)
      if (rearrange[k]) ok = value_read_as(&ctx->vc, ops[k], ri, &src[k], &tmps[k], err);
      else src[k] = ops[k]->buf->data;
    dst = v->buf->data;
    n = kind == EW_BITCAST_CONVERT ? ops[0]->info->elements : ri->plan.slots;
  } else {
    for (int k = 0; k < nops && ok; k++)
      ok = value_dense_read(&ctx->vc, ops[k], &src[k], &tmps[k], err);
    if (ok) ok = value_dense_target(&ctx->vc, v, &dst, &dtmp, err);
    n = kind == EW_BITCAST_CONVERT ? ops[0]->info->elements : ri->elements;
  }
  for (int k = 0; k < nops && ok; k++) {
    if (scalar[k] || kind == EW_BITCAST_CONVERT) continue;
    if (ops[k]->info->elements != ri->elements)
      ok = error_set(err, ERR_RUNTIME, in->offset,
                     "operand %d has %lld elements, the result %lld", k,
                     (long long)ops[k]->info->elements, (long long)ri->elements);
  }
  if (ok && n > 0) {
    EwCall c = {in, kind, uop, bop, 0, 0, ops[0]->info->etype, ri->etype, scalar};
    if (kind == EW_COMPARE) ok = ew_parse_cmp(in, &c.dir, &c.ct, err);
    if (kind == EW_BITCAST_CONVERT && k_bitcast_convert_count(c.rt, c.t0, n) != ri->elements)
      ok = error_set(err, ERR_RUNTIME, in->offset,
                     "bitcast-convert from %s to %s does not fit the result shape",
                     etype_name(c.t0), etype_name(c.rt));
    if (ok && kind == EW_BITCAST_CONVERT) {
      ok = ew_kernel(&c, dst, src, n, err); /* counts differ in and out: one call */
    } else if (ok) {
      EwSplit sp = {&c, nops, {0, 0, 0}, dst, ri->esize, {src[0], src[1], src[2]}, n, donor >= 0, 0};
      for (int k = 0; k < nops; k++) sp.esize[k] = ops[k]->info->esize;
      ok = ew_split(&sp, err);
    }
  }
  for (int k = 0; k < nops; k++) value_tmp_free(&tmps[k]);
  if (ok) {
    if (physical) ok = value_zero_padding(&ctx->vc, v, err);
    else ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
  } else {
    value_tmp_free(&dtmp);
  }
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}
