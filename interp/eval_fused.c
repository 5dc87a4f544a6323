/* Fused elementwise groups: a run of elementwise instructions evaluated
 * block by block (EW_BLOCK slots at a time) through scratch blocks, so that
 * values used only inside the group are never materialised; the blocks are
 * independent and run on the thread pool.  eval_plan.c finds the groups
 * (eval_fusable, eval_group_member); the kernels are eval_elementwise.c's. */
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "interp/eval_elementwise.h"
#include "interp/eval_internal.h"
#include "interp/eval_views.h"
#include "kernels/k_movement.h"
#include "kernels/kernels.h"
#include "layout/etype_convert.h"
#include "parser/infer.h"

enum { EW_BLOCK = 2048, EW_MAX_RANK = 32 };

typedef struct Member {
  EwKind kind;
  KUnaryOp uop;
  KBinaryOp bop;
  KCmpDir dir;
  KCmpType ct;
  EType t0, rt;   /* first operand's and the result's element types */
  int esize;      /* result element bytes */
  int nops;
  int src[3];     /* operand: member index (>= 0) or -1 - external slot */
  const unsigned char *ext[3];
  int ext_esize[3];
  unsigned char *scratch; /* this block, when not materialised */
  unsigned char *out;     /* the materialised value's data, or NULL */
  unsigned char *donated; /* materialised in a donor's buffer: computed in
                           * scratch, then copied there block by block */
  const Instr *bin;       /* a re-derived broadcast: its instruction */
  bool splat;             /* a broadcast of one element: scratch filled once */
  bool lazy;              /* a broadcast every reader takes run by run
                           * (by_runs): its block is never filled */
  int by_runs;            /* 1 + the operand of a binary member that is such a
                           * broadcast, computed one constant run at a time */
  bool own;               /* scratch allocated for this member alone */
  int wslot;              /* 1 + its block's index in a worker's scratch set
                           * (0: none, or read-only and shared) */
  /* EW_BROADCAST: the operand (dense row-major) read through a view with
   * stride 0 along the broadcast dimensions; never materialised. */
  int brank;
  const int64_t *bdims;     /* result dims */
  int64_t bstride[EW_MAX_RANK]; /* operand elements per step of each result dim */
  const unsigned char *bsrc;
  DenseTmp btmp;
  int64_t run; /* EW_BROADCAST: the slots of one constant run (the trailing
                * dims it repeats along); 1 when the last dim is read */
} Member;

/* Broadcasts repeating one element along at least this many slots are read
 * run by run by the binary ops that allow it (k_binary_scalar), instead of
 * filling their blocks: the softmax's max and sum broadcast back over each
 * row were 8% of its time. */
enum { EW_RUN_MIN = 16 };

/* Broadcasts join a group only with the default layout (dense row-major, no
 * tiles or padding), so that the group's slot i is row-major element i. */
static bool default_layout(const Shape *s) {
  const Layout *l = &s->layout;
  if (l->rank != s->rank || l->ntiles || l->tail_padding_alignment > 1 || l->element_size_bits ||
      l->nsplits || l->physical_shape || l->dynamic_metadata_bytes)
    return false;
  for (int k = 0; k < s->rank; k++)
    if (l->minor_to_major[k] != s->rank - 1 - k) return false;
  return true;
}

static bool broadcast_fusable(const Instr *in) {
  if (in->noperands != 1 || !shape_is_array(&in->shape) || in->shape.rank == 0 ||
      in->shape.rank > EW_MAX_RANK || !default_layout(&in->shape) || in->shape.dynamic)
    return false;
  const Shape *o = &in->operands[0]->shape;
  if (!shape_is_array(o) || o->layout.element_size_bits || o->rank > in->shape.rank ||
      o->etype != in->shape.etype)
    return false;
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  if (o->rank > 0 && (!dims || dims->n != o->rank)) return false;
  for (int k = 0; k < o->rank; k++)
    if (dims->v[k] < 0 || dims->v[k] >= in->shape.rank ||
        (o->dims[k] != 1 && o->dims[k] != in->shape.dims[dims->v[k]]))
      return false;
  return true;
}

