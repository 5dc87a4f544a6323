/* Collectives over one device or many (interp/eval_collective.h). */
#include "interp/eval_collective.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/collective_groups.h"
#include "interp/eval_vecfn.h"
#include "interp/eval_views.h" /* eval_attr_* */
#include "interp/rendezvous.h"
#include "kernels/kernels.h"

/* --- a group of one (single-device runs; unchanged behaviour) --- */

static bool single_device(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                          Value **out, Error *err) {
  char who[300];
  eval_who(in, who, sizeof who);
  if (in->op == OP_COLLECTIVE_PERMUTE || in->op == OP_COLLECTIVE_PERMUTE_START) {
    /* Receives from the source whose target is us (0), else zeros. */
    const Attr *a = ir_attr(in, ATTR_SOURCE_TARGET_PAIRS);
    bool self = false;
    if (a && a->kind == AV_INT_LISTS && a->v.lists.depth == 2)
      for (int i = 0; i < a->v.lists.n; i++)
        if (a->v.lists.lists[i].n == 2 && a->v.lists.lists[i].v[0] == ctx->replica_id &&
            a->v.lists.lists[i].v[1] == ctx->replica_id)
          self = true;
    if (in->noperands != 1) return eval_unsupported(in, err);
    const Shape *res = in->op == OP_COLLECTIVE_PERMUTE ? rs
                       : (shape_is_tuple(rs) && rs->ntuple >= 2) ? &rs->tuple[1] : rs;
    Value *r;
    bool ok = self ? eval_copy_to(ctx, in, frame_operand(f, in, 0), res, &r, err)
                   : eval_zero_value(ctx, in, res, &r, err);
    if (!ok) return false;
    if (res == rs) {
      *out = r;
      return true;
    }
    Value *first[2] = {value_ref(frame_operand(f, in, 0)), r};
    return eval_state_tuple(ctx, in, rs, first, 2, out, err);
  }
  /* all-reduce, all-gather, all-to-all, reduce-scatter, collective-broadcast
   * over a group of one are copies of their operand(s). */
  Value *src;
  bool own = false;
  if (in->noperands == 1) {
    src = frame_operand(f, in, 0);
  } else {
    src = eval_operand_tuple(f, in, rs);
    if (!src) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    own = true;
  }
  const Shape *res = rs;
  /* all-gather-start, and all-reduce-start in its (operand, result) pair form
   * (accepted by XLA's parser, see infer_collectives.c), return the pair. */
  bool start_tuple = (in->op == OP_ALL_GATHER_START || in->op == OP_ALL_REDUCE_START) &&
                     in->noperands == 1 && shape_is_tuple(rs) && rs->ntuple == 2 &&
                     !shape_is_tuple(&src->shape[0]);
  if (start_tuple) res = &rs->tuple[1];
  if (!eval_same_element_counts(src, res)) {
    if (own) value_unref(&ctx->vc, src);
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: %s: its shapes imply more than one device, but this "
                     "run has one (see --replicas / --partitions)",
                     in->name, opcode_name(in->op));
  }
  Value *r;
  bool ok = eval_copy_to(ctx, in, src, res, &r, err);
  if (!ok) {
    if (own) value_unref(&ctx->vc, src);
    return false;
  }
  if (start_tuple) {
    Value *first[2] = {own ? src : value_ref(src), r};
    return eval_state_tuple(ctx, in, rs, first, 2, out, err);
  }
  if (own) value_unref(&ctx->vc, src);
  *out = r;
  return true;
}

/* --- several devices --- */

/* Where the collective's result proper sits in the instruction's shape. */
typedef struct Form {
  const Shape *res;
  enum { FORM_PLAIN, FORM_PAIR, FORM_PERMUTE_START } kind;
} Form;

