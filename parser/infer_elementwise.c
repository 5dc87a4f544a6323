/* Element-wise ops: unary, binary, compare, select, clamp, map.  HLO has no
 * implicit broadcasting: every array operand has the result's dimensions. */
#include "parser/infer_internal.h"

/* Element type classes an op accepts. */
enum {
  K_PRED = 1,
  K_SINT = 2,
  K_UINT = 4,
  K_FLOAT = 8,
  K_COMPLEX = 16,
  K_INT = K_SINT | K_UINT,
  K_FC = K_FLOAT | K_COMPLEX,
  K_SIGNED = K_SINT | K_FLOAT,
  K_ARITH = K_INT | K_FC,
  K_ANY = K_PRED | K_ARITH
};

/* What the result element type is. */
typedef enum {
  R_SAME,     /* the operand's (the higher precision of the two) */
  R_REAL,     /* complex component type */
  R_PRED,     /* pred */
  R_COMPLEX   /* complex built from two floats */
} ResultRule;

typedef struct {
  unsigned kinds;        /* 0: not an element-wise op handled by the table */
  ResultRule result;
  const char *expected;  /* for the message */
} ElemRule;

static const ElemRule rules[OP_COUNT] = {
    /* unary */
    [OP_ABS] = {K_SIGNED | K_COMPLEX, R_REAL, "signed or complex"},
    [OP_CBRT] = {K_FC, R_SAME, "floating or complex"},
    [OP_CEIL] = {K_FLOAT, R_SAME, "floating"},
    [OP_COPY] = {K_ANY, R_SAME, "any"},
    [OP_COSINE] = {K_FC, R_SAME, "floating or complex"},
    [OP_COUNT_LEADING_ZEROS] = {K_INT, R_SAME, "integral"},
    [OP_ERF] = {K_FLOAT, R_SAME, "floating"},
    [OP_EXPONENTIAL] = {K_FC, R_SAME, "floating or complex"},
    [OP_EXPONENTIAL_MINUS_ONE] = {K_FC, R_SAME, "floating or complex"},
    [OP_FLOOR] = {K_FLOAT, R_SAME, "floating"},
    [OP_IMAG] = {K_FC, R_REAL, "floating or complex"},
    [OP_IS_FINITE] = {K_FLOAT, R_PRED, "floating"},
    [OP_LOG] = {K_FC, R_SAME, "floating or complex"},
    [OP_LOG_PLUS_ONE] = {K_FC, R_SAME, "floating or complex"},
    [OP_LOGISTIC] = {K_FC, R_SAME, "floating or complex"},
    [OP_NEGATE] = {K_ARITH, R_SAME, "integral, floating or complex"},
    [OP_NOT] = {K_PRED | K_INT, R_SAME, "pred or integral"},
    [OP_POPCNT] = {K_INT, R_SAME, "integral"},
    [OP_REAL] = {K_FC, R_REAL, "floating or complex"},
    [OP_REDUCE_PRECISION] = {K_FLOAT, R_SAME, "floating"},
    [OP_ROUND_NEAREST_AFZ] = {K_FLOAT, R_SAME, "floating"},
    [OP_ROUND_NEAREST_EVEN] = {K_FLOAT, R_SAME, "floating"},
    [OP_RSQRT] = {K_FC, R_SAME, "floating or complex"},
    [OP_SIGN] = {K_SIGNED | K_COMPLEX, R_SAME, "signed or complex"},
    [OP_SINE] = {K_FC, R_SAME, "floating or complex"},
    [OP_SQRT] = {K_FC, R_SAME, "floating or complex"},
    [OP_TAN] = {K_FC, R_SAME, "floating or complex"},
    [OP_TANH] = {K_FC, R_SAME, "floating or complex"},
    /* binary */
    [OP_ADD] = {K_ANY, R_SAME, "any"},
    [OP_MAXIMUM] = {K_ANY, R_SAME, "any"},
    [OP_MINIMUM] = {K_ANY, R_SAME, "any"},
    [OP_MULTIPLY] = {K_ANY, R_SAME, "any"},
    [OP_SUBTRACT] = {K_ARITH, R_SAME, "arithmetic"},
    [OP_DIVIDE] = {K_ARITH, R_SAME, "arithmetic"},
    [OP_REMAINDER] = {K_ARITH, R_SAME, "arithmetic"},
    [OP_POWER] = {K_ARITH, R_SAME, "arithmetic"},
    [OP_ATAN2] = {K_FC, R_SAME, "floating or complex"},
    [OP_SHIFT_LEFT] = {K_INT, R_SAME, "integral"},
    [OP_SHIFT_RIGHT_ARITHMETIC] = {K_INT, R_SAME, "integral"},
    [OP_SHIFT_RIGHT_LOGICAL] = {K_INT, R_SAME, "integral"},
    [OP_AND] = {K_PRED | K_INT, R_SAME, "pred or integral"},
    [OP_OR] = {K_PRED | K_INT, R_SAME, "pred or integral"},
    [OP_XOR] = {K_PRED | K_INT, R_SAME, "pred or integral"},
    [OP_COMPLEX] = {K_FLOAT, R_COMPLEX, "floating"},
    [OP_COMPARE] = {K_ANY, R_PRED, "any"},
};

