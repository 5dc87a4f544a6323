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
#include "interp/eval_internal.h"
#include "interp/eval_views.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"
#include "parser/infer.h"

typedef enum { EW_NONE, EW_UNARY, EW_BINARY, EW_COMPARE, EW_SELECT, EW_CLAMP, EW_CONVERT,
               EW_BITCAST_CONVERT, EW_REDUCE_PRECISION, EW_BROADCAST,
               EW_SKIP /* a constant inside a group's span */ } EwKind;

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
static bool ew_lookup(Opcode op, EwKind *kind, KUnaryOp *u, KBinaryOp *b) {
  EwOp e = ew_op_of[op];
  *kind = e.kind;
  if (e.kind == EW_UNARY) *u = (KUnaryOp)e.id;
  else if (e.kind == EW_BINARY) *b = (KBinaryOp)e.id;
  else return false;
  return true;
}

static bool parse_cmp(const Instr *in, KCmpDir *dir, KCmpType *ct, Error *err) {
  const Attr *d = ir_attr(in, ATTR_DIRECTION);
  if (!d || d->kind != AV_ENUM || !k_cmp_dir_lookup(d->v.s, dir))
    return error_set(err, ERR_RUNTIME, in->offset, "compare needs a direction");
  *ct = KCMP_DEFAULT;
  const Attr *t = ir_attr(in, ATTR_TYPE);
  if (t && (t->kind != AV_ENUM || !k_cmp_type_lookup(t->v.s, ct)))
    return error_set(err, ERR_RUNTIME, in->offset, "unknown comparison type");
  return true;
}

/* One elementwise kernel call, over n slots (a whole array or a block). */
typedef struct EwCall {
  const Instr *in;
  EwKind kind;
  KUnaryOp uop;
  KBinaryOp bop;
  KCmpDir dir;
  KCmpType ct;
  EType t0, rt;
  const bool *scalar;
} EwCall;