/* Fills dst[0..cnt) with elements lo.. of the broadcast (row-major order). */
static void broadcast_fill(const Member *m, unsigned char *dst, int64_t lo, int64_t cnt) {
  int r = m->brank, es = m->esize;
  int64_t idx[EW_MAX_RANK], rem = lo, off = 0;
  for (int d = r - 1; d >= 0; d--) {
    idx[d] = rem % m->bdims[d];
    rem /= m->bdims[d];
    off += idx[d] * m->bstride[d];
  }
  int64_t inner = m->bdims[r - 1], ist = m->bstride[r - 1];
  for (int64_t done = 0; done < cnt;) {
    int64_t run = inner - idx[r - 1];
    if (run > cnt - done) run = cnt - done;
    const unsigned char *s = m->bsrc + off * es;
    unsigned char *o = dst + done * es;
    if (ist == 0) {
      k_fill(o, run, s, (size_t)es); /* vectorised; a loop here was a seventh of a softmax */
    } else if (ist == 1) {
      memcpy(o, s, (size_t)(run * es));
    } else {
      for (int64_t i = 0; i < run; i++) memcpy(o + i * es, s + i * ist * es, (size_t)es);
    }
    done += run;
    idx[r - 1] += run;
    off += run * ist;
    for (int d = r - 1; d > 0 && idx[d] == m->bdims[d]; d--) { /* carry */
      off -= idx[d] * m->bstride[d];
      idx[d] = 0;
      idx[d - 1]++;
      off += m->bstride[d - 1];
    }
  }
}

bool eval_fusable(const Instr *in) {
  KUnaryOp u;
  KBinaryOp b;
  EwKind kind;
  if (in->op == OP_BROADCAST) return broadcast_fusable(in);
  ew_lookup(in->op, &kind, &u, &b);
  switch (kind) {
  case EW_UNARY: case EW_BINARY: case EW_COMPARE: case EW_CONVERT: case EW_SELECT: case EW_CLAMP:
    break;
  case EW_BITCAST_CONVERT:
    if (in->noperands != 1 || !shape_is_array(&in->operands[0]->shape) ||
        etype_storage_bytes(in->operands[0]->shape.etype) != etype_storage_bytes(in->shape.etype))
      return false;
    break;
  default: return false; /* reduce-precision, copy, ... */
  }
  if (!shape_is_array(&in->shape) || in->shape.rank == 0 || in->noperands > 3 ||
      in->shape.layout.element_size_bits || eval_mixed_precision(in))
    return false;
  for (int k = 0; k < in->noperands; k++) {
    const Shape *o = &in->operands[k]->shape;
    if (!shape_is_array(o) || o->rank != in->shape.rank || o->layout.element_size_bits)
      return false;
    for (int d = 0; d < o->rank; d++)
      if (o->dims[d] != in->shape.dims[d]) return false;
    Layout x = o->layout, y = in->shape.layout;
    x.memory_space = y.memory_space = 0;
    if (!layout_equal(&x, &y)) return false;
  }
  return true;
}

static bool member_apply(const Member *m, void *dst, const void *const *s, int64_t n, Error *err) {
  static const bool no_scalars[3] = {false, false, false};
  if (m->kind == EW_BROADCAST || m->kind == EW_SKIP || m->kind == EW_REDUCE_PRECISION)
    return error_set(err, ERR_RUNTIME, -1, "internal: op not fusable");
  EwCall c = {NULL, m->kind, m->uop, m->bop, m->dir, m->ct, m->t0, m->rt, no_scalars};
  return ew_kernel(&c, dst, s, n, err);
}

static bool member_broadcast(EvalCtx *ctx, Frame *f, const Instr *in, Member *m, Error *err) {
  m->kind = EW_BROADCAST;
  const Value *ov = f->vals[in->operands[0]->index];
  if (!ov || !ov->info || !ov->buf || ov->info->packed)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "internal: broadcast %s cannot be read as a view", in->name);
  const void *d;
  if (!value_dense_read(&ctx->vc, ov, &d, &m->btmp, err)) return false;
  m->bsrc = d;
  m->brank = in->shape.rank;
  m->bdims = in->shape.dims;
  for (int k = 0; k < m->brank; k++) m->bstride[k] = 0;
  const IntList *dims = eval_attr_ints(in, ATTR_DIMENSIONS);
  int64_t st = 1;
  for (int k = ov->info->rank - 1; k >= 0; k--) {
    if (ov->info->dims[k] != 1) m->bstride[dims->v[k]] = st;
    st *= ov->info->dims[k];
  }
  m->splat = ov->info->elements == 1;
  m->run = 1;
  for (int k = m->brank - 1; k >= 0 && m->bstride[k] == 0; k--) m->run *= m->bdims[k];
  return true;
}

