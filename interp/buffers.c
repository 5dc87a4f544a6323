#include "interp/buffers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "layout/layout.h"

/* How a computation is reached from the entry (XLA CallGraph's contexts). */
enum { REACH_NONE = 0, REACH_SEQUENTIAL, REACH_EMBEDDED };

/* Ops whose called computations run as sequential code (OPF_SEQ_CALLS in
 * parser/opcodes.def): while, conditional, call, the async ops. */
static bool is_control_flow(const Instr *in) { return opcode_flags(in->op) & OPF_SEQ_CALLS; }

static void reach(unsigned char *how, const Computation *c, unsigned char kind,
                  const Computation **stack, int *n) {
  if (how[c->index] == REACH_SEQUENTIAL || how[c->index] == kind) return;
  how[c->index] = kind;
  stack[(*n)++] = c;
}

/* Marks every computation reachable from the entry: sequential when reached
 * only through control flow from sequential ones, else embedded.  A
 * computation is pushed at most twice (once per kind), so stack holds
 * 2 * ncomps entries. */
static void classify(const Module *m, unsigned char *how, const Computation **stack) {
  int n = 0;
  reach(how, m->entry, REACH_SEQUENTIAL, stack, &n);
  while (n > 0) {
    const Computation *c = stack[--n];
    unsigned char kind = how[c->index];
    for (int i = 0; i < c->ninstrs; i++) {
      const Instr *in = c->instrs[i];
      unsigned char callee =
          kind == REACH_SEQUENTIAL && is_control_flow(in) ? REACH_SEQUENTIAL : REACH_EMBEDDED;
      for (int a = 0; a < in->nattrs; a++) {
        const Attr *at = &in->attrs[a];
        if (at->kind == AV_COMPUTATION && at->v.comp)
          reach(how, at->v.comp, callee, stack, &n);
        else if (at->kind == AV_COMPUTATION_LIST)
          for (int k = 0; k < at->v.comps.n; k++)
            if (at->v.comps.v[k]) reach(how, at->v.comps.v[k], callee, stack, &n);
      }
    }
  }
}

static void put_index(StrBuf *sb, const int64_t *idx, int n) {
  if (n == 0) return;
  sb_putc(sb, '{');
  for (int i = 0; i < n; i++) sb_printf(sb, "%s%lld", i ? "," : "", (long long)idx[i]);
  sb_putc(sb, '}');
}

/* "name{pre,idx...}". */
static void put_ref(StrBuf *sb, const Instr *in, const int64_t *pre, int npre, const int64_t *idx,
                    int n) {
  int64_t all[SHAPE_MAX_RANK * 2];
  int k = 0;
  for (int i = 0; i < npre && k < (int)(sizeof all / sizeof *all); i++) all[k++] = pre[i];
  for (int i = 0; i < n && k < (int)(sizeof all / sizeof *all); i++) all[k++] = idx[i];
  sb_puts(sb, in->name);
  put_index(sb, all, k);
}

static const Instr *operand(const Instr *in, int64_t i) {
  return i >= 0 && i < in->noperands ? in->operands[i] : NULL;
}

/* The buffer column of parser/opcodes.def: which buffer an op's result
 * shares, by rule. */
typedef enum {
  BUF_NONE,        /* a buffer of its own */
  BUF_CALLER,      /* parameter: the caller's operand (outside the entry) */
  BUF_ELEMENT,     /* get-tuple-element: that element of its operand */
  BUF_OPERAND,     /* operand 0, leaf for leaf */
  BUF_OPERAND_0,   /* element {0} of operand 0 (copy-done: the destination) */
  BUF_OPERAND_1,   /* element {1} of operand 0 (the start's output) */
  BUF_RECV_DONE,   /* element {0}: the recv's element {0} */
  BUF_TUPLE,       /* element {i}: operand i */
  BUF_CALLEE,      /* call: the callee's root */
  BUF_BRANCHES,    /* conditional: the branches' roots */
  BUF_COPY_START,  /* (destination, source, context): {1} is the operand */
  BUF_AT_0,        /* element {0} is operand 0 (send, collective-permute-start) */
  BUF_ASYNC_START, /* ((operands...), outputs, context...) */
} BufRule;