static bool ew_kernel(const EwCall *c, void *dst, const void *const *src, int64_t n, Error *err) {
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
    if (kind == EW_COMPARE) ok = parse_cmp(in, &c.dir, &c.ct, err);
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

/* --- fused elementwise groups --- */

enum { EW_BLOCK = 2048, EW_MAX_RANK = 32 };

typedef struct Member {
  EwKind kind;
  KUnaryOp uop;
  KBinaryOp bop;
  KCmpDir dir;
  KCmpType ct;
  EType t0, rt;   /* first operand's and the result's element types */
  int esize;      /* result element bytes */
  int nops;
  int src[3];     /* operand: member index (>= 0) or -1 - external slot */
  const unsigned char *ext[3];
  int ext_esize[3];
  unsigned char *scratch; /* this block, when not materialised */
  unsigned char *out;     /* the materialised value's data, or NULL */
  unsigned char *donated; /* materialised in a donor's buffer: computed in
                           * scratch, then copied there block by block */
  const Instr *bin;       /* a re-derived broadcast: its instruction */
  bool splat;             /* a broadcast of one element: scratch filled once */
  bool own;               /* scratch allocated for this member alone */
  int wslot;              /* 1 + its block's index in a worker's scratch set
                           * (0: none, or read-only and shared) */
  /* EW_BROADCAST: the operand (dense row-major) read through a view with
   * stride 0 along the broadcast dimensions; never materialised. */
  int brank;
  const int64_t *bdims;     /* result dims */
  int64_t bstride[EW_MAX_RANK]; /* operand elements per step of each result dim */
  const unsigned char *bsrc;
  DenseTmp btmp;
} Member;

/* Broadcasts join a group only with the default layout (dense row-major, no
 * tiles or padding), so that the group's slot i is row-major element i. */
static bool default_layout(const Shape *s) {
  const Layout *l = &s->layout;
  if (l->rank != s->rank || l->ntiles || l->tail_padding_alignment > 1 || l->element_size_bits ||
      l->nsplits || l->physical_shape || l->dynamic_metadata_bytes)
    return false;
  for (int k = 0; k < s->rank; k++)
    if (l->minor_to_major[k] != s->rank - 1 - k) return false;
  return true;
}

static bool broadcast_fusable(const Instr *in) {
  if (in->noperands != 1 || !shape_is_array(&in->shape) || in->shape.rank == 0 ||
      in->shape.rank > EW_MAX_RANK || !default_layout(&in->shape) || in->shape.dynamic)
    return false;
  const Shape *o = &in->operands[0]->shape;
  if (!shape_is_array(o) || o->layout.element_size_bits || o->rank > in->shape.rank ||
      o->etype != in->shape.etype)
    return false;
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (o->rank > 0 && (!dims || dims->n != o->rank)) return false;
  for (int k = 0; k < o->rank; k++)
    if (dims->v[k] < 0 || dims->v[k] >= in->shape.rank ||
        (o->dims[k] != 1 && o->dims[k] != in->shape.dims[dims->v[k]]))
      return false;
  return true;
}

/* Fills dst[0..cnt) with elements lo.. of the broadcast (row-major order). */
static void broadcast_fill(const Member *m, unsigned char *dst, int64_t lo, int64_t cnt) {
  int r = m->brank, es = m->esize;
  int64_t idx[EW_MAX_RANK], rem = lo, off = 0;
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = rem % m->bdims[d];
    rem /= m->bdims[d];
    off += idx[d] * m->bstride[d];
  }
  int64_t inner = m->bdims[r - 1], ist = m->bstride[r - 1];
  for (int64_t done = 0; done < cnt;) {
    int64_t run = inner - idx[r - 1];
    if (run > cnt - done) run = cnt - done;
    const unsigned char *s = m->bsrc + off * es;
    unsigned char *o = dst + done * es;
    if (ist == 0) {
      switch (es) {
      case 1: memset(o, *s, (size_t)run); break;
      case 2: { uint16_t v; memcpy(&v, s, 2); for (int64_t i = 0; i < run; i++) memcpy(o + 2 * i, &v, 2); break; }
      case 4: { uint32_t v; memcpy(&v, s, 4); for (int64_t i = 0; i < run; i++) memcpy(o + 4 * i, &v, 4); break; }
      case 8: { uint64_t v; memcpy(&v, s, 8); for (int64_t i = 0; i < run; i++) memcpy(o + 8 * i, &v, 8); break; }
      default: for (int64_t i = 0; i < run; i++) memcpy(o + i * es, s, (size_t)es);
      }
    } else if (ist == 1) {
      memcpy(o, s, (size_t)(run * es));
    } else {
      for (int64_t i = 0; i < run; i++) memcpy(o + i * es, s + i * ist * es, (size_t)es);
    }
    done += run;
    idx[r - 1] += run;
    off += run * ist;
    for (int d = r - 1; d > 0 && idx[d] == m->bdims[d]; d--) { /* carry */
      off -= idx[d] * m->bstride[d];
      idx[d] = 0;
      idx[d - 1]++;
      off += m->bstride[d - 1];
    }
  }
}

bool eval_fusable(const Instr *in) {
  KUnaryOp u;
  KBinaryOp b;
  EwKind kind;
  if (in->op == OP_BROADCAST) return broadcast_fusable(in);
  ew_lookup(in->op, &kind, &u, &b);
  switch (kind) {
  case EW_UNARY: case EW_BINARY: case EW_COMPARE: case EW_CONVERT: case EW_SELECT: case EW_CLAMP:
    break;
  case EW_BITCAST_CONVERT:
    if (in->noperands != 1 || !shape_is_array(&in->operands[0]->shape) ||
        etype_storage_bytes(in->operands[0]->shape.etype) != etype_storage_bytes(in->shape.etype))
      return false;
    break;
  default: return false; /* reduce-precision, copy, ... */
  }
  if (!shape_is_array(&in->shape) || in->shape.rank == 0 || in->noperands > 3 ||
      in->shape.layout.element_size_bits || eval_mixed_precision(in))
    return false;
  for (int k = 0; k < in->noperands; k++) {
    const Shape *o = &in->operands[k]->shape;
    if (!shape_is_array(o) || o->rank != in->shape.rank || o->layout.element_size_bits)
      return false;
    for (int d = 0; d < o->rank; d++)
      if (o->dims[d] != in->shape.dims[d]) return false;
    Layout x = o->layout, y = in->shape.layout;
    x.memory_space = y.memory_space = 0;
    if (!layout_equal(&x, &y)) return false;
  }
  return true;
}

