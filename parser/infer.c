/* Shape inference: the dispatch over opcodes and the helpers every group
 * uses.  The per-op rules live in infer_<group>.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/strbuf.h"
#include "parser/infer_internal.h"

/* ---------------------------------------------------------------------------
 * Messages */

static const char *sb_to_arena(Arena *arena, StrBuf *sb) {
  const char *r = arena_strndup(arena, sb->data ? sb->data : "", sb->len);
  sb_free(sb);
  return r ? r : "?";
}

const char *infer_shape_str(Arena *arena, const Shape *s) {
  StrBuf sb;
  sb_init(&sb);
  shape_print_without_layout(&sb, s);
  return sb_to_arena(arena, &sb);
}

const char *infer_str(InferCtx *c, const Shape *s) { return infer_shape_str(c->arena, s); }

const char *infer_ints_str(InferCtx *c, const int64_t *v, int n) {
  StrBuf sb;
  sb_init(&sb);
  sb_putc(&sb, '{');
  for (int i = 0; i < n; i++) sb_printf(&sb, i ? ",%lld" : "%lld", (long long)v[i]);
  sb_putc(&sb, '}');
  return sb_to_arena(c->arena, &sb);
}

static bool vfail(InferCtx *c, int64_t offset, const char *fmt, va_list ap) {
  char msg[900];
  vsnprintf(msg, sizeof msg, fmt, ap);
  Opcode op = c->in->op;
  const char *name = opcode_name(op);
  if ((op == OP_ASYNC_START || op == OP_ASYNC_UPDATE || op == OP_ASYNC_DONE) &&
      c->in->wrapped_op != OP_INVALID)
    name = opcode_name(c->in->wrapped_op);
  return error_set(c->err, ERR_INVALID, offset, "%s: %s", name, msg);
}

bool infer_fail(InferCtx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(c, c->in->opcode_offset, fmt, ap);
  va_end(ap);
  return false;
}

bool infer_fail_attr(InferCtx *c, const Attr *attr, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfail(c, attr ? attr->offset : c->in->opcode_offset, fmt, ap);
  va_end(ap);
  return false;
}

/* ---------------------------------------------------------------------------
 * Operands */

static bool is_dense_array(const Shape *s) {
  ETypeKind k = etype_kind(s->etype);
  return k != EK_NONE && k != EK_TUPLE && k != EK_TOKEN && k != EK_OPAQUE;
}

bool infer_need_array(InferCtx *c, int i) {
  if (is_dense_array(infer_oshape(c, i))) return true;
  return infer_fail(c, "operand %d must be an array, got %s", i, infer_str(c, infer_oshape(c, i)));
}

bool infer_need_arrays(InferCtx *c, int first, int count) {
  for (int i = first; i < first + count; i++)
    if (!infer_need_array(c, i)) return false;
  return true;
}

bool infer_need_int_scalar(InferCtx *c, int i, const char *what) {
  const Shape *s = infer_oshape(c, i);
  if (etype_is_int(s->etype) && s->rank == 0) return true;
  return infer_fail(c, "%s (operand %d) must be an integer scalar, got %s", what, i,
                    infer_str(c, s));
}

bool infer_need_token(InferCtx *c, int i) {
  const Shape *s = infer_oshape(c, i);
  if (s->etype == ET_TOKEN) return true;
  return infer_fail(c, "operand %d must be a token, got %s", i, infer_str(c, s));
}

bool infer_need_tuple(InferCtx *c, int i, int n) {
  const Shape *s = infer_oshape(c, i);
  if (shape_is_tuple(s) && s->ntuple >= n) return true;
  return infer_fail(c, "operand %d must be a tuple of at least %d elements, got %s", i, n,
                    infer_str(c, s));
}

/* ---------------------------------------------------------------------------
 * Attributes */

bool infer_attr(InferCtx *c, AttrKey key, bool required, const Attr **out) {
  *out = ir_attr(c->in, key);
  if (!*out && required) return infer_fail(c, "missing required attribute '%s'", attr_key_name(key));
  return true;
}

bool infer_attr_ints(InferCtx *c, AttrKey key, bool required, IntList *out, const Attr **attr) {
  const Attr *a;
  out->n = 0;
  out->v = NULL;
  if (!infer_attr(c, key, required, &a)) return false;
  if (attr) *attr = a;
  if (!a) return true;
  if (a->kind == AV_INT_LIST) {
    *out = a->v.ints;
  } else if (a->kind == AV_INT_LISTS && a->v.lists.depth == 1) {
    *out = a->v.lists.flat;
  } else {
    return infer_fail_attr(c, a, "attribute '%s' must be a list of integers", attr_key_name(key));
  }
  return true;
}

