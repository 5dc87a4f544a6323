/* The evaluators of ops that run other computations or hand state on:
 * call, while, conditional, map, fusion, the async pairs (async-start /
 * -update / -done, the *-done of collectives, copy-start / copy-done) and
 * custom-call, whose known targets are dispatched by
 * interp/custom_call/targets.c. */
#include <stdlib.h>
#include <string.h>

#include "interp/custom_call/targets.h"
#include "interp/custom_call/user_calls.h"
#include "interp/eval_internal.h"
#include "interp/eval_ops.h"
#include "interp/eval_views.h"

static bool call_with(EvalCtx *ctx, const Instr *in, const Computation *comp, Value *const *args,
                      int nargs, const Shape *rs, Value **out, Error *err) {
  EVAL_ASSERT(comp); /* to_apply / calls / branches are required and resolved */
  if (comp->nparams != nargs)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "computation %s takes %d parameters, given %d",
                     comp->name, comp->nparams, nargs);
  Value *r;
  ctx->next_caller = in;
  ctx->next_iteration = -1;
  if (!eval_run(ctx, comp, args, nargs, NULL, &r, err)) return false;
  bool ok = value_coerce(&ctx->vc, r, rs, "", out, err);
  value_unref(&ctx->vc, r);
  return ok;
}

static bool operands_of(const Frame *f, const Instr *in, int first, Value **args) {
  for (int k = first; k < in->noperands; k++) args[k - first] = frame_operand(f, in, k);
  return true;
}

static bool while_loop(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                            Error *err) {
  const Computation *cond = eval_attr_comp(in, ATTR_CONDITION), *body = eval_attr_comp(in, ATTR_BODY);
  EVAL_ASSERT(cond && body); /* required attributes */
  Value *state = value_ref(frame_operand(f, in, 0));
  for (int64_t iteration = 0;; iteration++) {
    Value *p;
    ctx->next_caller = in; /* for debugging hooks (EvalCtx.calls) */
    ctx->next_iteration = iteration;
    ctx->loop_iteration = iteration;
    if (!eval_run(ctx, cond, &state, 1, NULL, &p, err)) {
      value_unref(&ctx->vc, state);
      return false;
    }
    int64_t go = 0;
    bool ok = eval_read_scalar_i64(ctx, in, p, 0, &go, err);
    value_unref(&ctx->vc, p);
    if (!ok) {
      value_unref(&ctx->vc, state);
      return false;
    }
    if (!go) break;
    /* The body takes the state over: once its parameter is dead, arrays it
     * carried are held by nothing else and ops like dynamic-update-slice
     * can update them in place instead of copying them every iteration. */
    Value *next;
    ctx->next_caller = in;
    ctx->next_iteration = iteration;
    if (!eval_run_taking(ctx, body, &state, 1, &next, err)) return false;
    state = next;
    ctx->while_iterations++;
  }
  bool ok = value_coerce(&ctx->vc, state, rs, "", out, err);
  value_unref(&ctx->vc, state);
  return ok;
}

/* A while loop, noted in ctx->loop for the messages of a stopped run. */
/* Op: while
 * Operands: the initial loop state
 * Attributes: condition, body
 *
 * Runs body on the state while condition (a pred scalar) holds and returns the
 * last state; the body takes the state over, so arrays it carries can be
 * updated in place.
 *
 * Rule: XLA operation semantics, While.
 * Refuses: what the condition or body refuses; a run stopped by
 *   --max-instructions or --timeout.
 */
bool eval_while(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                Error *err) {
  const Instr *outer = ctx->loop;
  int64_t outer_iteration = ctx->loop_iteration;
  ctx->loop = in;
  bool ok = while_loop(ctx, f, in, rs, out, err);
  ctx->loop = outer;
  ctx->loop_iteration = outer_iteration;
  return ok;
}

/* Op: conditional
 * Operands: a pred or s32 selector, then one argument per branch
 * Attributes: branch_computations, or true_computation and false_computation
 *
 * Runs the branch the selector picks on its argument: true/false for a pred;
 * branch N for an s32 N, the last branch for an index out of range.
 *
 * Rule: XLA operation semantics, Conditional.
 * Refuses: what the chosen branch refuses.
 */