static bool member_apply(const Member *m, void *dst, const void *const *s, int64_t n, Error *err) {
  static const bool no_scalars[3] = {false, false, false};
  if (m->kind == EW_BROADCAST || m->kind == EW_SKIP || m->kind == EW_REDUCE_PRECISION)
    return error_set(err, ERR_RUNTIME, -1, "internal: op not fusable");
  EwCall c = {NULL, m->kind, m->uop, m->bop, m->dir, m->ct, m->t0, m->rt, no_scalars};
  return ew_kernel(&c, dst, s, n, err);
}

static bool member_broadcast(EvalCtx *ctx, Frame *f, const Instr *in, Member *m, Error *err) {
  m->kind = EW_BROADCAST;
  const Value *ov = f->vals[in->operands[0]->index];
  if (!ov || !ov->info || !ov->buf || ov->info->packed)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "internal: broadcast %s cannot be read as a view", in->name);
  const void *d;
  if (!value_dense_read(&ctx->vc, ov, &d, &m->btmp, err)) return false;
  m->bsrc = d;
  m->brank = in->shape.rank;
  m->bdims = in->shape.dims;
  for (int k = 0; k < m->brank; k++) m->bstride[k] = 0;
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  int64_t st = 1;
  for (int k = ov->info->rank - 1; k >= 0; k--) {
    if (ov->info->dims[k] != 1) m->bstride[dims->v[k]] = st;
    st *= ov->info->dims[k];
  }
  m->splat = ov->info->elements == 1;
  return true;
}

bool eval_group_member(const Instr *in) { return in->op != OP_CONSTANT; }

/* Whether x is read through a broadcast in the group (first..last): such
 * reads do not follow the group's block order. */
static bool read_by_broadcast(const Computation *c, int first, int last, const Instr *x) {
  for (int j = first; j <= last; j++) {
    const Instr *in = c->instrs[j];
    if (in->op == OP_BROADCAST && in->operands[0] == x) return true;
    for (int o = 0; o < in->noperands; o++)
      if (in->operands[o]->op == OP_BROADCAST && in->operands[o]->operands[0] == x) return true;
  }
  return false;
}

/* A value whose buffer kept member k (instruction first + k, info ai) can
 * take over instead of a fresh one, as XLA's buffer assignment shares the
 * buffer of an operand that dies at an elementwise op: an operand of
 * members 0..k from before the group, used by nothing after member k,
 * held by nothing but this frame, with the member's element size, layout
 * and memory space, read only elementwise.  Block lo of the donor is
 * overwritten only after every member reading it has read block lo, and
 * blocks go in order, so the group sees the donor's data intact.  Returns
 * the donor's index, or -1. */
static int donor(const CompPlan *p, Frame *f, int first, int last, int k, const ArrayInfo *ai,
                 const bool *taken) {
  const Computation *c = p->comp;
  const Shape *rs = &c->instrs[first + k]->shape;
  for (int j = 0; j <= k; j++) {
    const Instr *in = c->instrs[first + j];
    if (!eval_group_member(in) || in->op == OP_BROADCAST) continue;
    for (int o = 0; o < in->noperands; o++) {
      const Instr *op = in->operands[o];
      if (op->parent != c || op->index >= first || taken[op->index] || op == c->root ||
          op->op == OP_PARAMETER || op->op == OP_CONSTANT || p->last_use[op->index] > first + k)
        continue;
      const Value *v = f->vals[op->index];
      if (!v || v->refs != 1 || !v->info || !v->buf || v->buf->refs != 1 || !v->buf->counted ||
          v->buf->borrowed || v->info->packed || ai->packed || v->info->esize != ai->esize ||
          v->info->space != ai->space || v->info->phys_bytes != ai->phys_bytes ||
          v->info->plan.slots != ai->plan.slots || !layout_equal(&v->shape->layout, &rs->layout) ||
          read_by_broadcast(c, first, last, op))
        continue;
      return op->index;
    }
  }
  return -1;
}