static void result_form(const Instr *in, const Shape *rs, Form *fm) {
  fm->res = rs;
  fm->kind = FORM_PLAIN;
  int n = in->noperands;
  bool two = shape_is_tuple(rs) && rs->ntuple == 2;
  switch (in->op) {
  case OP_ALL_GATHER_START:
  case OP_ALL_REDUCE_START:
    /* (operands, results), or the bare results (see infer_collectives.c). */
    if (two && (n == 1 ? !shape_is_tuple(&rs->tuple[1])
                       : shape_is_tuple(&rs->tuple[0]) && rs->tuple[0].ntuple == n)) {
      fm->res = &rs->tuple[1];
      fm->kind = FORM_PAIR;
    }
    break;
  case OP_COLLECTIVE_PERMUTE_START:
    if (shape_is_tuple(rs) && rs->ntuple >= 2 && (n > 1 || !shape_is_tuple(&rs->tuple[1]))) {
      fm->res = &rs->tuple[1];
      fm->kind = FORM_PERMUTE_START;
    }
    break;
  default: break;
  }
}

/* Dense views of a collective's operands, any number of them: what a
 * device publishes at the rendezvous. */
typedef struct Views {
  int n;
  KArray *a;
  void **tmp; /* converted copies (non-default layouts), freed on close */
} Views;

static void views_close(Views *v) {
  for (int i = 0; i < v->n; i++) free(v->tmp[i]);
  free(v->a);
  free(v->tmp);
  v->n = 0;
}

static bool views_open(EvalCtx *ctx, Frame *f, const Instr *in, Views *v, Error *err) {
  int n = in->noperands;
  v->n = 0;
  v->a = calloc((size_t)(n ? n : 1), sizeof *v->a);
  v->tmp = calloc((size_t)(n ? n : 1), sizeof *v->tmp);
  if (!v->a || !v->tmp) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  for (int i = 0; i < n; i++) {
    const Value *x = frame_operand(f, in, i);
    if (!x->info || !x->buf)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: operand %d is not an array",
                       in->name, i);
    const void *d;
    if (!value_dense_read(&ctx->vc, x, &d, &v->tmp[i], err)) return false;
    v->a[i] = (KArray){x->info->etype, x->info->rank, x->info->dims, (void *)d};
    v->n++;
  }
  return true;
}

/* Fresh results, one per array leaf of res, each with a dense target. */
typedef struct Outs {
  int n;
  Value **v;
  void **tmp;
  KArray *a;
} Outs;

static void outs_drop(EvalCtx *ctx, Outs *o) {
  for (int i = 0; i < o->n; i++) {
    free(o->tmp[i]);
    value_unref(&ctx->vc, o->v[i]);
  }
  free(o->v);
  free(o->tmp);
  free(o->a);
  o->n = 0;
}

static bool outs_open(EvalCtx *ctx, const Instr *in, const Shape *res, Outs *o, Error *err) {
  int n = shape_is_tuple(res) ? res->ntuple : 1;
  o->n = 0;
  o->v = calloc((size_t)(n ? n : 1), sizeof *o->v);
  o->tmp = calloc((size_t)(n ? n : 1), sizeof *o->tmp);
  o->a = calloc((size_t)(n ? n : 1), sizeof *o->a);
  if (!o->v || !o->tmp || !o->a) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  char who[300];
  eval_who(in, who, sizeof who);
  for (int i = 0; i < n; i++) {
    const Shape *s = shape_is_tuple(res) ? &res->tuple[i] : res;
    if (!value_shape_has_data(s))
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: result %d is not an array",
                       in->name, i);
    if (!value_new_array(&ctx->vc, s, false, who, &o->v[i], err)) return false;
    o->n++;
    void *d;
    if (!value_dense_target(&ctx->vc, o->v[i], &d, &o->tmp[i], err)) return false;
    o->a[i] = (KArray){s->etype, s->rank, s->dims, d};
  }
  return true;
}

/* Commits the dense targets and builds the result (a tuple when res is
 * one); on !ok drops everything. */
