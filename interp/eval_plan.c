/* Plans: what the evaluator works out once per computation, at eval_init,
 * rather than at every execution -- each value's last use (so it is
 * released right after it), the elementwise groups run fused, and the
 * per-instruction flags run_one reads (the op's row in parser/opcodes.def
 * says whether its reads and writes count as traffic and whether it is
 * timed). */
#include <stdlib.h>
#include <string.h>

#include "interp/collective/send_recv.h"
#include "interp/custom_call/user_calls.h"
#include "interp/eval_dynamic.h"
#include "interp/eval_inline.h"
#include "interp/eval_internal.h"

/* Elementwise chains are fused from this result size on (smaller ones run
 * op by op, so small programs keep exact per-instruction liveness). */
#define EVAL_FUSE_MIN_BYTES ((int64_t)1 << 20)
#define EVAL_GROUP_MAX 512 /* instructions spanned by one fused group */

/* Results of at least EVAL_FUSE_MIN_BYTES start fused groups. */
static bool fusion_sized(const Instr *in) {
  int64_t elems, bytes;
  if (!shape_element_count(&in->shape, &elems)) return false;
  /* an overflowing size is certainly big enough (the run refuses it later) */
  return __builtin_mul_overflow(elems, (int64_t)etype_storage_bytes(in->shape.etype), &bytes) ||
         bytes >= EVAL_FUSE_MIN_BYTES;
}

/* Big broadcasts read only by elementwise code are deferred: never
 * materialised, each fused group re-derives them from their operand (a
 * relu6 clamp(broadcast(0), x, broadcast(6)) over f32[96,96,112,112] wrote
 * and read two 441 MB arrays of one repeated value).  A broadcast qualifies
 * when it is not the root, not itself in a group, its operand is no group
 * member (so it is materialised), and every user is a member of a group or
 * a big lone elementwise op of the same shape, which then runs as a group
 * of one. */
static bool plan_defer(CompPlan *p, const Computation *c) {
  int n = c->ninstrs;
  p->deferred = calloc((size_t)(n ? n : 1), 1);
  int *gfirst = malloc(sizeof(int) * (size_t)(n ? n : 1));
  if (!p->deferred || !gfirst) {
    free(gfirst);
    return false;
  }
  /* A group of nothing but broadcasts (and constants) fuses nothing: its
   * broadcasts are taken apart, to be deferred one by one. */
  for (int i = 0; i < n; i++) {
    if (p->group_end[i] <= i) continue;
    bool only = true;
    for (int k = i; k <= p->group_end[i] && only; k++)
      only = c->instrs[k]->op == OP_BROADCAST || !eval_group_member(c->instrs[k]);
    if (only) p->group_end[i] = -1;
  }
  for (int i = 0; i < n; i++) gfirst[i] = -1;
  for (int i = 0; i < n; i++)
    if (p->group_end[i] > i)
      for (int k = i; k <= p->group_end[i]; k++)
        if (eval_group_member(c->instrs[k])) gfirst[k] = i;
  /* ok[b]: every user seen so far can read b re-derived; users[b]: how many */
  unsigned char *ok = malloc((size_t)(n ? n : 1));
  int *users = calloc((size_t)(n ? n : 1), sizeof(int));
  if (!ok || !users) {
    free(gfirst); free(ok); free(users);
    return false;
  }
  for (int i = 0; i < n; i++) {
    const Instr *b = c->instrs[i];
    const Instr *o = b->noperands == 1 ? b->operands[0] : NULL;
    ok[i] = b->op == OP_BROADCAST && b != c->root && gfirst[i] < 0 && eval_fusable(b) && fusion_sized(b) &&
            o && (o->parent != c || gfirst[o->index] < 0);
  }
  for (int u = 0; u < n; u++) {
    const Instr *in = c->instrs[u];
    bool lone = gfirst[u] < 0 && in->op != OP_BROADCAST && eval_fusable(in) && fusion_sized(in);
    for (int k = 0; k < in->noperands; k++) {
      const Instr *x = in->operands[k];
      if (x->parent != c || x->index >= u || !ok[x->index]) continue;
      users[x->index]++;
      if (gfirst[u] < 0 && !lone) ok[x->index] = 0;
    }
  }
  for (int u = 0; u < n; u++) {
    const Instr *in = c->instrs[u];
    if (gfirst[u] >= 0) continue;
    for (int k = 0; k < in->noperands; k++) {
      const Instr *x = in->operands[k];
      if (x->parent == c && x->index < u && ok[x->index] && users[x->index] > 0) p->group_end[u] = u;
    }
  }
  for (int i = 0; i < n; i++) p->deferred[i] = ok[i] && users[i] > 0;
  free(gfirst); free(ok); free(users);
  return true;
}

/* keep[x] for the members of groups: whether x's value is needed after its
 * group (the root, or a user that is not a member of a group; big
 * broadcasts used by later groups are re-derived there). */