bool infer_attr_int(InferCtx *c, AttrKey key, bool required, int64_t dflt, int64_t *out) {
  const Attr *a;
  *out = dflt;
  if (!infer_attr(c, key, required, &a)) return false;
  if (!a) return true;
  if (a->kind != AV_INT) return infer_fail_attr(c, a, "attribute '%s' must be an integer", attr_key_name(key));
  *out = a->v.i;
  return true;
}

bool infer_attr_comp(InferCtx *c, AttrKey key, bool required, const Computation **out) {
  const Attr *a;
  *out = NULL;
  if (!infer_attr(c, key, required, &a)) return false;
  if (!a) return true;
  if (a->kind != AV_COMPUTATION || !a->v.comp)
    return infer_fail_attr(c, a, "attribute '%s' must name a computation", attr_key_name(key));
  *out = a->v.comp;
  return true;
}

bool infer_check_dims(InferCtx *c, const Attr *attr, const char *what, const int64_t *dims,
                      int n, int rank) {
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= rank)
      return infer_fail_attr(c, attr, "%s %s: dimension %lld out of range for rank %d", what,
                             infer_ints_str(c, dims, n), (long long)dims[i], rank);
    for (int j = 0; j < i; j++)
      if (dims[j] == dims[i])
        return infer_fail_attr(c, attr, "%s %s: dimension %lld repeated", what,
                               infer_ints_str(c, dims, n), (long long)dims[i]);
  }
  return true;
}

bool infer_attr_dims(InferCtx *c, AttrKey key, int rank, IntList *out, const Attr **attr) {
  return infer_attr_ints(c, key, true, out, attr) &&
         infer_check_dims(c, *attr, attr_key_name(key), out->v, out->n, rank);
}

bool infer_is_permutation(const int64_t *dims, int n) {
  for (int i = 0; i < n; i++) {
    if (dims[i] < 0 || dims[i] >= n) return false;
    for (int j = 0; j < i; j++)
      if (dims[j] == dims[i]) return false;
  }
  return true;
}

/* ---------------------------------------------------------------------------
 * Element types */

bool infer_same_etype_ignoring_fp(EType a, EType b) {
  return a == b || (etype_is_float(a) && etype_is_float(b));
}

EType infer_higher_precision(EType a, EType b) {
  if (a == b || !etype_is_float(a) || !etype_is_float(b)) return a;
  if (etype_bits(a) != etype_bits(b)) return etype_bits(a) > etype_bits(b) ? a : b;
  /* Same width (f16 vs bf16, f8 variants): XLA keeps the lhs type. */
  return a;
}

EType infer_complex_component(EType t) {
  if (t == ET_C64) return ET_F32;
  if (t == ET_C128) return ET_F64;
  return t;
}

bool infer_is_numeric(EType t) {
  return etype_is_int(t) || etype_is_float(t) || etype_is_complex(t);
}

/* ---------------------------------------------------------------------------
 * Shapes */

bool infer_shapes_match(const Shape *a, const Shape *b, bool ignore_fp) {
  bool tuple_a = a->etype == ET_TUPLE || a->etype == ET_BUFFER;
  bool tuple_b = b->etype == ET_TUPLE || b->etype == ET_BUFFER;
  if (tuple_a || tuple_b) {
    if (a->etype != b->etype || a->ntuple != b->ntuple) return false;
    for (int i = 0; i < a->ntuple; i++)
      if (!infer_shapes_match(&a->tuple[i], &b->tuple[i], ignore_fp)) return false;
    return true;
  }
  if (ignore_fp ? !infer_same_etype_ignoring_fp(a->etype, b->etype) : a->etype != b->etype)
    return false;
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i] && a->dims[i] != SHAPE_DIM_UNBOUNDED &&
        b->dims[i] != SHAPE_DIM_UNBOUNDED)
      return false;
  return true;
}

int64_t *infer_i64(InferCtx *c, int n) {
  return n > 0 ? arena_alloc_array(c->arena, (size_t)n, sizeof(int64_t)) : NULL;
}

bool *infer_bools(InferCtx *c, int n) {
  return n > 0 ? arena_alloc_array(c->arena, (size_t)n, sizeof(bool)) : NULL;
}

static bool oom(InferCtx *c) {
  return error_set(c->err, ERR_RUNTIME, c->in->opcode_offset, "out of memory");
}

bool infer_dims_buf(InferCtx *c, int n, int64_t **dims, bool **dyn) {
  *dims = infer_i64(c, n);
  *dyn = infer_bools(c, n);
  return n == 0 || (*dims && *dyn) ? true : oom(c);
}