static const unsigned char buf_rule_of[OP_COUNT] = {
#define OPCODE(id, text, lo, hi, cls, infer, eval, kernel, flags, mixed, buffer, ...) \
  [OP_##id] = buffer,
#include "parser/opcodes.def"
#undef OPCODE
};

/* Does leaf idx of in share a buffer defined elsewhere?  If so, says what
 * it shares in sb.  The rules follow XLA's HloDataflowAnalysis (which ops
 * define values at which indices) plus buffer assignment's colocation of
 * while/conditional/call results with their bodies. */
static bool leaf_alias(const Instr *in, const int64_t *idx, int n, StrBuf *sb) {
  const Instr *op0 = operand(in, 0);
  static const int64_t ONE = 1, ZERO = 0;
  switch ((BufRule)buf_rule_of[in->op]) {
    case BUF_CALLER:
      if (in->parent->is_entry) return false;
      sb_printf(sb, "the caller's operand (parameter %lld of %s)",
                (long long)in->parameter_number, in->parent->name);
      return true;
    case BUF_ELEMENT: {
      const Attr *a = ir_attr(in, ATTR_INDEX);
      int64_t t = a ? a->v.i : 0;
      if (op0) put_ref(sb, op0, &t, 1, idx, n);
      return true;
    }
    case BUF_OPERAND:
      if (op0) put_ref(sb, op0, NULL, 0, idx, n);
      return true;
    case BUF_OPERAND_0: /* copy-start's destination */
      if (op0) put_ref(sb, op0, &ZERO, 1, idx, n);
      return true;
    case BUF_OPERAND_1: /* the start's output */
      if (op0) put_ref(sb, op0, &ONE, 1, idx, n);
      return true;
    case BUF_RECV_DONE:
      if (n == 0 || idx[0] != 0) return false;
      if (op0) put_ref(sb, op0, &ZERO, 1, idx + 1, n - 1);
      return true;
    case BUF_TUPLE:
      if (n > 0 && operand(in, idx[0])) put_ref(sb, operand(in, idx[0]), NULL, 0, idx + 1, n - 1);
      return true;
    case BUF_CALLEE: {
      const Attr *a = ir_attr(in, ATTR_TO_APPLY);
      if (a && a->v.comp && a->v.comp->root) put_ref(sb, a->v.comp->root, NULL, 0, idx, n);
      return true;
    }
    case BUF_BRANCHES:
      sb_puts(sb, "the branch computations' roots");
      put_index(sb, idx, n);
      return true;
    case BUF_COPY_START:
      if (n == 0 || idx[0] != 1) return false;
      if (op0) put_ref(sb, op0, NULL, 0, idx + 1, n - 1);
      return true;
    case BUF_AT_0: /* send: (data, context, token); collective-permute-start: (operand,
                    * output, contexts...) */
      if (n == 0 || idx[0] != 0) return false;
      if (op0) put_ref(sb, op0, NULL, 0, idx + 1, n - 1);
      return true;
    case BUF_ASYNC_START: {
      /* all-gather-start of one operand is (operand, output) */
      if (n == 0 || idx[0] != 0) return false;
      if ((in->op == OP_ALL_GATHER_START && in->noperands == 1) || n == 1) {
        if (op0) put_ref(sb, op0, NULL, 0, idx + 1, n - 1);
      } else if (operand(in, idx[1])) {
        put_ref(sb, operand(in, idx[1]), NULL, 0, idx + 2, n - 2);
      }
      return true;
    }
    default: return false;
  }
}

typedef struct {
  BufferReport *r;
  Arena *a;
  const Computation *comp;
  const Instr *instr;
  int64_t order;
  int cap;
  StrBuf sb;
  bool oom;
} Walk;

static char *take_str(Walk *w, StrBuf *sb) {
  char *s = arena_strndup(w->a, sb->data ? sb->data : "", sb->len);
  if (!s || sb->oom) w->oom = true;
  sb->len = 0;
  if (sb->data) sb->data[0] = '\0';
  return s;
}

static void size_row(Walk *w, BufferRow *row, const Shape *s) {
  Error err = {0};
  LayoutPlan plan;
  memset(&plan, 0, sizeof plan);
  if (!layout_plan_init(&plan, s, &err)) {
    row->sized = false;
    row->logical_bytes = row->physical_bytes = -1;
    row->error = arena_strdup(w->a, err.msg);
    if (!row->error) w->oom = true;
    return;
  }
  row->sized = true;
  row->logical_bytes = plan.logical_bytes;
  row->physical_bytes = plan.physical_bytes;
  layout_plan_free(&plan);
}

static void add_leaf(Walk *w, const Shape *s, const int64_t *idx, int n) {
  BufferReport *r = w->r;
  if (r->nrows == w->cap) {
    int cap = w->cap ? w->cap * 2 : 256;
    BufferRow *rows = realloc(r->rows, (size_t)cap * sizeof *rows);
    if (!rows) {
      w->oom = true;
      return;
    }
    r->rows = rows;
    w->cap = cap;
  }
  BufferRow *row = &r->rows[r->nrows++];
  memset(row, 0, sizeof *row);
  row->comp = w->comp;
  row->instr = w->instr;
  row->order = w->order++;
  row->index_len = n;
  int64_t *copy = n ? arena_alloc_array(w->a, (size_t)n, sizeof *copy) : NULL;
  if (n && !copy) w->oom = true;
  if (copy) memcpy(copy, idx, (size_t)n * sizeof *copy);
  row->index = copy;
  sb_puts(&w->sb, w->instr->name);
  put_index(&w->sb, idx, n);
  row->name = take_str(w, &w->sb);
  shape_print(&w->sb, s);
  row->shape = take_str(w, &w->sb);
  row->memory_space = s->layout.memory_space;
  row->alias = leaf_alias(w->instr, idx, n, &w->sb);
  row->alias_of = row->alias && w->sb.len ? take_str(w, &w->sb) : NULL;
  w->sb.len = 0;
  size_row(w, row, s);
}

/* Every array leaf of s, depth first, in shape-index order. */
static void walk_shape(Walk *w, const Shape *s, int64_t *idx, int n) {
  if (s->etype == ET_TUPLE) {
    for (int i = 0; i < s->ntuple; i++) {
      if (n >= SHAPE_MAX_RANK) return; /* deeper than any real module nests */
      idx[n] = i;
      walk_shape(w, &s->tuple[i], idx, n + 1);
    }
  } else if (s->etype == ET_BUFFER) {
    if (s->ntuple > 0) walk_shape(w, &s->tuple[0], idx, n);
  } else if (shape_is_array(s) && etype_kind(s->etype) != EK_TOKEN &&
             etype_kind(s->etype) != EK_OPAQUE) {
    add_leaf(w, s, idx, n);
  }
}

static int cmp_rows(const void *pa, const void *pb) {
  const BufferRow *a = pa, *b = pb;
  if (a->physical_bytes != b->physical_bytes) return a->physical_bytes > b->physical_bytes ? -1 : 1;
  return a->order < b->order ? -1 : a->order > b->order;
}

static int cmp_spaces(const void *pa, const void *pb) {
  const BufferTotals *a = pa, *b = pb;
  return a->memory_space < b->memory_space ? -1 : a->memory_space > b->memory_space;
}

static void add_to(BufferTotals *t, const BufferRow *row) {
  t->count++;
  t->logical_bytes += row->logical_bytes;
  t->physical_bytes += row->physical_bytes;
}

static bool totals(BufferReport *r) {
  for (int i = 0; i < r->nrows; i++) {
    const BufferRow *row = &r->rows[i];
    if (row->alias) {
      r->naliases++;
      continue;
    }
    if (!row->sized) {
      r->nunsized++;
      continue;
    }
    r->nbuffers++;
    BufferTotals *t = NULL;
    for (int k = 0; k < r->nspaces && !t; k++)
      if (r->spaces[k].memory_space == row->memory_space) t = &r->spaces[k];
    if (!t) {
      BufferTotals *sp = realloc(r->spaces, (size_t)(r->nspaces + 1) * sizeof *sp);
      if (!sp) return false;
      r->spaces = sp;
      t = &r->spaces[r->nspaces++];
      memset(t, 0, sizeof *t);
      t->memory_space = row->memory_space;
    }
    add_to(t, row);
    add_to(&r->total, row);
  }
  if (r->nspaces > 1) qsort(r->spaces, (size_t)r->nspaces, sizeof *r->spaces, cmp_spaces);
  return true;
}

bool buffers_report(const Module *m, BufferReport *out, Error *err) {
  memset(out, 0, sizeof *out);
  out->arena = arena_new();
  unsigned char *how = calloc((size_t)m->ncomps + 1, 1);
  const Computation **stack = calloc((size_t)m->ncomps * 2 + 2, sizeof *stack);
  Walk w = {.r = out, .a = out->arena};
  sb_init(&w.sb);
  bool ok = out->arena && how && stack;
  if (ok) {
    classify(m, how, stack);
    for (int c = 0; c < m->ncomps && !w.oom; c++) {
      const Computation *comp = m->comps[c];
      if (how[c] != REACH_SEQUENTIAL) {
        out->nunlisted_instrs += comp->ninstrs;
        continue;
      }
      out->ncomputations++;
      w.comp = comp;
      for (int i = 0; i < comp->ninstrs && !w.oom; i++) {
        int64_t idx[SHAPE_MAX_RANK];
        w.instr = comp->instrs[i];
        walk_shape(&w, &w.instr->shape, idx, 0);
      }
    }
    ok = !w.oom && totals(out);
  }
  sb_free(&w.sb);
  free(how);
  free(stack);
  if (!ok) {
    buffers_report_free(out);
    return error_set(err, ERR_RUNTIME, -1, "out of memory listing the module's buffers");
  }
  if (out->nrows > 1) qsort(out->rows, (size_t)out->nrows, sizeof *out->rows, cmp_rows);
  return true;
}

void buffers_report_free(BufferReport *r) {
  free(r->rows);
  free(r->spaces);
  if (r->arena) arena_free(r->arena);
  memset(r, 0, sizeof *r);
}