/* Element offset into the broadcast's operand of slot p. */
static int64_t broadcast_offset(const Member *b, int64_t p) {
  int64_t off = 0;
  for (int d = b->brank - 1; d >= 0; d--) {
    off += p % b->bdims[d] * b->bstride[d];
    p /= b->bdims[d];
  }
  return off;
}

/* Which binary members read a broadcast run by run, and which broadcasts
 * then need no block at all (every reader does). */
static void plan_runs(Member *ms, int nm, int nv) {
  for (int j = 0; j < nv; j++) {
    Member *b = &ms[j];
    b->lazy = b->kind == EW_BROADCAST && !b->splat && b->run >= EW_RUN_MIN && !b->out &&
              !b->donated;
  }
  for (int k = 0; k < nm; k++) {
    Member *m = &ms[k];
    if (m->kind != EW_BINARY || m->nops != 2 || m->t0 != m->rt ||
        !k_binary_scalar_takes(m->bop, m->rt))
      continue;
    for (int o = 0; o < 2 && !m->by_runs; o++)
      if (m->src[o] >= 0 && ms[m->src[o]].lazy && m->src[1 - o] != m->src[o]) m->by_runs = 1 + o;
  }
  for (int k = 0; k < nm; k++) /* (a broadcast member reads its operand through bsrc) */
    for (int o = 0; o < ms[k].nops && ms[k].kind != EW_BROADCAST && ms[k].kind != EW_SKIP; o++)
      if (ms[k].src[o] >= 0 && ms[k].by_runs != 1 + o) ms[ms[k].src[o]].lazy = false;
  for (int k = 0; k < nm; k++) /* a reader of a broadcast that must be filled reads the block */
    if (ms[k].by_runs && !ms[ms[k].src[ms[k].by_runs - 1]].lazy) ms[k].by_runs = 0;
}

/* Binary member m over slots lo..lo+cnt into dst, its by_runs operand one
 * scalar per constant run; s[]: the operands' blocks. */
static void apply_by_runs(const Member *ms, const Member *m, unsigned char *dst,
                          const void *const *s, int64_t lo, int64_t cnt) {
  int o = m->by_runs - 1;
  const Member *b = &ms[m->src[o]];
  const unsigned char *other = s[1 - o];
  int64_t es = m->esize, end = lo + cnt;
  for (int64_t p = lo; p < end;) {
    int64_t len = b->run - p % b->run;
    if (len > end - p) len = end - p;
    const unsigned char *v = b->bsrc + broadcast_offset(b, p) * es;
    k_binary_scalar(m->bop, m->rt, dst + (p - lo) * es, other + (p - lo) * es, v, o == 0, len);
    p += len;
  }
}

bool eval_group_member(const Instr *in) { return in->op != OP_CONSTANT; }

/* Whether x is read through a broadcast in the group (first..last): such
 * reads do not follow the group's block order. */
static bool read_by_broadcast(const Computation *c, int first, int last, const Instr *x) {
  for (int j = first; j <= last; j++) {
    const Instr *in = c->instrs[j];
    if (in->op == OP_BROADCAST && in->operands[0] == x) return true;
    for (int o = 0; o < in->noperands; o++)
      if (in->operands[o]->op == OP_BROADCAST && in->operands[o]->operands[0] == x) return true;
  }
  return false;
}

/* A value whose buffer kept member k (instruction first + k, info ai) can
 * take over instead of a fresh one, as XLA's buffer assignment shares the
 * buffer of an operand that dies at an elementwise op: an operand of
 * members 0..k from before the group, used by nothing after member k,
 * held by nothing but this frame, with the member's element size, layout
 * and memory space, read only elementwise.  Block lo of the donor is
 * overwritten only after every member reading it has read block lo, and
 * blocks go in order, so the group sees the donor's data intact.  Returns
 * the donor's index, or -1. */