bool infer_make_array(InferCtx *c, Shape *out, EType t, int rank, const int64_t *dims,
                      const bool *dynamic) {
  memset(out, 0, sizeof *out);
  out->etype = t;
  out->rank = rank;
  if (rank > 0) {
    out->dims = infer_i64(c, rank);
    if (!out->dims) return oom(c);
    memcpy(out->dims, dims, (size_t)rank * sizeof *dims);
    bool any = false;
    for (int i = 0; dynamic && i < rank; i++) any |= dynamic[i];
    if (any) {
      out->dynamic = infer_bools(c, rank);
      if (!out->dynamic) return oom(c);
      memcpy(out->dynamic, dynamic, (size_t)rank * sizeof *dynamic);
    }
  }
  if (!shape_set_default_layout(c->arena, out)) return oom(c);
  return true;
}

void infer_with_etype(Shape *out, const Shape *src, EType t) {
  *out = *src;
  out->etype = t;
}

bool infer_make_tuple(InferCtx *c, Shape *out, int n) {
  memset(out, 0, sizeof *out);
  out->etype = ET_TUPLE;
  out->ntuple = n;
  if (n > 0) {
    out->tuple = arena_alloc_array(c->arena, (size_t)n, sizeof(Shape));
    if (!out->tuple) return oom(c);
  }
  return true;
}

bool infer_make_scalar(InferCtx *c, Shape *out, EType t) {
  return infer_make_array(c, out, t, 0, NULL, NULL);
}

/* ---------------------------------------------------------------------------
 * Called computations */

bool infer_check_params(InferCtx *c, const Attr *attr, const Computation *comp,
                        const char *what, int n, const Shape *const *shapes, bool ignore_fp) {
  if (comp->nparams != n)
    return infer_fail_attr(c, attr, "%s computation %s takes %d parameters, expected %d", what,
                           comp->name, comp->nparams, n);
  for (int i = 0; i < n; i++) {
    const Instr *p = comp->params[i];
    if (!p) return infer_fail_attr(c, attr, "%s computation %s has no parameter %d", what, comp->name, i);
    if (!infer_shapes_match(&p->shape, shapes[i], ignore_fp))
      return infer_fail_attr(c, attr, "%s computation %s parameter %d has shape %s, expected %s",
                             what, comp->name, i, infer_str(c, &p->shape),
                             infer_str(c, shapes[i]));
  }
  return true;
}

static bool is_scalar(const Shape *s) { return is_dense_array(s) && s->rank == 0; }

bool infer_check_reducer(InferCtx *c, const Attr *attr, const Computation *comp, int k,
                         const EType *init_types, const EType *elem_types, EType *acc) {
  const char *what = attr ? attr_key_name(attr->key) : "to_apply";
  if (comp->nparams != 2 * k)
    return infer_fail_attr(c, attr, "%s computation %s takes %d parameters, expected %d", what,
                           comp->name, comp->nparams, 2 * k);
  if (!comp->root) return infer_fail_attr(c, attr, "%s computation %s is empty", what, comp->name);
  const Shape *r = &comp->root->shape;
  /* XLA's VerifyReducerShape: a scalar (one input only) or a tuple of k
   * scalars -- so a single-input reducer may also return a 1-tuple. */
  bool tuple = shape_is_tuple(r);
  if (!tuple && k > 1)
    return infer_fail_attr(c, attr, "%s computation %s must return a tuple of %d scalars, returns %s",
                           what, comp->name, k, infer_str(c, r));
  if (tuple && r->ntuple != k)
    return infer_fail_attr(c, attr, "%s computation %s must return %s%d scalar%s, returns %s", what,
                           comp->name, k == 1 ? "a scalar or a tuple of " : "a tuple of ", k,
                           k == 1 ? "" : "s", infer_str(c, r));
  if (!tuple && !is_scalar(r))
    return infer_fail_attr(c, attr, "%s computation %s must return a scalar, returns %s", what,
                           comp->name, infer_str(c, r));
  for (int i = 0; i < k; i++) {
    const Shape *ri = tuple ? &r->tuple[i] : r;
    if (!is_scalar(ri))
      return infer_fail_attr(c, attr, "%s computation %s must return scalars, returns %s", what,
                             comp->name, infer_str(c, r));
    acc[i] = ri->etype;
    const Instr *pa = comp->params[i], *pe = comp->params[k + i];
    if (!pa || !pe) return infer_fail_attr(c, attr, "%s computation %s lacks parameters", what, comp->name);
    if (!is_scalar(&pa->shape) || pa->shape.etype != acc[i])
      return infer_fail_attr(c, attr, "%s computation %s: parameter %d has shape %s, but the accumulator is %s[]",
                             what, comp->name, i, infer_str(c, &pa->shape), etype_name(acc[i]));
    if (!is_scalar(&pe->shape) || !infer_same_etype_ignoring_fp(pe->shape.etype, elem_types[i]))
      return infer_fail_attr(c, attr, "%s computation %s: parameter %d has shape %s, but the input elements are %s",
                             what, comp->name, k + i, infer_str(c, &pe->shape),
                             etype_name(elem_types[i]));
    if (init_types && !infer_same_etype_ignoring_fp(init_types[i], acc[i]))
      return infer_fail_attr(c, attr, "%s computation %s: init value %d is %s[], but the accumulator is %s[]",
                             what, comp->name, i, etype_name(init_types[i]), etype_name(acc[i]));
  }
  return true;
}

