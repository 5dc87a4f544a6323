/* Elementwise ops: the evaluator's side of kernels/kernels.h.
 *
 * When every array operand has the result's layout (memory space aside) and
 * nothing is packed, the kernel runs straight over the physical buffers,
 * padding slots included (they are re-zeroed afterwards): no conversion at
 * all, whatever the tiling.  Otherwise operands are read through dense
 * row-major views and the result is stored back into its layout. */
#include <stdlib.h>
#include <string.h>

#include "interp/eval_internal.h"
#include "kernels/kernels.h"

typedef enum { EW_UNARY, EW_BINARY, EW_COMPARE, EW_SELECT, EW_CLAMP, EW_CONVERT,
               EW_BITCAST_CONVERT, EW_REDUCE_PRECISION } EwKind;

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

static bool parse_cmp(const Instr *in, KCmpDir *dir, KCmpType *ct, Error *err) {
  const Attr *d = ir_attr(in, ATTR_DIRECTION);
  if (!d || d->kind != AV_ENUM || !k_cmp_dir_lookup(d->v.s, dir))
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: compare needs a direction",
                     in->name);
  *ct = KCMP_DEFAULT;
  const Attr *t = ir_attr(in, ATTR_TYPE);
  if (t && (t->kind != AV_ENUM || !k_cmp_type_lookup(t->v.s, ct)))
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: unknown comparison type",
                     in->name);
  return true;
}

bool eval_elementwise(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                      bool *handled, Error *err) {
  *handled = false;
  EwKind kind;
  KUnaryOp uop = 0;
  KBinaryOp bop = 0;
  const char *name = opcode_name(in->op);
  switch (in->op) {
  case OP_COMPARE: kind = EW_COMPARE; break;
  case OP_SELECT: kind = EW_SELECT; break;
  case OP_CLAMP: kind = EW_CLAMP; break;
  case OP_CONVERT: kind = EW_CONVERT; break;
  case OP_BITCAST_CONVERT: kind = EW_BITCAST_CONVERT; break;
  case OP_REDUCE_PRECISION: kind = EW_REDUCE_PRECISION; break;
  default:
    if (k_unary_lookup(name, &uop)) kind = EW_UNARY;
    else if (k_binary_lookup(name, &bop)) kind = EW_BINARY;
    else return false;
  }
  *handled = true;
  int nops = in->noperands;
  if (nops > 3)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: too many operands", in->name);
  Value *ops[3] = {0};
  for (int k = 0; k < nops; k++) {
    ops[k] = frame_operand(f, in, k);
    if (!ops[k]->info || !ops[k]->buf) {
      if (kind == EW_SELECT && k > 0 && ops[k]->ntuple) {
        /* select between tuples with a scalar predicate */
        continue;
      }
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: operand %d is not an array",
                       in->name, k);
    }
  }
  if (kind == EW_SELECT && (ops[1]->ntuple || ops[2]->ntuple || !shape_is_array(rs))) {
    const void *pd;
    void *tmp;
    if (!ops[0]->info || !value_dense_read(&ctx->vc, ops[0], &pd, &tmp, err)) return false;
    bool p = *(const uint8_t *)pd != 0;
    free(tmp);
    char who[300];
    eval_who(in, who, sizeof who);
    return value_coerce(&ctx->vc, p ? ops[1] : ops[2], rs, who, out, err);
  }
  char who[300];
  eval_who(in, who, sizeof who);
  Value *v;
  if (!value_new_array(&ctx->vc, rs, false, who, &v, err)) return false;
  const ArrayInfo *ri = v->info;
  /* Which operands are broadcast scalars (clamp bounds, select predicate). */
  bool scalar[3] = {false, false, false};
  for (int k = 0; k < nops; k++)
    scalar[k] = ops[k]->info->rank == 0 && ri->rank > 0 &&
                ((kind == EW_CLAMP && k != 1) || (kind == EW_SELECT && k == 0));
  bool physical = kind != EW_BITCAST_CONVERT && !ri->packed;
  for (int k = 0; k < nops && physical; k++)
    if (!scalar[k] && !same_arrangement(ops[k]->info, ri)) physical = false;
  if (kind == EW_BITCAST_CONVERT && ri->identity && ops[0]->info->identity) physical = true;
  const void *src[3] = {0};
  void *tmps[3] = {0};
  void *dst, *dtmp = NULL;
  int64_t n;
  bool ok = true;
  if (physical) {
    for (int k = 0; k < nops; k++) src[k] = ops[k]->buf->data;
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
                     "instruction %s: operand %d has %lld elements, the result %lld", in->name, k,
                     (long long)ops[k]->info->elements, (long long)ri->elements);
  }
  if (ok && n > 0) {
    EType t0 = ops[0]->info->etype;
    switch (kind) {
    case EW_UNARY: ok = k_unary(uop, t0, dst, src[0], n, err); break;
    case EW_BINARY: ok = k_binary(bop, t0, dst, src[0], src[1], n, err); break;
    case EW_COMPARE: {
      KCmpDir dir;
      KCmpType ct;
      ok = parse_cmp(in, &dir, &ct, err) && k_compare(dir, ct, t0, dst, src[0], src[1], n, err);
      break;
    }
    case EW_SELECT:
      ok = k_select(ri->etype, dst, src[0], scalar[0], src[1], src[2], n, err);
      break;
    case EW_CLAMP:
      ok = k_clamp(ri->etype, dst, src[0], scalar[0], src[1], src[2], scalar[2], n, err);
      break;
    case EW_CONVERT: ok = k_convert(ri->etype, dst, t0, src[0], n, err); break;
    case EW_BITCAST_CONVERT:
      if (k_bitcast_convert_count(ri->etype, t0, n) != ri->elements)
        ok = error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: bitcast-convert from %s to %s does not fit the result shape",
                       in->name, etype_name(t0), etype_name(ri->etype));
      else
        ok = k_bitcast_convert(ri->etype, dst, t0, src[0], n, err);
      break;
    case EW_REDUCE_PRECISION: {
      const Attr *e = ir_attr(in, ATTR_EXPONENT_BITS), *m = ir_attr(in, ATTR_MANTISSA_BITS);
      if (!e || !m || e->kind != AV_INT || !m->kind)
        ok = error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: reduce-precision needs exponent_bits and mantissa_bits",
                       in->name);
      else
        ok = k_reduce_precision(t0, dst, src[0], n, (int)e->v.i, (int)m->v.i, err);
      break;
    }
    }
  }
  for (int k = 0; k < nops; k++) free(tmps[k]);
  if (ok) {
    if (physical) ok = value_zero_padding(&ctx->vc, v, err);
    else ok = value_dense_commit(&ctx->vc, v, dtmp, err);
  } else {
    free(dtmp);
  }
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}
