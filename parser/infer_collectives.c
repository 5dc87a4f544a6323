/* Collectives.  Shapes depend on the size of the replica group a device is
 * in: all-gather multiplies, reduce-scatter divides one dimension by it.  As
 * XLA's verifier does, the factor is taken from the result/operand ratio
 * and checked against the group size only when that size is known (> 1). */
#include <inttypes.h>

#include "parser/infer_internal.h"

/* Result for n per-operand shapes: the shape itself when n == 1, else a
 * tuple. */
static bool results(InferCtx *c, Shape *out, int n, const Shape *shapes) {
  if (n == 1) {
    *out = shapes[0];
    return true;
  }
  if (!infer_make_tuple(c, out, n)) return false;
  for (int i = 0; i < n; i++) out->tuple[i] = shapes[i];
  return true;
}

static bool operands_as_results(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  Shape *shapes = arena_alloc_array(c->arena, (size_t)n, sizeof(Shape));
  if (!shapes) return infer_fail(c, "out of memory");
  for (int i = 0; i < n; i++) shapes[i] = *infer_oshape(c, i);
  return results(c, out, n, shapes);
}

/* How many devices take part in one group, or 1 when unknown (XLA's
 * GetSubgroupSize; the module's counts are 1 unless its header says). */
static int64_t group_size(InferCtx *c, const Attr **ga) {
  *ga = ir_attr(c->in, ATTR_REPLICA_GROUPS);
  const ReplicaGroups *g = *ga && (*ga)->kind == AV_REPLICA_GROUPS ? &(*ga)->v.groups : NULL;
  int64_t replicas = c->module ? c->module->replica_count : 1;
  int64_t partitions = c->module ? c->module->num_partitions : 1;
  const Attr *ch = ir_attr(c->in, ATTR_CHANNEL_ID), *ug = ir_attr(c->in, ATTR_USE_GLOBAL_DEVICE_IDS);
  bool global = ug && ug->kind == AV_BOOL && ug->v.b;
  int64_t size = g && g->ngroups > 0 ? g->groups[0].n : 0;
  if (g && g->iota) size = g->iota_group_size;
  if (!ch) return size > 0 ? size : replicas;                  /* cross-replica */
  /* all-to-all and collective-broadcast have no use_global_device_ids:
   * with a channel they are cross-partition (groups of partition ids). */
  if (c->in->op == OP_ALL_TO_ALL || c->in->op == OP_COLLECTIVE_BROADCAST)
    return size > 0 ? size : partitions;
  if (global) return size > 0 ? size : 1;                      /* flattened ids */
  if (size > 0) return partitions > 1 ? size * partitions : size; /* replica and partition */
  return replicas * partitions;
}

static bool check_groups(InferCtx *c) {
  const Attr *ga = ir_attr(c->in, ATTR_REPLICA_GROUPS);
  if (!ga || ga->kind != AV_REPLICA_GROUPS || ga->v.groups.iota) return true;
  const ReplicaGroups *g = &ga->v.groups;
  for (int i = 0; i < g->ngroups; i++)
    for (int j = 0; j < g->groups[i].n; j++)
      if (g->groups[i].v[j] < 0)
        return infer_fail_attr(c, ga, "replica id %lld is negative", (long long)g->groups[i].v[j]);
  return true;
}

/* The one-entry dimensions={d} of all-gather, reduce-scatter, all-to-all. */
static bool one_dim(InferCtx *c, bool required, int64_t *d, const Attr **a) {
  IntList l;
  *d = -1;
  if (!infer_attr_ints(c, ATTR_DIMENSIONS, required, &l, a)) return false;
  if (!*a) return true;
  if (l.n != 1) return infer_fail_attr(c, *a, "dimensions must have exactly one entry, got %s", infer_ints_str(c, l.v, l.n));
  *d = l.v[0];
  /* Scalars pass through untouched (torch-xla adds one to every all-gather
   * and reduce-scatter). */
  for (int i = 0; i < c->in->noperands; i++)
    if (*d < 0 || (*d >= infer_oshape(c, i)->rank && infer_oshape(c, i)->rank > 0))
      return infer_fail_attr(c, *a, "dimension %lld out of range for operand %s", (long long)*d,
                             infer_str(c, infer_oshape(c, i)));
  return true;
}

