/* The evaluator: one dispatch over opcodes, as SQLite's vdbe.c does.  Data
 * movement runs through kernels/k_movement.h on dense row-major views;
 * elementwise math through eval_elementwise.c; dot/reduce/... through
 * eval_compute.c. */
#include "interp/eval.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/collective/collectives.h"
#include "interp/custom_call/targets.h"
#include "interp/eval_dynamic.h"
#include "interp/collective/send_recv.h"
#include "interp/eval_inline.h"
#include "interp/eval_internal.h"
#include "interp/custom_call/neuron.h"
#include "interp/eval_scan.h"
#include "kernels/k_movement.h"
#include "layout/etype_convert.h"

/* Elementwise chains are fused from this result size on (smaller ones run
 * op by op, so small programs keep exact per-instruction liveness). */
#define EVAL_FUSE_MIN_BYTES ((int64_t)1 << 20)
#define EVAL_GROUP_MAX 512 /* instructions spanned by one fused group */

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Memory errors raised on behalf of an instruction get their "instruction
 * NAME: " prefix from eval_run (prefix_error), so nothing is formatted on
 * the hot path: the description is left empty. */
void eval_who(const Instr *in, char *buf, int size) {
  (void)in;
  (void)size;
  buf[0] = 0;
}

bool eval_unsupported(const Instr *in, Error *err) {
  const char *op = opcode_name(in->op);
  if ((in->op == OP_ASYNC_START || in->op == OP_ASYNC_UPDATE || in->op == OP_ASYNC_DONE) &&
      in->wrapped_op != OP_INVALID) {
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: opcode %s-%s is not supported yet",
                     in->name, opcode_name(in->wrapped_op),
                     in->op == OP_ASYNC_START ? "start" : in->op == OP_ASYNC_UPDATE ? "update" : "done");
  }
  return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: opcode %s is not supported yet",
                   in->name, op);
}

/* --- plans (once per module) --- */

/* Results of at least EVAL_FUSE_MIN_BYTES start fused groups. */
static bool fusion_sized(const Instr *in) {
  int64_t elems, bytes;
  if (!shape_element_count(&in->shape, &elems)) return false;
  /* an overflowing size is certainly big enough (the run refuses it later) */
  return __builtin_mul_overflow(elems, (int64_t)etype_storage_bytes(in->shape.etype), &bytes) ||
         bytes >= EVAL_FUSE_MIN_BYTES;
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
    if (p->group_end[i] > i)
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

static bool counts_traffic(Opcode op) {
  switch (op) {
  case OP_PARAMETER: case OP_CONSTANT: case OP_TUPLE: case OP_GET_TUPLE_ELEMENT:
  case OP_OPT_BARRIER: case OP_DOMAIN: case OP_ADD_DEPENDENCY: case OP_AFTER_ALL:
  case OP_CALL: case OP_WHILE: case OP_CONDITIONAL: case OP_ASYNC_START: case OP_ASYNC_UPDATE:
  case OP_ASYNC_DONE: case OP_BITCAST: case OP_COPY_DONE: case OP_ALL_REDUCE_DONE:
  case OP_ALL_GATHER_DONE: case OP_COLLECTIVE_PERMUTE_DONE:
    return false;
  default: return true;
  }
}

/* Ops that only hand references on (see EVAL_IF_UNTIMED). */
static bool untimed(Opcode op) {
  switch (op) {
  case OP_PARAMETER: case OP_CONSTANT: case OP_TUPLE: case OP_GET_TUPLE_ELEMENT:
  case OP_OPT_BARRIER: case OP_DOMAIN: case OP_ADD_DEPENDENCY: case OP_AFTER_ALL:
    return true;
  default: return false;
  }
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
    p->iflags[i] = (unsigned char)((eval_mixed_precision(in) ? EVAL_IF_MIXED : 0) |
                                   (eval_dyn_may_apply(in) ? EVAL_IF_DYN : 0) |
                                   (counts_traffic(in->op) ? EVAL_IF_TRAFFIC : 0) |
                                   (untimed(in->op) ? EVAL_IF_UNTIMED : 0) |
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
  return plan_keep(p, c);
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
  for (int i = 0; i < ctx->nplans; i++) {
    CompPlan *p = &ctx->plans[i];
    if (p->consts)
      for (int j = 0; j < p->comp->ninstrs; j++) value_unref(&ctx->vc, p->consts[j]);
    if (p->aux)
      for (int j = 0; j < p->comp->ninstrs; j++) free(p->aux[j]);
    free(p->last_use);
    free(p->release_start);
    free(p->release);
    free(p->stats);
    free(p->consts);
    free(p->aux);
    free(p->group_end);
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

/* --- helpers --- */

static bool new_result(EvalCtx *ctx, const Instr *in, const Shape *rs, bool zero, Value **out,
                       Error *err) {
  char who[300];
  eval_who(in, who, sizeof who);
  return value_new_array(&ctx->vc, rs, zero, who, out, err);
}

static const Computation *attr_comp(const Instr *in, AttrKey key) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_COMPUTATION ? a->v.comp : NULL;
}

static const IntList *attr_ints(const Instr *in, AttrKey key) {
  const Attr *a = ir_attr(in, key);
  return a && a->kind == AV_INT_LIST ? &a->v.ints : NULL;
}

static bool attr_int(const Instr *in, AttrKey key, int64_t *out) {
  const Attr *a = ir_attr(in, key);
  if (!a || a->kind != AV_INT) return false;
  *out = a->v.i;
  return true;
}

static bool require_array(const Instr *in, const Value *v, const char *what, Error *err) {
  if (!v || !v->info || !v->buf)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: %s is not an array", in->name,
                     what);
  return true;
}

/* Reads a scalar integer (any int type or pred) from an array value. */
static bool read_scalar_i64(EvalCtx *ctx, const Instr *in, const Value *v, int64_t index,
                            int64_t *out, Error *err) {
  if (!require_array(in, v, "an index operand", err)) return false;
  EType t = v->info->etype;
  if (!etype_is_int(t) && t != ET_PRED)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: index of type %s is not an integer",
                     in->name, etype_name(t));
  const void *d;
  DenseTmp tmp;
  if (!value_dense_read(&ctx->vc, v, &d, &tmp, err)) return false;
  int64_t x = etype_load_i64(t, (const char *)d + index * v->info->esize);
  /* u64 comes back as bits; clamp huge unsigned values to INT64_MAX. */
  if (t == ET_U64 && x < 0) x = INT64_MAX;
  *out = x;
  value_tmp_free(&tmp);
  return true;
}

/* Dense read of an operand with error prefixing handled by the caller. */
typedef struct Dense {
  const void *data;
  DenseTmp tmp;
} Dense;

static bool dense_in(EvalCtx *ctx, const Value *v, Dense *d, Error *err) {
  return value_dense_read(&ctx->vc, v, &d->data, &d->tmp, err);
}

static void traffic(EvalCtx *ctx, InstrStats *st, const Value *v, bool write) {
  if (!v) return;
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++) traffic(ctx, st, v->elems[i], write);
    return;
  }
  if (!v->info || !v->buf) return;
  int64_t n = v->info->phys_bytes;
  if (write) {
    st->bytes_written += n;
    mem_count_write(ctx->vc.mem, v->info->space, n);
  } else {
    st->bytes_read += n;
    mem_count_read(ctx->vc.mem, v->info->space, n);
  }
}