static int donor(const CompPlan *p, Frame *f, int first, int last, int k, const ArrayInfo *ai,
                 const bool *taken) {
  const Computation *c = p->comp;
  const Shape *rs = &c->instrs[first + k]->shape;
  for (int j = 0; j <= k; j++) {
    const Instr *in = c->instrs[first + j];
    if (!eval_group_member(in) || in->op == OP_BROADCAST) continue;
    for (int o = 0; o < in->noperands; o++) {
      const Instr *op = in->operands[o];
      if (op->parent != c || op->index >= first || taken[op->index] || op == c->root ||
          op->op == OP_PARAMETER || op->op == OP_CONSTANT || p->last_use[op->index] > first + k)
        continue;
      const Value *v = f->vals[op->index];
      if (!v || v->refs != 1 || !v->info || !v->buf || v->buf->refs != 1 || !v->buf->counted ||
          v->buf->borrowed || v->info->packed || ai->packed || v->info->esize != ai->esize ||
          v->info->space != ai->space || v->info->phys_bytes != ai->phys_bytes ||
          v->info->plan.slots != ai->plan.slots || !layout_equal(&v->shape->layout, &rs->layout) ||
          read_by_broadcast(c, first, last, op))
        continue;
      return op->index;
    }
  }
  return -1;
}

/* Scratch slots: a member's block lives in a slot from its computation to
 * its last use inside the group, then the slot is reused. */
static bool assign_slots(Member *ms, int nm, const int *last_in, unsigned char **slots,
                         int *nslots, int64_t block, Error *err) {
  int *free_list = malloc(sizeof(int) * (size_t)(nm + 1)), nfree = 0;
  int *slot_of = malloc(sizeof(int) * (size_t)(nm + 1));
  bool ok = free_list && slot_of;
  if (!ok) error_set(err, ERR_RUNTIME, -1, "out of memory");
  for (int k = 0; k < nm && ok; k++) {
    slot_of[k] = -1;
    if (ms[k].kind == EW_SKIP || ms[k].out) continue;
    if (ms[k].kind == EW_BROADCAST && ms[k].splat) { /* the same block every time */
      if (!(ms[k].scratch = malloc((size_t)block * (size_t)ms[k].esize))) {
        ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
        break;
      }
      ms[k].own = true;
      broadcast_fill(&ms[k], ms[k].scratch, 0, block);
      continue;
    }
    int sl = nfree ? free_list[--nfree] : (*nslots)++;
    if (!slots[sl] && !(slots[sl] = malloc((size_t)block * 16)))
      ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    slot_of[k] = sl;
    ms[k].scratch = slots[sl];
    ms[k].wslot = sl + 1;
    /* free the slots whose last in-group use is k (after k took its own) */
    for (int j = 0; j < k; j++)
      if (slot_of[j] >= 0 && last_in[j] == k) { free_list[nfree++] = slot_of[j]; slot_of[j] = -1; }
    if (last_in[k] <= k) { free_list[nfree++] = slot_of[k]; slot_of[k] = -1; }
  }
  free(free_list);
  free(slot_of);
  return ok;
}

/* Elements lo..lo+cnt of every member, member by member (one block). */
static bool group_block(Member *ms, int nm, int nv, int64_t lo, int64_t cnt, Error *err) {
  for (int k = nm; k < nv; k++)
    if (!ms[k].splat && !ms[k].lazy) broadcast_fill(&ms[k], ms[k].scratch, lo, cnt);
  for (int k = 0; k < nm; k++) {
    Member *m = &ms[k];
    if (m->kind == EW_SKIP) continue;
    void *d = m->out ? (void *)(m->out + lo * m->esize) : (void *)m->scratch;
    if (m->kind == EW_BROADCAST) {
      if (!m->own && !m->lazy) broadcast_fill(m, d, lo, cnt);
      if (m->donated) memcpy(m->donated + lo * m->esize, d, (size_t)(cnt * m->esize));
      continue;
    }
    const void *s[3];
    for (int o = 0; o < m->nops; o++) {
      const Member *src = m->src[o] >= 0 ? &ms[m->src[o]] : NULL;
      s[o] = !src ? (const void *)(m->ext[o] + lo * m->ext_esize[o])
             : src->out ? (const void *)(src->out + lo * src->esize)
                        : (const void *)src->scratch;
    }
    if (m->by_runs) apply_by_runs(ms, m, d, s, lo, cnt);
    else if (!member_apply(m, d, s, cnt, err)) return false;
    if (m->donated) memcpy(m->donated + lo * m->esize, d, (size_t)(cnt * m->esize));
  }
  return true;
}

