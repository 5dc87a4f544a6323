/* The evaluators of ops that make or hand on values without computing:
 * parameter, constant, tuple, get-tuple-element, the pass-through ops
 * (opt-barrier, domain, add-dependency), after-all, replica-id,
 * partition-id, get-dimension-size; and the small helpers every evaluator
 * file shares (eval_internal.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "interp/eval_internal.h"
#include "interp/eval_ops.h"
#include "interp/eval_views.h"
#include "kernels/k_movement.h"
#include "layout/etype_convert.h"

/* --- helpers --- */

bool eval_new_result(EvalCtx *ctx, const Shape *rs, bool zero, Value **out,
                     Error *err) {
  return value_new_array(&ctx->vc, rs, zero, "", out, err);
}

bool eval_require_array(const Instr *in, const Value *v, const char *what, Error *err) {
  if (!v || !v->info || !v->buf)
    return error_set(err, ERR_RUNTIME, in->offset, "%s is not an array",
                     what);
  return true;
}

/* Reads a scalar integer (any int type or pred) from an array value. */
bool eval_read_scalar_i64(EvalCtx *ctx, const Instr *in, const Value *v, int64_t index,
                          int64_t *out, Error *err) {
  if (!eval_require_array(in, v, "an index operand", err)) return false;
  EType t = v->info->etype;
  if (!etype_is_int(t) && t != ET_PRED)
    return error_set(err, ERR_RUNTIME, in->offset, "index of type %s is not an integer", etype_name(t));
  const void *d;
  DenseTmp tmp;
  if (!value_dense_read(&ctx->vc, v, &d, &tmp, err)) return false;
  int64_t x = etype_load_i64(t, (const char *)d + index * v->info->esize);
  /* u64 comes back as bits; clamp huge unsigned values to INT64_MAX. */
  if (t == ET_U64 && x < 0) x = INT64_MAX;
  *out = x;
  value_tmp_free(&tmp);
  return true;
}

bool eval_new_target(EvalCtx *ctx, const Shape *rs, bool zero, Value **v, void **dd,
                     DenseTmp *dtmp, Error *err) {
  if (!eval_new_result(ctx, rs, zero, v, err)) return false;
  if (value_dense_target(&ctx->vc, *v, dd, dtmp, err)) return true;
  value_tmp_free(dtmp);
  value_unref(&ctx->vc, *v);
  return false;
}

bool eval_scalar_result(EvalCtx *ctx, const Shape *rs, int64_t x, Value **out,
                        Error *err) {
  Value *v;
  void *dd;
  DenseTmp dtmp = {NULL};
  if (!eval_new_target(ctx, rs, true, &v, &dd, &dtmp, err)) return false;
  etype_convert_array(rs->etype, dd, ET_S64, &x, 1);
  if (!value_dense_commit(&ctx->vc, v, &dtmp, err)) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}


/* --- ops --- */

