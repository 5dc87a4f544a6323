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

bool eval_scalar_result(EvalCtx *ctx, const Shape *rs, int64_t x, Value **out,
                        Error *err) {
  Value *v;
  if (!eval_new_result(ctx, rs, true, &v, err)) return false;
  void *dd;
  DenseTmp dtmp = {NULL};
  if (!value_dense_target(&ctx->vc, v, &dd, &dtmp, err)) {
    value_unref(&ctx->vc, v);
    return false;
  }
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

bool eval_tuple(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                Error *err) {
  (void)ctx;
  *out = eval_operand_tuple(f, in, rs);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

bool eval_get_tuple_element(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                            Value **out, Error *err) {
  Value *t = frame_operand(f, in, 0);
  int64_t idx = eval_attr_int(in, ATTR_INDEX, -1);
  if (idx < 0 || idx >= t->ntuple)
    return error_set(err, ERR_RUNTIME, in->offset, "tuple index out of range");
  return value_coerce(&ctx->vc, t->elems[idx], rs, "", out, err);
}

bool eval_pass_through(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                       Error *err) {
  return value_coerce(&ctx->vc, frame_operand(f, in, 0), rs, "", out, err);
}

bool eval_after_all(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                    Error *err) {
  (void)ctx, (void)f, (void)in;
  *out = value_new_token(rs);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

bool eval_replica_id(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  (void)f, (void)in;
  return eval_scalar_result(ctx, rs, ctx->replica_id, out, err);
}

bool eval_partition_id(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                       Error *err) {
  (void)f, (void)in;
  return eval_scalar_result(ctx, rs, ctx->partition_id, out, err);
}

bool eval_get_dimension_size(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  Value *o = frame_operand(f, in, 0);
  const IntList *d = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (!eval_require_array(in, o, "the operand", err)) return false;
  if (!d || d->n != 1 || d->v[0] < 0 || d->v[0] >= o->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "bad dimension");
  return eval_scalar_result(ctx, rs, value_dim_size(o, (int)d->v[0]), out, err);
}