static bool plan_keep(CompPlan *p, const Computation *c) {
  int n = c->ninstrs;
  int *gfirst = malloc(sizeof(int) * (size_t)(n ? n : 1));
  p->keep = calloc((size_t)(n ? n : 1), 1);
  if (!gfirst || !p->keep) {
    free(gfirst);
    return false;
  }
  for (int i = 0; i < n; i++) gfirst[i] = -1;
  for (int i = 0; i < n; i++)
    if (p->group_end[i] >= i)
      for (int k = i; k <= p->group_end[i]; k++)
        if (eval_group_member(c->instrs[k])) gfirst[k] = i;
  for (int u = 0; u < n; u++) {
    const Instr *in = c->instrs[u];
    if (in == c->root && gfirst[u] >= 0) p->keep[u] = 1;
    for (int k = 0; k < in->noperands; k++) {
      const Instr *x = in->operands[k];
      if (x->parent != c || x->index >= u || gfirst[x->index] < 0) continue;
      int g = gfirst[x->index];
      if (u <= p->group_end[g]) continue; /* inside x's own group */
      const Instr *xo = x->op == OP_BROADCAST ? x->operands[0] : NULL;
      if (xo && gfirst[u] >= 0 &&
          (xo->parent != c || p->last_use[xo->index] >= p->last_use[x->index]))
        continue; /* re-derived from its (still live) operand */
      p->keep[x->index] = 1;
    }
  }
  free(gfirst);
  return true;
}

static bool plan_comp(CompPlan *p, const Module *m, const Computation *c, Arena *scratch) {
  int n = c->ninstrs;
  size_t sz = (size_t)(n ? n : 1);
  p->comp = c;
  p->last_use = malloc(sizeof(int) * sz);
  p->release_start = calloc(sz + 1, sizeof(int));
  p->stats = calloc(sz, sizeof(InstrStats));
  p->consts = calloc(sz, sizeof(Value *));
  p->aux = calloc(sz, sizeof(void *));
  p->iflags = calloc(sz, 1);
  if (!p->last_use || !p->release_start || !p->stats || !p->consts || !p->aux || !p->iflags)
    return false;
  for (int i = 0; i < n; i++) {
    const Instr *in = c->instrs[i];
    unsigned flags = opcode_flags(in->op);
    p->iflags[i] = (unsigned char)((eval_mixed_precision(in) ? EVAL_IF_MIXED : 0) |
                                   (eval_dyn_may_apply(in) ? EVAL_IF_DYN : 0) |
                                   (flags & OPF_NO_TRAFFIC ? 0 : EVAL_IF_TRAFFIC) |
                                   (flags & OPF_UNTIMED ? EVAL_IF_UNTIMED : 0) |
                                   (eval_mixed_result_unsupported(m, in, scratch)
                                        ? EVAL_IF_MIXED_RESULT
                                        : 0));
  }
  for (int i = 0; i < n; i++) p->last_use[i] = -1;
  for (int i = 0; i < n; i++) {
    const Instr *in = c->instrs[i];
    for (int k = 0; k < in->noperands; k++) {
      const Instr *o = in->operands[k];
      if (o->parent == c && o->index < i) p->last_use[o->index] = i;
    }
  }
  /* A broadcast that fused groups read as a view of its operand keeps that
   * operand alive as long as itself (later groups re-derive it rather than
   * read a materialised copy). */
  for (int i = n - 1; i >= 0; i--) {
    const Instr *b = c->instrs[i];
    if (b->op != OP_BROADCAST || !eval_fusable(b)) continue;
    const Instr *o = b->operands[0];
    if (o->parent == c && o->index < i && p->last_use[i] > p->last_use[o->index])
      p->last_use[o->index] = p->last_use[i];
  }
  /* Value of instr j dies after instr last_use[j] (or right after itself when
   * unused); the root lives on as the result. */
  int *count = calloc(sz, sizeof(int));
  if (!count) return false;
  int total = 0;
  for (int j = 0; j < n; j++) {
    if (c->instrs[j] == c->root) continue;
    int at = p->last_use[j] < 0 ? j : p->last_use[j];
    count[at]++;
    total++;
  }
  p->release = malloc(sizeof(int) * (size_t)(total ? total : 1));
  if (!p->release) {
    free(count);
    return false;
  }
  for (int i = 0; i < n; i++) p->release_start[i + 1] = p->release_start[i] + count[i];
  memset(count, 0, sizeof(int) * sz);
  for (int j = 0; j < n; j++) {
    if (c->instrs[j] == c->root) continue;
    int at = p->last_use[j] < 0 ? j : p->last_use[j];
    p->release[p->release_start[at] + count[at]++] = j;
  }
  free(count);
  p->group_end = malloc(sizeof(int) * sz);
  if (!p->group_end) return false;
  for (int i = 0; i < n; i++) p->group_end[i] = -1;
  for (int i = 0; i < n;) {
    const Instr *a = c->instrs[i];
    if (!eval_fusable(a) || !fusion_sized(a)) {
      i++;
      continue;
    }
    /* Extend over the following elementwise ops of the same shape and
     * layout; constants between them are hoisted (evaluated before the
     * group).  Members whose value is needed after the group (or is the
     * root) are materialised, the others live in block-sized scratch. */
    int end = i;
    for (int j = i + 1; j < n && j - i < EVAL_GROUP_MAX; j++) {
      const Instr *b = c->instrs[j];
      if (b->op == OP_CONSTANT) continue;
      if (!eval_fusable(b) || b->shape.rank != a->shape.rank) break;
      bool same = true;
      for (int d = 0; d < a->shape.rank; d++) same = same && b->shape.dims[d] == a->shape.dims[d];
      Layout x = a->shape.layout, y = b->shape.layout;
      x.memory_space = y.memory_space = 0;
      if (!same || !layout_equal(&x, &y)) break;
      /* a broadcast reads its operand's value: a hoisted constant at most */
      if (b->op == OP_BROADCAST && b->operands[0]->parent == c && b->operands[0]->index >= i &&
          eval_group_member(b->operands[0]))
        break;
      end = j;
    }
    if (end > i) p->group_end[i] = end;
    i = end + 1;
  }
  return plan_defer(p, c) && plan_keep(p, c);
}