/* --- constants --- */

static bool value_from_literal(EvalCtx *ctx, const Instr *in, const Literal *lit, const Shape *s,
                               Value **out, Error *err) {
  char who[300];
  eval_who(in, who, sizeof who);
  if (shape_is_tuple(s)) {
    int n = s->ntuple;
    Value **el = calloc((size_t)(n ? n : 1), sizeof *el);
    if (!el) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int i = 0; i < n; i++) {
      const Literal *li = lit && i < lit->ntuple ? &lit->tuple[i] : NULL;
      if (!value_from_literal(ctx, in, li, &s->tuple[i], &el[i], err)) {
        for (int j = 0; j < i; j++) value_unref(&ctx->vc, el[j]);
        free(el);
        return false;
      }
    }
    *out = value_new_tuple(s, n, el);
    free(el);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (s->etype == ET_TOKEN) {
    *out = value_new_token(s);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  const ArrayInfo *ai = value_array_info(&ctx->vc, s, err);
  if (!ai) return false;
  if (!lit || !lit->data || lit->nbytes < ai->dense_bytes) {
    /* Elided ({...}) or missing contents: zeros (XLA fills garbage). */
    return value_new_array(&ctx->vc, s, true, who, out, err);
  }
  return value_from_dense(&ctx->vc, s, lit->data, who, out, err);
}

static bool exec_constant(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                          Error *err) {
  CompPlan *p = (CompPlan *)f->plan;
  if (!p->consts[in->index]) {
    int saved = ctx->vc.uncounted;
    ctx->vc.uncounted = 0; /* constants live in their space for the whole run */
    bool ok = value_from_literal(ctx, in, in->literal, &in->shape, &p->consts[in->index], err);
    ctx->vc.uncounted = saved;
    if (!ok) return false;
  }
  Value *c = p->consts[in->index];
  if (rs == &in->shape || !shape_is_array(rs) || rs->rank == 0) {
    *out = value_ref(c);
    return true;
  }
  /* Map mode: the scalar constant broadcast to the mapped dims. */
  Dense d;
  if (!dense_in(ctx, c, &d, err)) return false;
  Value *v;
  if (!new_result(ctx, in, rs, false, &v, err)) {
    value_tmp_free(&d.tmp);
    return false;
  }
  k_fill(v->buf->data, v->info->elements, d.data, (size_t)v->info->esize);
  value_tmp_free(&d.tmp);
  *out = v;
  return true;
}

/* --- data movement --- */

/* Runs `body` with a dense view of operand 0 and a dense target of a fresh
 * result. */
typedef bool (*MoveFn)(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src,
                       const void *sdata, Value *dst, void *ddata, Error *err);

static bool move_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, MoveFn fn,
                    Value **out, Error *err) {
  Value *src = frame_operand(f, in, 0);
  if (!require_array(in, src, "the operand", err)) return false;
  Dense d;
  if (!dense_in(ctx, src, &d, err)) return false;
  Value *v;
  if (!new_result(ctx, in, rs, false, &v, err)) {
    value_tmp_free(&d.tmp);
    return false;
  }
  void *dd;
  DenseTmp dtmp = {NULL};
  bool ok = value_dense_target(&ctx->vc, v, &dd, &dtmp, err) &&
            fn(ctx, f, in, src, d.data, v, dd, err) && value_dense_commit(&ctx->vc, v, &dtmp, err);
  value_tmp_free(&dtmp); /* when fn failed before the commit */
  value_tmp_free(&d.tmp);
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

static bool mv_broadcast(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src,
                         const void *s, Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info, *di = dst->info;
  const IntList *dims = attr_ints(in, ATTR_DIMENSIONS);
  int64_t bd[K_MAX_RANK];
  if (si->rank > K_MAX_RANK || di->rank > K_MAX_RANK)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: rank too large", in->name);
  if (si->rank > 0) {
    if (!dims || dims->n != si->rank)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: broadcast needs one dimension per operand dimension",
                       in->name);
    for (int k = 0; k < si->rank; k++) {
      bd[k] = dims->v[k];
      if (bd[k] < 0 || bd[k] >= di->rank ||
          (si->dims[k] != 1 && si->dims[k] != di->dims[bd[k]]))
        return error_set(err, ERR_RUNTIME, in->offset,
                         "instruction %s: broadcast dimension %d does not fit", in->name, k);
    }
  }
  if (di->elements == 0) return true;
  k_broadcast(d, di->dims, di->rank, s, si->dims, si->rank, bd, (size_t)di->esize);
  return true;
}

static bool mv_reshape(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                       Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  if (src->info->elements != dst->info->elements || src->info->esize != dst->info->esize)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: reshape changes the element count", in->name);
  if (dst->info->dense_bytes) memcpy(d, s, (size_t)dst->info->dense_bytes);
  return true;
}