bool eval_conditional(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                      Value **out, Error *err) {
  Value *sel = frame_operand(f, in, 0);
  if (!eval_require_array(in, sel, "the branch selector", err)) return false;
  int64_t x;
  if (!eval_read_scalar_i64(ctx, in, sel, 0, &x, err)) return false;
  const Attr *bc = ir_attr(in, ATTR_BRANCH_COMPUTATIONS);
  const Computation *comp;
  int b;
  if (bc && bc->kind == AV_COMPUTATION_LIST) {
    int n = bc->v.comps.n;
    if (n < 1)
      return error_set(err, ERR_RUNTIME, in->offset, "no branches");
    /* Out of range -> the last branch (XLA's default). */
    b = (x < 0 || x >= n) ? n - 1 : (int)x;
    comp = bc->v.comps.v[b];
  } else {
    const Computation *t = eval_attr_comp(in, ATTR_TRUE_COMPUTATION);
    const Computation *fc = eval_attr_comp(in, ATTR_FALSE_COMPUTATION);
    if (!t || !fc)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "conditional needs true/false or branch computations");
    b = x ? 0 : 1;
    comp = x ? t : fc;
  }
  if (1 + b >= in->noperands)
    return error_set(err, ERR_RUNTIME, in->offset, "branch %d has no operand", b);
  Value *arg = frame_operand(f, in, 1 + b);
  return call_with(ctx, in, comp, &arg, 1, rs, out, err);
}

/* map: the scalar computation applied to whole arrays at once, with every
 * instruction's shape replaced by the mapped dims. */
/* Op: map
 * Operands: one or more arrays of the same dimensions
 * Attributes: to_apply (a scalar computation); dimensions
 *
 * Applies the scalar computation to every element position, run over whole
 * arrays at once (each instruction of the computation computed for all
 * positions).
 *
 * Rule: XLA operation semantics, Map.
 * Refuses: a computation with an instruction that is not elementwise (not
 *   supported yet).
 */
bool eval_map(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
              Error *err) {
  const Computation *comp = eval_attr_comp(in, ATTR_TO_APPLY);
  EVAL_ASSERT(comp); /* to_apply is required */
  comp = eval_scalar_body(ctx, comp);
  CompPlan *p = (CompPlan *)f->plan;
  const Shape **ov = p->aux[in->index];
  if (!ov) {
    ov = calloc((size_t)(comp->ninstrs ? comp->ninstrs : 1), sizeof *ov);
    if (!ov) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int i = 0; i < comp->ninstrs; i++) {
      const Instr *ci = comp->instrs[i];
      switch (ci->op) {
      case OP_PARAMETER: case OP_CONSTANT: case OP_CONVERT: case OP_COMPARE: case OP_SELECT:
      case OP_CLAMP: case OP_BITCAST_CONVERT: case OP_REDUCE_PRECISION:
        break;
      default:
        if (opcode_class(ci->op) == OPC_UNARY || opcode_class(ci->op) == OPC_BINARY) break;
        free(ov);
        return error_set(err, ERR_RUNTIME, in->offset,
                         "map over computation %s: instruction %s (%s) is not "
                         "elementwise; such maps are not supported yet",
                         comp->name, ci->name, opcode_name(ci->op));
      }
      if (!shape_is_array(&ci->shape) || ci->shape.rank != 0) {
        free(ov);
        return error_set(err, ERR_RUNTIME, in->offset,
                         "map computation %s must be scalar", comp->name);
      }
      ov[i] = value_dense_shape(&ctx->vc, ci->shape.etype, rs->rank, rs->dims, 0);
      if (!ov[i]) {
        free(ov);
        return error_set(err, ERR_RUNTIME, -1, "out of memory");
      }
    }
    p->aux[in->index] = ov;
  }
  Value **args = calloc((size_t)(in->noperands ? in->noperands : 1), sizeof *args);
  if (!args) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  operands_of(f, in, 0, args);
  if (comp->nparams != in->noperands) {
    free(args);
    return error_set(err, ERR_RUNTIME, in->offset,
                     "map computation %s takes %d parameters, given %d", comp->name,
                     comp->nparams, in->noperands);
  }
  Value *r;
  ctx->vc.uncounted++;
  ctx->next_caller = in;
  ctx->next_iteration = -1;
  bool ok = eval_run(ctx, comp, args, in->noperands, ov, &r, err);
  ctx->vc.uncounted--;
  free(args);
  if (!ok) return false;
  ok = value_adopt(&ctx->vc, r, "", err) && value_coerce(&ctx->vc, r, rs, "", out, err);
  value_unref(&ctx->vc, r);
  return ok;
}

