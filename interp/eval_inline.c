/* Flattening of scalar computations for vector evaluation.
 *
 * Reducers, comparators, scatter combiners and map bodies run over whole
 * vectors: every instruction of the scalar computation gets a vector shape
 * (eval_vecfn.c, eval_map in eval_control.c).  That needs each instruction to be
 * elementwise.  Real dumps also wrap parts of such computations in fusions
 * or calls and pass tuples between them -- e.g. a JAX argmin reducer whose
 * select_n is a kLoop fusion returning (s32[], f32[]).  Those are still
 * elementwise once the callee bodies are inlined and each
 * get-tuple-element is resolved to the tuple operand it names, which this
 * file does once per run; the only tuple left is the root's. */
#include "interp/eval_inline.h"

#include <string.h>

/* What an instruction of the computation being inlined stands for: one
 * instruction of the flat computation, or a tuple of those. */
typedef struct Ref {
  Instr *leaf; /* NULL for a tuple */
  int ntuple;
  struct Ref *elems;
} Ref;

typedef struct Flat {
  Arena *arena;
  Computation *comp;
  Instr **instrs;
  int n, cap;
} Flat;

enum { INLINE_MAX_DEPTH = 32 };

static bool push(Flat *fl, Instr *in) {
  if (fl->n == fl->cap) {
    int cap = fl->cap ? 2 * fl->cap : 16;
    Instr **v = arena_alloc_array(fl->arena, (size_t)cap, sizeof *v);
    if (!v) return false;
    if (fl->n) memcpy(v, fl->instrs, sizeof *v * (size_t)fl->n);
    fl->instrs = v;
    fl->cap = cap;
  }
  in->index = fl->n;
  in->parent = fl->comp;
  fl->instrs[fl->n++] = in;
  return true;
}

/* A copy of src in the flat computation, reading `ops` (which must all be
 * single instructions). */
static Instr *clone(Flat *fl, const Instr *src, const Ref *ops) {
  Instr *c = arena_alloc(fl->arena, sizeof *c);
  if (!c) return NULL;
  *c = *src;
  c->is_root = false;
  c->operands = NULL;
  if (src->noperands) {
    c->operands = arena_alloc_array(fl->arena, (size_t)src->noperands, sizeof *c->operands);
    if (!c->operands) return NULL;
    for (int k = 0; k < src->noperands; k++) {
      if (!ops[k].leaf) return NULL; /* a tuple fed to an array op */
      c->operands[k] = ops[k].leaf;
    }
  }
  return push(fl, c) ? c : NULL;
}

static const Computation *callee(const Instr *in) {
  const Attr *a = ir_attr(in, in->op == OP_FUSION ? ATTR_CALLS : ATTR_TO_APPLY);
  return a && a->kind == AV_COMPUTATION ? a->v.comp : NULL;
}

/* Inlines c with its parameters bound to args (top level: args == NULL, the
 * parameters are the flat computation's own); *result is its root's Ref. */
