/* Structure and control: parameters, constants, tuples, calls, fusion,
 * while, conditional, custom-call, async wrappers, copies, tokens, I/O and
 * random numbers.  Many of these produce tuples whose layout XLA fixes
 * (send: (data, u32[], token[]), copy-start: (dest, src, u32[]), ...). */
#include <string.h>
#include <strings.h>

#include "parser/infer_internal.h"

static bool token_shape(InferCtx *c, Shape *out) { return infer_make_scalar(c, out, ET_TOKEN); }

/* The declared shape must be a tuple of n elements (at least n if !exact). */
static bool declared_tuple(InferCtx *c, int n, bool exact) {
  const Shape *d = &c->in->shape;
  if (shape_is_tuple(d) && (exact ? d->ntuple == n : d->ntuple >= n)) return true;
  return infer_fail(c, "result must be a tuple of %s%d elements, declared %s", exact ? "" : "at least ",
                    n, infer_str(c, d));
}

/* comp's parameters take operands [first, first + n). */
static bool params_match_operands(InferCtx *c, AttrKey key, const Computation *comp, int first,
                                  int n) {
  const Shape **shapes = n ? arena_alloc_array(c->arena, (size_t)n, sizeof *shapes) : NULL;
  if (n && !shapes) return infer_fail(c, "out of memory");
  for (int i = 0; i < n; i++) shapes[i] = infer_oshape(c, first + i);
  return infer_check_params(c, ir_attr(c->in, key), comp, attr_key_name(key), n, shapes, false);
}

static bool root_of(InferCtx *c, AttrKey key, const Computation *comp, Shape *out) {
  if (!comp->root)
    return infer_fail_attr(c, ir_attr(c->in, key), "computation %s has no root", comp->name);
  *out = comp->root->shape;
  return true;
}

/* call / fusion: the callee's parameters are the operands, its root the
 * result. */
static bool infer_call(InferCtx *c, Shape *out, AttrKey key) {
  const Computation *f;
  if (c->in->op == OP_FUSION) {
    const Attr *kind;
    if (!infer_attr(c, ATTR_KIND, true, &kind)) return false;
  }
  return infer_attr_comp(c, key, true, &f) &&
         params_match_operands(c, key, f, 0, c->in->noperands) && root_of(c, key, f, out);
}

static bool infer_while(InferCtx *c, Shape *out) {
  const Computation *cond, *body;
  const Shape *init = infer_oshape(c, 0);
  if (!infer_attr_comp(c, ATTR_CONDITION, true, &cond) || !infer_attr_comp(c, ATTR_BODY, true, &body) ||
      !params_match_operands(c, ATTR_CONDITION, cond, 0, 1) ||
      !params_match_operands(c, ATTR_BODY, body, 0, 1))
    return false;
  Shape r;
  if (!root_of(c, ATTR_CONDITION, cond, &r)) return false;
  if (r.etype != ET_PRED || r.rank != 0)
    return infer_fail_attr(c, ir_attr(c->in, ATTR_CONDITION),
                           "condition computation %s must return pred[], returns %s", cond->name,
                           infer_str(c, &r));
  if (!root_of(c, ATTR_BODY, body, &r)) return false;
  if (!infer_shapes_match(&r, init, false))
    return infer_fail_attr(c, ir_attr(c->in, ATTR_BODY),
                           "body computation %s returns %s, but the loop state is %s", body->name,
                           infer_str(c, &r), infer_str(c, init));
  *out = *init;
  return true;
}

/* conditional(index, args...): pred[] index selects true/false
 * computations, s32[] index one of branch_computations.  Branch i takes
 * operand i + 1; all branches return the same shape. */