/* ---------------------------------------------------------------------------
 * Windows */

bool infer_window_out(InferCtx *c, const Attr *attr, int64_t in, const WindowDim *w,
                      int64_t *out) {
  if (w->size < 0 || w->stride < 1 || w->lhs_dilate < 1 || w->rhs_dilate < 1)
    return infer_fail_attr(c, attr, "window has size %lld, stride %lld, dilations %lld and %lld "
                           "(size must be >= 0, the others >= 1)",
                           (long long)w->size, (long long)w->stride, (long long)w->lhs_dilate,
                           (long long)w->rhs_dilate);
  if (in == SHAPE_DIM_UNBOUNDED) {
    *out = SHAPE_DIM_UNBOUNDED;
    return true;
  }
  int64_t dilated, padded, eff;
  bool ovf = false;
  if (in == 0) {
    dilated = 0;
  } else {
    ovf |= __builtin_mul_overflow(in - 1, w->lhs_dilate, &dilated);
    ovf |= __builtin_add_overflow(dilated, 1, &dilated);
  }
  ovf |= __builtin_add_overflow(dilated, w->pad_lo, &padded);
  ovf |= __builtin_add_overflow(padded, w->pad_hi, &padded);
  if (w->size == 0) {
    eff = 0;
  } else {
    ovf |= __builtin_mul_overflow(w->size - 1, w->rhs_dilate, &eff);
    ovf |= __builtin_add_overflow(eff, 1, &eff);
  }
  if (ovf) return infer_fail_attr(c, attr, "window dimension sizes overflow");
  if (padded < 0)
    return infer_fail_attr(c, attr, "window padding makes a dimension of size %lld negative",
                           (long long)in);
  *out = padded < eff ? 0 : (padded - eff) / w->stride + 1;
  return true;
}

/* ---------------------------------------------------------------------------
 * Dispatch */

/* The infer column of parser/opcodes.def. */
typedef bool (*InferFn)(InferCtx *c, Shape *out);
static const InferFn infer_of[OP_COUNT] = {
#define OPCODE(id, text, lo, hi, cls, infer, ...) [OP_##id] = infer,
#include "parser/opcodes.def"
#undef OPCODE
};

static bool check_operand_count(InferCtx *c) {
  Opcode op = c->in->op;
  int n = c->in->noperands, lo = opcode_min_operands(op), hi = opcode_max_operands(op);
  if (n >= lo && (hi < 0 || n <= hi)) return true;
  if (lo == hi) return infer_fail(c, "expects %d operand%s, got %d", lo, lo == 1 ? "" : "s", n);
  if (n < lo) return infer_fail(c, "expects at least %d operand%s, got %d", lo, lo == 1 ? "" : "s", n);
  return infer_fail(c, "expects at most %d operands, got %d", hi, n);
}

bool infer_shape_in_module(const Module *m, const Instr *instr, Arena *scratch, Shape *out,
                           Error *err) {
  InferCtx ctx = {instr, m, scratch, err};
  InferCtx *c = &ctx;
  memset(out, 0, sizeof *out);
  if (!check_operand_count(c)) return false;
  for (int i = 0; i < instr->noperands; i++) {
    const Shape *s = instr->operands[i] ? &instr->operands[i]->shape : NULL;
    if (!s) return infer_fail(c, "operand %d is missing", i);
    /* Fixed-size scratch below relies on this; bigger ranks were reported
     * where the operand was defined. */
    if (s->rank < 0 || s->rank > SHAPE_MAX_RANK)
      return infer_fail(c, "operand %d has rank %d (at most %d)", i, s->rank, SHAPE_MAX_RANK);
  }
  if (instr->shape.rank < 0 || instr->shape.rank > SHAPE_MAX_RANK)
    return infer_fail(c, "result rank %d exceeds %d", instr->shape.rank, SHAPE_MAX_RANK);
  InferFn fn = (unsigned)instr->op < OP_COUNT ? infer_of[instr->op] : NULL;
  return fn ? fn(c, out) : infer_fail(c, "unknown opcode");
}

bool infer_shape(const Instr *instr, Arena *scratch, Shape *out, Error *err) {
  return infer_shape_in_module(NULL, instr, scratch, out, err);
}