/* Op: fusion
 * Operands: the arguments of the fused computation
 * Attributes: kind, calls
 *
 * Runs the fused computation on the operands; its intermediates are scratch,
 * not accounted in the memory spaces (as on a device), only the fusion's
 * operands and result are.
 *
 * Rule: HloInstruction kFusion (the result of the fused computation).
 * Refuses: what the fused computation refuses.
 */
bool eval_fusion(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                 Error *err) {
  const Computation *comp = eval_attr_comp(in, ATTR_CALLS);
  EVAL_ASSERT(comp); /* calls= is required */
  Value **args = calloc((size_t)(in->noperands ? in->noperands : 1), sizeof *args);
  if (!args) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  operands_of(f, in, 0, args);
  Value *r = NULL;
  ctx->vc.uncounted++;
  ctx->next_caller = in;
  ctx->next_iteration = -1;
  bool ok = comp->nparams == in->noperands
                ? eval_run(ctx, comp, args, in->noperands, NULL, &r, err)
                : error_set(err, ERR_RUNTIME, in->offset,
                            "fused computation %s takes %d parameters, given %d", comp->name,
                            comp->nparams, in->noperands);
  ctx->vc.uncounted--;
  free(args);
  if (!ok) return false;
  Value *c = NULL;
  ok = value_coerce(&ctx->vc, r, rs, "", &c, err);
  value_unref(&ctx->vc, r);
  if (ok) ok = value_adopt(&ctx->vc, c, "", err);
  if (!ok) {
    value_unref(&ctx->vc, c);
    return false;
  }
  *out = c;
  return true;
}

