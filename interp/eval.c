/* The evaluator: one dispatch over opcodes through eval_of[op], the eval
 * column of parser/opcodes.def (as SQLite's vdbe.c runs one loop over its
 * opcodes), and the run loop around it: each instruction in text order,
 * its operands' mixed precision and dynamic sizes handled around the call,
 * then its stats, trace, debugging hooks and the release of values at
 * their last use.  The evaluators live by family: eval_values.c
 * (parameter, constant, tuple...), eval_movement.c (broadcast, slice,
 * pad...), eval_control.c (call, while, fusion, async, custom-call),
 * eval_elementwise.c, eval_compute.c (dot, reduce...) and the eval_*.c
 * files of single ops; plans are made once by eval_plan.c. */
#include "interp/eval.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/eval_dynamic.h"
#include "interp/mem_track.h"
#include "interp/eval_internal.h"
#include "interp/eval_ops.h"

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool eval_unsupported(const Instr *in, Error *err) {
  const char *op = opcode_name(in->op);
  if ((in->op == OP_ASYNC_START || in->op == OP_ASYNC_UPDATE || in->op == OP_ASYNC_DONE) &&
      in->wrapped_op != OP_INVALID) {
    return error_set(err, ERR_RUNTIME, in->offset, "opcode %s-%s is not supported yet",
                     opcode_name(in->wrapped_op),
                     in->op == OP_ASYNC_START ? "start" : in->op == OP_ASYNC_UPDATE ? "update" : "done");
  }
  return error_set(err, ERR_RUNTIME, in->offset, "opcode %s is not supported yet", op);
}

/* Op: dynamic-reshape
 * Operands: an array, then one s32 scalar size per result dimension
 * Attributes: none
 *
 * A reshape to runtime dimension sizes. The evaluator does not run it yet.
 *
 * Rule: XLA operation semantics, DynamicReshape.
 * Refuses: every execution (not supported yet).
 */
bool eval_unsupported_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                         Error *err) {
  (void)ctx, (void)f, (void)rs, (void)out;
  return eval_unsupported(in, err);
}

/* --- dispatch --- */

/* The eval column of parser/opcodes.def: one evaluator per opcode. */
static const EvalFn eval_of[OP_COUNT] = {
#define OPCODE(id, text, lo, hi, cls, infer, eval, ...) [OP_##id] = eval,
#include "parser/opcodes.def"
#undef OPCODE
};

bool eval_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out, Error *err) {
  EvalFn fn = (unsigned)in->op < OP_COUNT ? eval_of[in->op] : NULL;
  return fn ? fn(ctx, f, in, rs, out, err) : eval_unsupported(in, err);
}

/* --- the run loop --- */

static void traffic(EvalCtx *ctx, InstrStats *st, const Value *v, bool write) {
  if (!v) return;
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++) traffic(ctx, st, v->elems[i], write);
    return;
  }
  if (!v->info || !v->buf) return;
  int64_t n = v->info->phys_bytes;
  MemSystem *mem = ctx->vc.mem;
  const MemSpace *sp = mem_find(mem, v->info->space);
  if (sp) {
    if (!st->space_bytes) st->space_bytes = calloc(2 * MEM_MAX_SPACES, sizeof *st->space_bytes);
    if (st->space_bytes) st->space_bytes[2 * (sp - mem->spaces) + write] += n;
    else ctx->traffic_oom = true;
  }
  if (write) {
    st->bytes_written += n;
    mem_count_write(ctx->vc.mem, v->info->space, n);
  } else {
    st->bytes_read += n;
    mem_count_read(ctx->vc.mem, v->info->space, n);
  }
}


/* The one place an error gets its "instruction NAME: " prefix: evaluators
 * set only the message.  A message that already starts with "instruction "
 * keeps its own: it comes from a deeper instruction (in a called
 * computation, which names itself) or from an evaluator that still types
 * the prefix itself; "parameter " messages name what was not bound. */
static void prefix_error(const Instr *in, Error *err) {
  if (!err) return;
  /* Located at the instruction unless a deeper one (in a called
   * computation) already placed it, whatever the message says. */
  if (err->offset < 0) err->offset = in->offset;
  if (strncmp(err->msg, "instruction ", 12) == 0 || strncmp(err->msg, "parameter ", 10) == 0)
    return;
  char tmp[sizeof err->msg + 512];
  snprintf(tmp, sizeof tmp, "instruction %s: %s", in->name, err->msg);
  tmp[sizeof err->msg - 1] = 0;
  memcpy(err->msg, tmp, sizeof err->msg);
}