bool eval_init(EvalCtx *ctx, const Module *m, MemSystem *mem, Arena *run_arena, Error *err) {
  memset(ctx, 0, sizeof *ctx);
  ctx->module = m;
  ctx->fuse = true;
  if (!value_ctx_init(&ctx->vc, mem, run_arena))
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  /* Flat forms of scalar computations get plans after the module's. */
  size_t nc = (size_t)(m->ncomps ? m->ncomps : 1);
  Computation **flat = calloc(nc, sizeof *flat);
  ctx->scalar_body = calloc(nc, sizeof *ctx->scalar_body);
  if (!flat || !ctx->scalar_body) {
    free(flat);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  int nflat = 0;
  for (int i = 0; i < m->ncomps; i++)
    if ((flat[i] = eval_flatten_scalar(run_arena, m->comps[i]))) {
      flat[i]->index = m->ncomps + nflat++;
      ctx->scalar_body[i] = flat[i];
    }
  ctx->nplans = m->ncomps + nflat;
  ctx->plans = calloc((size_t)(ctx->nplans ? ctx->nplans : 1), sizeof(CompPlan));
  Arena *scratch = arena_new();
  bool ok = ctx->plans != NULL && scratch != NULL;
  for (int i = 0; ok && i < m->ncomps; i++) {
    ok = plan_comp(&ctx->plans[i], m, m->comps[i], scratch);
    if (ok && flat[i]) ok = plan_comp(&ctx->plans[flat[i]->index], m, flat[i], scratch);
  }
  if (scratch) arena_free(scratch);
  free(flat);
  return ok ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

const Computation *eval_scalar_body(const EvalCtx *ctx, const Computation *c) {
  const Module *m = ctx->module;
  if (c->index >= 0 && c->index < m->ncomps && m->comps[c->index] == c &&
      ctx->scalar_body[c->index])
    return ctx->scalar_body[c->index];
  return c;
}

void eval_free(EvalCtx *ctx) {
  eval_p2p_inbox_free(ctx);
  user_calls_state_free(ctx);
  for (int i = 0; i < ctx->nplans; i++) {
    CompPlan *p = &ctx->plans[i];
    if (p->consts)
      for (int j = 0; j < p->comp->ninstrs; j++) value_unref(&ctx->vc, p->consts[j]);
    if (p->aux)
      for (int j = 0; j < p->comp->ninstrs; j++) free(p->aux[j]);
    free(p->last_use);
    free(p->release_start);
    free(p->release);
    if (p->stats)
      for (int j = 0; j < p->comp->ninstrs; j++) free(p->stats[j].space_bytes);
    free(p->stats);
    free(p->consts);
    free(p->aux);
    free(p->group_end);
    free(p->deferred);
    free(p->keep);
    free(p->iflags);
  }
  free(ctx->plans);
  ctx->plans = NULL;
  free(ctx->scalar_body);
  ctx->scalar_body = NULL;
  value_ctx_free(&ctx->vc);
  value_pool_drain();
}

bool eval_can_donate(const Frame *f, const Instr *in, int k) {
  const Instr *o = in->operands[k];
  if (f->keep_operands) return false;
  if (o->parent != in->parent || f->plan->last_use[o->index] != in->index) return false;
  for (int j = 0; j < in->noperands; j++)
    if (j != k && in->operands[j] == o) return false;
  const Value *v = f->vals[o->index];
  return v && v->refs == 1 && v->buf && v->buf->refs == 1;
}