static unsigned kind_bit(EType t) {
  switch (etype_kind(t)) {
    case EK_PRED: return K_PRED;
    case EK_SINT: return K_SINT;
    case EK_UINT: return K_UINT;
    case EK_FLOAT: return K_FLOAT;
    case EK_COMPLEX: return K_COMPLEX;
    default: return 0;
  }
}

/* All operands in [first, first+n) have the dimensions of operand `ref`. */
static bool same_dims(InferCtx *c, int ref, int first, int n) {
  const Shape *r = infer_oshape(c, ref);
  for (int i = first; i < first + n; i++) {
    const Shape *s = infer_oshape(c, i);
    bool ok = s->rank == r->rank;
    for (int d = 0; ok && d < r->rank; d++)
      ok = s->dims[d] == r->dims[d] || s->dims[d] == SHAPE_DIM_UNBOUNDED ||
           r->dims[d] == SHAPE_DIM_UNBOUNDED;
    if (!ok)
      return infer_fail(c, "operand shapes %s and %s are not compatible", infer_str(c, r),
                        infer_str(c, s));
  }
  return true;
}

/* Result: operand `ref`'s dims, dynamic if any operand's dim is. */
static bool result_like(InferCtx *c, Shape *out, int ref, int n, EType t) {
  const Shape *r = infer_oshape(c, ref);
  bool *dyn = infer_bools(c, r->rank);
  for (int d = 0; dyn && d < r->rank; d++)
    for (int i = 0; i < n; i++) {
      const Shape *s = infer_oshape(c, i);
      if (s->rank == r->rank) dyn[d] |= infer_dim_dynamic(s, d);
    }
  return infer_make_array(c, out, t, r->rank, r->dims, dyn);
}

static bool table_op(InferCtx *c, Shape *out) {
  const Instr *in = c->in;
  const ElemRule *rule = &rules[in->op];
  int n = in->noperands;
  if (in->op == OP_COPY) { /* copies anything, tuples too */
    *out = *infer_oshape(c, 0);
    return true;
  }
  if (!infer_need_arrays(c, 0, n)) return false;
  EType t = infer_oshape(c, 0)->etype;
  if (!(kind_bit(t) & rule->kinds))
    return infer_fail(c, "expected %s element type, got %s", rule->expected, etype_name(t));
  if (n == 2) {
    EType t1 = infer_oshape(c, 1)->etype;
    if (!infer_same_etype_ignoring_fp(t, t1))
      return infer_fail(c, "operands have different element types: %s and %s",
                        infer_str(c, infer_oshape(c, 0)), infer_str(c, infer_oshape(c, 1)));
    if (!(kind_bit(t1) & rule->kinds))
      return infer_fail(c, "expected %s element type, got %s", rule->expected, etype_name(t1));
    if (!same_dims(c, 0, 1, 1)) return false;
    t = infer_higher_precision(t, t1);
  }
  if (in->op == OP_COMPARE) {
    const Attr *dir;
    if (!infer_attr(c, ATTR_DIRECTION, true, &dir)) return false;
  }
  if (in->op == OP_REDUCE_PRECISION) {
    int64_t e, m;
    if (!infer_attr_int(c, ATTR_EXPONENT_BITS, true, 0, &e) ||
        !infer_attr_int(c, ATTR_MANTISSA_BITS, true, 0, &m))
      return false;
    if (e < 1) return infer_fail_attr(c, ir_attr(in, ATTR_EXPONENT_BITS), "expected exponent_bits >= 1, got %lld", (long long)e);
    if (m < 0) return infer_fail_attr(c, ir_attr(in, ATTR_MANTISSA_BITS), "expected mantissa_bits >= 0, got %lld", (long long)m);
  }
  switch (rule->result) {
    case R_SAME: break;
    case R_REAL: t = infer_complex_component(t); break;
    case R_PRED: t = ET_PRED; break;
    case R_COMPLEX:
      if (t == ET_F32 && infer_oshape(c, 1)->etype == ET_F32)
        t = ET_C64;
      else if (t == ET_F64 && infer_oshape(c, 1)->etype == ET_F64)
        t = ET_C128;
      else
        return infer_fail(c, "complex needs two f32 or two f64 operands, got %s and %s",
                          etype_name(t), etype_name(infer_oshape(c, 1)->etype));
      break;
  }
  return result_like(c, out, 0, n, t);
}

