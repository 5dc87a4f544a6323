/* Ops whose kernels are the compute kernels: dot, reduce, reduce-window,
 * select-and-scatter here (kernels/k_dot.h, kernels/k_reduce.h); convolution
 * (eval_conv.c), fft (eval_fft.c), cholesky, triangular-solve and batch norm
 * (eval_linalg.c) dispatched from eval_compute.
 *
 * Reducer computations are recognised when they are a known reduction
 * (root = add/multiply/maximum/minimum/and/or/xor of the two parameters, or a
 * tuple of those for variadic reduces) and run as tight loops; anything
 * else is evaluated over whole vectors at once (map mode: the scalar program
 * applied to arrays), never by walking the IR once per element. */
#include <stdlib.h>
#include <string.h>

#include "interp/eval_conv.h"
#include "interp/eval_fft.h"
#include "interp/eval_linalg.h"
#include "interp/eval_views.h"
#include "kernels/k_dot.h"
#include "kernels/k_reduce.h"

/* --- reducers --- */

static KReduceOp known_op(Opcode op) {
  switch (op) {
  case OP_ADD: return K_RED_ADD;
  case OP_MULTIPLY: return K_RED_MUL;
  case OP_MAXIMUM: return K_RED_MAX;
  case OP_MINIMUM: return K_RED_MIN;
  case OP_AND: return K_RED_AND;
  case OP_OR: return K_RED_OR;
  case OP_XOR: return K_RED_XOR;
  default: return K_RED_NONE;
  }
}

/* op of instr if it is `op(param a, param b)` in either order. */
static KReduceOp binary_of_params(const Instr *r, int64_t a, int64_t b) {
  KReduceOp k = known_op(r->op);
  if (k == K_RED_NONE || r->noperands != 2) return K_RED_NONE;
  const Instr *x = r->operands[0], *y = r->operands[1];
  if (x->op != OP_PARAMETER || y->op != OP_PARAMETER) return K_RED_NONE;
  if ((x->parameter_number == a && y->parameter_number == b) ||
      (x->parameter_number == b && y->parameter_number == a))
    return k;
  return K_RED_NONE;
}

static bool recognise(const Computation *c, int nvals, KReduceOp *ops) {
  if (c->nparams != 2 * nvals || !c->root) return false;
  const Instr *r = c->root;
  if (nvals == 1) {
    ops[0] = binary_of_params(r, 0, 1);
    return ops[0] != K_RED_NONE;
  }
  if (r->op != OP_TUPLE || r->noperands != nvals) return false;
  for (int i = 0; i < nvals; i++) {
    ops[i] = binary_of_params(r->operands[i], i, nvals + i);
    if (ops[i] == K_RED_NONE) return false;
  }
  return true;
}

/* A scalar computation evaluated over vectors of n elements. */
typedef struct VecFn {
  EvalCtx *ctx;
  const Computation *comp;
  const Instr *in;
  int64_t n;            /* size the override shapes were built for */
  const Shape **ov;     /* per instruction of comp */
  const Shape **pshape; /* per parameter */
} VecFn;

