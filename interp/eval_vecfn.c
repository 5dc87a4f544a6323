/* Scalar computations (reducers, comparators, scatter combiners) evaluated
 * over whole vectors at once -- not by walking the IR once per element --
 * and recognition of the known reducers that run as tight loops.  Only a
 * body that cannot run over vectors (one with an iota, a broadcast, a slice:
 * array-valued intermediates, which XLA allows) falls back to one run of the
 * general evaluator per element. */
#include <stdlib.h>
#include <string.h>

#include "interp/eval_vecfn.h"
#include "layout/etype_convert.h"

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
  if (nvals == 1 && r->op != OP_TUPLE) {
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

static bool vector_capable(const Instr *ci) {
  bool ok = ci->op == OP_PARAMETER || ci->op == OP_CONSTANT || ci->op == OP_CONVERT ||
            ci->op == OP_COMPARE || ci->op == OP_SELECT || ci->op == OP_CLAMP ||
            ci->op == OP_TUPLE || opcode_class(ci->op) == OPC_UNARY ||
            opcode_class(ci->op) == OPC_BINARY;
  return ok && (ci->op == OP_TUPLE || (shape_is_array(&ci->shape) && ci->shape.rank == 0));
}

/* A body that cannot run over vectors keeps its declared (scalar) parameter
 * shapes and runs once per element (vecfn_call_each). */
static bool prepare_per_element(VecFn *f, Error *err) {
  const Computation *c = f->comp;
  for (int i = 0; i < c->ninstrs; i++) {
    const Instr *ci = c->instrs[i];
    if (ci->op != OP_PARAMETER) continue;
    if (!shape_is_array(&ci->shape) || ci->shape.rank != 0)
      return error_set(err, ERR_RUNTIME, f->in->offset,
                       "computation %s must take scalars", c->name);
    if (ci->parameter_number >= 0 && ci->parameter_number < c->nparams)
      f->pshape[ci->parameter_number] = &ci->shape;
  }
  for (int p = 0; p < c->nparams; p++)
    if (!f->pshape[p])
      return error_set(err, ERR_RUNTIME, -1, "computation %s: parameter %d missing", c->name, p);
  free(f->ov);
  f->ov = NULL; /* per-element mode: pshape without ov */
  return true;
}

static bool per_element(const VecFn *f) { return f->pshape && !f->ov; }

static bool vecfn_prepare(VecFn *f, int64_t n, Error *err) {
  if (per_element(f) || (f->ov && f->n == n)) return true;
  if (!f->ov) f->comp = eval_scalar_body(f->ctx, f->comp);
  const Computation *c = f->comp;
  if (!f->ov) {
    f->ov = calloc((size_t)(c->ninstrs ? c->ninstrs : 1), sizeof *f->ov);
    f->pshape = calloc((size_t)(c->nparams ? c->nparams : 1), sizeof *f->pshape);
    if (!f->ov || !f->pshape) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  for (int i = 0; i < c->ninstrs; i++)
    if (!vector_capable(c->instrs[i])) return prepare_per_element(f, err);
  for (int i = 0; i < c->ninstrs; i++) {
    const Instr *ci = c->instrs[i];
    if (ci->op == OP_TUPLE) {
      if (ci != c->root)
        return error_set(err, ERR_RUNTIME, f->in->offset,
                         "computation %s: tuples only at the root are supported",
                         c->name);
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
                       "computation %s must be scalar", c->name);
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

static EType arg_type(const VecFn *f, int i) {
  return f->arg_types ? f->arg_types[i] : f->pshape[i]->etype;
}

static EType out_type(const VecFn *f, int i) {
  if (f->out_types) return f->out_types[i];
  const Shape *rs = &f->comp->root->shape;
  return shape_is_tuple(rs) ? rs->tuple[i].etype : rs->etype;
}

/* Runs f's body once on args (count elements each, of arg_type) wrapped with
 * its parameter's shape, converted first where the parameter's element type
 * differs; ov are the instruction shapes (NULL: as written).  Copies result
 * leaf i whole into outs[i], converted to out_type. */
static bool run_body(VecFn *f, int nargs, const void *const *args, const Shape *const *ov,
                     int64_t count, int nouts, void *const *outs, Error *err) {
  Value *av[VECFN_MAX_ARGS];
  void *converted[VECFN_MAX_ARGS] = {0};
  bool ok = true;
  int made = 0;
  for (int i = 0; i < nargs && ok; i++) {
    const ArrayInfo *ai = value_array_info(&f->ctx->vc, f->pshape[i], err);
    if (!ai) {
      ok = false;
      break;
    }
    const void *data = args[i];
    EType want = f->pshape[i]->etype;
    if (arg_type(f, i) != want) {
      converted[i] = malloc((size_t)(count * etype_storage_bytes(want)) + 1);
      if (!converted[i]) {
        ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
        break;
      }
      etype_convert_array(want, converted[i], arg_type(f, i), data, count);
      data = converted[i];
    }
    av[i] = value_wrap_external(f->pshape[i], ai, (void *)data);
    if (!av[i]) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    else made++;
  }
  Value *r = NULL;
  if (ok) {
    f->ctx->vc.uncounted++;
    ok = eval_run(f->ctx, f->comp, av, nargs, ov, &r, err);
    f->ctx->vc.uncounted--;
  }
  for (int i = 0; i < made; i++) value_unref(&f->ctx->vc, av[i]);
  for (int i = 0; i < nargs; i++) free(converted[i]);
  if (!ok) return false;
  int nr = r->ntuple ? r->ntuple : 1;
  if (nr != nouts) ok = error_set(err, ERR_RUNTIME, -1, "computation %s: %d results, want %d",
                                  f->comp->name, nr, nouts);
  for (int i = 0; i < nouts && ok; i++) {
    const Value *leaf = r->ntuple ? r->elems[i] : r;
    const void *d;
    DenseTmp tmp;
    if (!leaf->info || !value_dense_read(&f->ctx->vc, leaf, &d, &tmp, err)) {
      ok = leaf->info ? false : error_set(err, ERR_RUNTIME, -1, "bad reducer result");
      break;
    }
    EType lt = leaf->info->shape->etype;
    if (lt == out_type(f, i)) memcpy(outs[i], d, (size_t)leaf->info->dense_bytes);
    else if (etype_is_float(lt) && etype_is_float(out_type(f, i)))
      etype_convert_array(out_type(f, i), outs[i], lt, d, count);
    else
      ok = error_set(err, ERR_RUNTIME, -1, "computation %s: result %d is %s, want %s",
                     f->comp->name, i, etype_name(lt), etype_name(out_type(f, i)));
    value_tmp_free(&tmp);
  }
  value_unref(&f->ctx->vc, r);
  return ok;
}

/* The per-element path: the body run by the general evaluator on element j
 * of every vector (natural storage, etype_storage_bytes apart), its scalar
 * results stored at element j of outs. */
static bool vecfn_call_each(VecFn *f, int nargs, const void *const *args, int nouts,
                            void *const *outs, int64_t n, Error *err) {
  const void *a[VECFN_MAX_ARGS];
  void *o[VECFN_MAX_ARGS];
  if (nouts > VECFN_MAX_ARGS) return error_set(err, ERR_RUNTIME, -1, "too many results");
  for (int64_t j = 0; j < n; j++) {
    for (int i = 0; i < nargs; i++)
      a[i] = (const char *)args[i] + j * etype_storage_bytes(arg_type(f, i));
    for (int i = 0; i < nouts; i++)
      o[i] = (char *)outs[i] + j * etype_storage_bytes(out_type(f, i));
    if (!run_body(f, nargs, a, NULL, 1, nouts, o, err)) return false;
  }
  return true;
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
  if (nargs > VECFN_MAX_ARGS) return error_set(err, ERR_RUNTIME, -1, "too many parameters");
  if (per_element(f)) return vecfn_call_each(f, nargs, args, nouts, outs, n, err);
  return run_body(f, nargs, args, f->ov, n, nouts, outs, err);
}

bool reduce_cb(void *vctx, int nvals, void *const *acc, const void *const *vals, int64_t n,
                      Error *err) {
  VecFn *f = vctx;
  const void *args[VECFN_MAX_ARGS];
  if (2 * nvals > VECFN_MAX_ARGS) return error_set(err, ERR_RUNTIME, -1, "too many reduce operands");
  for (int i = 0; i < nvals; i++) {
    args[i] = acc[i];
    args[nvals + i] = vals[i];
  }
  return vecfn_call(f, 2 * nvals, args, nvals, acc, n, err);
}