/* A zero-filled value of shape s (async contexts, tokens). */
bool eval_zero_value(EvalCtx *ctx, const Instr *in, const Shape *s, Value **out, Error *err) {
  if (shape_is_tuple(s)) return eval_state_tuple(ctx, in, s, NULL, 0, out, err);
  if (!value_shape_has_data(s)) {
    *out = value_new_token(s);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return eval_new_result(ctx, s, true, out, err);
}

/* tuple(elems..., zeros for the remaining elements of s) */
bool eval_state_tuple(EvalCtx *ctx, const Instr *in, const Shape *s, Value **first,
                       int nfirst, Value **out, Error *err) {
  if (!shape_is_tuple(s) || s->ntuple < nfirst) {
    for (int i = 0; i < nfirst; i++) value_unref(&ctx->vc, first[i]);
    return error_set(err, ERR_RUNTIME, in->offset, "unexpected result shape for an async start");
  }
  Value **el = calloc((size_t)(s->ntuple ? s->ntuple : 1), sizeof *el);
  if (!el) {
    for (int i = 0; i < nfirst; i++) value_unref(&ctx->vc, first[i]);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  for (int i = 0; i < nfirst; i++) el[i] = first[i];
  for (int i = nfirst; i < s->ntuple; i++)
    if (!eval_zero_value(ctx, in, &s->tuple[i], &el[i], err)) {
      for (int j = 0; j < i; j++) value_unref(&ctx->vc, el[j]);
      free(el);
      return false;
    }
  *out = value_new_tuple(s, s->ntuple, el);
  free(el);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

Value *eval_operand_tuple(const Frame *f, const Instr *in, const Shape *s) {
  Value *local[8]; /* the usual small tuple needs no array of its own */
  Value **el = in->noperands <= 8 ? local : calloc((size_t)in->noperands, sizeof *el);
  if (!el) return NULL;
  for (int k = 0; k < in->noperands; k++) el[k] = value_ref(frame_operand(f, in, k));
  Value *t = value_new_tuple(s, in->noperands, el);
  if (!t)
    for (int k = 0; k < in->noperands; k++) el[k]->refs--;
  if (el != local) free(el);
  return t;
}

/* Async sugar without a wrapped computation ("negate-start(x)", as XLA's
 * parser accepts for any opcode): run the wrapped opcode itself, on the same
 * operands and attributes, with the start's result element as its shape. The
 * operand tuple is built first so that its references keep the wrapped op
 * from reusing an operand's buffer for its result. */
static bool async_sugar_start(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                                   Value **out, Error *err) {
  Value *first[2];
  first[0] = eval_operand_tuple(f, in, &rs->tuple[0]);
  if (!first[0]) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  Instr inner = *in;
  inner.op = in->wrapped_op;
  inner.wrapped_op = OP_INVALID;
  inner.shape = rs->tuple[1];
  Frame g = *f; /* the wrapped op binds no arguments */
  g.args = NULL;
  g.nargs = 0;
  if (!eval_op(ctx, &g, &inner, &rs->tuple[1], &first[1], err)) {
    value_unref(&ctx->vc, first[0]);
    return false;
  }
  return eval_state_tuple(ctx, in, rs, first, 2, out, err);
}

/* Op: async-start
 * Operands: the arguments of the wrapped computation
 * Attributes: calls (or the wrapped opcode of X-start sugar)
 *
 * Runs the wrapped computation (or, for X-start sugar, opcode X itself) at
 * once and returns the state tuple ((operands), result, context...), which
 * async-done unwraps.
 *
 * Rule: XLA operation semantics, async operations: execution is immediate,
 *   which is one valid schedule.
 * Refuses: a start of no computation and no wrapped opcode.
 */
bool eval_async_start(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                      Value **out, Error *err) {
  const Computation *comp = eval_attr_comp(in, ATTR_CALLS);
  if (!comp && in->wrapped_op == OP_INVALID) return eval_unsupported(in, err);
  if (!shape_is_tuple(rs) || rs->ntuple < 2)
    return error_set(err, ERR_RUNTIME, in->offset, "async-start shape must be a tuple ((operands), result, ...)");
  if (!comp) return async_sugar_start(ctx, f, in, rs, out, err);
  Value **args = calloc((size_t)(in->noperands ? in->noperands : 1), sizeof *args);
  if (!args) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  operands_of(f, in, 0, args);
  Value *r;
  bool ok = call_with(ctx, in, comp, args, in->noperands, &rs->tuple[1], &r, err);
  free(args);
  if (!ok) return false;
  Value *first[2];
  first[0] = eval_operand_tuple(f, in, &rs->tuple[0]);
  first[1] = r;
  if (!first[0]) {
    value_unref(&ctx->vc, r);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return eval_state_tuple(ctx, in, rs, first, 2, out, err);
}

/* X-done: the result element of the start's state tuple. */
static bool async_done_element(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, int elem,
                            Value **out, Error *err) {
  Value *st = frame_operand(f, in, 0);
  Value *r = st;
  if (st->ntuple && elem < st->ntuple && !shape_is_tuple(rs) == !st->elems[elem]->ntuple)
    r = st->elems[elem];
  return value_coerce(&ctx->vc, r, rs, "", out, err);
}


/* Op: call
 * Operands: the arguments of the callee
 * Attributes: to_apply
 *
 * Runs computation to_apply on the operands and returns its root value.
 *
 * Rule: XLA operation semantics, Call.
 * Refuses: what the callee refuses.
 */
bool eval_call(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
               Error *err) {
  Value **a = calloc((size_t)(in->noperands ? in->noperands : 1), sizeof *a);
  if (!a) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  operands_of(f, in, 0, a);
  bool ok = call_with(ctx, in, eval_attr_comp(in, ATTR_TO_APPLY), a, in->noperands, rs, out, err);
  free(a);
  return ok;
}

/* Op: async-update
 * Operands: the state of an async-start
 * Attributes: none
 *
 * The state, unchanged: the work is already done.
 *
 * Rule: XLA async operations.
 * Refuses: nothing the verifier accepts.
 */
bool eval_async_update(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                       Error *err) {
  (void)ctx, (void)rs, (void)err;
  *out = value_ref(frame_operand(f, in, 0));
  return true;
}

/* Op: async-done, all-gather-done, all-reduce-done, collective-permute-done
 * Operands: the state of the matching start
 * Attributes: none
 *
 * The result element {1} of the start's state tuple (all-reduce-done: the
 * start's value itself).
 *
 * Rule: XLA async operations; the -done of an asynchronous collective.
 * Refuses: nothing the verifier accepts.
 */
bool eval_async_done(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  return async_done_element(ctx, f, in, rs, 1, out, err);
}

/* Op: copy-start
 * Operands: any value
 * Attributes: none (cross_program_prefetch_index is kept)
 *
 * Copies the operand into the destination's layout and memory space at once
 * and returns (destination, source, context).
 *
 * Rule: HloInstruction kCopyStart.
 * Refuses: nothing the verifier accepts.
 */
bool eval_copy_start(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  if (!shape_is_tuple(rs) || rs->ntuple < 2)
    return error_set(err, ERR_RUNTIME, in->offset, "copy-start shape must be (dest, src, context)");
  Value *first[2];
  if (!eval_copy_to(ctx, in, frame_operand(f, in, 0), &rs->tuple[0], &first[0], err)) return false;
  first[1] = value_ref(frame_operand(f, in, 0));
  return eval_state_tuple(ctx, in, rs, first, 2, out, err);
}

/* Op: copy-done
 * Operands: the state of a copy-start
 * Attributes: none
 *
 * The destination, element {0} of the start's state.
 *
 * Rule: HloInstruction kCopyDone.
 * Refuses: nothing the verifier accepts.
 */
bool eval_copy_done(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                    Error *err) {
  return async_done_element(ctx, f, in, rs, 0, out, err);
}

/* Whether each array of `src` has as many elements as the matching array of
 * `rs` (a collective or sharding custom call that changes them spans more
 * than one device). */
bool eval_same_element_counts(const Value *src, const Shape *rs) {
  if (shape_is_tuple(rs)) {
    if (src->ntuple != rs->ntuple) return true; /* eval_copy_to reports the arity */
    for (int i = 0; i < rs->ntuple; i++)
      if (!eval_same_element_counts(src->elems[i], &rs->tuple[i])) return false;
    return true;
  }
  int64_t n;
  return !shape_is_array(rs) || !src->info || src->info->elements == 0 ||
         !shape_element_count(rs, &n) || n == src->info->elements;
}


/* Op: custom-call
 * Operands: any
 * Attributes: custom_call_target; optionally backend_config, api_version,
 *   called_computations, ...
 *
 * Runs a target the user registered (--custom-call: an FFI handler, an
 * old-style CPU function or an HLO substitute; interp/custom_call/user_calls.h),
 * else the target named by custom_call_target through its row in
 * interp/custom_call/targets.c: the sharding and placement markers pass
 * their operand through, the library targets (cuBLAS, cuDNN, LAPACK,
 * jaxlib, Neuron, ...) compute what their library would.
 *
 * Rule: XLA CustomCall: what a target computes is defined by its library.
 * Refuses: an unknown target (unless --unknown-custom-calls makes up its
 *   result); a sharding marker that changes the shape (a multi-device module
 *   run on one device).
 */
bool eval_custom_call(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                      Error *err) {
  const Attr *t = ir_attr(in, ATTR_CUSTOM_CALL_TARGET);
  const char *target = t && (t->kind == AV_STRING) ? t->v.s : "";
  const UserCall *uc = user_calls_find(ctx->user_calls, target);
  if (uc) return user_call_eval(ctx, f, in, uc, rs, out, err);
  CustomCallEval run = custom_call_evaluator(target);
  if (run) return run(ctx, f, in, target, rs, out, err);
  if (ctx->unknown_call) return ctx->unknown_call(ctx->feed_ud, ctx, in, target, rs, out, err);
  const Computation *c = eval_attr_comp(in, ATTR_TO_APPLY);
  const Attr *cc = ir_attr(in, ATTR_CALLED_COMPUTATIONS);
  const char *callee = c ? c->name
                       : (cc && cc->kind == AV_COMPUTATION_LIST && cc->v.comps.n > 0)
                           ? cc->v.comps.v[0]->name
                           : NULL;
  if (callee)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "custom-call target \"%s\" is not supported (it calls "
                     "computation %s, but what the target does with it is unknown)",
                     target, callee);
  return error_set(err, ERR_RUNTIME, in->offset,
                   "custom-call target \"%s\" is not supported", target);
}

