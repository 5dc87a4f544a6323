/* Mixed precision.  XLA's shape inference lets the floating-point operands
 * of elementwise ops, pad, concatenate and dynamic-update-slice differ in
 * precision (f32 multiply(bf16, f32)); the op is computed in the higher
 * precision -- the result's type, or for compare the higher of its
 * operands' -- as XLA's float normalization inserts converts.  Which
 * operands are converted is the mixed column of parser/opcodes.def. */
#include "interp/eval_internal.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"
#include "parser/infer.h"

/* The tokens of the mixed column (see parser/opcodes.def). */
enum { MIX_NONE, MIX_ALL, MIX_FIRST, MIX_SELECT, MIX_COMPARE, MIX_OWN };

static const unsigned char mix_of[OP_COUNT] = {
#define OPCODE(id, text, lo, hi, cls, infer, eval, kernel, flags, mixed, ...) [OP_##id] = mixed,
#include "parser/opcodes.def"
#undef OPCODE
};

/* The element type operand k of `in` is computed in, or its own. */
static EType compute_etype(const Instr *in, int k) {
  EType t = in->operands[k]->shape.etype;
  if (!etype_is_float(t) || !shape_is_array(&in->shape)) return t;
  EType rt = in->shape.etype;
  switch (mix_of[in->op]) {
  case MIX_COMPARE:
    return in->noperands == 2 ? infer_higher_precision(in->operands[0]->shape.etype,
                                                       in->operands[1]->shape.etype)
                              : t;
  case MIX_SELECT: return k == 0 ? t : rt;
  case MIX_ALL: return etype_is_float(rt) ? rt : t;
  /* A result declared in another float type than its operand's, which XLA's
   * test verifier allows (bf16[4] negate(f32[4])): the operand is converted
   * to the result's type first, as for the binary ops.  For the ops that
   * only move elements this is exactly converting the result. */
  case MIX_FIRST: return k == 0 && etype_is_float(rt) ? rt : t;
  default: return t;
  }
}

bool eval_mixed_precision(const Instr *in) {
  if (mix_of[in->op] == MIX_NONE || mix_of[in->op] == MIX_OWN) return false;
  for (int k = 0; k < in->noperands; k++)
    if (shape_is_array(&in->operands[k]->shape) &&
        compute_etype(in, k) != in->operands[k]->shape.etype)
      return true;
  return false;
}

/* A dense copy of array v converted to element type t (XLA's convert),
 * keeping v's dynamic sizes. */
static bool converted_copy(EvalCtx *ctx, const Value *v, EType t, Value **out,
                           Error *err) {
  const ArrayInfo *ai = v->info;
  Shape *s = value_dense_shape(&ctx->vc, t, ai->rank, ai->dims, ai->space);
  const ArrayInfo *ti = s ? value_array_info(&ctx->vc, s, err) : NULL;
  if (!ti) return s ? false : error_set(err, ERR_RUNTIME, -1, "out of memory");
  const void *src;
  DenseTmp stmp;
  void *dst;
  DenseTmp dtmp;
  if (!value_new_array(&ctx->vc, s, false, "", out, err)) return false;
  bool ok = value_dense_read(&ctx->vc, v, &src, &stmp, err);
  if (ok && (ok = value_dense_target(&ctx->vc, *out, &dst, &dtmp, err))) {
    ok = k_convert(t, dst, ai->etype, src, ai->elements, err);
    ok = ok ? value_dense_commit(&ctx->vc, *out, &dtmp, err) : (value_tmp_free(&dtmp), false);
  }
  value_tmp_free(&stmp);
  if (ok && v->dyn && !value_set_dyn(*out, v->dyn))
    ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (!ok) value_unref(&ctx->vc, *out);
  return ok;
}

/* Whether compute_etype reconciles a float result type that differs from
 * the inferred one (the operands converted to it before the op runs). */
static bool mixed_result_handled(const Instr *in) {
  switch (mix_of[in->op]) {
  case MIX_SELECT: case MIX_FIRST: case MIX_OWN: return true;
  case MIX_ALL:
    /* Not real(c64) or abs(c64): a complex operand is not converted. */
    if (opcode_class(in->op) == OPC_UNARY)
      return in->noperands == 1 && etype_is_float(in->operands[0]->shape.etype);
    return true;
  default: return false;
  }
}

bool eval_mixed_result_unsupported(const Module *m, const Instr *in, Arena *scratch) {
  if (mixed_result_handled(in)) return false;
  /* Only float types may differ: skip the inference for the rest. */
  if (shape_is_array(&in->shape) && !etype_is_float(in->shape.etype)) return false;
  Shape inferred;
  Error err = {0};
  if (!infer_shape_in_module(m, in, scratch, &inferred, &err)) return false;
  /* The verifier let the declared shape differ in float types only. */
  return !infer_shapes_match(&in->shape, &inferred, false) &&
         infer_shapes_match(&in->shape, &inferred, true);
}

bool eval_mixed_before(EvalCtx *ctx, Frame *f, const Instr *in, OperandSwap *sw, Error *err) {
  sw->n = 0;
  for (int k = 0; k < in->noperands; k++) {
    int idx = in->operands[k]->index;
    const Value *v = f->vals[idx];
    EType t = compute_etype(in, k);
    if (!v || !v->info || v->info->etype == t) continue;
    bool done = false;
    for (int i = 0; i < sw->n; i++) done |= sw->idx[i] == idx;
    if (done) continue;
    if (sw->n == EVAL_SWAP_MAX)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "more than %d operands of another precision",
                       EVAL_SWAP_MAX);
    Value *c;
    if (!converted_copy(ctx, v, t, &c, err)) return false;
    sw->idx[sw->n] = idx;
    sw->saved[sw->n++] = f->vals[idx];
    f->vals[idx] = c;
  }
  return true;
}

void eval_restore_operands(EvalCtx *ctx, Frame *f, int n, const int *idx, Value *const *saved) {
  for (int i = 0; i < n; i++) {
    value_unref(&ctx->vc, f->vals[idx[i]]);
    f->vals[idx[i]] = saved[i];
  }
}

void eval_swap_restore(EvalCtx *ctx, Frame *f, OperandSwap *sw) {
  eval_restore_operands(ctx, f, sw->n, sw->idx, sw->saved);
  sw->n = 0;
}