static bool mv_transpose(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src,
                         const void *s, Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info;
  const IntList *perm = attr_ints(in, ATTR_DIMENSIONS);
  if (!perm || perm->n != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: bad permutation", in->name);
  uint64_t seen = 0;
  for (int k = 0; k < si->rank; k++) {
    int64_t p = perm->v[k];
    if (p < 0 || p >= si->rank || (si->rank <= 64 && (seen >> p & 1)) ||
        si->dims[p] != dst->info->dims[k])
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: bad permutation", in->name);
    seen |= (uint64_t)1 << p;
  }
  if (dst->info->elements == 0) return true;
  k_transpose(d, s, si->dims, perm->v, si->rank, (size_t)si->esize);
  return true;
}

static bool mv_slice(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                     Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info, *di = dst->info;
  const Attr *a = ir_attr(in, ATTR_SLICE);
  if (!a || a->kind != AV_SLICE || a->v.slice.n != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: slice needs one range per dimension",
                     in->name);
  int64_t start[K_MAX_RANK], stride[K_MAX_RANK];
  for (int k = 0; k < si->rank; k++) {
    const SliceDim *sd = &a->v.slice.dims[k];
    int64_t st = sd->stride > 0 ? sd->stride : 1;
    /* ceil((limit - start) / stride) without overflow (start >= 0 checked first) */
    int64_t want = sd->start >= 0 && sd->limit > sd->start ? 1 + (sd->limit - sd->start - 1) / st : 0;
    if (sd->start < 0 || sd->limit > si->dims[k] || want != di->dims[k])
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: slice range %d out of bounds",
                       in->name, k);
    start[k] = sd->start;
    stride[k] = st;
  }
  if (di->elements == 0) return true;
  k_slice(d, di->dims, s, si->dims, si->rank, start, stride, (size_t)si->esize);
  return true;
}

static bool mv_reverse(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                       Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  const ArrayInfo *si = src->info;
  const IntList *dims = attr_ints(in, ATTR_DIMENSIONS);
  uint8_t rev[K_MAX_RANK] = {0};
  for (int k = 0; dims && k < dims->n; k++) {
    if (dims->v[k] < 0 || dims->v[k] >= si->rank)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: bad reverse dimension",
                       in->name);
    rev[dims->v[k]] = 1;
  }
  if (si->elements == 0) return true;
  (void)dst;
  k_reverse(d, s, si->dims, rev, si->rank, (size_t)si->esize);
  return true;
}

static bool mv_identity(EvalCtx *ctx, Frame *f, const Instr *in, const Value *src, const void *s,
                        Value *dst, void *d, Error *err) {
  (void)ctx;
  (void)f;
  if (src->info->dense_bytes != dst->info->dense_bytes)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: operand and result sizes differ",
                     in->name);
  if (dst->info->dense_bytes) memcpy(d, s, (size_t)dst->info->dense_bytes);
  return true;
}

static bool exec_pad(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  Value *src = frame_operand(f, in, 0), *pv = frame_operand(f, in, 1);
  if (!require_array(in, src, "the operand", err) || !require_array(in, pv, "the padding value", err))
    return false;
  const ArrayInfo *si = src->info;
  const Attr *a = ir_attr(in, ATTR_PADDING);
  if (!a || a->kind != AV_PADDING || a->v.padding.n != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: padding needs one entry per dimension",
                     in->name);
  int64_t lo[K_MAX_RANK], interior[K_MAX_RANK];
  for (int k = 0; k < si->rank; k++) {
    const PadDim *p = &a->v.padding.dims[k];
    lo[k] = p->lo;
    interior[k] = p->interior;
    int64_t n = si->dims[k];
    int64_t want = p->lo + p->hi + n + (n > 0 ? (n - 1) * p->interior : 0);
    if (p->interior < 0 || want != rs->dims[k])
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: padding of dimension %d does not give the result size",
                       in->name, k);
  }
  Dense ds, dp;
  if (!dense_in(ctx, src, &ds, err)) return false;
  if (!dense_in(ctx, pv, &dp, err)) {
    value_tmp_free(&ds.tmp);
    return false;
  }
  Value *v;
  void *dd;
  DenseTmp dtmp = {NULL};
  bool ok = new_result(ctx, in, rs, false, &v, err);
  if (ok) {
    ok = value_dense_target(&ctx->vc, v, &dd, &dtmp, err);
    if (ok) {
      k_pad(dd, v->info->dims, ds.data, si->dims, si->rank, lo, interior, dp.data,
            (size_t)si->esize);
      ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
    }
    if (!ok) value_unref(&ctx->vc, v);
  }
  value_tmp_free(&ds.tmp);
  value_tmp_free(&dp.tmp);
  if (ok) *out = v;
  return ok;
}

static bool exec_concatenate(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  const IntList *dims = attr_ints(in, ATTR_DIMENSIONS);
  int rank = rs->rank;
  if (!dims || dims->n != 1 || dims->v[0] < 0 || dims->v[0] >= rank)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: concatenate needs one dimension",
                     in->name);
  int cd = (int)dims->v[0];
  Value *v;
  if (!new_result(ctx, in, rs, false, &v, err)) return false;
  void *dd;
  DenseTmp dtmp = {NULL};
  if (!value_dense_target(&ctx->vc, v, &dd, &dtmp, err)) {
    value_unref(&ctx->vc, v);
    return false;
  }
  int64_t at = 0;
  bool ok = true;
  for (int k = 0; k < in->noperands && ok; k++) {
    Value *o = frame_operand(f, in, k);
    if (!require_array(in, o, "an operand", err) || o->info->rank != rank) {
      ok = o && o->info ? error_set(err, ERR_RUNTIME, in->offset, "instruction %s: operand %d has the wrong rank", in->name, k) : false;
      break;
    }
    int64_t zero[K_MAX_RANK] = {0}, dst_start[K_MAX_RANK] = {0};
    dst_start[cd] = at;
    if (at + o->info->dims[cd] > rs->dims[cd]) {
      ok = error_set(err, ERR_RUNTIME, in->offset, "instruction %s: operands exceed the result",
                     in->name);
      break;
    }
    Dense d;
    if (!dense_in(ctx, o, &d, err)) {
      ok = false;
      break;
    }
    if (o->info->elements)
      k_move_box(dd, rs->dims, dst_start, d.data, o->info->dims, zero, o->info->dims, rank,
                 (size_t)o->info->esize);
    value_tmp_free(&d.tmp);
    at += o->info->dims[cd];
  }
  if (ok) ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
  else value_tmp_free(&dtmp);
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

/* Start indices of dynamic-slice / dynamic-update-slice, clamped as XLA:
 * start = clamp(start, 0, dim - size). */
static bool dynamic_starts(EvalCtx *ctx, Frame *f, const Instr *in, int first, int rank,
                           const int64_t *dims, const int64_t *sizes, int64_t *start, Error *err) {
  int nidx = in->noperands - first;
  for (int k = 0; k < rank; k++) {
    int64_t s;
    if (nidx == rank) {
      if (!read_scalar_i64(ctx, in, frame_operand(f, in, first + k), 0, &s, err)) return false;
    } else if (nidx == 1) {
      Value *iv = frame_operand(f, in, first);
      if (!require_array(in, iv, "the index vector", err)) return false;
      if (iv->info->elements != rank)
        return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: index vector has %" PRId64
                         " entries for rank %d", in->name, iv->info->elements, rank);
      if (!read_scalar_i64(ctx, in, iv, k, &s, err)) return false;
    } else {
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: expected %d start indices, got %d", in->name, rank, nidx);
    }
    int64_t hi = dims[k] - sizes[k];
    if (hi < 0)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: slice of dimension %d is larger than the operand",
                       in->name, k);
    start[k] = s < 0 ? 0 : s > hi ? hi : s;
  }
  return true;
}

