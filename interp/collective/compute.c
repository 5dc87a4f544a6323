/* The arithmetic of the collectives (interp/collective/compute.h). */
#include "interp/collective/compute.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/collective/groups.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h" /* eval_attr_* */
#include "kernels/kernels.h"

static int64_t elements(const KArray *a) {
  int64_t n = 1;
  for (int k = 0; k < a->rank; k++) n *= a->dims[k];
  return n;
}

/* Row-major blocks around dimension d: outer (dims before d) x dims[d] x
 * inner bytes (dims after d, times the element size). */
static void split_at(const KArray *a, int64_t d, int64_t *outer, size_t *inner) {
  *outer = 1;
  *inner = (size_t)k_elem_size(a->etype);
  for (int k = 0; k < a->rank; k++) {
    if (k < d) *outer *= a->dims[k];
    if (k > d) *inner *= (size_t)a->dims[k];
  }
}

/* Copies `len` indices of dimension d from src (starting at src_off, the
 * dimension being src_d long) to dst (at dst_off of dst_d). */
static void copy_block(void *dst, int64_t dst_d, int64_t dst_off, const void *src, int64_t src_d,
                       int64_t src_off, int64_t len, int64_t outer, size_t inner) {
  if (len == 0 || inner == 0) return;
  for (int64_t o = 0; o < outer; o++)
    memcpy((char *)dst + (size_t)(o * dst_d + dst_off) * inner,
           (const char *)src + (size_t)(o * src_d + src_off) * inner, (size_t)len * inner);
}

static bool expect_elements(const Instr *in, const KArray *out, int64_t want, int i, Error *err) {
  int64_t have = elements(out);
  return have == want ||
         error_set(err, ERR_RUNTIME, in->offset,
                   "result %d has %" PRId64 " elements, the group of this "
                   "device implies %" PRId64,
                   i, have, want);
}

static bool one_dimension(const Instr *in, const KArray *a, int64_t *d, Error *err) {
  const IntList *l = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (!l || l->n != 1)
    return error_set(err, ERR_RUNTIME, in->offset, "needs dimensions={d}");
  *d = l->v[0];
  if (a->rank > 0 && (*d < 0 || *d >= a->rank))
    return error_set(err, ERR_RUNTIME, in->offset, "dimension %" PRId64
                     " out of range", *d);
  return true;
}

static KBinaryOp binary_of(KReduceOp op) {
  switch (op) {
  case K_RED_MUL: return KB_MUL;
  case K_RED_MAX: return KB_MAX;
  case K_RED_MIN: return KB_MIN;
  case K_RED_AND: return KB_AND;
  case K_RED_OR: return KB_OR;
  case K_RED_XOR: return KB_XOR;
  default: return KB_ADD;
  }
}

/* The reducer of all-reduce / reduce-scatter: a known op (tight loops) or
 * the computation evaluated over whole vectors. */
typedef struct Reducer {
  const Computation *comp;
  KReduceOp op;
} Reducer;

static bool is_scalar(const Shape *s) { return shape_is_array(s) && s->rank == 0; }

/* The verifier leaves the reduction computation alone (as XLA's does), so it
 * is checked here.  A known op(p0, p1) runs elementwise in the operand's
 * type whatever shapes its parameters declare (as XLA's GPU and CPU backends
 * match it); any other body must be a scalar reducer of the operand type
 * (floating-point widths may differ, as for reduce). */
static bool reducer_of(const Instr *in, Reducer *r, Error *err) {
  r->comp = eval_attr_comp(in, ATTR_TO_APPLY);
  if (!r->comp)
    return error_set(err, ERR_RUNTIME, in->offset, "needs to_apply");
  if (reducer_recognise(r->comp, 1, &r->op)) return true;
  r->op = K_RED_NONE;
  const Computation *c = r->comp;
  EType t = in->noperands > 0 ? in->operands[0]->shape.etype : ET_INVALID;
  const Instr *p0 = c->nparams == 2 ? c->params[0] : NULL, *p1 = c->nparams == 2 ? c->params[1] : NULL;
  bool same = p1 && (p1->shape.etype == t || (etype_is_float(p1->shape.etype) && etype_is_float(t)));
  if (!c->root || !p0 || !p1 || !is_scalar(&c->root->shape) || !is_scalar(&p0->shape) ||
      !is_scalar(&p1->shape) || p0->shape.etype != c->root->shape.etype || !same)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "to_apply computation %s is not a scalar reducer of the "
                     "operand type (unsupported)",
                     c->name);
  return true;
}