static bool outs_close(EvalCtx *ctx, const Shape *res, Outs *o, bool ok, Value **out,
                       Error *err) {
  for (int i = 0; ok && i < o->n; i++) {
    ok = value_dense_commit(&ctx->vc, o->v[i], o->tmp[i], err);
    o->tmp[i] = NULL;
  }
  if (ok && !shape_is_tuple(res)) {
    *out = o->v[0];
  } else if (ok) {
    *out = value_new_tuple(res, o->n, o->v);
    if (!*out) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (!ok) {
    outs_drop(ctx, o);
    return false;
  }
  o->n = 0; /* the values now belong to *out */
  outs_drop(ctx, o);
  return true;
}

/* The devices of this device's group and what each published. */
typedef struct Group {
  int n, me;
  int64_t members[COLLECTIVE_MAX_DEVICES];
  const Views *views[COLLECTIVE_MAX_DEVICES];
} Group;

static bool same_views(const Instr *in, const Views *a, const Views *b, int64_t dev,
                       Error *err) {
  bool same = a->n == b->n;
  for (int i = 0; same && i < a->n; i++) {
    same = a->a[i].etype == b->a[i].etype && a->a[i].rank == b->a[i].rank;
    for (int k = 0; same && k < a->a[i].rank; k++) same = a->a[i].dims[k] == b->a[i].dims[k];
  }
  return same || error_set(err, ERR_RUNTIME, in->offset,
                           "instruction %s: the operands of device %" PRId64
                           " differ in shape from this device's",
                           in->name, dev);
}

static const Views *views_of(const EvalCtx *ctx, int64_t dev) {
  return rdv_payload(ctx->rendezvous, (int)dev);
}

static bool group_of(const EvalCtx *ctx, const Instr *in, const Views *mine, Group *g,
                     Error *err) {
  if (!collective_group(in, ctx->num_replicas, ctx->num_partitions, ctx->device_id, g->members,
                        &g->n, &g->me, err))
    return false;
  for (int j = 0; j < g->n; j++) {
    g->views[j] = views_of(ctx, g->members[j]);
    if (!same_views(in, mine, g->views[j], g->members[j], err)) return false;
  }
  return true;
}

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
                   "instruction %s: result %d has %" PRId64 " elements, the group of this "
                   "device implies %" PRId64,
                   in->name, i, have, want);
}

static bool one_dimension(const Instr *in, const KArray *a, int64_t *d, Error *err) {
  const IntList *l = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (!l || l->n != 1)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: needs dimensions={d}",
                     in->name);
  *d = l->v[0];
  if (a->rank > 0 && (*d < 0 || *d >= a->rank))
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: dimension %" PRId64
                     " out of range", in->name, *d);
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

static bool reducer_of(const Instr *in, Reducer *r, Error *err) {
  r->comp = eval_attr_comp(in, ATTR_TO_APPLY);
  if (!r->comp)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: needs to_apply", in->name);
  if (!reducer_recognise(r->comp, 1, &r->op)) r->op = K_RED_NONE;
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
  VecFn vf = {ctx, r->comp, in, 0, NULL, NULL};
  bool ok = true;
  for (int j = 1; j < g && ok; j++) {
    void *acc[1] = {out};
    const void *vals[1] = {xs[j]};
    ok = reduce_cb(&vf, 1, acc, vals, n, err);
  }
  vecfn_free(&vf);
  return ok;
}

static bool all_reduce(EvalCtx *ctx, const Instr *in, const Group *g, const Views *mine,
                       KArray *outs, Error *err) {
  Reducer r;
  if (!reducer_of(in, &r, err)) return false;
  const void *xs[COLLECTIVE_MAX_DEVICES];
  for (int i = 0; i < mine->n; i++) {
    int64_t n = elements(&mine->a[i]);
    if (!expect_elements(in, &outs[i], n, i, err)) return false;
    for (int j = 0; j < g->n; j++) xs[j] = g->views[j]->a[i].data;
    if (!fold(ctx, in, &r, mine->a[i].etype, n, g->n, xs, outs[i].data, err)) return false;
  }
  return true;
}

/* all-reduce, then this device's shard (its group position) of the
 * scatter dimension; only that shard is reduced. */