static bool vecfn_prepare(VecFn *f, int64_t n, Error *err) {
  if (f->ov && f->n == n) return true;
  const Computation *c = f->comp;
  if (!f->ov) {
    f->ov = calloc((size_t)(c->ninstrs ? c->ninstrs : 1), sizeof *f->ov);
    f->pshape = calloc((size_t)(c->nparams ? c->nparams : 1), sizeof *f->pshape);
    if (!f->ov || !f->pshape) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  for (int i = 0; i < c->ninstrs; i++) {
    const Instr *ci = c->instrs[i];
    bool ok = ci->op == OP_PARAMETER || ci->op == OP_CONSTANT || ci->op == OP_CONVERT ||
              ci->op == OP_COMPARE || ci->op == OP_SELECT || ci->op == OP_CLAMP ||
              ci->op == OP_TUPLE || opcode_class(ci->op) == OPC_UNARY ||
              opcode_class(ci->op) == OPC_BINARY;
    if (!ok)
      return error_set(err, ERR_RUNTIME, f->in->offset,
                       "instruction %s: computation %s: instruction %s (%s) is not elementwise; "
                       "such reducers are not supported yet",
                       f->in->name, c->name, ci->name, opcode_name(ci->op));
    if (ci->op == OP_TUPLE) {
      if (ci != c->root)
        return error_set(err, ERR_RUNTIME, f->in->offset,
                         "instruction %s: computation %s: tuples only at the root are supported",
                         f->in->name, c->name);
      Shape *t = arena_alloc(f->ctx->vc.arena, sizeof *t);
      if (!t) return error_set(err, ERR_RUNTIME, -1, "out of memory");
      t->etype = ET_TUPLE;
      t->ntuple = ci->noperands;
      t->tuple = arena_alloc_array(f->ctx->vc.arena, (size_t)(ci->noperands ? ci->noperands : 1),
                                   sizeof(Shape));
      if (!t->tuple) return error_set(err, ERR_RUNTIME, -1, "out of memory");
      for (int k = 0; k < ci->noperands; k++) t->tuple[k] = *f->ov[ci->operands[k]->index];
      f->ov[i] = t;
      continue;
    }
    if (!shape_is_array(&ci->shape) || ci->shape.rank != 0)
      return error_set(err, ERR_RUNTIME, f->in->offset,
                       "instruction %s: computation %s must be scalar", f->in->name, c->name);
    f->ov[i] = value_dense_shape(&f->ctx->vc, ci->shape.etype, 1, &n, 0);
    if (!f->ov[i]) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    if (ci->op == OP_PARAMETER && ci->parameter_number >= 0 && ci->parameter_number < c->nparams)
      f->pshape[ci->parameter_number] = f->ov[i];
  }
  for (int p = 0; p < c->nparams; p++)
    if (!f->pshape[p])
      return error_set(err, ERR_RUNTIME, -1, "computation %s: parameter %d missing", c->name, p);
  f->n = n;
  return true;
}

static void vecfn_free(VecFn *f) {
  free(f->ov);
  free(f->pshape);
}

/* Runs f over args (nargs vectors of n elements) and copies result leaf i
 * into outs[i]. */
static bool vecfn_call(VecFn *f, int nargs, const void *const *args, int nouts,
                       void *const *outs, int64_t n, Error *err) {
  if (n <= 0) return true;
  if (!vecfn_prepare(f, n, err)) return false;
  if (nargs != f->comp->nparams)
    return error_set(err, ERR_RUNTIME, -1, "computation %s: takes %d parameters, given %d",
                     f->comp->name, f->comp->nparams, nargs);
  Value *av[32];
  if (nargs > 32) return error_set(err, ERR_RUNTIME, -1, "too many parameters");
  bool ok = true;
  int made = 0;
  for (int i = 0; i < nargs && ok; i++) {
    const ArrayInfo *ai = value_array_info(&f->ctx->vc, f->pshape[i], err);
    if (!ai) {
      ok = false;
      break;
    }
    av[i] = value_wrap_external(f->pshape[i], ai, (void *)args[i]);
    if (!av[i]) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    else made++;
  }
  Value *r = NULL;
  if (ok) {
    f->ctx->vc.uncounted++;
    ok = eval_run(f->ctx, f->comp, av, nargs, f->ov, &r, err);
    f->ctx->vc.uncounted--;
  }
  for (int i = 0; i < made; i++) value_unref(&f->ctx->vc, av[i]);
  if (!ok) return false;
  int nr = r->ntuple ? r->ntuple : 1;
  if (nr != nouts) ok = error_set(err, ERR_RUNTIME, -1, "computation %s: %d results, want %d",
                                  f->comp->name, nr, nouts);
  for (int i = 0; i < nouts && ok; i++) {
    const Value *leaf = r->ntuple ? r->elems[i] : r;
    const void *d;
    void *tmp;
    if (!leaf->info || !value_dense_read(&f->ctx->vc, leaf, &d, &tmp, err)) {
      ok = leaf->info ? false : error_set(err, ERR_RUNTIME, -1, "bad reducer result");
      break;
    }
    memcpy(outs[i], d, (size_t)leaf->info->dense_bytes);
    free(tmp);
  }
  value_unref(&f->ctx->vc, r);
  return ok;
}

static bool reduce_cb(void *vctx, int nvals, void *const *acc, const void *const *vals, int64_t n,
                      Error *err) {
  VecFn *f = vctx;
  const void *args[32];
  if (2 * nvals > 32) return error_set(err, ERR_RUNTIME, -1, "too many reduce operands");
  for (int i = 0; i < nvals; i++) {
    args[i] = acc[i];
    args[nvals + i] = vals[i];
  }
  return vecfn_call(f, 2 * nvals, args, nvals, acc, n, err);
}

static bool select_cb(void *vctx, const void *a, const void *b, uint8_t *out, int64_t n,
                      Error *err) {
  VecFn *f = vctx;
  const void *args[2] = {a, b};
  void *outs[1] = {out};
  return vecfn_call(f, 2, args, 1, outs, n, err);
}

/* --- ops --- */

static bool exec_dot(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  if (in->noperands != 2)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: sparse dot is not supported yet", in->name);
  EvalViews vs = {0};
  EvalOuts o = {0};
  const IntList *lb = eval_attr_ints(in, ATTR_LHS_BATCH_DIMS), *rb = eval_attr_ints(in, ATTR_RHS_BATCH_DIMS);
  const IntList *lc = eval_attr_ints(in, ATTR_LHS_CONTRACTING_DIMS),
                *rc = eval_attr_ints(in, ATTR_RHS_CONTRACTING_DIMS);
  KDotDims dn = {lb ? lb->n : 0, lb ? lb->v : NULL, rb ? rb->v : NULL,
                 lc ? lc->n : 0, lc ? lc->v : NULL, rc ? rc->v : NULL};
  if ((lb ? lb->n : 0) != (rb ? rb->n : 0) || (lc ? lc->n : 0) != (rc ? rc->n : 0))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: lhs and rhs dimension lists differ in length", in->name);
  bool ok = eval_view(ctx, &vs, frame_operand(fr, in, 0), in, err) &&
            eval_view(ctx, &vs, frame_operand(fr, in, 1), in, err) && eval_outs_new(ctx, in, rs, &o, err) &&
            k_dot(&vs.a[0], &vs.a[1], &dn, &o.a[0], err);
  eval_views_free(&vs);
  if (!ok) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  return eval_outs_finish(ctx, rs, &o, out, err);
}

static bool exec_reduce(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                        Error *err, bool window) {
  int nvals = in->noperands / 2;
  if (nvals < 1 || in->noperands != 2 * nvals || nvals > 8)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: expected inputs then inits",
                     in->name);
  const Computation *comp = eval_attr_comp(in, ATTR_TO_APPLY);
  if (!comp)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: needs to_apply", in->name);
  KReduceOp ops[8];
  VecFn vf = {ctx, comp, in, 0, NULL, NULL};
  KReducer red = {NULL, reduce_cb, &vf};
  if (recognise(comp, nvals, ops)) red = (KReducer){ops, NULL, NULL};
  EvalViews vs = {0};
  EvalOuts o = {0};
  const void *inits[8];
  bool ok = true;
  for (int i = 0; i < 2 * nvals && ok; i++) ok = eval_view(ctx, &vs, frame_operand(fr, in, i), in, err);
  for (int i = 0; i < nvals && ok; i++) inits[i] = vs.a[nvals + i].data;
  if (ok) ok = eval_outs_new(ctx, in, rs, &o, err);
  if (ok && o.n != nvals)
    ok = error_set(err, ERR_RUNTIME, in->offset, "instruction %s: %d results for %d inputs",
                   in->name, o.n, nvals);
  if (ok && !window) {
    const IntList *d = eval_attr_ints(in, ATTR_DIMENSIONS);
    ok = k_reduce(nvals, vs.a, inits, d ? d->n : 0, d ? d->v : NULL, &red, o.a, err);
  } else if (ok) {
    EvalWindow w;
    ok = eval_window(in, vs.a[0].rank, &w, err);
    w.k.reversal = NULL;
    if (ok) ok = k_reduce_window(nvals, vs.a, inits, &w.k, &red, o.a, err);
  }
  eval_views_free(&vs);
  vecfn_free(&vf);
  if (!ok) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  return eval_outs_finish(ctx, rs, &o, out, err);
}