static bool inline_into(Flat *fl, const Computation *c, const Ref *args, int depth, Ref *result) {
  if (depth > INLINE_MAX_DEPTH || !c->root) return false;
  Ref *refs = arena_alloc_array(fl->arena, (size_t)(c->ninstrs ? c->ninstrs : 1), sizeof *refs);
  if (!refs) return false;
  for (int i = 0; i < c->ninstrs; i++) {
    const Instr *in = c->instrs[i];
    Ref *ops = arena_alloc_array(fl->arena, (size_t)(in->noperands ? in->noperands : 1),
                                 sizeof *ops);
    if (!ops) return false;
    for (int k = 0; k < in->noperands; k++) {
      const Instr *o = in->operands[k];
      if (o->parent != c || o->index >= i) return false;
      ops[k] = refs[o->index];
    }
    Ref *r = &refs[i];
    memset(r, 0, sizeof *r);
    switch (in->op) {
    case OP_PARAMETER:
      if (in->parameter_number < 0 || in->parameter_number >= c->nparams) return false;
      if (args) *r = args[in->parameter_number];
      else if (!(r->leaf = clone(fl, in, NULL))) return false;
      break;
    case OP_TUPLE:
      r->ntuple = in->noperands;
      r->elems = ops;
      break;
    case OP_GET_TUPLE_ELEMENT: {
      const Attr *a = ir_attr(in, ATTR_INDEX);
      if (ops[0].leaf || !a || a->kind != AV_INT || a->v.i < 0 || a->v.i >= ops[0].ntuple)
        return false;
      *r = ops[0].elems[a->v.i];
      break;
    }
    case OP_FUSION:
    case OP_CALL: {
      const Computation *body = callee(in);
      if (!body || body->nparams != in->noperands || !inline_into(fl, body, ops, depth + 1, r))
        return false;
      break;
    }
    default:
      if (!shape_is_array(&in->shape) || in->shape.rank != 0) return false;
      if (!(r->leaf = clone(fl, in, ops))) return false;
    }
  }
  *result = refs[c->root->index];
  return true;
}

/* Worth flattening: scalar-only, with something to inline or resolve. */
static bool wants_flattening(const Computation *c) {
  bool any = false;
  for (int i = 0; i < c->ninstrs; i++) {
    const Instr *in = c->instrs[i];
    if (shape_is_array(&in->shape) && in->shape.rank != 0) return false;
    any = any || in->op == OP_FUSION || in->op == OP_CALL || in->op == OP_GET_TUPLE_ELEMENT ||
          (in->op == OP_TUPLE && in != c->root);
  }
  return any;
}

Computation *eval_flatten_scalar(Arena *arena, const Computation *c) {
  if (!wants_flattening(c)) return NULL;
  Computation *flat = arena_alloc(arena, sizeof *flat);
  if (!flat) return NULL;
  *flat = *c;
  flat->params = arena_alloc_array(arena, (size_t)(c->nparams ? c->nparams : 1),
                                   sizeof *flat->params);
  if (!flat->params) return NULL;
  memset(flat->params, 0, sizeof *flat->params * (size_t)(c->nparams ? c->nparams : 1));
  Flat fl = {arena, flat, NULL, 0, 0};
  Ref root;
  if (!inline_into(&fl, c, NULL, 0, &root)) return NULL;
  for (int i = 0; i < fl.n; i++)
    if (fl.instrs[i]->op == OP_PARAMETER) flat->params[fl.instrs[i]->parameter_number] = fl.instrs[i];
  Instr *r = root.leaf;
  if (!r) {
    /* The root tuple, rebuilt over single instructions (a nested tuple has
     * no vector form). */
    Instr *t = arena_alloc(arena, sizeof *t);
    Ref *ops = root.elems;
    if (!t) return NULL;
    *t = *c->root;
    t->op = OP_TUPLE;
    t->noperands = root.ntuple;
    t->nattrs = 0;
    t->attrs = NULL;
    t->shape.etype = ET_TUPLE;
    t->shape.ntuple = root.ntuple;
    t->shape.tuple = arena_alloc_array(arena, (size_t)(root.ntuple ? root.ntuple : 1),
                                       sizeof(Shape));
    t->operands = arena_alloc_array(arena, (size_t)(root.ntuple ? root.ntuple : 1),
                                    sizeof *t->operands);
    if (!t->shape.tuple || !t->operands) return NULL;
    for (int k = 0; k < root.ntuple; k++) {
      if (!ops[k].leaf) return NULL;
      t->operands[k] = ops[k].leaf;
      t->shape.tuple[k] = ops[k].leaf->shape;
    }
    if (!push(&fl, t)) return NULL;
    r = t;
  }
  r->is_root = true;
  flat->root = r;
  flat->instrs = fl.instrs;
  flat->ninstrs = fl.n;
  return flat;
}