/* Scratch slots: a member's block lives in a slot from its computation to
 * its last use inside the group, then the slot is reused. */
static bool assign_slots(Member *ms, int nm, const int *last_in, unsigned char **slots,
                         int *nslots, int64_t block, Error *err) {
  int *free_list = malloc(sizeof(int) * (size_t)(nm + 1)), nfree = 0;
  int *slot_of = malloc(sizeof(int) * (size_t)(nm + 1));
  bool ok = free_list && slot_of;
  if (!ok) error_set(err, ERR_RUNTIME, -1, "out of memory");
  for (int k = 0; k < nm && ok; k++) {
    slot_of[k] = -1;
    if (ms[k].kind == EW_SKIP || ms[k].out) continue;
    if (ms[k].kind == EW_BROADCAST && ms[k].splat) { /* the same block every time */
      if (!(ms[k].scratch = malloc((size_t)block * (size_t)ms[k].esize))) {
        ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
        break;
      }
      ms[k].own = true;
      broadcast_fill(&ms[k], ms[k].scratch, 0, block);
      continue;
    }
    int sl = nfree ? free_list[--nfree] : (*nslots)++;
    if (!slots[sl] && !(slots[sl] = malloc((size_t)block * 16)))
      ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    slot_of[k] = sl;
    ms[k].scratch = slots[sl];
    ms[k].wslot = sl + 1;
    /* free the slots whose last in-group use is k (after k took its own) */
    for (int j = 0; j < k; j++)
      if (slot_of[j] >= 0 && last_in[j] == k) { free_list[nfree++] = slot_of[j]; slot_of[j] = -1; }
    if (last_in[k] <= k) { free_list[nfree++] = slot_of[k]; slot_of[k] = -1; }
  }
  free(free_list);
  free(slot_of);
  return ok;
}

/* Elements lo..lo+cnt of every member, member by member (one block). */
static bool group_block(Member *ms, int nm, int nv, int64_t lo, int64_t cnt, Error *err) {
  for (int k = nm; k < nv; k++)
    if (!ms[k].splat) broadcast_fill(&ms[k], ms[k].scratch, lo, cnt);
  for (int k = 0; k < nm; k++) {
    Member *m = &ms[k];
    if (m->kind == EW_SKIP) continue;
    void *d = m->out ? (void *)(m->out + lo * m->esize) : (void *)m->scratch;
    if (m->kind == EW_BROADCAST) {
      if (!m->own) broadcast_fill(m, d, lo, cnt);
      if (m->donated) memcpy(m->donated + lo * m->esize, d, (size_t)(cnt * m->esize));
      continue;
    }
    const void *s[3];
    for (int o = 0; o < m->nops; o++) {
      const Member *src = m->src[o] >= 0 ? &ms[m->src[o]] : NULL;
      s[o] = !src ? (const void *)(m->ext[o] + lo * m->ext_esize[o])
             : src->out ? (const void *)(src->out + lo * src->esize)
                        : (const void *)src->scratch;
    }
    if (!member_apply(m, d, s, cnt, err)) return false;
    if (m->donated) memcpy(m->donated + lo * m->esize, d, (size_t)(cnt * m->esize));
  }
  return true;
}

/* A fused group's blocks spread over the pool: blocks are independent (a
 * donor's block is read only by the same block), so any thread may run any
 * chunk of blocks.  Worker 0 uses the members as set up; every other worker
 * a copy of them with scratch blocks of its own (one allocation, made the
 * first time that worker runs a chunk). */
typedef struct GroupRun {
  Member *ms;
  int nm, nv;
  int64_t n, blocks_per_chunk;
  int nwslots;         /* scratch blocks a worker needs */
  int nworkers;
  unsigned char **workers; /* per worker >= 1: nv members, then the blocks */
} GroupRun;