static bool exec_dynamic_slice(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                               Value **out, Error *err) {
  Value *src = frame_operand(f, in, 0);
  if (!require_array(in, src, "the operand", err)) return false;
  const ArrayInfo *si = src->info;
  if (rs->rank != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: rank mismatch", in->name);
  int64_t start[K_MAX_RANK], ones[K_MAX_RANK];
  if (!dynamic_starts(ctx, f, in, 1, si->rank, si->dims, rs->dims, start, err)) return false;
  for (int k = 0; k < si->rank; k++) ones[k] = 1;
  Dense d;
  if (!dense_in(ctx, src, &d, err)) return false;
  Value *v;
  void *dd;
  DenseTmp dtmp = {NULL};
  bool ok = new_result(ctx, in, rs, false, &v, err);
  if (ok) {
    ok = value_dense_target(&ctx->vc, v, &dd, &dtmp, err);
    if (ok) {
      if (v->info->elements)
        k_slice(dd, rs->dims, d.data, si->dims, si->rank, start, ones, (size_t)si->esize);
      ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
    }
    if (!ok) value_unref(&ctx->vc, v);
  }
  value_tmp_free(&d.tmp);
  if (ok) *out = v;
  return ok;
}

static bool exec_dynamic_update_slice(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                                      Value **out, Error *err) {
  Value *src = frame_operand(f, in, 0), *upd = frame_operand(f, in, 1);
  if (!require_array(in, src, "the operand", err) || !require_array(in, upd, "the update", err))
    return false;
  const ArrayInfo *si = src->info, *ui = upd->info;
  if (ui->rank != si->rank)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: rank mismatch", in->name);
  int64_t start[K_MAX_RANK], zero[K_MAX_RANK] = {0};
  if (!dynamic_starts(ctx, f, in, 2, si->rank, si->dims, ui->dims, start, err)) return false;
  const ArrayInfo *ri = value_array_info(&ctx->vc, rs, err);
  if (!ri) return false;
  Value *v;
  /* In place when the operand dies here and already has the result's layout
   * (the common while-loop accumulator). */
  if (si->identity && ri->identity && si->space == ri->space && si->phys_bytes == ri->phys_bytes &&
      si->etype == ri->etype && eval_can_donate(f, in, 0)) {
    v = value_wrap_buffer(rs, ri, src->buf);
    if (!v) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  } else {
    Value *c;
    char who[300];
    eval_who(in, who, sizeof who);
    if (!new_result(ctx, in, rs, false, &v, err)) return false;
    if (layout_equal(&si->shape->layout, &ri->shape->layout) || (si->identity && ri->identity)) {
      if (ri->phys_bytes) memcpy(v->buf->data, src->buf->data, (size_t)ri->phys_bytes);
    } else {
      if (!layout_convert(&ri->plan, v->buf->data, &si->plan, src->buf->data, err)) {
        value_unref(&ctx->vc, v);
        return false;
      }
    }
    (void)c;
  }
  if (ui->elements) {
    Dense du;
    void *dd;
    DenseTmp dtmp = {NULL};
    if (!dense_in(ctx, upd, &du, err)) {
      value_unref(&ctx->vc, v);
      return false;
    }
    bool ok;
    if (ri->identity) {
      k_move_box(v->buf->data, rs->dims, start, du.data, ui->dims, zero, ui->dims, si->rank,
                 (size_t)si->esize);
      ok = true;
    } else {
      /* Round trip through a dense copy of the whole result. */
      Dense dr;
      ok = dense_in(ctx, v, &dr, err) && value_dense_target(&ctx->vc, v, &dd, &dtmp, err);
      if (ok) {
        memcpy(dd, dr.data, (size_t)ri->dense_bytes);
        k_move_box(dd, rs->dims, start, du.data, ui->dims, zero, ui->dims, si->rank,
                   (size_t)si->esize);
        ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
      }
      value_tmp_free(&dr.tmp);
      value_tmp_free(&dtmp);
    }
    value_tmp_free(&du.tmp);
    if (!ok) {
      value_unref(&ctx->vc, v);
      return false;
    }
  }
  *out = v;
  return true;
}

static bool exec_iota(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                      Error *err) {
  (void)f;
  int64_t dim;
  if (!attr_int(in, ATTR_IOTA_DIMENSION, &dim) || dim < 0 || (rs->rank > 0 && dim >= rs->rank) ||
      (rs->rank == 0 && dim != 0))
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: bad iota_dimension", in->name);
  Value *v;
  if (!new_result(ctx, in, rs, false, &v, err)) return false;
  int64_t n = v->info->elements;
  int64_t *tmp = malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
  void *dd;
  DenseTmp dtmp = {NULL};
  bool ok = tmp && value_dense_target(&ctx->vc, v, &dd, &dtmp, err);
  if (!tmp) error_set(err, ERR_RUNTIME, -1, "out of memory");
  if (ok) {
    if (n) {
      k_iota_s64(tmp, rs->dims, rs->rank, (int)dim);
      etype_convert_array(rs->etype, dd, ET_S64, tmp, n);
    }
    ok = value_dense_commit(&ctx->vc, v, &dtmp, err);
  }
  free(tmp);
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

static bool scalar_result(EvalCtx *ctx, const Instr *in, const Shape *rs, int64_t x, Value **out,
                          Error *err) {
  Value *v;
  if (!new_result(ctx, in, rs, true, &v, err)) return false;
  void *dd;
  DenseTmp dtmp = {NULL};
  if (!value_dense_target(&ctx->vc, v, &dd, &dtmp, err)) {
    value_unref(&ctx->vc, v);
    return false;
  }
  etype_convert_array(rs->etype, dd, ET_S64, &x, 1);
  if (!value_dense_commit(&ctx->vc, v, &dtmp, err)) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

/* copy: a new buffer in the result's layout and space. */
static bool copy_to(EvalCtx *ctx, const Instr *in, const Value *src, const Shape *rs, Value **out,
                    Error *err) {
  if (shape_is_tuple(rs)) {
    if (src->ntuple != rs->ntuple)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: tuple arity mismatch", in->name);
    Value **el = calloc((size_t)(rs->ntuple ? rs->ntuple : 1), sizeof *el);
    if (!el) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    for (int i = 0; i < rs->ntuple; i++) {
      if (!copy_to(ctx, in, src->elems[i], &rs->tuple[i], &el[i], err)) {
        for (int j = 0; j < i; j++) value_unref(&ctx->vc, el[j]);
        free(el);
        return false;
      }
    }
    *out = value_new_tuple(rs, rs->ntuple, el);
    free(el);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  if (!value_shape_has_data(rs) || !src->info) {
    *out = value_ref((Value *)src);
    return true;
  }
  Value *v;
  if (!new_result(ctx, in, rs, false, &v, err)) return false;
  const ArrayInfo *si = src->info, *ri = v->info;
  if (si->etype != ri->etype || si->elements != ri->elements) {
    value_unref(&ctx->vc, v);
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: copy changes the shape", in->name);
  }
  Layout a = si->shape->layout, b = ri->shape->layout;
  a.memory_space = b.memory_space = 0;
  bool ok = true;
  if ((si->identity && ri->identity) || (si->rank == ri->rank && layout_equal(&a, &b))) {
    if (ri->phys_bytes) memcpy(v->buf->data, src->buf->data, (size_t)ri->phys_bytes);
  } else {
    ok = layout_convert(&ri->plan, v->buf->data, &si->plan, src->buf->data, err);
    ctx->vc.conversions++;
    ctx->vc.conversion_bytes += ri->phys_bytes;
  }
  if (!ok) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
}

/* bitcast: the operand's physical bytes under the result's shape/layout.
 * XLA's verifier only checks logical byte sizes; when tile padding makes the
 * physical sizes differ, the result takes the first bytes of the operand's
 * buffer (and zeros past its end), which is what reinterpreting the memory
 * means. */
static bool exec_bitcast(EvalCtx *ctx, const Instr *in, Value *src, const Shape *rs, Value **out,
                         Error *err) {
  if (!require_array(in, src, "the operand", err)) return false;
  const ArrayInfo *ri = value_array_info(&ctx->vc, rs, err);
  if (!ri) return false;
  const ArrayInfo *si = src->info;
  if (ri->phys_bytes == si->phys_bytes && ri->space == si->space) {
    *out = value_wrap_buffer(rs, ri, src->buf);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  /* Buffers of different sizes are one buffer only when their data sizes
   * agree (trailing tile padding differs); any other size change -- which
   * XLA's verifier lets through in modules without layouts -- has no
   * defined result. */
  if (ri->dense_bytes != si->dense_bytes && !ri->packed && !si->packed)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: bitcast of %lld bytes to %lld bytes: the sizes must agree",
                     in->name, (long long)si->dense_bytes, (long long)ri->dense_bytes);
  Value *v;
  if (!new_result(ctx, in, rs, true, &v, err)) return false;
  int64_t n = ri->phys_bytes < si->phys_bytes ? ri->phys_bytes : si->phys_bytes;
  if (n) memcpy(v->buf->data, src->buf->data, (size_t)n);
  *out = v;
  return true;
}

/* --- calls --- */

static bool call_with(EvalCtx *ctx, const Instr *in, const Computation *comp, Value *const *args,
                      int nargs, const Shape *rs, Value **out, Error *err) {
  if (!comp)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: no called computation", in->name);
  if (comp->nparams != nargs)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: computation %s takes %d parameters, given %d", in->name,
                     comp->name, comp->nparams, nargs);
  Value *r;
  ctx->next_caller = in;
  ctx->next_iteration = -1;
  if (!eval_run(ctx, comp, args, nargs, NULL, &r, err)) return false;
  char who[300];
  eval_who(in, who, sizeof who);
  bool ok = value_coerce(&ctx->vc, r, rs, who, out, err);
  value_unref(&ctx->vc, r);
  return ok;
}

static bool operands_of(const Frame *f, const Instr *in, int first, Value **args) {
  for (int k = first; k < in->noperands; k++) args[k - first] = frame_operand(f, in, k);
  return true;
}

static bool exec_while_loop(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                            Error *err) {
  const Computation *cond = attr_comp(in, ATTR_CONDITION), *body = attr_comp(in, ATTR_BODY);
  if (!cond || !body)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: while needs condition and body",
                     in->name);
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
    bool ok = read_scalar_i64(ctx, in, p, 0, &go, err);
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
  char who[300];
  eval_who(in, who, sizeof who);
  bool ok = value_coerce(&ctx->vc, state, rs, who, out, err);
  value_unref(&ctx->vc, state);
  return ok;
}

/* A while loop, noted in ctx->loop for the messages of a stopped run. */
static bool exec_while(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                       Error *err) {
  const Instr *outer = ctx->loop;
  int64_t outer_iteration = ctx->loop_iteration;
  ctx->loop = in;
  bool ok = exec_while_loop(ctx, f, in, rs, out, err);
  ctx->loop = outer;
  ctx->loop_iteration = outer_iteration;
  return ok;
}

static bool exec_conditional(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  Value *sel = frame_operand(f, in, 0);
  if (!require_array(in, sel, "the branch selector", err)) return false;
  int64_t x;
  if (!read_scalar_i64(ctx, in, sel, 0, &x, err)) return false;
  const Attr *bc = ir_attr(in, ATTR_BRANCH_COMPUTATIONS);
  const Computation *comp;
  int b;
  if (bc && bc->kind == AV_COMPUTATION_LIST) {
    int n = bc->v.comps.n;
    if (n < 1)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: no branches", in->name);
    /* Out of range -> the last branch (XLA's default). */
    b = (x < 0 || x >= n) ? n - 1 : (int)x;
    comp = bc->v.comps.v[b];
  } else {
    const Computation *t = attr_comp(in, ATTR_TRUE_COMPUTATION);
    const Computation *fc = attr_comp(in, ATTR_FALSE_COMPUTATION);
    if (!t || !fc)
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: conditional needs true/false or branch computations",
                       in->name);
    b = x ? 0 : 1;
    comp = x ? t : fc;
  }
  if (1 + b >= in->noperands)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: branch %d has no operand",
                     in->name, b);
  Value *arg = frame_operand(f, in, 1 + b);
  return call_with(ctx, in, comp, &arg, 1, rs, out, err);
}