/* all-gather (grow) and reduce-scatter (shrink) one dimension by the shard
 * count read off the declared result. */
static bool gather_or_scatter(InferCtx *c, Shape *out, const Shape *declared, bool grow) {
  int n = c->in->noperands;
  int64_t d;
  const Attr *da, *ga;
  if (!infer_need_arrays(c, 0, n) || !check_groups(c) || !one_dim(c, true, &d, &da)) return false;
  Shape *shapes = arena_alloc_array(c->arena, (size_t)n, sizeof(Shape));
  if (!shapes) return infer_fail(c, "out of memory");
  const Shape *first = n == 1 ? declared : (shape_is_tuple(declared) && declared->ntuple == n ? &declared->tuple[0] : NULL);
  const Shape *s0 = infer_oshape(c, 0);
  int64_t shards = 1;
  if (first && shape_is_array(first) && first->rank == s0->rank && d < s0->rank) {
    int64_t big = grow ? first->dims[d] : s0->dims[d], small = grow ? s0->dims[d] : first->dims[d];
    shards = small > 0 && big > 0 ? big / small : 1;
    if (shards < 1) shards = 1;
  }
  int64_t gs = group_size(c, &ga);
  if (gs > 1 && shards != gs)
    return infer_fail(c, "the result implies %lld shards but the replica group has %lld devices",
                      (long long)shards, (long long)gs);
  for (int i = 0; i < n; i++) {
    const Shape *s = infer_oshape(c, i);
    if (s->rank == 0) {
      shapes[i] = *s;
      continue;
    }
    int64_t *dims = infer_i64(c, s->rank);
    if (!dims) return infer_fail(c, "out of memory");
    for (int k = 0; k < s->rank; k++) dims[k] = s->dims[k];
    if (grow) {
      if (dims[d] != SHAPE_DIM_UNBOUNDED && __builtin_mul_overflow(dims[d], shards, &dims[d]))
        return infer_fail(c, "gathered dimension overflows");
    } else {
      if (dims[d] % shards != 0)
        return infer_fail(c, "dimension %lld of %s is not divisible by the shard count %lld",
                          (long long)d, infer_str(c, s), (long long)shards);
      dims[d] /= shards;
    }
    if (!infer_make_array(c, &shapes[i], s->etype, s->rank, dims, s->dynamic)) return false;
  }
  return results(c, out, n, shapes);
}

static bool reduction(InferCtx *c) {
  const Computation *f;
  int n = c->in->noperands;
  if (!infer_need_arrays(c, 0, n) || !check_groups(c) ||
      !infer_attr_comp(c, ATTR_TO_APPLY, true, &f))
    return false;
  /* XLA's verifier never looks inside the reduction computation of the
   * all-reduce family (ShapeVerifier::HandleAllReduce infers the result from
   * the operands alone), and its own tests pass array-valued reducers such
   * as add(s32[4], s32[4]).  The interpreter checks the reducer when it runs
   * (interp/collective/compute.c). */
  (void)f;
  return true;
}

/* all-gather-start: (operands, results) as a pair; a single operand pairs
 * plain shapes, several pair tuples. */
static bool all_gather_start(InferCtx *c, Shape *out) {
  const Shape *d = &c->in->shape;
  int n = c->in->noperands;
  bool pair = shape_is_tuple(d) && d->ntuple == 2 &&
              (n == 1 || (shape_is_tuple(&d->tuple[0]) && d->tuple[0].ntuple == n));
  Shape in, res;
  if (!operands_as_results(c, &in) || !gather_or_scatter(c, &res, pair ? &d->tuple[1] : d, true))
    return false;
  if (!pair) { /* XLA's parser also takes the bare result shape (unverified input) */
    *out = res;
    return true;
  }
  if (!infer_make_tuple(c, out, 2)) return false;
  out->tuple[0] = in;
  out->tuple[1] = res;
  return true;
}

/* collective-permute: one operand (result = its shape), the in-place form
 * (input, output, input offsets, output offsets) with the output's shape,
 * or several operands combined into a tuple. */
/* No id may be the source (side 0) or the target (side 1) of two pairs:
 * each device sends one value and receives one (operation semantics,
 * CollectivePermute; XLA's verifier checks the same). */