static void release_after(EvalCtx *ctx, const CompPlan *plan, Value **vals, int i) {
  for (int r = plan->release_start[i]; r < plan->release_start[i + 1]; r++) {
    int j = plan->release[r];
    value_unref(&ctx->vc, vals[j]);
    vals[j] = NULL;
  }
}

/* A deferred broadcast (CompPlan.deferred) at its place in the program:
 * counted as executed, as a fused member is, but not materialised. */
static void skip_deferred(EvalCtx *ctx, Frame *f, int i) {
  InstrStats *st = &f->plan->stats[i];
  st->count++;
  ctx->instructions_executed++;
  ctx->fused_instructions++;
  if (ctx->trace) ctx->trace(ctx->trace_ud, f->plan->comp->instrs[i], NULL, 0, ctx->depth - 1);
  release_after(ctx, f->plan, f->vals, i);
}

/* Operands of `in` that are deferred broadcasts not materialised yet (its
 * reader runs unfused: dynamic sizes, or one by one): made now. */
static bool materialise_deferred(EvalCtx *ctx, Frame *f, const Instr *in, Error *err) {
  for (int k = 0; k < in->noperands; k++) {
    const Instr *b = in->operands[k];
    if (b->parent != f->plan->comp || f->vals[b->index] || !f->plan->deferred[b->index]) continue;
    if (!eval_op(ctx, f, b, &b->shape, &f->vals[b->index], err)) {
      prefix_error(b, err);
      return false;
    }
  }
  return true;
}

/* Instruction i alone: run it, then its stats, trace and releases.  *t
 * (when timing) is the instant instruction i started; it receives the one
 * the next instruction starts at: the clock is read once per instruction
 * (none for EVAL_IF_UNTIMED ones), so the bookkeeping after one (traffic,
 * releases) counts towards the next, except a trace callback's own time,
 * which counts towards none. */
static bool run_one(EvalCtx *ctx, Frame *f, int i, const Shape *rs, int64_t *t, Error *err) {
  const CompPlan *plan = f->plan;
  const Instr *in = plan->comp->instrs[i];
  InstrStats *st = &plan->stats[i];
  unsigned flags = plan->iflags[i];
  /* A constant's first execution materialises it: timed like real work. */
  bool timed = ctx->timing && (!(flags & EVAL_IF_UNTIMED) || ctx->trace ||
                               (in->op == OP_CONSTANT && !plan->consts[i]));
  Value *v = NULL;
  /* Float operands of another precision than the op's are converted first;
   * operands with sizes below their bounds go through eval_dynamic.c. */
  OperandSwap mix; /* only n is read unless set (the struct is big to clear) */
  mix.n = 0;
  if (flags & EVAL_IF_MIXED_RESULT) {
    error_set(err, ERR_RUNTIME, in->offset,
              "instruction %s: %s declared with another floating-point type than it computes "
              "(mixed precision) is not supported",
              in->name, opcode_name(in->op));
    return false;
  }
  if (ctx->vc.track && ctx->vc.uncounted == 0) memtrack_step(ctx->vc.track, in);
  bool ok = materialise_deferred(ctx, f, in, err);
  ok = ok && (!(flags & EVAL_IF_MIXED) || eval_mixed_before(ctx, f, in, &mix, err));
  bool dyn = ok && (flags & EVAL_IF_DYN) && eval_dyn_operands(f, in);
  DynSwap sw;
  sw.n = 0;
  ok = ok && (!dyn || eval_dyn_before(ctx, f, in, &sw, err));
  ok = ok && eval_op(ctx, f, in, rs, &v, err);
  if (dyn) eval_dyn_restore(ctx, f, &sw);
  if (mix.n) eval_swap_restore(ctx, f, &mix);
  if (ok && dyn && !eval_dyn_after(ctx, f, in, &v, err)) {
    value_unref(&ctx->vc, v);
    ok = false;
  }
  if (!ok) {
    prefix_error(in, err);
    return false;
  }
  f->vals[i] = v;
  int64_t dt = 0;
  if (timed) {
    int64_t t1 = now_ns();
    dt = t1 - *t;
    *t = t1;
  }
  st->count++;
  st->ns += dt;
  ctx->instructions_executed++;
  if (ctx->vc.uncounted == 0 && (flags & EVAL_IF_TRAFFIC)) {
    for (int k = 0; k < in->noperands; k++) traffic(ctx, st, f->vals[in->operands[k]->index], false);
    traffic(ctx, st, v, true);
  }
  if (ctx->trace) {
    ctx->trace(ctx->trace_ud, in, v, dt, ctx->depth - 1);
    if (ctx->timing) *t = now_ns();
  }
  if (ctx->watch && !ctx->watch(ctx->watch_ud, ctx, in, f->vals, v, err)) return false;
  release_after(ctx, plan, f->vals, i);
  return true;
}

