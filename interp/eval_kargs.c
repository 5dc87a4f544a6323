/* Helpers shared by the compute-op files (eval_compute.c, eval_gather.c,
 * eval_sort.c, ...): dense operand views, result allocation, and scalar
 * computations evaluated over whole vectors (reducers, comparators). */
#include <stdlib.h>
#include <string.h>

#include "interp/eval_kargs.h"

const Computation *attr_comp(const Instr *in, AttrKey key) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_COMPUTATION ? a->v.comp : NULL;
}

const IntList *attr_ints(const Instr *in, AttrKey key) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_INT_LIST ? &a->v.ints : NULL;
}

bool view(EvalCtx *ctx, Views *vs, const Value *v, const Instr *in, Error *err) {
  if (vs->n >= 16)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: too many operands", in->name);
  if (!v->info || !v->buf)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: operand is not an array",
                     in->name);
  const void *d;
  void *tmp;
  if (!value_dense_read(&ctx->vc, v, &d, &tmp, err)) return false;
  KArray *k = &vs->a[vs->n];
  k->etype = v->info->etype;
  k->rank = v->info->rank;
  k->dims = v->info->dims;
  k->data = (void *)d;
  vs->tmp[vs->n++] = tmp;
  return true;
}

void views_free(Views *vs) {
  for (int i = 0; i < vs->n; i++) free(vs->tmp[i]);
  vs->n = 0;
}

bool outs_new(EvalCtx *ctx, const Instr *in, const Shape *rs, Outs *o, Error *err) {
  o->n = 0;
  int n = shape_is_tuple(rs) ? rs->ntuple : 1;
  if (n > 8)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: too many results", in->name);
  char who[300];
  eval_who(in, who, sizeof who);
  for (int i = 0; i < n; i++) {
    const Shape *s = shape_is_tuple(rs) ? &rs->tuple[i] : rs;
    if (!value_new_array(&ctx->vc, s, false, who, &o->v[i], err)) return false;
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

void outs_drop(EvalCtx *ctx, Outs *o) {
  for (int i = 0; i < o->n; i++) {
    free(o->tmp[i]);
    value_unref(&ctx->vc, o->v[i]);
  }
  o->n = 0;
}

bool outs_finish(EvalCtx *ctx, const Shape *rs, Outs *o, Value **out, Error *err) {
  for (int i = 0; i < o->n; i++) {
    bool ok = value_dense_commit(&ctx->vc, o->v[i], o->tmp[i], err);
    o->tmp[i] = NULL;
    if (!ok) {
      outs_drop(ctx, o);
      return false;
    }
  }
  if (!shape_is_tuple(rs)) {
    *out = o->v[0];
  } else {
    *out = value_new_tuple(rs, o->n, o->v);
    if (!*out) {
      outs_drop(ctx, o);
      return error_set(err, ERR_RUNTIME, -1, "out of memory");
    }
  }
  o->n = 0;
  return true;
}

bool outs_close(EvalCtx *ctx, const Shape *rs, Outs *o, bool ok, Value **out, Error *err) {
  if (!ok) {
    outs_drop(ctx, o);
    return false;
  }
  return outs_finish(ctx, rs, o, out, err);
}

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

bool reducer_recognise(const Computation *c, int nvals, KReduceOp *ops) {
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

void vecfn_free(VecFn *f) {
  free(f->ov);
  free(f->pshape);
}

/* Runs f over args (nargs vectors of n elements) and copies result leaf i
 * into outs[i]. */
bool vecfn_call(VecFn *f, int nargs, const void *const *args, int nouts,
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

bool reduce_cb(void *vctx, int nvals, void *const *acc, const void *const *vals, int64_t n,
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