/* out = xs[0] . xs[1] . ... . xs[g-1], left to right in group order. */
static bool fold(EvalCtx *ctx, const Instr *in, const Reducer *r, EType t, int64_t n, int g,
                 const void *const *xs, void *out, Error *err) {
  size_t bytes = (size_t)n * (size_t)k_elem_size(t);
  if (g == 1 || n == 0) {
    if (bytes) memcpy(out, xs[0], bytes);
    return true;
  }
  if (r->op != K_RED_NONE) {
    /* Alternate between out and tmp so that the last step lands in out. */
    void *tmp = g > 2 ? malloc(bytes) : NULL;
    if (g > 2 && !tmp) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    const void *acc = xs[0];
    bool ok = true;
    for (int j = 1; j < g && ok; j++) {
      void *dst = (g - 1 - j) % 2 == 0 ? out : tmp;
      ok = k_binary(binary_of(r->op), t, dst, acc, xs[j], n, err);
      acc = dst;
    }
    free(tmp);
    return ok;
  }
  memcpy(out, xs[0], bytes);
  VecFn vf = {.ctx = ctx, .comp = r->comp, .in = in};
  EType at[2] = {t, t};
  vf.arg_types = at;
  vf.out_types = at;
  bool ok = true;
  for (int j = 1; j < g && ok; j++) {
    void *acc[1] = {out};
    const void *vals[1] = {xs[j]};
    ok = reduce_cb(&vf, 1, acc, vals, n, err);
  }
  vecfn_free(&vf);
  return ok;
}

bool collective_all_reduce(EvalCtx *ctx, const Instr *in, const CollectiveInputs *g, KArray *outs,
                           Error *err) {
  Reducer r;
  if (!reducer_of(in, &r, err)) return false;
  const void *xs[COLLECTIVE_MAX_DEVICES];
  for (int i = 0; i < g->nops; i++) {
    int64_t n = elements(&g->ops[g->me][i]);
    if (!expect_elements(in, &outs[i], n, i, err)) return false;
    for (int j = 0; j < g->n; j++) xs[j] = g->ops[j][i].data;
    if (!fold(ctx, in, &r, g->ops[g->me][i].etype, n, g->n, xs, outs[i].data, err)) return false;
  }
  return true;
}

/* all-reduce, then this device's shard (its group position) of the
 * scatter dimension; only that shard is reduced. */
bool collective_reduce_scatter(EvalCtx *ctx, const Instr *in, const CollectiveInputs *g,
                               KArray *outs, Error *err) {
  Reducer r;
  if (!reducer_of(in, &r, err)) return false;
  const void *xs[COLLECTIVE_MAX_DEVICES];
  for (int i = 0; i < g->nops; i++) {
    const KArray *a = &g->ops[g->me][i];
    int64_t d, n = elements(a);
    if (!one_dimension(in, a, &d, err)) return false;
    if (a->rank == 0) { /* scalars pass through the scatter (infer_collectives.c) */
      for (int j = 0; j < g->n; j++) xs[j] = g->ops[j][i].data;
      if (!expect_elements(in, &outs[i], 1, i, err) ||
          !fold(ctx, in, &r, a->etype, 1, g->n, xs, outs[i].data, err))
        return false;
      continue;
    }
    if (a->dims[d] % g->n != 0)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "dimension %" PRId64 " (%" PRId64
                       ") is not divisible by the group size %d",
                       d, a->dims[d], g->n);
    int64_t chunk = a->dims[d] / g->n, outer;
    size_t inner;
    split_at(a, d, &outer, &inner);
    if (!expect_elements(in, &outs[i], n / g->n, i, err)) return false;
    size_t shard = (size_t)outer * (size_t)chunk * inner;
    char *slices = malloc(shard * (size_t)g->n + 1);
    if (!slices) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int j = 0; j < g->n; j++) {
      copy_block(slices + shard * (size_t)j, chunk, 0, g->ops[j][i].data, a->dims[d],
                 g->me * chunk, chunk, outer, inner);
      xs[j] = slices + shard * (size_t)j;
    }
    bool ok = fold(ctx, in, &r, a->etype, n / g->n, g->n, xs, outs[i].data, err);
    free(slices);
    if (!ok) return false;
  }
  return true;
}