/* A fused group's blocks spread over the pool: blocks are independent (a
 * donor's block is read only by the same block), so any thread may run any
 * chunk of blocks.  Worker 0 uses the members as set up; every other worker
 * a copy of them with scratch blocks of its own (one allocation, made the
 * first time that worker runs a chunk). */
typedef struct GroupRun {
  Member *ms;
  int nm, nv;
  int64_t n, blocks_per_chunk;
  int nwslots;         /* scratch blocks a worker needs */
  int nworkers;
  unsigned char **workers; /* per worker >= 1: nv members, then the blocks */
} GroupRun;

static Member *group_worker(GroupRun *g, int w, Error *err) {
  if (w == 0) return g->ms;
  if (!g->workers[w]) {
    size_t head = (sizeof(Member) * (size_t)g->nv + 63) / 64 * 64;
    unsigned char *p = aligned_alloc(64, head + (size_t)g->nwslots * EW_BLOCK * 16);
    if (!p) return error_set(err, ERR_RUNTIME, -1, "out of memory"), NULL;
    Member *wm = (Member *)(void *)p;
    memcpy(wm, g->ms, sizeof(Member) * (size_t)g->nv);
    for (int k = 0; k < g->nv; k++)
      if (wm[k].wslot) wm[k].scratch = p + head + (size_t)(wm[k].wslot - 1) * EW_BLOCK * 16;
    g->workers[w] = p;
  }
  return (Member *)(void *)g->workers[w];
}

static bool group_chunk(void *ctx, int64_t chunk, int worker, Error *err) {
  GroupRun *g = ctx;
  Member *ms = group_worker(g, worker, err);
  if (!ms) return false;
  int64_t lo = chunk * g->blocks_per_chunk * EW_BLOCK;
  int64_t hi = lo + g->blocks_per_chunk * EW_BLOCK;
  if (hi > g->n) hi = g->n;
  for (; lo < hi; lo += EW_BLOCK)
    if (!group_block(ms, g->nm, g->nv, lo, hi - lo < EW_BLOCK ? hi - lo : EW_BLOCK, err))
      return false;
  return true;
}