/* map: the scalar computation applied to whole arrays at once, with every
 * instruction's shape replaced by the mapped dims. */
static bool exec_map(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                     Error *err) {
  const Computation *comp = attr_comp(in, ATTR_TO_APPLY);
  if (!comp)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: map needs to_apply", in->name);
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
                         "instruction %s: map over computation %s: instruction %s (%s) is not "
                         "elementwise; such maps are not supported yet",
                         in->name, comp->name, ci->name, opcode_name(ci->op));
      }
      if (!shape_is_array(&ci->shape) || ci->shape.rank != 0) {
        free(ov);
        return error_set(err, ERR_RUNTIME, in->offset,
                         "instruction %s: map computation %s must be scalar", in->name, comp->name);
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
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: map computation %s takes %d parameters, given %d",
                     in->name, comp->name, comp->nparams, in->noperands);
  }
  Value *r;
  ctx->vc.uncounted++;
  ctx->next_caller = in;
  ctx->next_iteration = -1;
  bool ok = eval_run(ctx, comp, args, in->noperands, ov, &r, err);
  ctx->vc.uncounted--;
  free(args);
  if (!ok) return false;
  char who[300];
  eval_who(in, who, sizeof who);
  ok = value_adopt(&ctx->vc, r, who, err) && value_coerce(&ctx->vc, r, rs, who, out, err);
  value_unref(&ctx->vc, r);
  return ok;
}