static Member *group_worker(GroupRun *g, int w, Error *err) {
  if (w == 0) return g->ms;
  if (!g->workers[w]) {
    size_t head = (sizeof(Member) * (size_t)g->nv + 63) / 64 * 64;
    unsigned char *p = aligned_alloc(64, head + (size_t)g->nwslots * EW_BLOCK * 16);
    if (!p) return error_set(err, ERR_RUNTIME, -1, "out of memory"), NULL;
    Member *wm = (Member *)(void *)p;
    memcpy(wm, g->ms, sizeof(Member) * (size_t)g->nv);
    for (int k = 0; k < g->nv; k++)
      if (wm[k].wslot) wm[k].scratch = p + head + (size_t)(wm[k].wslot - 1) * EW_BLOCK * 16;
    g->workers[w] = p;
  }
  return (Member *)(void *)g->workers[w];
}

static bool group_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  GroupRun *g = ctx;
  Member *ms = group_worker(g, worker, err);
  if (!ms) return false;
  int64_t lo = chunk * g->blocks_per_chunk * EW_BLOCK;
  int64_t hi = lo + g->blocks_per_chunk * EW_BLOCK;
  if (hi > g->n) hi = g->n;
  for (; lo < hi; lo += EW_BLOCK)
    if (!group_block(ms, g->nm, g->nv, lo, hi - lo < EW_BLOCK ? hi - lo : EW_BLOCK, err))
      return false;
  return true;
}