static bool infer_conditional(InferCtx *c, Shape *out) {
  const Shape *idx = infer_oshape(c, 0);
  const Computation *branches[2];
  const Computation *const *list = branches;
  int n = 0;
  AttrKey key = ATTR_BRANCH_COMPUTATIONS;
  const Attr *listed = ir_attr(c->in, ATTR_BRANCH_COMPUTATIONS);
  /* As XLA's parser: a pred[] index takes only true/false_computation. */
  if (idx->etype == ET_PRED && idx->rank == 0 && listed)
    return infer_fail_attr(c, listed, "unexpected attribute \"branch_computations\" for a pred[] "
                           "index; use true_computation and false_computation");
  if (idx->etype == ET_PRED && idx->rank == 0) {
    if (!infer_attr_comp(c, ATTR_TRUE_COMPUTATION, true, &branches[0]) ||
        !infer_attr_comp(c, ATTR_FALSE_COMPUTATION, true, &branches[1]))
      return false;
    n = 2;
    key = ATTR_TRUE_COMPUTATION;
  } else if (idx->etype == ET_S32 && idx->rank == 0) {
    const Attr *a;
    if (!infer_attr(c, ATTR_BRANCH_COMPUTATIONS, true, &a)) return false;
    if (a->kind != AV_COMPUTATION_LIST || a->v.comps.n < 1)
      return infer_fail_attr(c, a, "branch_computations must list at least one computation");
    list = (const Computation *const *)a->v.comps.v;
    n = a->v.comps.n;
  } else {
    return infer_fail(c, "the branch index must be pred[] or s32[], got %s", infer_str(c, idx));
  }
  if (c->in->noperands != n + 1)
    return infer_fail(c, "expects %d operands (the index and one per branch), got %d", n + 1,
                      c->in->noperands);
  for (int i = 0; i < n; i++) {
    Shape r;
    AttrKey k = key == ATTR_TRUE_COMPUTATION && i == 1 ? ATTR_FALSE_COMPUTATION : key;
    if (!list[i]) return infer_fail(c, "branch %d is missing", i);
    if (!params_match_operands(c, k, list[i], i + 1, 1) || !root_of(c, k, list[i], &r)) return false;
    if (i == 0)
      *out = r;
    else if (!infer_shapes_match(&r, out, false))
      return infer_fail_attr(c, ir_attr(c->in, k), "branch %d returns %s but branch 0 returns %s", i,
                             infer_str(c, &r), infer_str(c, out));
  }
  return true;
}

static bool infer_custom_call(InferCtx *c, Shape *out) {
  const Attr *a;
  if (!infer_attr(c, ATTR_CUSTOM_CALL_TARGET, true, &a)) return false;
  if (!infer_attr(c, ATTR_OPERAND_LAYOUT_CONSTRAINTS, false, &a)) return false;
  if (a) {
    int n = a->kind == AV_SHAPE_LIST ? a->v.shapes.n : -1;
    if (n != c->in->noperands)
      return infer_fail_attr(c, a, "operand_layout_constraints has %d shapes for %d operands", n,
                             c->in->noperands);
    for (int i = 0; i < n; i++)
      if (!infer_shapes_match(&a->v.shapes.v[i], infer_oshape(c, i), false))
        return infer_fail_attr(c, a, "operand_layout_constraints shape %s does not match operand %d %s",
                               infer_str(c, &a->v.shapes.v[i]), i, infer_str(c, infer_oshape(c, i)));
  }
  *out = c->in->shape; /* whatever the target produces */
  return true;
}

/* ---------------------------------------------------------------------------
 * async-start / -update / -done: the start's shape is
 * ((operand shapes...), wrapped result, state...). */

/* The wrapped op of sugar like custom-call-start, checked as if written
 * alone with the declared wrapped result. */
static bool check_wrapped(InferCtx *c, const Shape *result) {
  Instr fake = *c->in;
  fake.op = c->in->wrapped_op;
  fake.wrapped_op = OP_INVALID;
  fake.shape = *result;
  Shape inferred;
  if (!infer_shape_in_module(c->module, &fake, c->arena, &inferred, c->err)) return false;
  if (!infer_shapes_match(&inferred, result, false))
    return infer_fail(c, "wrapped result %s does not match inferred shape %s", infer_str(c, result),
                      infer_str(c, &inferred));
  return true;
}

static bool infer_async_start(InferCtx *c, Shape *out) {
  const Computation *f;
  bool sugar = c->in->wrapped_op != OP_INVALID;
  if (!infer_attr_comp(c, ATTR_CALLS, !sugar, &f) || !declared_tuple(c, 2, false)) return false;
  const Shape *d = &c->in->shape;
  const Shape *ops = &d->tuple[0];
  int n = c->in->noperands;
  if (!shape_is_tuple(ops) || ops->ntuple != n)
    return infer_fail(c, "first element of the result must be the tuple of the %d operand shapes, "
                      "declared %s", n, infer_str(c, ops));
  for (int i = 0; i < n; i++)
    if (!infer_shapes_match(&ops->tuple[i], infer_oshape(c, i), false))
      return infer_fail(c, "result element {0,%d} %s does not match operand %d %s", i,
                        infer_str(c, &ops->tuple[i]), i, infer_str(c, infer_oshape(c, i)));
  if (f) {
    Shape r;
    if (!params_match_operands(c, ATTR_CALLS, f, 0, n) || !root_of(c, ATTR_CALLS, f, &r)) return false;
    if (!infer_shapes_match(&r, &d->tuple[1], false))
      return infer_fail(c, "result element {1} %s does not match the root of %s, %s",
                        infer_str(c, &d->tuple[1]), f->name, infer_str(c, &r));
  } else if (!check_wrapped(c, &d->tuple[1])) {
    return false;
  }
  *out = *d;
  return true;
}