/* The members' operands concatenated along the gather dimension. */
bool collective_all_gather(const Instr *in, const CollectiveInputs *g, KArray *outs, Error *err) {
  for (int i = 0; i < g->nops; i++) {
    const KArray *a = &g->ops[g->me][i];
    int64_t d, n = elements(a);
    if (!one_dimension(in, a, &d, err)) return false;
    if (a->rank == 0) { /* scalars pass through (infer_collectives.c) */
      if (!expect_elements(in, &outs[i], 1, i, err)) return false;
      memcpy(outs[i].data, a->data, (size_t)k_elem_size(a->etype));
      continue;
    }
    if (!expect_elements(in, &outs[i], n * g->n, i, err)) return false;
    int64_t outer, len = a->dims[d];
    size_t inner;
    split_at(a, d, &outer, &inner);
    for (int j = 0; j < g->n; j++)
      copy_block(outs[i].data, len * g->n, len * j, g->ops[j][i].data, len, 0, len, outer,
                 inner);
  }
  return true;
}

/* Array form (dimensions={d}): the operand split into group-size chunks
 * along d, chunk j sent to member j, the received chunks concatenated
 * along d in group order.  Tuple form: operand j sent to member j. */
bool collective_all_to_all(const Instr *in, const CollectiveInputs *g, KArray *outs, Error *err) {
  if (!eval_attr_ints(in, ATTR_DIMENSIONS)) {
    if (g->nops != g->n)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "the tuple form needs one operand per group member "
                       "(%d operands, groups of %d)",
                       g->nops, g->n);
    for (int j = 0; j < g->n; j++) {
      const KArray *src = &g->ops[j][g->me];
      int64_t n = elements(src);
      if (!expect_elements(in, &outs[j], n, j, err)) return false;
      if (n) memcpy(outs[j].data, src->data, (size_t)n * (size_t)k_elem_size(src->etype));
    }
    return true;
  }
  const KArray *a = &g->ops[g->me][0];
  int64_t d;
  if (g->nops != 1)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "the array form (dimensions=) takes one operand");
  if (!one_dimension(in, a, &d, err)) return false;
  if (a->rank == 0 || a->dims[d] % g->n != 0)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "the split dimension is not divisible by the group size %d",
                     g->n);
  if (!expect_elements(in, &outs[0], elements(a), 0, err)) return false;
  int64_t outer, chunk = a->dims[d] / g->n;
  size_t inner;
  split_at(a, d, &outer, &inner);
  for (int j = 0; j < g->n; j++)
    copy_block(outs[0].data, a->dims[d], j * chunk, g->ops[j][0].data, a->dims[d],
               g->me * chunk, chunk, outer, inner);
  return true;
}

/* Every leaf from one device's operands (the permute source, the
 * broadcast root), or zeros when there is no such device. */
bool collective_copy_from(const Instr *in, const KArray *src, const KArray *mine, int nops,
                          KArray *outs, Error *err) {
  for (int i = 0; i < nops; i++) {
    int64_t n = elements(&mine[i]);
    size_t bytes = (size_t)n * (size_t)k_elem_size(mine[i].etype);
    if (!expect_elements(in, &outs[i], n, i, err)) return false;
    if (!bytes) continue;
    if (src) memcpy(outs[i].data, src[i].data, bytes);
    else memset(outs[i].data, 0, bytes);
  }
  return true;
}