static bool exec_select_and_scatter(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                                    Value **out, Error *err) {
  const Computation *sc = eval_attr_comp(in, ATTR_SELECT), *scat = eval_attr_comp(in, ATTR_SCATTER);
  if (!sc || !scat)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: needs select and scatter",
                     in->name);
  VecFn sf = {ctx, sc, in, 0, NULL, NULL}, cf = {ctx, scat, in, 0, NULL, NULL};
  KSelect sel = {K_SEL_NONE, select_cb, &sf};
  const Instr *r = sc->root;
  if (r && r->op == OP_COMPARE && r->noperands == 2 && r->operands[0]->op == OP_PARAMETER &&
      r->operands[1]->op == OP_PARAMETER && r->operands[0]->parameter_number == 0 &&
      r->operands[1]->parameter_number == 1) {
    const Attr *d = ir_attr(r, ATTR_DIRECTION);
    const Attr *t = ir_attr(r, ATTR_TYPE);
    if (d && d->kind == AV_ENUM && (!t || strcmp(t->v.s, "TOTALORDER") != 0)) {
      if (!strcmp(d->v.s, "GE")) sel = (KSelect){K_SEL_GE, NULL, NULL};
      else if (!strcmp(d->v.s, "GT")) sel = (KSelect){K_SEL_GT, NULL, NULL};
      else if (!strcmp(d->v.s, "LE")) sel = (KSelect){K_SEL_LE, NULL, NULL};
      else if (!strcmp(d->v.s, "LT")) sel = (KSelect){K_SEL_LT, NULL, NULL};
    }
  }
  KReduceOp op;
  KReducer red = {NULL, reduce_cb, &cf};
  if (recognise(scat, 1, &op)) red = (KReducer){&op, NULL, NULL};
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = true;
  for (int i = 0; i < 3 && ok; i++) ok = eval_view(ctx, &vs, frame_operand(fr, in, i), in, err);
  if (ok) ok = eval_outs_new(ctx, in, rs, &o, err);
  if (ok) {
    EvalWindow w;
    ok = eval_window(in, vs.a[0].rank, &w, err);
    w.k.base_dilation = w.k.window_dilation = NULL; /* the op has none */
    w.k.reversal = NULL;
    if (ok)
      ok = k_select_and_scatter(&vs.a[0], &sel, &vs.a[1], vs.a[2].data, &w.k, &red, &o.a[0], err);
  }
  eval_views_free(&vs);
  vecfn_free(&sf);
  vecfn_free(&cf);
  if (!ok) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  return eval_outs_finish(ctx, rs, &o, out, err);
}

bool eval_compute(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                  bool *handled, Error *err) {
  *handled = true;
  switch (in->op) {
  case OP_DOT: return exec_dot(ctx, f, in, rs, out, err);
  case OP_REDUCE: return exec_reduce(ctx, f, in, rs, out, err, false);
  case OP_REDUCE_WINDOW: return exec_reduce(ctx, f, in, rs, out, err, true);
  case OP_SELECT_AND_SCATTER: return exec_select_and_scatter(ctx, f, in, rs, out, err);
  case OP_CONVOLUTION: return eval_convolution(ctx, f, in, rs, out, err);
  case OP_FFT: return eval_fft(ctx, f, in, rs, out, err);
  case OP_CHOLESKY: return eval_cholesky(ctx, f, in, rs, out, err);
  case OP_TRIANGULAR_SOLVE: return eval_triangular_solve(ctx, f, in, rs, out, err);
  case OP_BATCH_NORM_TRAINING:
  case OP_BATCH_NORM_INFERENCE:
  case OP_BATCH_NORM_GRAD: return eval_batch_norm(ctx, f, in, rs, out, err);
  default: *handled = false; return false;
  }
}