/* An elementwise group: the constants it spans first (one by one), then one
 * fused loop over its members, then the bookkeeping of each member (stats,
 * trace, releases) as if they had run one by one. */
static bool run_group(EvalCtx *ctx, Frame *f, int first, int64_t *t, Error *err) {
  const CompPlan *plan = f->plan;
  int last = plan->group_end[first];
  int64_t t0 = *t;
  for (int k = first; k <= last; k++) {
    if (eval_group_member(plan->comp->instrs[k])) continue;
    int64_t tk = ctx->timing ? now_ns() : 0;
    if (!run_one(ctx, f, k, &plan->comp->instrs[k]->shape, &tk, err)) return false;
  }
  /* The group is one step of the memory timeline, named by its last member. */
  if (ctx->vc.track && ctx->vc.uncounted == 0) memtrack_step(ctx->vc.track, plan->comp->instrs[last]);
  if (!eval_elementwise_group(ctx, f, first, last, err)) {
    prefix_error(plan->comp->instrs[last], err);
    return false;
  }
  int64_t dt = 0;
  if (ctx->timing) {
    int64_t t1 = now_ns();
    dt = t1 - t0;
    *t = t1;
  }
  for (int k = first; k <= last; k++) {
    const Instr *in = plan->comp->instrs[k];
    if (!eval_group_member(in)) continue; /* a hoisted constant, accounted above */
    ctx->fused_instructions++;
    Value *v = f->vals[k]; /* NULL unless materialised */
    InstrStats *st = &plan->stats[k];
    st->count++;
    ctx->instructions_executed++;
    /* traffic: operands from outside the group, materialised results */
    if (ctx->vc.uncounted == 0)
      for (int o = 0; o < in->noperands; o++) {
        const Instr *op = in->operands[o];
        if (op->index < first || op->index > last || !eval_group_member(op))
          traffic(ctx, st, f->vals[op->index], false);
      }
    if (k == last) st->ns += dt;
    if (v && ctx->vc.uncounted == 0) traffic(ctx, st, v, true);
    if (ctx->trace) ctx->trace(ctx->trace_ud, in, v, k == last ? dt : 0, ctx->depth - 1);
  }
  for (int k = first; k <= last; k++) release_after(ctx, plan, f->vals, k);
  if (ctx->trace && ctx->timing) *t = now_ns();
  return true;
}

/* Whether a group starting at `first` reads a value with dynamic sizes
 * (then its members run one by one, through eval_dynamic.c). */
static bool group_has_dyn(const Frame *f, int first) {
  const CompPlan *plan = f->plan;
  for (int k = first; k <= plan->group_end[first]; k++) {
    const Instr *in = plan->comp->instrs[k];
    for (int o = 0; o < in->noperands; o++)
      if (in->operands[o]->index < first && value_has_dyn(f->vals[in->operands[o]->index]))
        return true;
  }
  return false;
}

static bool run_frame(EvalCtx *ctx, const Computation *comp, Value *const *args, int nargs,
                      const Shape *const *override, bool take_args, Value **out, Error *err);

bool eval_run(EvalCtx *ctx, const Computation *comp, Value *const *args, int nargs,
              const Shape *const *override, Value **out, Error *err) {
  return run_frame(ctx, comp, args, nargs, override, false, out, err);
}

bool eval_run_taking(EvalCtx *ctx, const Computation *comp, Value **args, int nargs, Value **out,
                     Error *err) {
  bool ok = run_frame(ctx, comp, args, nargs, NULL, true, out, err);
  for (int i = 0; i < nargs; i++) { /* arguments no parameter took */
    value_unref(&ctx->vc, args[i]);
    args[i] = NULL;
  }
  return ok;
}

/* How often (in executed instructions) the deadline is looked at: a clock
 * read per 64 instructions costs nothing measurable. */
enum { DEADLINE_STRIDE = 64 };