static bool exec_fusion(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out,
                        Error *err) {
  const Computation *comp = attr_comp(in, ATTR_CALLS);
  if (!comp)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: fusion needs calls=", in->name);
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
                            "instruction %s: fused computation %s takes %d parameters, given %d",
                            in->name, comp->name, comp->nparams, in->noperands);
  ctx->vc.uncounted--;
  free(args);
  if (!ok) return false;
  char who[300];
  eval_who(in, who, sizeof who);
  Value *c = NULL;
  ok = value_coerce(&ctx->vc, r, rs, who, &c, err);
  value_unref(&ctx->vc, r);
  if (ok) ok = value_adopt(&ctx->vc, c, who, err);
  if (!ok) {
    value_unref(&ctx->vc, c);
    return false;
  }
  *out = c;
  return true;
}

static bool build_state_tuple(EvalCtx *ctx, const Instr *in, const Shape *s, Value **first,
                              int nfirst, Value **out, Error *err);

/* A zero-filled value of shape s (async contexts, tokens). */
static bool zero_value(EvalCtx *ctx, const Instr *in, const Shape *s, Value **out, Error *err) {
  if (shape_is_tuple(s)) return build_state_tuple(ctx, in, s, NULL, 0, out, err);
  if (!value_shape_has_data(s)) {
    *out = value_new_token(s);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return new_result(ctx, in, s, true, out, err);
}

/* tuple(elems..., zeros for the remaining elements of s) */
static bool build_state_tuple(EvalCtx *ctx, const Instr *in, const Shape *s, Value **first,
                              int nfirst, Value **out, Error *err) {
  if (!shape_is_tuple(s) || s->ntuple < nfirst) {
    for (int i = 0; i < nfirst; i++) value_unref(&ctx->vc, first[i]);
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: unexpected result shape for an async start",
                     in->name);
  }
  Value **el = calloc((size_t)(s->ntuple ? s->ntuple : 1), sizeof *el);
  if (!el) {
    for (int i = 0; i < nfirst; i++) value_unref(&ctx->vc, first[i]);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  for (int i = 0; i < nfirst; i++) el[i] = first[i];
  for (int i = nfirst; i < s->ntuple; i++)
    if (!zero_value(ctx, in, &s->tuple[i], &el[i], err)) {
      for (int j = 0; j < i; j++) value_unref(&ctx->vc, el[j]);
      free(el);
      return false;
    }
  *out = value_new_tuple(s, s->ntuple, el);
  free(el);
  return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
}

static Value *operand_tuple(const Frame *f, const Instr *in, const Shape *s) {
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

static bool exec_instr(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value *const *args,
                       int nargs, Value **out, Error *err);

/* Async sugar without a wrapped computation ("negate-start(x)", as XLA's
 * parser accepts for any opcode): run the wrapped opcode itself, on the same
 * operands and attributes, with the start's result element as its shape. The
 * operand tuple is built first so that its references keep the wrapped op
 * from reusing an operand's buffer for its result. */
static bool exec_async_sugar_start(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                                   Value **out, Error *err) {
  Value *first[2];
  first[0] = operand_tuple(f, in, &rs->tuple[0]);
  if (!first[0]) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  Instr inner = *in;
  inner.op = in->wrapped_op;
  inner.wrapped_op = OP_INVALID;
  inner.shape = rs->tuple[1];
  if (!exec_instr(ctx, f, &inner, &rs->tuple[1], NULL, 0, &first[1], err)) {
    value_unref(&ctx->vc, first[0]);
    return false;
  }
  return build_state_tuple(ctx, in, rs, first, 2, out, err);
}

static bool exec_async_start(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  const Computation *comp = attr_comp(in, ATTR_CALLS);
  if (!comp && in->wrapped_op == OP_INVALID) return eval_unsupported(in, err);
  if (!shape_is_tuple(rs) || rs->ntuple < 2)
    return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: async-start shape must be a tuple ((operands), result, ...)",
                     in->name);
  if (!comp) return exec_async_sugar_start(ctx, f, in, rs, out, err);
  Value **args = calloc((size_t)(in->noperands ? in->noperands : 1), sizeof *args);
  if (!args) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  operands_of(f, in, 0, args);
  Value *r;
  bool ok = call_with(ctx, in, comp, args, in->noperands, &rs->tuple[1], &r, err);
  free(args);
  if (!ok) return false;
  Value *first[2];
  first[0] = operand_tuple(f, in, &rs->tuple[0]);
  first[1] = r;
  if (!first[0]) {
    value_unref(&ctx->vc, r);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  return build_state_tuple(ctx, in, rs, first, 2, out, err);
}

/* X-done: the result element of the start's state tuple. */
static bool exec_async_done(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, int elem,
                            Value **out, Error *err) {
  Value *st = frame_operand(f, in, 0);
  Value *r = st;
  if (st->ntuple && elem < st->ntuple && !shape_is_tuple(rs) == !st->elems[elem]->ntuple)
    r = st->elems[elem];
  char who[300];
  eval_who(in, who, sizeof who);
  return value_coerce(&ctx->vc, r, rs, who, out, err);
}

/* Whether each array of `src` has as many elements as the matching array of
 * `rs` (a collective or sharding custom call that changes them spans more
 * than one device). */
static bool same_element_counts(const Value *src, const Shape *rs) {
  if (shape_is_tuple(rs)) {
    if (src->ntuple != rs->ntuple) return true; /* copy_to reports the arity */
    for (int i = 0; i < rs->ntuple; i++)
      if (!same_element_counts(src->elems[i], &rs->tuple[i])) return false;
    return true;
  }
  int64_t n;
  return !shape_is_array(rs) || !src->info || src->info->elements == 0 ||
         !shape_element_count(rs, &n) || n == src->info->elements;
}

/* Exported for interp/collective/collectives.c (eval_internal.h). */
bool eval_copy_to(EvalCtx *ctx, const Instr *in, const Value *src, const Shape *rs, Value **out,
                  Error *err) {
  return copy_to(ctx, in, src, rs, out, err);
}

bool eval_zero_value(EvalCtx *ctx, const Instr *in, const Shape *s, Value **out, Error *err) {
  return zero_value(ctx, in, s, out, err);
}

bool eval_state_tuple(EvalCtx *ctx, const Instr *in, const Shape *s, Value **first, int nfirst,
                      Value **out, Error *err) {
  return build_state_tuple(ctx, in, s, first, nfirst, out, err);
}

Value *eval_operand_tuple(const Frame *f, const Instr *in, const Shape *s) {
  return operand_tuple(f, in, s);
}

static bool same_element_counts(const Value *src, const Shape *rs);

bool eval_same_element_counts(const Value *src, const Shape *rs) {
  return same_element_counts(src, rs);
}

static bool exec_custom_call(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs,
                             Value **out, Error *err) {
  const Attr *t = ir_attr(in, ATTR_CUSTOM_CALL_TARGET);
  const char *target = t && (t->kind == AV_STRING) ? t->v.s : "";
  static const char *const identity[] = {"Sharding", "SPMDFullToShardShape",
                                         "SPMDShardToFullShape", "MoveToHost", "MoveToDevice",
                                         "annotate_device_placement", "LayoutConstraint", "SetBound",
                                         /* torch-neuronx's parameter transfer,
                                            erased by the Neuron compiler */
                                         "AwsNeuronTransferWithStaticRing", NULL};
  for (int i = 0; identity[i]; i++) {
    if (strcmp(target, identity[i]) == 0 && in->noperands == 1) {
      if (!same_element_counts(frame_operand(f, in, 0), rs))
        return error_set(err, ERR_RUNTIME, in->offset,
                         "instruction %s: custom-call %s changes the shape: the module is "
                         "sharded across more than one device (single-device run)",
                         in->name, target);
      return copy_to(ctx, in, frame_operand(f, in, 0), rs, out, err);
    }
  }
  bool handled = false;
  if (eval_custom_call_known(ctx, f, in, target, rs, out, &handled, err)) return true;
  if (handled) return false;
  if (eval_neuron_custom_call(ctx, f, in, target, rs, out, &handled, err)) return true;
  if (handled) return false;
  const Computation *c = attr_comp(in, ATTR_TO_APPLY);
  const Attr *cc = ir_attr(in, ATTR_CALLED_COMPUTATIONS);
  const char *callee = c ? c->name
                       : (cc && cc->kind == AV_COMPUTATION_LIST && cc->v.comps.n > 0)
                           ? cc->v.comps.v[0]->name
                           : NULL;
  if (callee)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: custom-call target \"%s\" is not supported (it calls "
                     "computation %s, but what the target does with it is unknown)",
                     in->name, target, callee);
  return error_set(err, ERR_RUNTIME, in->offset,
                   "instruction %s: custom-call target \"%s\" is not supported", in->name, target);
}

/* --- dispatch --- */

static bool exec_instr(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value *const *args,
                       int nargs, Value **out, Error *err) {
  switch (in->op) {
  case OP_PARAMETER: {
    int64_t n = in->parameter_number;
    if (n < 0 || n >= nargs || !args[n])
      return error_set(err, ERR_RUNTIME, in->offset, "parameter %" PRId64 " (%s) is not bound",
                       n, in->name);
    if (value_coerce_is_identity(args[n], rs)) { /* the usual case: no name to format */
      if (f->take_args) {
        *out = args[n];
        ((Value **)args)[n] = NULL; /* the frame's own array (eval_run_taking) */
      } else {
        *out = value_ref(args[n]);
      }
      return true;
    }
    char who[300];
    snprintf(who, sizeof who, "parameter %" PRId64 " (%s)", n, in->name);
    return value_coerce(&ctx->vc, args[n], rs, who, out, err);
  }
  case OP_CONSTANT: return exec_constant(ctx, f, in, rs, out, err);
  case OP_TUPLE: {
    *out = operand_tuple(f, in, rs);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  case OP_GET_TUPLE_ELEMENT: {
    Value *t = frame_operand(f, in, 0);
    int64_t idx;
    if (!attr_int(in, ATTR_INDEX, &idx) || idx < 0 || idx >= t->ntuple)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: tuple index out of range",
                       in->name);
    char who[300];
    eval_who(in, who, sizeof who);
    return value_coerce(&ctx->vc, t->elems[idx], rs, who, out, err);
  }
  case OP_OPT_BARRIER:
  case OP_DOMAIN:
  case OP_ADD_DEPENDENCY: {
    char who[300];
    eval_who(in, who, sizeof who);
    return value_coerce(&ctx->vc, frame_operand(f, in, 0), rs, who, out, err);
  }
  case OP_AFTER_ALL:
    *out = value_new_token(rs);
    return *out ? true : error_set(err, ERR_RUNTIME, -1, "out of memory");
  case OP_COPY: return copy_to(ctx, in, frame_operand(f, in, 0), rs, out, err);
  case OP_BITCAST: return exec_bitcast(ctx, in, frame_operand(f, in, 0), rs, out, err);
  case OP_BROADCAST: return move_op(ctx, f, in, rs, mv_broadcast, out, err);
  case OP_RESHAPE: return move_op(ctx, f, in, rs, mv_reshape, out, err);
  case OP_TRANSPOSE: return move_op(ctx, f, in, rs, mv_transpose, out, err);
  case OP_SLICE: return move_op(ctx, f, in, rs, mv_slice, out, err);
  case OP_REVERSE: return move_op(ctx, f, in, rs, mv_reverse, out, err);
  case OP_SET_DIMENSION_SIZE: {
    if (in->noperands != 2 || !require_array(in, frame_operand(f, in, 1), "the size", err))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "instruction %s: set-dimension-size takes an array and a size", in->name);
    if (!move_op(ctx, f, in, rs, mv_identity, out, err)) return false;
    if (eval_set_dimension_size(ctx, f, in, *out, err)) return true;
    value_unref(&ctx->vc, *out);
    *out = NULL;
    return false;
  }
  case OP_PAD: return exec_pad(ctx, f, in, rs, out, err);
  case OP_CONCATENATE: return exec_concatenate(ctx, f, in, rs, out, err);
  case OP_DYNAMIC_SLICE: return exec_dynamic_slice(ctx, f, in, rs, out, err);
  case OP_DYNAMIC_UPDATE_SLICE: return exec_dynamic_update_slice(ctx, f, in, rs, out, err);
  case OP_IOTA: return exec_iota(ctx, f, in, rs, out, err);
  case OP_GET_DIMENSION_SIZE: {
    Value *o = frame_operand(f, in, 0);
    const IntList *d = attr_ints(in, ATTR_DIMENSIONS);
    if (!require_array(in, o, "the operand", err)) return false;
    if (!d || d->n != 1 || d->v[0] < 0 || d->v[0] >= o->info->rank)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: bad dimension", in->name);
    return scalar_result(ctx, in, rs, value_dim_size(o, (int)d->v[0]), out, err);
  }
  case OP_REPLICA_ID: return scalar_result(ctx, in, rs, ctx->replica_id, out, err);
  case OP_PARTITION_ID: return scalar_result(ctx, in, rs, ctx->partition_id, out, err);
  case OP_CALL: {
    Value **a = calloc((size_t)(in->noperands ? in->noperands : 1), sizeof *a);
    if (!a) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    operands_of(f, in, 0, a);
    bool ok = call_with(ctx, in, attr_comp(in, ATTR_TO_APPLY), a, in->noperands, rs, out, err);
    free(a);
    return ok;
  }
  case OP_FUSION: return exec_fusion(ctx, f, in, rs, out, err);
  case OP_WHILE: return exec_while(ctx, f, in, rs, out, err);
  case OP_SCAN: return eval_scan(ctx, f, in, rs, out, err);
  case OP_CONDITIONAL: return exec_conditional(ctx, f, in, rs, out, err);
  case OP_MAP: return exec_map(ctx, f, in, rs, out, err);
  case OP_ASYNC_START: return exec_async_start(ctx, f, in, rs, out, err);
  case OP_ASYNC_UPDATE: *out = value_ref(frame_operand(f, in, 0)); return true;
  case OP_ASYNC_DONE: return exec_async_done(ctx, f, in, rs, 1, out, err);
  case OP_COPY_START: {
    if (!shape_is_tuple(rs) || rs->ntuple < 2)
      return error_set(err, ERR_RUNTIME, in->offset, "instruction %s: copy-start shape must be (dest, src, context)",
                       in->name);
    Value *first[2];
    if (!copy_to(ctx, in, frame_operand(f, in, 0), &rs->tuple[0], &first[0], err)) return false;
    first[1] = value_ref(frame_operand(f, in, 0));
    return build_state_tuple(ctx, in, rs, first, 2, out, err);
  }
  case OP_COPY_DONE: return exec_async_done(ctx, f, in, rs, 0, out, err);
  case OP_ALL_REDUCE_DONE:
  case OP_ALL_GATHER_DONE:
  case OP_COLLECTIVE_PERMUTE_DONE: return exec_async_done(ctx, f, in, rs, 1, out, err);
  case OP_ALL_REDUCE:
  case OP_ALL_REDUCE_START:
  case OP_ALL_GATHER:
  case OP_ALL_GATHER_START:
  case OP_ALL_TO_ALL:
  case OP_RAGGED_ALL_TO_ALL:
  case OP_REDUCE_SCATTER:
  case OP_COLLECTIVE_BROADCAST:
  case OP_COLLECTIVE_PERMUTE:
  case OP_COLLECTIVE_PERMUTE_START: return eval_collective(ctx, f, in, rs, out, err);
  case OP_CUSTOM_CALL: return exec_custom_call(ctx, f, in, rs, out, err);
  case OP_SEND: return eval_send(ctx, f, in, rs, out, err);
  case OP_SEND_DONE: return eval_send_done(ctx, f, in, rs, out, err);
  case OP_RECV: return eval_recv(ctx, f, in, rs, out, err);
  case OP_RECV_DONE: return eval_recv_done(ctx, f, in, rs, out, err);
  default: break;
  }
  bool handled = false;
  if (eval_elementwise(ctx, f, in, rs, out, &handled, err)) return true;
  if (handled) return false;
  if (eval_compute(ctx, f, in, rs, out, &handled, err)) return true;
  if (handled) return false;
  return eval_unsupported(in, err);
}

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