static bool reduce_scatter(EvalCtx *ctx, const Instr *in, const Group *g, const Views *mine,
                           KArray *outs, Error *err) {
  Reducer r;
  if (!reducer_of(in, &r, err)) return false;
  const void *xs[COLLECTIVE_MAX_DEVICES];
  for (int i = 0; i < mine->n; i++) {
    const KArray *a = &mine->a[i];
    int64_t d, n = elements(a);
    if (!one_dimension(in, a, &d, err)) return false;
    if (a->rank == 0) { /* scalars pass through the scatter (infer_collectives.c) */
      for (int j = 0; j < g->n; j++) xs[j] = g->views[j]->a[i].data;
      if (!expect_elements(in, &outs[i], 1, i, err) ||
          !fold(ctx, in, &r, a->etype, 1, g->n, xs, outs[i].data, err))
        return false;
      continue;
    }
    if (a->dims[d] % g->n != 0)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: dimension %" PRId64 " (%" PRId64
                       ") is not divisible by the group size %d",
                       in->name, d, a->dims[d], g->n);
    int64_t chunk = a->dims[d] / g->n, outer;
    size_t inner;
    split_at(a, d, &outer, &inner);
    if (!expect_elements(in, &outs[i], n / g->n, i, err)) return false;
    size_t shard = (size_t)outer * (size_t)chunk * inner;
    char *slices = malloc(shard * (size_t)g->n + 1);
    if (!slices) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int j = 0; j < g->n; j++) {
      copy_block(slices + shard * (size_t)j, chunk, 0, g->views[j]->a[i].data, a->dims[d],
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
static bool all_gather(const Instr *in, const Group *g, const Views *mine, KArray *outs,
                       Error *err) {
  for (int i = 0; i < mine->n; i++) {
    const KArray *a = &mine->a[i];
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
      copy_block(outs[i].data, len * g->n, len * j, g->views[j]->a[i].data, len, 0, len, outer,
                 inner);
  }
  return true;
}

/* Array form (dimensions={d}): the operand split into group-size chunks
 * along d, chunk j sent to member j, the received chunks concatenated
 * along d in group order.  Tuple form: operand j sent to member j. */
static bool all_to_all(const Instr *in, const Group *g, const Views *mine, KArray *outs,
                       Error *err) {
  if (!eval_attr_ints(in, ATTR_DIMENSIONS)) {
    if (mine->n != g->n)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: the tuple form needs one operand per group member "
                       "(%d operands, groups of %d)",
                       in->name, mine->n, g->n);
    for (int j = 0; j < g->n; j++) {
      const KArray *src = &g->views[j]->a[g->me];
      int64_t n = elements(src);
      if (!expect_elements(in, &outs[j], n, j, err)) return false;
      if (n) memcpy(outs[j].data, src->data, (size_t)n * (size_t)k_elem_size(src->etype));
    }
    return true;
  }
  const KArray *a = &mine->a[0];
  int64_t d;
  if (mine->n != 1)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: the array form (dimensions=) takes one operand", in->name);
  if (!one_dimension(in, a, &d, err)) return false;
  if (a->rank == 0 || a->dims[d] % g->n != 0)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: the split dimension is not divisible by the group size %d",
                     in->name, g->n);
  if (!expect_elements(in, &outs[0], elements(a), 0, err)) return false;
  int64_t outer, chunk = a->dims[d] / g->n;
  size_t inner;
  split_at(a, d, &outer, &inner);
  for (int j = 0; j < g->n; j++)
    copy_block(outs[0].data, a->dims[d], j * chunk, g->views[j]->a[0].data, a->dims[d],
               g->me * chunk, chunk, outer, inner);
  return true;
}

/* Every leaf from one device's operands (the permute source, the
 * broadcast root), or zeros when there is no such device. */
static bool copy_from(const Instr *in, const Views *src, const Views *mine, KArray *outs,
                      Error *err) {
  for (int i = 0; i < mine->n; i++) {
    int64_t n = elements(&mine->a[i]);
    size_t bytes = (size_t)n * (size_t)k_elem_size(mine->a[i].etype);
    if (!expect_elements(in, &outs[i], n, i, err)) return false;
    if (!bytes) continue;
    if (src) memcpy(outs[i].data, src->a[i].data, bytes);
    else memset(outs[i].data, 0, bytes);
  }
  return true;
}

static bool compute(EvalCtx *ctx, const Instr *in, const Shape *res, const Views *mine,
                    Value **out, Error *err) {
  Outs o = {0};
  if (!outs_open(ctx, in, res, &o, err)) {
    outs_drop(ctx, &o);
    return false;
  }
  bool ok = true;
  if (o.n != mine->n)
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "instruction %s: %d results for %d operands", in->name, o.n, mine->n);
  Group *g = ok ? malloc(sizeof *g) : NULL;
  if (ok && !g) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (ok && in->op != OP_COLLECTIVE_PERMUTE && in->op != OP_COLLECTIVE_PERMUTE_START)
    ok = group_of(ctx, in, mine, g, err);
  if (ok) {
    switch (in->op) {
    case OP_ALL_REDUCE:
    case OP_ALL_REDUCE_START: ok = all_reduce(ctx, in, g, mine, o.a, err); break;
    case OP_REDUCE_SCATTER: ok = reduce_scatter(ctx, in, g, mine, o.a, err); break;
    case OP_ALL_GATHER:
    case OP_ALL_GATHER_START: ok = all_gather(in, g, mine, o.a, err); break;
    case OP_ALL_TO_ALL: ok = all_to_all(in, g, mine, o.a, err); break;
    case OP_COLLECTIVE_BROADCAST: ok = copy_from(in, g->views[0], mine, o.a, err); break;
    default: { /* collective-permute */
      int64_t src;
      const Views *sv = NULL;
      ok = collective_permute_source(in, ctx->num_replicas, ctx->num_partitions, ctx->device_id,
                                     &src, err);
      if (ok && src >= 0) {
        sv = views_of(ctx, src);
        ok = same_views(in, mine, sv, src, err);
      }
      if (ok) ok = copy_from(in, sv, mine, o.a, err);
      break;
    }
    }
  }
  free(g);
  return outs_close(ctx, res, &o, ok, out, err);
}