static bool permute_ids_unique(InferCtx *c, const Attr *pa) {
  if (pa->kind != AV_INT_LISTS || pa->v.lists.depth != 2) return true;
  for (int side = 0; side < 2; side++)
    for (int i = 0; i < pa->v.lists.n; i++)
      for (int j = 0; j < i; j++)
        if (pa->v.lists.lists[i].v[side] == pa->v.lists.lists[j].v[side])
          return infer_fail_attr(c, pa, "%s id %" PRId64 " appears in more than one source_target_pair",
                                 side == 0 ? "source" : "target", pa->v.lists.lists[i].v[side]);
  return true;
}

static bool collective_permute(InferCtx *c, Shape *out) {
  const Attr *pa;
  if (!infer_attr(c, ATTR_SOURCE_TARGET_PAIRS, true, &pa)) return false;
  if (pa->kind == AV_INT_LISTS && pa->v.lists.depth == 2)
    for (int i = 0; i < pa->v.lists.n; i++)
      if (pa->v.lists.lists[i].n != 2)
        return infer_fail_attr(c, pa, "each source_target_pair must have exactly two ids");
  int n = c->in->noperands;
  bool in_place = ir_attr(c->in, ATTR_SLICE_SIZES) ||
                  (n == 4 && shape_is_tuple(infer_oshape(c, 2)) && shape_is_tuple(infer_oshape(c, 3)));
  /* The in-place form sends one slice per pair, so an id may repeat there
   * (XLA allows as many as there are slices). */
  if (!in_place && !permute_ids_unique(c, pa)) return false;
  if (in_place) {
    if (c->in->noperands != 4)
      return infer_fail(c, "the in-place form (slice_sizes) expects 4 operands, got %d", c->in->noperands);
    *out = *infer_oshape(c, 1);
    return true;
  }
  return operands_as_results(c, out);
}

/* collective-permute-start: (source, result, contexts...), as XLA's
 * InferCollectivePermuteStartShape builds it: the source is operand 0 for
 * the single-operand and in-place forms, and the combined tuple of all
 * operands (same as the result) for the combined form.  A bare result is
 * accepted too, as older dumps print it. */
static bool collective_permute_start(InferCtx *c, Shape *out) {
  Shape r;
  if (!collective_permute(c, &r)) return false;
  const Shape *d = &c->in->shape;
  int n = c->in->noperands;
  bool in_place = n == 4 && ir_attr(c->in, ATTR_SLICE_SIZES);
  in_place = in_place || (n == 4 && shape_is_tuple(infer_oshape(c, 2)) &&
                          shape_is_tuple(infer_oshape(c, 3)));
  bool start_form = shape_is_tuple(d) && d->ntuple >= 2;
  if (start_form && shape_is_tuple(&r)) /* tuple result: the pair must be tuples too */
    start_form = shape_is_tuple(&d->tuple[0]) && shape_is_tuple(&d->tuple[1]);
  if (!start_form) {
    *out = r;
    return true;
  }
  int extra = d->ntuple - 2;
  if (!infer_make_tuple(c, out, 2 + extra)) return false;
  out->tuple[0] = n == 1 || in_place ? *infer_oshape(c, 0) : r;
  out->tuple[1] = r;
  for (int i = 0; i < extra; i++) {
    const Shape *ctx = &d->tuple[2 + i];
    if (!shape_is_array(ctx) || ctx->rank != 0 || !etype_is_int(ctx->etype))
      return infer_fail(c, "context element %d must be an integer scalar, declared %s", 2 + i,
                        infer_str(c, ctx));
    out->tuple[2 + i] = *ctx;
  }
  return true;
}

/* all-reduce-start written as (operand, result), as some XLA versions print
 * it, rather than as the bare result. */
static bool is_start_pair(const Instr *s) {
  return s->noperands == 1 && shape_is_tuple(&s->shape) && s->shape.ntuple == 2 &&
         !shape_is_tuple(&s->operands[0]->shape);
}

static bool all_reduce_start(InferCtx *c, Shape *out) {
  Shape r;
  if (!reduction(c) || !operands_as_results(c, &r)) return false;
  if (!is_start_pair(c->in)) {
    *out = r;
    return true;
  }
  if (!infer_make_tuple(c, out, 2)) return false;
  out->tuple[0] = out->tuple[1] = r;
  return true;
}