/* select(pred, on_true, on_false).  XLA's operation semantics: pred has
 * the operands' dimensions, or is a scalar PRED that picks a whole operand
 * ("a restricted form of broadcasting"); tuples are selected as scalars, so
 * they need a scalar pred and the same shape on both sides. */
static bool infer_select(InferCtx *c, Shape *out) {
  const Shape *p = infer_oshape(c, 0), *a = infer_oshape(c, 1), *b = infer_oshape(c, 2);
  if (!infer_need_arrays(c, 0, 1)) return false;
  if (p->etype != ET_PRED) return infer_fail(c, "predicate must be pred, got %s", infer_str(c, p));
  if (shape_is_tuple(a) || shape_is_tuple(b)) {
    if (p->rank != 0)
      return infer_fail(c, "selecting tuples needs a scalar predicate, got %s", infer_str(c, p));
    if (!shape_compatible(a, b))
      return infer_fail(c, "on_true and on_false have different shapes: %s and %s",
                        infer_str(c, a), infer_str(c, b));
    *out = *a;
    return true;
  }
  if (!infer_need_arrays(c, 1, 2)) return false;
  if (p->rank == 0 && a->rank != 0) {
    if (!infer_same_etype_ignoring_fp(a->etype, b->etype))
      return infer_fail(c, "on_true and on_false have different element types: %s and %s",
                        infer_str(c, a), infer_str(c, b));
    if (!same_dims(c, 1, 2, 1)) return false;
    return result_like(c, out, 1, 3, infer_higher_precision(a->etype, b->etype));
  }
  if (!infer_same_etype_ignoring_fp(a->etype, b->etype))
    return infer_fail(c, "on_true and on_false have different element types: %s and %s",
                      infer_str(c, a), infer_str(c, b));
  if (!same_dims(c, 1, 2, 1) || !same_dims(c, 1, 0, 1)) return false;
  return result_like(c, out, 1, 3, infer_higher_precision(a->etype, b->etype));
}

/* clamp(min, x, max): min and max are scalars or have x's shape. */
static bool infer_clamp(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 3)) return false;
  const Shape *x = infer_oshape(c, 1);
  for (int i = 0; i < 3; i += 2) {
    const Shape *b = infer_oshape(c, i);
    if (!infer_same_etype_ignoring_fp(b->etype, x->etype))
      return infer_fail(c, "clamp bound %s and operand %s have different element types",
                        infer_str(c, b), infer_str(c, x));
    if (b->rank != 0 && !same_dims(c, 1, i, 1)) return false;
  }
  return result_like(c, out, 1, 1, x->etype);
}

/* map(operands...), to_apply: scalars in, scalar out. */
static bool infer_map(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  if (!infer_need_arrays(c, 0, n) || !same_dims(c, 0, 1, n - 1)) return false;
  const Computation *f;
  const Attr *fa = ir_attr(c->in, ATTR_TO_APPLY);
  if (!infer_attr_comp(c, ATTR_TO_APPLY, true, &f)) return false;
  const Shape **params = arena_alloc_array(c->arena, (size_t)n, sizeof *params);
  Shape *scalars = arena_alloc_array(c->arena, (size_t)n, sizeof *scalars);
  if (!params || !scalars) return infer_fail(c, "out of memory");
  for (int i = 0; i < n; i++) {
    if (!infer_make_scalar(c, &scalars[i], infer_oshape(c, i)->etype)) return false;
    params[i] = &scalars[i];
  }
  if (!infer_check_params(c, fa, f, "to_apply", n, params, true)) return false;
  const Shape *r = f->root ? &f->root->shape : NULL;
  if (!r || !shape_is_array(r) || r->rank != 0)
    return infer_fail_attr(c, fa, "to_apply computation %s must return a scalar", f->name);
  IntList dims;
  const Attr *da;
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, false, &dims, &da)) return false;
  const Shape *s0 = infer_oshape(c, 0);
  if (da && (dims.n != s0->rank || !infer_is_permutation(dims.v, dims.n)))
    return infer_fail_attr(c, da, "dimensions %s must list every dimension of %s",
                           infer_ints_str(c, dims.v, dims.n), infer_str(c, s0));
  for (int i = 0; da && i < dims.n; i++)
    if (dims.v[i] != i)
      return infer_fail_attr(c, da, "dimensions must be in order, got %s",
                             infer_ints_str(c, dims.v, dims.n));
  return result_like(c, out, 0, n, r->etype);
}

bool infer_elementwise(InferCtx *c, Shape *out) {
  switch (c->in->op) {
    case OP_SELECT: return infer_select(c, out);
    case OP_CLAMP: return infer_clamp(c, out);
    case OP_MAP: return infer_map(c, out);
    default: return table_op(c, out);
  }
}
