/* Collectives over one device or many: all-reduce, all-gather, reduce-scatter, all-to-all,
 * collective-permute, collective-broadcast (and their -start forms).
 *
 * A single-device run (EvalCtx.rendezvous NULL) runs each as a group of
 * one.  In a multi-device run every device meets the others at the
 * rendezvous (interp/collective/rendezvous.h), publishes dense views of its operands,
 * computes its own result from its group's operands (groups per
 * interp/collective/groups.h; the group's listed order is the order of
 * concatenation and of the reduction), then waits until everyone has read
 * before its operands may be released. */
#include "interp/eval_ops.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/collective/compute.h"
#include "interp/collective/groups.h"
#include "interp/collective/ragged.h"
#include "interp/eval_views.h"
#include "interp/collective/rendezvous.h"

/* --- a group of one (single-device runs; unchanged behaviour) --- */

static bool ragged_group_of_one(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                                Value **out, Error *err);

static bool single_device(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                          Value **out, Error *err) {
  if (in->op == OP_RAGGED_ALL_TO_ALL) return ragged_group_of_one(ctx, f, in, rs, out, err);
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
  /* all-to-all without a split dimension returns a tuple even of one operand. */
  bool tuple_form = in->op == OP_ALL_TO_ALL && shape_is_tuple(rs);
  if (in->noperands == 1 && !tuple_form) {
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
                     "%s: its shapes imply more than one device, but this "
                     "run has one (see --replicas / --partitions)",
                     opcode_name(in->op));
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

/* The devices of this device's group and what each published. */
typedef struct Group {
  int n, me;
  int64_t members[COLLECTIVE_MAX_DEVICES];
  const KArray *ops[COLLECTIVE_MAX_DEVICES]; /* member j's operands */
} Group;

/* What a device posted at the rendezvous: its operands' dense views. */
typedef struct Posted {
  int n;
  const KArray *a;
} Posted;

static bool same_views(const Instr *in, const Posted *a, const Posted *b, int64_t dev,
                       Error *err) {
  bool same = a->n == b->n;
  for (int i = 0; same && i < a->n; i++) {
    same = a->a[i].etype == b->a[i].etype && a->a[i].rank == b->a[i].rank;
    for (int k = 0; same && k < a->a[i].rank; k++) same = a->a[i].dims[k] == b->a[i].dims[k];
  }
  return same || error_set(err, ERR_RUNTIME, in->offset,
                           "the operands of device %" PRId64
                           " differ in shape from this device's",
                           dev);
}

static Posted posted_by(const EvalCtx *ctx, int64_t dev) {
  Posted p;
  p.a = rdv_payload(ctx->rendezvous, (int)dev, &p.n);
  return p;
}

static bool group_of(const EvalCtx *ctx, const Instr *in, const Posted *mine, Group *g,
                     Error *err) {
  if (!collective_group(in, ctx->num_replicas, ctx->num_partitions, ctx->device_id, g->members,
                        &g->n, &g->me, err))
    return false;
  for (int j = 0; j < g->n; j++) {
    Posted v = posted_by(ctx, g->members[j]);
    if (!same_views(in, mine, &v, g->members[j], err)) return false;
    g->ops[j] = v.a;
  }
  return true;
}


static bool compute(EvalCtx *ctx, const Instr *in, const Shape *res, const EvalViews *vs,
                    Value **out, Error *err) {
  Posted mine_p = {vs->n, vs->a}, *mine = &mine_p;
  EvalOuts o = {0};
  if (!eval_outs_new(ctx, in, res, &o, err)) {
    eval_outs_drop(ctx, &o);
    return false;
  }
  bool ok = true;
  bool ragged = in->op == OP_RAGGED_ALL_TO_ALL; /* 6 operands, 1 result */
  if (!ragged && o.n != mine->n)
    ok = error_set(err, ERR_RUNTIME, in->offset,
                   "%d results for %d operands", o.n, mine->n);
  Group *g = ok ? malloc(sizeof *g) : NULL;
  if (ok && !g) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  bool permute = in->op == OP_COLLECTIVE_PERMUTE || in->op == OP_COLLECTIVE_PERMUTE_START;
  if (ok && !permute) ok = group_of(ctx, in, mine, g, err);
  if (ok) {
    CollectiveInputs c = {permute ? 0 : g->n, permute ? 0 : g->me, mine->n, g->ops};
    switch (in->op) {
    case OP_ALL_REDUCE:
    case OP_ALL_REDUCE_START: ok = collective_all_reduce(ctx, in, &c, o.a, err); break;
    case OP_REDUCE_SCATTER: ok = collective_reduce_scatter(ctx, in, &c, o.a, err); break;
    case OP_ALL_GATHER:
    case OP_ALL_GATHER_START: ok = collective_all_gather(in, &c, o.a, err); break;
    case OP_ALL_TO_ALL: ok = collective_all_to_all(in, &c, o.a, err); break;
    case OP_RAGGED_ALL_TO_ALL:
      ok = o.n == 1 ? collective_ragged_all_to_all(in, &c, o.a, err)
                    : error_set(err, ERR_RUNTIME, in->offset,
                                "ragged-all-to-all returns one array");
      break;
    case OP_COLLECTIVE_BROADCAST:
      ok = collective_copy_from(in, g->ops[0], mine->a, mine->n, o.a, err);
      break;
    default: { /* collective-permute */
      int64_t src;
      Posted sv = {0, NULL};
      ok = collective_permute_source(in, ctx->num_replicas, ctx->num_partitions, ctx->device_id,
                                     &src, err);
      if (ok && src >= 0) {
        sv = posted_by(ctx, src);
        ok = same_views(in, mine, &sv, src, err);
      }
      if (ok) ok = collective_copy_from(in, sv.a, mine->a, mine->n, o.a, err);
      break;
    }
    }
  }
  free(g);
  return eval_outs_close(ctx, res, &o, ok, out, err);
}

/* ragged-all-to-all in a single-device run: a group of one, every update
 * from this device to itself. */
static bool ragged_group_of_one(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                                Value **out, Error *err) {
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view_operands(ctx, f, in, in->noperands, &vs, err) &&
            eval_outs_new(ctx, in, rs, &o, err);
  if (ok && o.n != 1)
    ok = error_set(err, ERR_RUNTIME, in->offset, "ragged-all-to-all returns one array");
  if (ok) {
    const KArray *ops[1] = {vs.a};
    CollectiveInputs c = {1, 0, vs.n, ops};
    ok = collective_ragged_all_to_all(in, &c, o.a, err);
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

/* Set while this thread computes a collective's result: a reducer that
 * itself ran a collective would wait at the rendezvous while the others
 * wait for this device to finish reading. */
static _Thread_local bool computing;

static bool multi_device(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                         Error *err) {
  if (computing)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "a collective inside a collective's reducer");
  if ((in->op == OP_COLLECTIVE_PERMUTE || in->op == OP_COLLECTIVE_PERMUTE_START) &&
      in->noperands == 4)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "the in-place collective-permute (4 operands) is not "
                     "supported across devices");
  Form fm;
  result_form(in, rs, &fm);
  EvalViews vs = {0};
  bool ok = eval_view_operands(ctx, f, in, in->noperands, &vs, err);
  if (ok) ok = rdv_publish(ctx->rendezvous, (int)ctx->device_id, in, vs.a, vs.n, err);
  if (!ok) {
    eval_views_free(&vs);
    return false;
  }
  Value *r = NULL;
  computing = true;
  ok = compute(ctx, in, fm.res, &vs, &r, err);
  computing = false;
  /* Peers may be reading our operands until everyone is released. */
  Error rel;
  bool released = rdv_release(ctx->rendezvous, (int)ctx->device_id, ok ? &rel : NULL);
  eval_views_free(&vs);
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

/* Op: all-reduce, all-reduce-start
 * Operands: operands (1 or more arrays)
 * Attributes: to_apply, replica_groups; optional channel_id, use_global_device_ids
 *
 * Every device of a group gets the element-wise reduction of the group's operands
 * by to_apply, folded left to right in the group's listed order (known reducers run
 * as tight loops).  all-reduce-start returns what all-reduce-done later unwraps.
 *
 * Rule: XLA operation semantics, AllReduce; groups follow XLA's
 *   CollectiveOpGroupMode (docs/interpreter.md, "Several devices").
 * Refuses: a device whose operands differ in shape from its group's; a collective
 *   inside a collective's reducer; devices that do not execute the same collectives
 *   in the same order; shapes that imply more devices than the run has.
 */
/* Op: all-gather, all-gather-start
 * Operands: operands (1 or more arrays)
 * Attributes: dimensions={d}, replica_groups; optional channel_id,
 *   use_global_device_ids
 *
 * The group members' operands concatenated along d, in the group's listed order.
 * all-gather-start returns what all-gather-done later unwraps.
 *
 * Rule: XLA operation semantics, AllGather; groups as for all-reduce.
 * Refuses: as all-reduce.
 */
/* Op: all-to-all
 * Operands: operands (1 or more arrays)
 * Attributes: replica_groups; optional dimensions={d}, channel_id
 *
 * Array form (dimensions={d}): the operand split into group-size chunks along d,
 * chunk j sent to member j, the received chunks concatenated along d.  Tuple form:
 * operand j sent to member j.
 *
 * Rule: XLA operation semantics, AllToAll; with channel_id the group members are
 *   partitions.
 * Refuses: as all-reduce.
 */
/* Op: ragged-all-to-all
 * Operands: input, output, input_offsets, send_sizes, output_offsets, recv_sizes
 * Attributes: replica_groups; optional channel_id
 *
 * Member j sends, for k = p * U + i, its input rows [input_offsets[k], +send_sizes[k])
 * to member p, which stores them at row output_offsets[k] of its result; the result
 * starts as the output operand, rows nobody writes keep it.
 *
 * Rule: XLA:GPU's memcpy form of RaggedAllToAll; recv_sizes must equal what the
 *   sender sends.
 * Refuses: offsets or sizes out of range, or unequal send and receive sizes (naming
 *   the member); as all-reduce.
 */
/* Op: reduce-scatter
 * Operands: operands (1 or more arrays)
 * Attributes: to_apply, dimensions={d}, replica_groups; optional channel_id,
 *   use_global_device_ids
 *
 * The all-reduce of the group's operands, of which each member keeps its own shard
 * (its position in the group) along d.
 *
 * Rule: XLA operation semantics, ReduceScatter; groups as for all-reduce.
 * Refuses: as all-reduce.
 */
/* Op: collective-broadcast
 * Operands: operands (1 or more arrays)
 * Attributes: replica_groups; optional channel_id
 *
 * Every member of a group gets the operand of the group's first listed member.
 *
 * Rule: XLA's CollectiveBroadcast (StableHLO collective_broadcast).
 * Refuses: as all-reduce.
 */
/* Op: collective-permute, collective-permute-start
 * Operands: operand (or the 4-operand in-place form on one device)
 * Attributes: source_target_pairs; optional channel_id
 *
 * Each device receives the operand of the source whose pair targets it; a device no
 * pair targets receives zeros.  collective-permute-start returns the state that
 * collective-permute-done unwraps.
 *
 * Rule: XLA operation semantics, CollectivePermute.
 * Refuses: the in-place 4-operand form across several devices; as all-reduce.
 */
bool eval_collective(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  if (!ctx->rendezvous) return single_device(ctx, f, in, rs, out, err);
  return multi_device(ctx, f, in, rs, out, err);
}