static bool is_async_chain(const Instr *s) {
  return s->op == OP_ASYNC_START || s->op == OP_ASYNC_UPDATE;
}

/* The thread an async op names, "main" unless async_execution_thread says. */
static const char *async_thread(const Instr *in) {
  const Attr *a = ir_attr(in, ATTR_ASYNC_EXECUTION_THREAD);
  return a && a->kind == AV_STRING && a->v.s ? a->v.s : "main";
}

static const Computation *async_callee(const Instr *in) {
  const Attr *a = ir_attr(in, ATTR_CALLS);
  return a && a->kind == AV_COMPUTATION ? a->v.comp : NULL;
}

/* async-update and async-done belong to their start's chain: what they
 * repeat of it (calls=, async_execution_thread=) must agree, as XLA's
 * parser checks when it rebuilds the chain. */
static bool check_async_chain(InferCtx *c, const Instr *s) {
  while (s->op == OP_ASYNC_UPDATE && s->noperands == 1) s = s->operands[0];
  const Attr *ca = ir_attr(c->in, ATTR_CALLS);
  const Computation *want = async_callee(s), *got = async_callee(c->in);
  if (ca && want && got && want != got)
    return infer_fail_attr(c, ca, "Expect async_wrapped_computation to be %s, but got %s",
                           want->name, got->name);
  const Attr *ta = ir_attr(c->in, ATTR_ASYNC_EXECUTION_THREAD);
  const char *wt = async_thread(s), *gt = async_thread(c->in);
  if (ta && strcmp(wt, gt) != 0)
    return infer_fail_attr(c, ta, "Expect async_execution_thread to be %s, but got %s", wt, gt);
  return true;
}

static bool infer_async_update_done(InferCtx *c, Shape *out) {
  const Instr *s = c->in->operands[0];
  if (!is_async_chain(s))
    return infer_fail(c, "operand must be an async-start or async-update, got %s", opcode_name(s->op));
  if (!infer_need_tuple(c, 0, 2) || !check_async_chain(c, s)) return false;
  *out = c->in->op == OP_ASYNC_UPDATE ? s->shape : s->shape.tuple[1];
  return true;
}

/* ---------------------------------------------------------------------------
 * Tuples and pass-through */

static bool infer_tuple(InferCtx *c, Shape *out) {
  int n = c->in->noperands;
  if (!infer_make_tuple(c, out, n)) return false;
  for (int i = 0; i < n; i++) out->tuple[i] = *infer_oshape(c, i);
  return true;
}

static bool infer_gte(InferCtx *c, Shape *out) {
  int64_t i;
  const Shape *t = infer_oshape(c, 0);
  if (!infer_attr_int(c, ATTR_INDEX, true, 0, &i)) return false;
  if (!shape_is_tuple(t)) return infer_fail(c, "operand must be a tuple, got %s", infer_str(c, t));
  if (i < 0 || i >= t->ntuple)
    return infer_fail_attr(c, ir_attr(c->in, ATTR_INDEX),
                           "index %lld out of range for a tuple of %d elements %s", (long long)i,
                           t->ntuple, infer_str(c, t));
  *out = t->tuple[i];
  return true;
}

/* after-all orders its operands before the token it makes; XLA's verifier
 * takes operands of any shape (add-dependency chains hang arrays on it). */
static bool infer_after_all(InferCtx *c, Shape *out) {
  return token_shape(c, out);
}

/* copy-start: (dest, src, u32[] context). */
static bool infer_copy_start(InferCtx *c, Shape *out) {
  if (!infer_make_tuple(c, out, 3)) return false;
  out->tuple[0] = out->tuple[1] = *infer_oshape(c, 0);
  return infer_make_scalar(c, &out->tuple[2], ET_U32);
}

/* ---------------------------------------------------------------------------
 * Host transfers */

/* send: (data, u32[] context, token[]); recv: the same with data declared. */
static bool transfer_tuple(InferCtx *c, Shape *out, const Shape *data) {
  if (!infer_make_tuple(c, out, 3)) return false;
  out->tuple[0] = *data;
  return infer_make_scalar(c, &out->tuple[1], ET_U32) && token_shape(c, &out->tuple[2]);
}

