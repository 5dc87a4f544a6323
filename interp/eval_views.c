/* Dense operand views and fresh results for kernel-backed ops. */
#include "interp/eval_views.h"

#include <stdlib.h>

bool eval_view(EvalCtx *ctx, EvalViews *vs, const Value *v, const Instr *in, Error *err) {
  if (vs->n >= EVAL_MAX_VIEWS)
    return error_set(err, ERR_RUNTIME, in->offset, "too many operands");
  if (!v->info || !v->buf)
    return error_set(err, ERR_RUNTIME, in->offset, "operand is not an array");
  const void *d;
  DenseTmp tmp;
  if (!value_dense_read(&ctx->vc, v, &d, &tmp, err)) return false;
  KArray *k = &vs->a[vs->n];
  k->etype = v->info->etype;
  k->rank = v->info->rank;
  k->dims = v->info->dims;
  k->data = (void *)d;
  vs->tmp[vs->n++] = tmp;
  return true;
}

bool eval_view_operands(EvalCtx *ctx, Frame *f, const Instr *in, int n, EvalViews *vs,
                        Error *err) {
  for (int i = 0; i < n; i++)
    if (!eval_view(ctx, vs, frame_operand(f, in, i), in, err)) return false;
  return true;
}

void eval_views_free(EvalViews *vs) {
  for (int i = 0; i < vs->n; i++) value_tmp_free(&vs->tmp[i]);
  vs->n = 0;
}

bool eval_outs_new(EvalCtx *ctx, const Instr *in, const Shape *rs, EvalOuts *o, Error *err) {
  o->n = 0;
  int n = shape_is_tuple(rs) ? rs->ntuple : 1;
  if (n > EVAL_MAX_OUTS)
    return error_set(err, ERR_RUNTIME, in->offset, "too many results");
  for (int i = 0; i < n; i++) {
    const Shape *s = shape_is_tuple(rs) ? &rs->tuple[i] : rs;
    if (!shape_is_array(s))
      return error_set(err, ERR_RUNTIME, in->offset, "result %d is not an array",
                       i);
    if (!value_new_array(&ctx->vc, s, false, "", &o->v[i], err)) return false;
    o->n++;
    void *d;
    if (!value_dense_target(&ctx->vc, o->v[i], &d, &o->tmp[i], err)) return false;
    o->a[i].etype = s->etype;
    o->a[i].rank = s->rank;
    o->a[i].dims = s->dims;
    o->a[i].data = d;
  }
  return true;
}

void eval_outs_drop(EvalCtx *ctx, EvalOuts *o) {
  for (int i = 0; i < o->n; i++) {
    value_tmp_free(&o->tmp[i]);
    value_unref(&ctx->vc, o->v[i]);
  }
  o->n = 0;
}

bool eval_outs_finish(EvalCtx *ctx, const Shape *rs, EvalOuts *o, Value **out, Error *err) {
  for (int i = 0; i < o->n; i++) {
    bool ok = value_dense_commit(&ctx->vc, o->v[i], &o->tmp[i], err);
    if (!ok) {
      eval_outs_drop(ctx, o);
      return false;
    }
  }
  if (!shape_is_tuple(rs)) {
    *out = o->v[0];
  } else {
    *out = value_new_tuple(rs, o->n, o->v);
    if (!*out) {
      eval_outs_drop(ctx, o);
      return error_set(err, ERR_RUNTIME, -1, "out of memory");
    }
  }
  o->n = 0;
  return true;
}

bool eval_kernel_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, int nin,
                    EvalKernelFn fn, const void *arg, Value **out, Error *err) {
  if (in->noperands < nin)
    return error_set(err, ERR_RUNTIME, in->offset, "needs %d operands",
                     nin);
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  ok = ok && eval_view_operands(ctx, f, in, nin, &vs, err);
  if (ok) ok = eval_outs_new(ctx, in, rs, &o, err);
  if (ok) ok = fn(in, arg, vs.a, o.a, o.n, err);
  eval_views_free(&vs);
  if (!ok) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  return eval_outs_finish(ctx, rs, &o, out, err);
}

const Computation *eval_attr_comp(const Instr *in, AttrKey key) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_COMPUTATION ? a->v.comp : NULL;
}

const IntList *eval_attr_ints(const Instr *in, AttrKey key) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_INT_LIST ? &a->v.ints : NULL;
}

int64_t eval_attr_int(const Instr *in, AttrKey key, int64_t dflt) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_INT ? a->v.i : dflt;
}

bool eval_attr_bool(const Instr *in, AttrKey key, bool dflt) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_BOOL ? a->v.b : dflt;
}

const char *eval_attr_enum(const Instr *in, AttrKey key, const char *dflt) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_ENUM && a->v.s ? a->v.s : dflt;
}

bool eval_window(const Instr *in, int rank, EvalWindow *w, Error *err) {
  const Attr *wa = ir_attr(in, ATTR_WINDOW);
  const Window *win = wa && wa->kind == AV_WINDOW ? &wa->v.window : NULL;
  if (rank < 0 || rank > SHAPE_MAX_RANK)
    return error_set(err, ERR_RUNTIME, in->offset, "rank %d too large",
                     rank);
  if (win && win->rank != rank)
    return error_set(err, ERR_RUNTIME, in->offset, "window rank %d for rank %d",
                     win->rank, rank);
  for (int k = 0; k < rank; k++) {
    const WindowDim *d = win ? &win->dims[k] : NULL;
    w->size[k] = d ? d->size : 1;
    w->stride[k] = d ? d->stride : 1;
    w->lo[k] = d ? d->pad_lo : 0;
    w->hi[k] = d ? d->pad_hi : 0;
    w->base_dil[k] = d ? d->lhs_dilate : 1;
    w->win_dil[k] = d ? d->rhs_dilate : 1;
    w->reversal[k] = d && d->reversal;
  }
  w->k = (KWindow){rank, w->size, w->stride, w->lo, w->hi, w->base_dil, w->win_dil, w->reversal};
  return true;
}

bool eval_outs_close(EvalCtx *ctx, const Shape *rs, EvalOuts *o, bool ok, Value **out,
                     Error *err) {
  if (!ok) {
    eval_outs_drop(ctx, o);
    return false;
  }
  return eval_outs_finish(ctx, rs, o, out, err);
}