/* A run stopped before instruction in: where it was, for the message. */
static bool stopped(EvalCtx *ctx, const Instr *in, const char *why, Error *err) {
  char loop[300] = "";
  if (ctx->loop)
    snprintf(loop, sizeof loop, " (in while %s, iteration %" PRId64 ")", ctx->loop->name,
             ctx->loop_iteration);
  return error_set(err, ERR_RUNTIME, in->offset,
                   "instruction %s: run stopped %s, after %" PRId64 " executed instructions%s",
                   in->name, why, ctx->instructions_executed, loop);
}

/* The slow path of run_frame's one compare per instruction: the budget of
 * executed instructions, the deadline, then the progress hook; sets the
 * next checkpoint. */
static bool checkpoint(EvalCtx *ctx, const Instr *in, Error *err) {
  if (ctx->max_instructions > 0 && ctx->instructions_executed >= ctx->max_instructions) {
    char why[80];
    snprintf(why, sizeof why, "by the budget of %" PRId64 " instructions", ctx->max_instructions);
    return stopped(ctx, in, why, err);
  }
  int64_t next = ctx->max_instructions > 0 ? ctx->max_instructions : INT64_MAX;
  if (ctx->deadline_ns > 0) {
    if (now_ns() >= ctx->deadline_ns) return stopped(ctx, in, "by the time limit", err);
    if (ctx->instructions_executed + DEADLINE_STRIDE < next)
      next = ctx->instructions_executed + DEADLINE_STRIDE;
  }
  if (ctx->progress) {
    int64_t stride = ctx->progress(ctx->progress_ud, ctx, in);
    if (stride < 1) stride = 1;
    if (ctx->instructions_executed + stride < next) next = ctx->instructions_executed + stride;
  }
  ctx->checkpoint = next;
  return true;
}

static bool run_frame(EvalCtx *ctx, const Computation *comp, Value *const *args, int nargs,
                      const Shape *const *override, bool take_args, Value **out, Error *err) {
  *out = NULL;
  if (ctx->depth >= EVAL_MAX_DEPTH)
    return error_set(err, ERR_RUNTIME, -1, "computation %s: calls nested deeper than %d",
                     comp->name, EVAL_MAX_DEPTH);
  if (comp->index < 0 || comp->index >= ctx->nplans || ctx->plans[comp->index].comp != comp)
    return error_set(err, ERR_RUNTIME, -1, "computation %s: not part of the module", comp->name);
  const CompPlan *plan = &ctx->plans[comp->index];
  int n = comp->ninstrs;
  Value *local[32];
  Value **vals = n <= 32 ? local : calloc((size_t)n, sizeof *vals);
  if (!vals) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  memset(vals, 0, sizeof *vals * (size_t)n);
  Frame f = {plan, vals, override, take_args, ctx->watch != NULL, args, nargs};
  bool ok = true;
  if (ctx->calls) {
    ctx->calls[ctx->depth] = (EvalCall){comp, ctx->next_caller, ctx->next_iteration};
    ctx->next_caller = NULL;
  }
  ctx->depth++;
  int64_t t = ctx->timing ? now_ns() : 0; /* when instruction i starts */
  for (int i = 0; i < n && ok; i++) {
    const Instr *in = comp->instrs[i];
    if (ctx->instructions_executed >= ctx->checkpoint && !(ok = checkpoint(ctx, in, err)))
      break;
    const Shape *rs = override ? override[i] : &in->shape;
    if (!override && ctx->fuse && !f.keep_operands && plan->deferred[i]) {
      skip_deferred(ctx, &f, i);
      continue;
    }
    if (!override && ctx->fuse && plan->group_end[i] >= i && !group_has_dyn(&f, i)) {
      ok = run_group(ctx, &f, i, &t, err);
      i = plan->group_end[i];
      continue;
    }
    ok = run_one(ctx, &f, i, rs, &t, err);
  }
  ctx->depth--;
  if (ok) {
    const Instr *root = comp->root;
    if (!root) ok = error_set(err, ERR_RUNTIME, -1, "computation %s has no root", comp->name);
    else {
      *out = vals[root->index];
      vals[root->index] = NULL;
    }
  }
  for (int i = 0; i < n; i++) value_unref(&ctx->vc, vals[i]);
  if (vals != local) free(vals);
  return ok;
}

bool eval_computation(EvalCtx *ctx, const Computation *comp, Value *const *args, int nargs,
                      Value **out, Error *err) {
  return eval_run(ctx, comp, args, nargs, NULL, out, err);
}