/* Set while this thread computes a collective's result: a reducer that
 * itself ran a collective would wait at the rendezvous while the others
 * wait for this device to finish reading. */
static _Thread_local bool computing;

static bool multi_device(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                         Error *err) {
  if (computing)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: a collective inside a collective's reducer", in->name);
  if ((in->op == OP_COLLECTIVE_PERMUTE || in->op == OP_COLLECTIVE_PERMUTE_START) &&
      in->noperands == 4)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: the in-place collective-permute (4 operands) is not "
                     "supported across devices",
                     in->name);
  Form fm;
  result_form(in, rs, &fm);
  Views vs = {0};
  bool ok = views_open(ctx, f, in, &vs, err);
  if (ok) ok = rdv_publish(ctx->rendezvous, (int)ctx->device_id, in, &vs, err);
  if (!ok) {
    views_close(&vs);
    return false;
  }
  Value *r = NULL;
  computing = true;
  ok = compute(ctx, in, fm.res, &vs, &r, err);
  computing = false;
  /* Peers may be reading our operands until everyone is released. */
  Error rel;
  bool released = rdv_release(ctx->rendezvous, (int)ctx->device_id, &rel);
  views_close(&vs);
  if (!ok) return false;
  if (!released) {
    value_unref(&ctx->vc, r);
    if (err) *err = rel;
    return false;
  }
  if (fm.kind == FORM_PLAIN) {
    *out = r;
    return true;
  }
  Value *first[2] = {in->noperands == 1 ? value_ref(frame_operand(f, in, 0))
                                        : eval_operand_tuple(f, in, &rs->tuple[0]),
                     r};
  if (!first[0]) {
    value_unref(&ctx->vc, r);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return eval_state_tuple(ctx, in, rs, first, 2, out, err);
}

bool eval_collective(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  if (!ctx->rendezvous) return single_device(ctx, f, in, rs, out, err);
  return multi_device(ctx, f, in, rs, out, err);
}