/* Instruction i alone: run it, then its stats, trace and releases.  *t
 * (when timing) is the instant instruction i started; it receives the one
 * the next instruction starts at: the clock is read once per instruction
 * (none for EVAL_IF_UNTIMED ones), so the bookkeeping after one (traffic,
 * releases) counts towards the next, except a trace callback's own time,
 * which counts towards none. */
static bool run_one(EvalCtx *ctx, Frame *f, int i, const Shape *rs, int64_t *t,
                    Value *const *args, int nargs, Error *err) {
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
  bool ok = !(flags & EVAL_IF_MIXED) || eval_mixed_before(ctx, f, in, &mix, err);
  bool dyn = ok && (flags & EVAL_IF_DYN) && eval_dyn_operands(f, in);
  DynSwap sw;
  sw.n = 0;
  ok = ok && (!dyn || eval_dyn_before(ctx, f, in, &sw, err));
  ok = ok && exec_instr(ctx, f, in, rs, args, nargs, &v, err);
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
static bool run_group(EvalCtx *ctx, Frame *f, int first, int64_t *t, Value *const *args,
                      int nargs, Error *err) {
  const CompPlan *plan = f->plan;
  int last = plan->group_end[first];
  int64_t t0 = *t;
  for (int k = first; k <= last; k++) {
    if (eval_group_member(plan->comp->instrs[k])) continue;
    int64_t tk = ctx->timing ? now_ns() : 0;
    if (!run_one(ctx, f, k, &plan->comp->instrs[k]->shape, &tk, args, nargs, err)) return false;
  }
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
  Frame f = {plan, vals, override, take_args, ctx->watch != NULL};
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
    if (!override && ctx->fuse && plan->group_end[i] > i && !group_has_dyn(&f, i)) {
      ok = run_group(ctx, &f, i, &t, args, nargs, err);
      i = plan->group_end[i];
      continue;
    }
    ok = run_one(ctx, &f, i, rs, &t, args, nargs, err);
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