/* X-done(start): element `index` of the start's tuple. */
static bool done_of(InferCtx *c, Shape *out, Opcode start, int index) {
  const Instr *s = c->in->operands[0];
  if (s->op != start)
    return infer_fail(c, "operand must be a %s, got %s", opcode_name(start), opcode_name(s->op));
  if (start == OP_ALL_REDUCE_START && !is_start_pair(s)) { /* result passed through */
    *out = s->shape;
    return true;
  }
  if (!shape_is_tuple(&s->shape)) {
    *out = s->shape;
    return true;
  }
  if (!infer_need_tuple(c, 0, index + 1)) return false;
  *out = s->shape.tuple[index];
  return true;
}

static bool all_to_all(InferCtx *c, Shape *out) {
  int64_t d;
  const Attr *da, *ga;
  int n = c->in->noperands;
  if (!infer_need_arrays(c, 0, n) || !check_groups(c) || !one_dim(c, false, &d, &da)) return false;
  if (da) {
    if (n != 1) return infer_fail(c, "the array form (dimensions=) takes one operand, got %d", n);
    int64_t gs = group_size(c, &ga), size = infer_oshape(c, 0)->dims[d];
    if (gs > 1 && size >= 0 && size % gs != 0)
      return infer_fail(c, "split dimension %lld of %s is not divisible by the group size %lld",
                        (long long)d, infer_str(c, infer_oshape(c, 0)), (long long)gs);
    *out = *infer_oshape(c, 0);
    return true;
  }
  /* Without a split dimension it is the tuple form: a tuple of the operand
   * shapes even for one operand (XLA's InferAllToAllTupleShape). */
  if (!infer_make_tuple(c, out, n)) return false;
  for (int i = 0; i < n; i++) out->tuple[i] = *infer_oshape(c, i);
  return true;
}

static bool ragged_all_to_all(InferCtx *c, Shape *out) {
  if (!infer_need_arrays(c, 0, 6) || !check_groups(c)) return false;
  const Shape *in = infer_oshape(c, 0), *o = infer_oshape(c, 1);
  if (in->etype != o->etype || in->rank != o->rank)
    return infer_fail(c, "input %s and output %s must have the same type and rank", infer_str(c, in),
                      infer_str(c, o));
  for (int i = 2; i < 6; i++) {
    const Shape *s = infer_oshape(c, i);
    if (!etype_is_int(s->etype) || s->rank != 1)
      return infer_fail(c, "operand %d must be an integer vector of offsets or sizes, got %s", i,
                        infer_str(c, s));
  }
  *out = *o;
  return true;
}

bool infer_collective(InferCtx *c, Shape *out) {
  switch (c->in->op) {
    case OP_ALL_REDUCE: return reduction(c) && operands_as_results(c, out);
    case OP_ALL_REDUCE_START: return all_reduce_start(c, out);
    case OP_ALL_REDUCE_DONE: return done_of(c, out, OP_ALL_REDUCE_START, 1);
    case OP_ALL_GATHER: return gather_or_scatter(c, out, &c->in->shape, true);
    case OP_ALL_GATHER_START: return all_gather_start(c, out);
    case OP_ALL_GATHER_DONE: return done_of(c, out, OP_ALL_GATHER_START, 1);
    case OP_REDUCE_SCATTER: return reduction(c) && gather_or_scatter(c, out, &c->in->shape, false);
    case OP_ALL_TO_ALL: return all_to_all(c, out);
    case OP_RAGGED_ALL_TO_ALL: return ragged_all_to_all(c, out);
    case OP_COLLECTIVE_BROADCAST:
      return infer_need_arrays(c, 0, c->in->noperands) && check_groups(c) &&
             operands_as_results(c, out);
    case OP_COLLECTIVE_PERMUTE: return collective_permute(c, out);
    case OP_COLLECTIVE_PERMUTE_START: return collective_permute_start(c, out);
    case OP_COLLECTIVE_PERMUTE_DONE: return done_of(c, out, OP_COLLECTIVE_PERMUTE_START, 1);
    default: /* replica-id, partition-id */
      return infer_make_scalar(c, out, ET_U32);
  }
}