static bool infer_send(InferCtx *c, Shape *out) {
  return infer_need_token(c, 1) && transfer_tuple(c, out, infer_oshape(c, 0));
}

static bool infer_recv(InferCtx *c, Shape *out) {
  return infer_need_token(c, 0) && declared_tuple(c, 3, true) &&
         transfer_tuple(c, out, &c->in->shape.tuple[0]);
}

/* send-done/recv-done take their send/recv or, pipelined through a while
 * loop, a get-tuple-element of the loop state (XLA's
 * VerifyAsynchronousInstructionPairs).  send-done returns token[] whatever
 * the operand's shape; recv-done (operand element 0, token[])
 * (ShapeVerifier::HandleSendDone / HandleRecvDone).  The evaluator refuses,
 * at run time, a state that is not (data, u32[] context, token[]). */
static bool from_op(InferCtx *c, Opcode want) {
  const Instr *s = c->in->operands[0];
  if (s->op == want || s->op == OP_GET_TUPLE_ELEMENT) return true;
  return infer_fail(c, "operand must be a %s or a get-tuple-element, got %s %s", opcode_name(want),
                    opcode_name(s->op), infer_str(c, infer_oshape(c, 0)));
}

/* copy-done takes its copy-start, or (pipelined) any value of the
 * (data, u32[] context, token[]) shape. */
static bool from_copy_start(InferCtx *c) {
  const Instr *s = c->in->operands[0];
  if (s->op == OP_COPY_START) return true;
  const Shape *t = infer_oshape(c, 0);
  if (shape_is_tuple(t) && t->ntuple == 3 && shape_is_array(&t->tuple[1]) &&
      t->tuple[1].rank == 0 && etype_is_int(t->tuple[1].etype) && t->tuple[2].etype == ET_TOKEN)
    return true;
  return infer_fail(c, "operand must be a copy-start or a (data, u32[], token[]) tuple, got %s %s",
                    opcode_name(s->op), infer_str(c, t));
}

static bool infer_recv_done(InferCtx *c, Shape *out) {
  if (!from_op(c, OP_RECV) || !infer_need_tuple(c, 0, 1) || !infer_make_tuple(c, out, 2)) return false;
  out->tuple[0] = infer_oshape(c, 0)->tuple[0];
  return token_shape(c, &out->tuple[1]);
}

/* infeed(token): (data, token[]). */
static bool infer_infeed(InferCtx *c, Shape *out) {
  if (!infer_need_token(c, 0) || !declared_tuple(c, 2, true)) return false;
  if (!infer_make_tuple(c, out, 2)) return false;
  out->tuple[0] = c->in->shape.tuple[0];
  return token_shape(c, &out->tuple[1]);
}

static bool infer_outfeed(InferCtx *c, Shape *out) {
  const Attr *a;
  if (!infer_need_token(c, 1) || !infer_attr(c, ATTR_OUTFEED_SHAPE, false, &a)) return false;
  if (a && a->kind == AV_SHAPE && a->v.shape && !infer_shapes_match(a->v.shape, infer_oshape(c, 0), false))
    return infer_fail_attr(c, a, "outfeed_shape %s does not match the operand %s",
                           infer_str(c, a->v.shape), infer_str(c, infer_oshape(c, 0)));
  return token_shape(c, out);
}

/* ---------------------------------------------------------------------------
 * Random numbers */

static bool infer_rng(InferCtx *c, Shape *out) {
  const Attr *dist;
  if (!infer_need_arrays(c, 0, 2) || !infer_attr(c, ATTR_DISTRIBUTION, true, &dist)) return false;
  const Shape *a = infer_oshape(c, 0), *b = infer_oshape(c, 1), *d = &c->in->shape;
  if (a->rank != 0 || b->rank != 0 || a->etype != b->etype)
    return infer_fail(c, "parameters %s and %s must be scalars of one type", infer_str(c, a),
                      infer_str(c, b));
  bool normal = dist->v.s && strcasecmp(dist->v.s, "rng_normal") == 0;
  if (normal ? !etype_is_float(a->etype) : !(etype_is_int(a->etype) || etype_is_float(a->etype)))
    return infer_fail(c, "%s needs %s parameters, got %s", dist->v.s,
                      normal ? "floating-point" : "integer or floating-point", infer_str(c, a));
  if (!shape_is_array(d)) return infer_fail(c, "result must be an array, declared %s", infer_str(c, d));
  infer_with_etype(out, d, a->etype);
  return true;
}

/* rng-bit-generator(state): (state, bits).  XLA's HandleRngBitGenerator
 * checks only that a tuple result has two elements, the first the state's
 * shape; any state (a tuple too) and any non-tuple result pass.  The
 * evaluator refuses, at run time, what it cannot compute. */