bool eval_elementwise_group(EvalCtx *ctx, Frame *f, int first, int last, Error *err) {
  const Computation *c = f->plan->comp;
  int nm = last - first + 1, nv = nm; /* members, then re-derived broadcasts */
  Member *ms = calloc((size_t)nm * 4, sizeof *ms);
  int *last_in = calloc((size_t)nm, sizeof *last_in);
  unsigned char **slots = calloc((size_t)nm, sizeof *slots);
  bool *taken = calloc((size_t)(first > 0 ? first : 1), sizeof *taken); /* donors used */
  int nslots = 0;
  bool ok = ms && last_in && slots && taken;
  if (!ok) error_set(err, ERR_RUNTIME, -1, "out of memory");
  int64_t n = 0;
  for (int k = 0; k < nm && ok; k++) {
    const Instr *in = c->instrs[first + k];
    Member *m = &ms[k];
    last_in[k] = -1;
    if (!eval_group_member(in)) { m->kind = EW_SKIP; continue; }
    m->nops = in->noperands;
    m->t0 = in->operands[0]->shape.etype;
    m->rt = in->shape.etype;
    m->esize = etype_storage_bytes(m->rt);
    if (f->plan->keep[first + k]) { /* needed after the group */
      const ArrayInfo *ai = value_array_info(&ctx->vc, &in->shape, err);
      if (!(ok = ai != NULL)) break;
      int d = donor(f->plan, f, first, last, k, ai, taken);
      if (d >= 0) {
        f->vals[first + k] = value_wrap_buffer(&in->shape, ai, f->vals[d]->buf);
        if (!(ok = f->vals[first + k] != NULL)) {
          error_set(err, ERR_RUNTIME, -1, "out of memory");
          break;
        }
        taken[d] = true;
        m->donated = f->vals[d]->buf->data;
      } else {
        if (!(ok = value_new_array(&ctx->vc, &in->shape, false, "", &f->vals[first + k], err))) break;
        m->out = f->vals[first + k]->buf->data;
      }
      if (!n) n = ai->plan.slots;
    }
    if (in->op == OP_BROADCAST) continue; /* set up below, once n is known */
    ew_lookup(in->op, &m->kind, &m->uop, &m->bop);
    if (m->kind == EW_COMPARE) ok = parse_cmp(in, &m->dir, &m->ct, err);
    else if (m->kind == EW_NONE)
      ok = error_set(err, ERR_RUNTIME, in->offset, "internal: %s not fusable", in->name);
    for (int o = 0; o < m->nops; o++) {
      const Instr *op = in->operands[o];
      if (op->parent == c && op->index >= first && op->index < first + k && eval_group_member(op))
        last_in[op->index - first] = k;
    }
  }
  /* n stays 0 when no member is materialised: the group is dead, nothing runs */
  if (!n) nm = nv = 0;
  for (int k = 0; k < nm && ok; k++) {
    const Instr *in = c->instrs[first + k];
    Member *m = &ms[k];
    if (m->kind == EW_SKIP) continue;
    if (in->op == OP_BROADCAST) {
      ok = member_broadcast(ctx, f, in, m, err);
      continue;
    }
    for (int o = 0; o < m->nops && ok; o++) {
      const Instr *op = in->operands[o];
      if (op->parent == c && op->index >= first && op->index < first + k && eval_group_member(op)) {
        m->src[o] = op->index - first;
      } else if (!f->vals[op->index] && op->op == OP_BROADCAST && op->parent == c) {
        /* a broadcast of an earlier group, not materialised: re-derived */
        int j = nm;
        while (j < nv && ms[j].bin != op) j++;
        if (j == nv) {
          Member *b = &ms[nv++];
          b->bin = op;
          b->rt = op->shape.etype;
          b->esize = etype_storage_bytes(b->rt);
          if (!(ok = member_broadcast(ctx, f, op, b, err))) break;
          if (!(b->scratch = malloc((size_t)EW_BLOCK * (size_t)b->esize))) {
            ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
            break;
          }
          b->own = true;
          if (b->splat) broadcast_fill(b, b->scratch, 0, EW_BLOCK);
        }
        m->src[o] = j;
      } else {
        const Value *ov = f->vals[op->index];
        if (!ov || !ov->info || !ov->buf || ov->info->plan.slots != n || ov->info->packed) {
          ok = error_set(err, ERR_RUNTIME, in->offset,
                         "instruction %s: operand %d does not match the fused loop", in->name, o);
          break;
        }
        m->src[o] = -1;
        m->ext[o] = ov->buf->data;
        m->ext_esize[o] = ov->info->esize;
      }
    }
  }
  ok = ok && assign_slots(ms, nm, last_in, slots, &nslots, EW_BLOCK, err);
  /* re-derived broadcasts other than splats write their scratch per block */
  int nwslots = nslots;
  for (int k = nm; k < nv; k++)
    if (!ms[k].splat) ms[k].wslot = ++nwslots;
  if (ok && n > 0) {
    GroupRun g = {ms, nm, nv, n, 0, nwslots, pool_threads(), NULL};
    int64_t bytes = 0;
    for (int k = 0; k < nv; k++) bytes += n * ms[k].esize;
    int64_t nblocks = (n + EW_BLOCK - 1) / EW_BLOCK;
    int64_t chunks = pool_chunks(bytes, nblocks);
    g.blocks_per_chunk = (nblocks + chunks - 1) / chunks;
    chunks = (nblocks + g.blocks_per_chunk - 1) / g.blocks_per_chunk;
    if (!(g.workers = calloc((size_t)g.nworkers, sizeof *g.workers))) {
      ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    } else {
      ok = pool_for_err(chunks, group_chunk, &g, err);
      for (int w = 0; w < g.nworkers; w++) free(g.workers[w]);
      free(g.workers);
    }
  }
  for (int k = 0; k < nv && ms; k++) value_tmp_free(&ms[k].btmp);
  for (int k = 0; k < nv && ms; k++)
    if (ms[k].own) free(ms[k].scratch);
  for (int k = 0; k < nslots; k++) free(slots[k]);
  free(slots);
  free(taken);
  free(last_in);
  free(ms);
  for (int k = first; k <= last && ok; k++)
    if (eval_group_member(c->instrs[k]) && f->vals[k]) ok = value_zero_padding(&ctx->vc, f->vals[k], err);
  if (!ok)
    for (int k = first; k <= last; k++)
      if (eval_group_member(c->instrs[k]) && f->vals[k]) {
        value_unref(&ctx->vc, f->vals[k]);
        f->vals[k] = NULL;
      }
  return ok;
}