bool eval_elementwise_group(EvalCtx *ctx, Frame *f, int first, int last, Error *err) {
  const Computation *c = f->plan->comp;
  int nm = last - first + 1, nv = nm; /* members, then re-derived broadcasts */
  Member *ms = calloc((size_t)nm * 4, sizeof *ms);
  int *last_in = calloc((size_t)nm, sizeof *last_in);
  unsigned char **slots = calloc((size_t)nm, sizeof *slots);
  bool *taken = calloc((size_t)(first > 0 ? first : 1), sizeof *taken); /* donors used */
  int nslots = 0;
  bool ok = ms && last_in && slots && taken;
  if (!ok) error_set(err, ERR_RUNTIME, -1, "out of memory");
  int64_t n = 0;
  for (int k = 0; k < nm && ok; k++) {
    const Instr *in = c->instrs[first + k];
    Member *m = &ms[k];
    last_in[k] = -1;
    if (!eval_group_member(in)) { m->kind = EW_SKIP; continue; }
    m->nops = in->noperands;
    m->t0 = in->operands[0]->shape.etype;
    m->rt = in->shape.etype;
    m->esize = etype_storage_bytes(m->rt);
    if (f->plan->keep[first + k]) { /* needed after the group */
      const ArrayInfo *ai = value_array_info(&ctx->vc, &in->shape, err);
      if (!(ok = ai != NULL)) break;
      int d = donor(f->plan, f, first, last, k, ai, taken);
      if (d >= 0) {
        f->vals[first + k] = value_wrap_buffer(&in->shape, ai, f->vals[d]->buf);
        if (!(ok = f->vals[first + k] != NULL)) {
          error_set(err, ERR_RUNTIME, -1, "out of memory");
          break;
        }
        taken[d] = true;
        m->donated = f->vals[d]->buf->data;
      } else {
        if (!(ok = value_new_array(&ctx->vc, &in->shape, false, "", &f->vals[first + k], err))) break;
        m->out = f->vals[first + k]->buf->data;
      }
      if (!n) n = ai->plan.slots;
    }
    if (in->op == OP_BROADCAST) continue; /* set up below, once n is known */
    ew_lookup(in->op, &m->kind, &m->uop, &m->bop);
    if (m->kind == EW_COMPARE) ok = ew_parse_cmp(in, &m->dir, &m->ct, err);
    else if (m->kind == EW_NONE)
      ok = error_set(err, ERR_RUNTIME, in->offset, "internal: %s not fusable", in->name);
    for (int o = 0; o < m->nops; o++) {
      const Instr *op = in->operands[o];
      if (op->parent == c && op->index >= first && op->index < first + k && eval_group_member(op))
        last_in[op->index - first] = k;
    }
  }
  /* n stays 0 when no member is materialised: the group is dead, nothing runs */
  if (!n) nm = nv = 0;
  for (int k = 0; k < nm && ok; k++) {
    const Instr *in = c->instrs[first + k];
    Member *m = &ms[k];
    if (m->kind == EW_SKIP) continue;
    if (in->op == OP_BROADCAST) {
      ok = member_broadcast(ctx, f, in, m, err);
      continue;
    }
    for (int o = 0; o < m->nops && ok; o++) {
      const Instr *op = in->operands[o];
      if (op->parent == c && op->index >= first && op->index < first + k && eval_group_member(op)) {
        m->src[o] = op->index - first;
      } else if (!f->vals[op->index] && op->op == OP_BROADCAST && op->parent == c) {
        /* a broadcast of an earlier group, not materialised: re-derived */
        int j = nm;
        while (j < nv && ms[j].bin != op) j++;
        if (j == nv) {
          Member *b = &ms[nv++];
          b->bin = op;
          b->rt = op->shape.etype;
          b->esize = etype_storage_bytes(b->rt);
          if (!(ok = member_broadcast(ctx, f, op, b, err))) break;
          if (!(b->scratch = malloc((size_t)EW_BLOCK * (size_t)b->esize))) {
            ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
            break;
          }
          b->own = true;
          if (b->splat) broadcast_fill(b, b->scratch, 0, EW_BLOCK);
        }
        m->src[o] = j;
      } else {
        const Value *ov = f->vals[op->index];
        if (!ov || !ov->info || !ov->buf || ov->info->plan.slots != n || ov->info->packed) {
          ok = error_set(err, ERR_RUNTIME, in->offset,
                         "instruction %s: operand %d does not match the fused loop", in->name, o);
          break;
        }
        m->src[o] = -1;
        m->ext[o] = ov->buf->data;
        m->ext_esize[o] = ov->info->esize;
      }
    }
  }
  if (ok) plan_runs(ms, nm, nv);
  ok = ok && assign_slots(ms, nm, last_in, slots, &nslots, EW_BLOCK, err);
  /* re-derived broadcasts other than splats write their scratch per block */
  int nwslots = nslots;
  for (int k = nm; k < nv; k++)
    if (!ms[k].splat) ms[k].wslot = ++nwslots;
  if (ok && n > 0) {
    GroupRun g = {ms, nm, nv, n, 0, nwslots, pool_threads(), NULL};
    int64_t bytes = 0;
    for (int k = 0; k < nv; k++) bytes += n * ms[k].esize;
    int64_t nblocks = (n + EW_BLOCK - 1) / EW_BLOCK;
    int64_t chunks = pool_chunks(bytes, nblocks);
    g.blocks_per_chunk = (nblocks + chunks - 1) / chunks;
    chunks = (nblocks + g.blocks_per_chunk - 1) / g.blocks_per_chunk;
    if (!(g.workers = calloc((size_t)g.nworkers, sizeof *g.workers))) {
      ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    } else {
      ok = pool_for_err(chunks, group_chunk, &g, err);
      for (int w = 0; w < g.nworkers; w++) free(g.workers[w]);
      free(g.workers);
    }
  }
  for (int k = 0; k < nv && ms; k++) value_tmp_free(&ms[k].btmp);
  for (int k = 0; k < nv && ms; k++)
    if (ms[k].own) free(ms[k].scratch);
  for (int k = 0; k < nslots; k++) free(slots[k]);
  free(slots);
  free(taken);
  free(last_in);
  free(ms);
  for (int k = first; k <= last && ok; k++)
    if (eval_group_member(c->instrs[k]) && f->vals[k]) ok = value_zero_padding(&ctx->vc, f->vals[k], err);
  if (!ok)
    for (int k = first; k <= last; k++)
      if (eval_group_member(c->instrs[k]) && f->vals[k]) {
        value_unref(&ctx->vc, f->vals[k]);
        f->vals[k] = NULL;
      }
  return ok;
}