static bool infer_rng_bit_generator(InferCtx *c, Shape *out) {
  const Attr *alg;
  if (!infer_attr(c, ATTR_ALGORITHM, true, &alg)) return false;
  const Shape *d = &c->in->shape;
  if (shape_is_tuple(d)) {
    if (!declared_tuple(c, 2, true)) return false;
    if (!infer_shapes_match(&d->tuple[0], infer_oshape(c, 0), false))
      return infer_fail(c, "result state %s does not match the operand state %s",
                        infer_str(c, &d->tuple[0]), infer_str(c, infer_oshape(c, 0)));
  }
  *out = *d;
  return true;
}

static bool infer_rng_state(InferCtx *c, Shape *out) {
  int64_t delta, two = 2;
  if (!infer_attr_int(c, ATTR_DELTA, true, 0, &delta)) return false;
  return infer_make_array(c, out, ET_U64, 1, &two, NULL);
}

/* ---------------------------------------------------------------------------
 * Leaves */

static int leaf_count(const Shape *s) {
  if (!shape_is_tuple(s)) return 1;
  int n = 0;
  for (int i = 0; i < s->ntuple; i++) n += leaf_count(&s->tuple[i]);
  return n;
}

/* parameter_replication: one flag per leaf array of the parameter. */
static bool infer_parameter(InferCtx *c, Shape *out) {
  const Attr *a;
  if (!infer_attr(c, ATTR_PARAMETER_REPLICATION, false, &a)) return false;
  if (a && a->kind == AV_BOOL_LIST && a->v.bools.n != leaf_count(&c->in->shape))
    return infer_fail_attr(c, a, "parameter_replication has %d entries but the parameter has %d leaf arrays",
                           a->v.bools.n, leaf_count(&c->in->shape));
  *out = c->in->shape;
  return true;
}

static bool infer_constant(InferCtx *c, Shape *out) {
  const Literal *l = c->in->literal;
  if (l && !infer_shapes_match(&l->shape, &c->in->shape, false))
    return infer_fail(c, "literal of shape %s does not match the declared shape %s",
                      infer_str(c, &l->shape), infer_str(c, &c->in->shape));
  *out = c->in->shape;
  return true;
}

bool infer_control(InferCtx *c, Shape *out) {
  switch (c->in->op) {
    case OP_PARAMETER: return infer_parameter(c, out);
    case OP_CONSTANT: return infer_constant(c, out);
    case OP_TUPLE: return infer_tuple(c, out);
    case OP_GET_TUPLE_ELEMENT: return infer_gte(c, out);
    case OP_CALL: return infer_call(c, out, ATTR_TO_APPLY);
    case OP_FUSION: return infer_call(c, out, ATTR_CALLS);
    case OP_WHILE: return infer_while(c, out);
    case OP_CONDITIONAL: return infer_conditional(c, out);
    case OP_CUSTOM_CALL: return infer_custom_call(c, out);
    case OP_ASYNC_START: return infer_async_start(c, out);
    case OP_ASYNC_UPDATE:
    case OP_ASYNC_DONE: return infer_async_update_done(c, out);
    case OP_DOMAIN: {
      const Attr *a;
      if (!infer_attr(c, ATTR_DOMAIN, true, &a)) return false;
      *out = *infer_oshape(c, 0);
      return true;
    }
    case OP_OPT_BARRIER: *out = *infer_oshape(c, 0); return true;
    case OP_ADD_DEPENDENCY:
      if (!infer_need_token(c, 1)) return false;
      *out = *infer_oshape(c, 0);
      return true;
    case OP_AFTER_ALL: return infer_after_all(c, out);
    case OP_COPY_START: return infer_copy_start(c, out);
    case OP_COPY_DONE:
      if (!from_copy_start(c) || !infer_need_tuple(c, 0, 1)) return false;
      *out = infer_oshape(c, 0)->tuple[0];
      return true;
    case OP_SEND: return infer_send(c, out);
    case OP_SEND_DONE: return from_op(c, OP_SEND) && token_shape(c, out);
    case OP_RECV: return infer_recv(c, out);
    case OP_RECV_DONE: return infer_recv_done(c, out);
    case OP_INFEED: return infer_infeed(c, out);
    case OP_OUTFEED: return infer_outfeed(c, out);
    case OP_RNG: return infer_rng(c, out);
    case OP_RNG_BIT_GENERATOR: return infer_rng_bit_generator(c, out);
    default: return infer_rng_state(c, out);
  }
}