static bool value_from_literal(EvalCtx *ctx, const Instr *in, const Literal *lit, const Shape *s,
                               Value **out, Error *err) {
  if (shape_is_tuple(s)) {
    int n = s->ntuple;
    Value **el = calloc((size_t)(n ? n : 1), sizeof *el);
    if (!el) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int i = 0; i < n; i++) {
      const Literal *li = lit && i < lit->ntuple ? &lit->tuple[i] : NULL;
      if (!value_from_literal(ctx, in, li, &s->tuple[i], &el[i], err)) {
        for (int j = 0; j < i; j++) value_unref(&ctx->vc, el[j]);
        free(el);
        return false;
      }
    }
    *out = value_new_tuple(s, n, el);
    free(el);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (s->etype == ET_TOKEN) {
    *out = value_new_token(s);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  const ArrayInfo *ai = value_array_info(&ctx->vc, s, err);
  if (!ai) return false;
  if (!lit || !lit->data || lit->nbytes < ai->dense_bytes) {
    /* Elided ({...}) or missing contents: zeros (XLA fills garbage). */
    return value_new_array(&ctx->vc, s, true, "", out, err);
  }
  return value_from_dense(&ctx->vc, s, lit->data, "", out, err);
}

/* Op: constant
 * Operands: none
 * Attributes: the literal (written in the parentheses)
 *
 * The literal as an array (or tuple) of the declared shape, made once per run
 * and shared by every execution. An elided literal ({...}) reads as zeros.
 *
 * Rule: XLA operation semantics, ConstantLiteral.
 * Refuses: nothing the verifier accepts (out of memory aside).
 */
bool eval_constant(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                   Error *err) {
  CompPlan *p = (CompPlan *)f->plan;
  if (!p->consts[in->index]) {
    int saved = ctx->vc.uncounted;
    ctx->vc.uncounted = 0; /* constants live in their space for the whole run */
    bool ok = value_from_literal(ctx, in, in->literal, &in->shape, &p->consts[in->index], err);
    ctx->vc.uncounted = saved;
    if (!ok) return false;
  }
  Value *c = p->consts[in->index];
  if (rs == &in->shape || !shape_is_array(rs) || rs->rank == 0) {
    *out = value_ref(c);
    return true;
  }
  /* Map mode: the scalar constant broadcast to the mapped dims. */
  Dense d;
  if (!eval_dense_in(ctx, c, &d, err)) return false;
  Value *v;
  if (!eval_new_result(ctx, rs, false, &v, err)) {
    value_tmp_free(&d.tmp);
    return false;
  }
  k_fill(v->buf->data, v->info->elements, d.data, (size_t)v->info->esize);
  value_tmp_free(&d.tmp);
  *out = v;
  return true;
}


/* Op: parameter
 * Operands: none
 * Attributes: parameter_number (written in the parentheses)
 *
 * The computation's argument number N, as the caller passed it: the entry's
 * inputs (--inputs, --random-inputs) or a called computation's operands. An
 * argument whose layout or memory space differs from the declared shape is
 * converted to it.
 *
 * Rule: XLA operation semantics, Parameter.
 * Refuses: an argument that is missing or does not fit the declared shape (a
 *   bad binding).
 */
bool eval_parameter(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                    Error *err) {
  int64_t n = in->parameter_number;
  if (n < 0 || n >= f->nargs || !f->args[n])
    return error_set(err, ERR_RUNTIME, in->offset, "parameter %" PRId64 " (%s) is not bound",
                     n, in->name);
  if (value_coerce_is_identity(f->args[n], rs)) { /* the usual case: no name to format */
    if (f->take_args) {
      *out = f->args[n];
      ((Value **)f->args)[n] = NULL; /* the frame's own array (eval_run_taking) */
    } else {
      *out = value_ref(f->args[n]);
    }
    return true;
  }
  char who[300];
  snprintf(who, sizeof who, "parameter %" PRId64 " (%s)", n, in->name);
  return value_coerce(&ctx->vc, f->args[n], rs, who, out, err);
}

/* Op: tuple
 * Operands: any number of values
 * Attributes: none
 *
 * A tuple of its operands, by reference: nothing is copied.
 *
 * Rule: XLA operation semantics, Tuple.
 * Refuses: nothing the verifier accepts.
 */
bool eval_tuple(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                Error *err) {
  (void)ctx;
  *out = eval_operand_tuple(f, in, rs);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

/* Op: get-tuple-element
 * Operands: a tuple
 * Attributes: index
 *
 * Element `index` of the tuple, by reference (converted only when the declared
 * layout differs).
 *
 * Rule: XLA operation semantics, GetTupleElement.
 * Refuses: an index past the tuple value it is given.
 */
bool eval_get_tuple_element(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                            Value **out, Error *err) {
  Value *t = frame_operand(f, in, 0);
  int64_t idx = eval_attr_int(in, ATTR_INDEX, -1);
  if (idx < 0 || idx >= t->ntuple)
    return error_set(err, ERR_RUNTIME, in->offset, "tuple index out of range");
  return value_coerce(&ctx->vc, t->elems[idx], rs, "", out, err);
}

/* Op: opt-barrier, domain, add-dependency
 * Operands: the value (add-dependency: the value and a token)
 * Attributes: domain: entry_metadata, exit_metadata (domain)
 *
 * The operand itself, unchanged: these ops only constrain how a compiler may
 * reorder or partition the program, which an interpreter running in text order
 * already respects.
 *
 * Rule: XLA operation semantics, OptimizationBarrier; HloDomainInstruction;
 *   AddDependency.
 * Refuses: nothing the verifier accepts.
 */
bool eval_pass_through(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                       Error *err) {
  return value_coerce(&ctx->vc, frame_operand(f, in, 0), rs, "", out, err);
}

/* Op: after-all
 * Operands: any number of tokens
 * Attributes: none
 *
 * A fresh token: it orders side-effecting ops, and here everything already
 * runs in order.
 *
 * Rule: XLA operation semantics, AfterAll.
 * Refuses: nothing the verifier accepts.
 */
bool eval_after_all(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                    Error *err) {
  (void)ctx, (void)f, (void)in;
  *out = value_new_token(rs);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

/* Op: replica-id
 * Operands: none
 * Attributes: none
 *
 * The running device's replica number as a u32 scalar (0 in a single-device
 * run; --replicas sets the count).
 *
 * Rule: XLA operation semantics, ReplicaId.
 * Refuses: nothing the verifier accepts.
 */
bool eval_replica_id(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  (void)f, (void)in;
  return eval_scalar_result(ctx, rs, ctx->replica_id, out, err);
}

/* Op: partition-id
 * Operands: none
 * Attributes: none
 *
 * The running device's partition number as a u32 scalar (0 in a single-device
 * run; --partitions sets the count).
 *
 * Rule: HloInstruction kPartitionId (as replica-id, over partitions).
 * Refuses: nothing the verifier accepts.
 */
bool eval_partition_id(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                       Error *err) {
  (void)f, (void)in;
  return eval_scalar_result(ctx, rs, ctx->partition_id, out, err);
}

/* Op: get-dimension-size
 * Operands: an array
 * Attributes: dimensions (one dimension)
 *
 * The size of one dimension as an s32 scalar: the runtime size of a dynamic
 * (<=N) dimension, the static size otherwise.
 *
 * Rule: XLA operation semantics, GetDimensionSize.
 * Refuses: nothing the verifier accepts.
 */
bool eval_get_dimension_size(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  Value *o = frame_operand(f, in, 0);
  const IntList *d = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (!eval_require_array(in, o, "the operand", err)) return false;
  if (!d || d->n != 1 || d->v[0] < 0 || d->v[0] >= o->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad dimension");
  return eval_scalar_result(ctx, rs, value_dim_size(o, (int)d->v[0]), out, err);
}
