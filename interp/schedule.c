/* Memory-frugal execution orders (interp/schedule.h).
 *
 * Per computation: a dependency graph (operands, control-predecessors, and
 * a chain through the order-sensitive instructions in text order), the
 * text order's simulated peak, two depth-first post-orders from the root
 * (children visited smallest subtree first; or, as XLA's DFS scheduler,
 * most extra users then biggest subtree first), each simulated the same
 * way, and the lowest kept if it saves enough.
 *
 * The simulation is the evaluator's liveness (interp/eval_plan.c): a value
 * is allocated when its instruction runs and freed after its last reader;
 * the root lives on.  Parameters and constants are owned by the caller or
 * the plan for the whole run, so they cost nothing here, and the ops that
 * hand their operands on (get-tuple-element, tuple, bitcast, ...) extend
 * their operands' lives instead of allocating. */
#include "interp/schedule.h"

#include <stdlib.h>
#include <string.h>

#include "layout/shape.h"
#include "parser/opcode_flags.h"

/* Reorder only when the saving is at least this much, and 1/16 of the peak. */
#define SCHEDULE_MIN_SAVING ((int64_t)16 << 20)

/* Instructions whose relative order is observable: side effects, values
 * exchanged with other devices, rng state, user code. */
static bool op_ordered(Opcode op) {
  switch (op) {
  case OP_AFTER_ALL: case OP_ADD_DEPENDENCY:
  case OP_ALL_GATHER: case OP_ALL_GATHER_START: case OP_ALL_GATHER_DONE:
  case OP_ALL_REDUCE: case OP_ALL_REDUCE_START: case OP_ALL_REDUCE_DONE:
  case OP_ALL_TO_ALL: case OP_RAGGED_ALL_TO_ALL: case OP_REDUCE_SCATTER:
  case OP_COLLECTIVE_BROADCAST: case OP_COLLECTIVE_PERMUTE:
  case OP_COLLECTIVE_PERMUTE_START: case OP_COLLECTIVE_PERMUTE_DONE:
  case OP_ASYNC_START: case OP_ASYNC_UPDATE: case OP_ASYNC_DONE:
  case OP_CUSTOM_CALL: case OP_INFEED: case OP_OUTFEED:
  case OP_SEND: case OP_SEND_DONE: case OP_RECV: case OP_RECV_DONE:
  case OP_RNG: case OP_RNG_GET_AND_UPDATE_STATE:
    return true;
  default:
    return false;
  }
}

/* Ops whose value is (parts of) their operands' values. */
static bool op_forwards(Opcode op) {
  return op == OP_GET_TUPLE_ELEMENT || op == OP_TUPLE || op == OP_BITCAST ||
         op == OP_ADD_DEPENDENCY || op == OP_OPT_BARRIER || op == OP_DOMAIN;
}

enum { UNKNOWN = 0, VISITING, PURE, ORDERED };

static bool comp_ordered(const Computation *c, unsigned char *state);

/* Whether `in` is order-sensitive itself or calls a computation that has
 * such an instruction. */
static bool instr_ordered(const Instr *in, unsigned char *state) {
  if (op_ordered(in->op)) return true;
  for (int a = 0; a < in->nattrs; a++) {
    const Attr *at = &in->attrs[a];
    if (at->kind == AV_COMPUTATION && at->v.comp && comp_ordered(at->v.comp, state)) return true;
    if (at->kind == AV_COMPUTATION_LIST)
      for (int k = 0; k < at->v.comps.n; k++)
        if (at->v.comps.v[k] && comp_ordered(at->v.comps.v[k], state)) return true;
  }
  return false;
}

static bool comp_ordered(const Computation *c, unsigned char *state) {
  if (state[c->index] == VISITING) return true; /* a cycle (verifier refuses): be safe */
  if (state[c->index] != UNKNOWN) return state[c->index] == ORDERED;
  state[c->index] = VISITING;
  bool ordered = false;
  for (int i = 0; i < c->ninstrs && !ordered; i++) ordered = instr_ordered(c->instrs[i], state);
  state[c->index] = ordered ? ORDERED : PURE;
  return ordered;
}

/* Bytes a value of shape s occupies densely (every leaf of a tuple), capped
 * at VALUE_MAX_BYTES so that sums of them cannot overflow (a run refuses
 * such values anyway). */
#define VALUE_MAX_BYTES ((int64_t)1 << 40)
static int64_t shape_bytes(const Shape *s) {
  if (shape_is_tuple(s)) {
    int64_t sum = 0;
    for (int k = 0; k < s->ntuple && sum < VALUE_MAX_BYTES; k++) sum += shape_bytes(&s->tuple[k]);
    return sum < VALUE_MAX_BYTES ? sum : VALUE_MAX_BYTES;
  }
  int64_t n, b;
  if (!shape_is_array(s) || !shape_element_count(s, &n)) return 0;
  if (__builtin_mul_overflow(n, (int64_t)etype_storage_bytes(s->etype), &b)) return VALUE_MAX_BYTES;
  return b < VALUE_MAX_BYTES ? b : VALUE_MAX_BYTES;
}

/* A value is one allocation per element of a tuple (the evaluator frees a
 * tuple's elements one by one, each when its last reader is done): units
 * unit_start[i] .. unit_start[i+1] are instruction i's. */
typedef struct Graph {
  const Computation *c;
  int n, nunits;
  bool huge; /* a value over VALUE_MAX_BYTES: no simulation */
  int *dep_start, *dep; /* dependencies of i: dep[dep_start[i] .. dep_start[i+1]) */
  int *unit_start;
  int64_t *unit_size;   /* bytes a unit allocates */
  int64_t *size;        /* bytes i allocates: its units' sum */
  double *subtree;      /* bytes of i and everything it depends on (counted per path) */
  int *extra_users;     /* XLA's DFS key: users beyond the first, summed over the subtree */
  /* scratch for simulate(), per unit */
  int *last, *stamp, *stack;
} Graph;

static void graph_free(Graph *g) {
  free(g->dep_start); free(g->dep); free(g->unit_start); free(g->unit_size); free(g->size);
  free(g->subtree); free(g->extra_users); free(g->last); free(g->stamp); free(g->stack);
}

static int local(const Graph *g, const Instr *x) {
  return x && x->parent == g->c && x->index >= 0 && x->index < g->n && g->c->instrs[x->index] == x
             ? x->index
             : -1;
}

static int units_of(const Instr *in) {
  return shape_is_tuple(&in->shape) && in->shape.ntuple > 0 ? in->shape.ntuple : 1;
}

/* Units, sizes and dependencies (operands, control-predecessors and the
 * previous order-sensitive instruction; all earlier in text order). */
static bool graph_build(Graph *g, const Computation *c, unsigned char *state) {
  int n = c->ninstrs;
  size_t sz = (size_t)n;
  g->c = c;
  g->n = n;
  g->dep_start = calloc(sz + 1, sizeof(int));
  g->unit_start = calloc(sz + 1, sizeof(int));
  g->size = calloc(sz, sizeof(int64_t));
  g->subtree = calloc(sz, sizeof(double));
  g->extra_users = calloc(sz, sizeof(int));
  int *users = calloc(sz, sizeof(int));
  if (!g->dep_start || !g->unit_start || !g->size || !g->subtree || !g->extra_users || !users) {
    free(users);
    return false;
  }
  int64_t total = 0, nunits = 0;
  for (int i = 0; i < n; i++) {
    const Instr *in = c->instrs[i];
    const Attr *cp = ir_attr(in, ATTR_CONTROL_PREDECESSORS);
    total += in->noperands + 1 + (cp && cp->kind == AV_INSTR_LIST ? cp->v.instrs.n : 0);
    nunits += units_of(in);
  }
  if (total > INT32_MAX / 2 || nunits > INT32_MAX / 2 ||
      !(g->dep = malloc((size_t)(total ? total : 1) * sizeof(int))) ||
      !(g->unit_size = calloc((size_t)nunits, sizeof(int64_t))) ||
      !(g->last = malloc((size_t)nunits * sizeof(int))) ||
      !(g->stamp = calloc((size_t)nunits, sizeof(int))) ||
      !(g->stack = malloc(((size_t)nunits + 1) * 2 * sizeof(int)))) {
    free(users);
    return false;
  }
  g->nunits = (int)nunits;
  int nd = 0, nu = 0, prev_ordered = -1;
  for (int i = 0; i < n; i++) {
    const Instr *in = c->instrs[i];
    g->dep_start[i] = nd;
    for (int k = 0; k < in->noperands; k++) {
      int o = local(g, in->operands[k]);
      if (o >= 0 && o < i) g->dep[nd++] = o, users[o]++;
    }
    const Attr *cp = ir_attr(in, ATTR_CONTROL_PREDECESSORS);
    if (cp && cp->kind == AV_INSTR_LIST)
      for (int k = 0; k < cp->v.instrs.n; k++) {
        int o = local(g, cp->v.instrs.v[k]);
        if (o >= 0 && o < i) g->dep[nd++] = o;
      }
    if (instr_ordered(in, state)) {
      if (prev_ordered >= 0) g->dep[nd++] = prev_ordered;
      prev_ordered = i;
    }
    bool owned = in->op == OP_PARAMETER || in->op == OP_CONSTANT || op_forwards(in->op);
    g->unit_start[i] = nu;
    int u = units_of(in);
    for (int k = 0; k < u; k++) {
      const Shape *es = !shape_is_tuple(&in->shape) ? &in->shape
                        : in->shape.ntuple > 0      ? &in->shape.tuple[k]
                                                    : NULL; /* () */
      int64_t b = owned || !es ? 0 : shape_bytes(es);
      g->unit_size[nu + k] = b;
      if (__builtin_add_overflow(g->size[i], b, &g->size[i]) || g->size[i] > VALUE_MAX_BYTES)
        g->huge = true; /* not simulated: such a run is refused anyway */
    }
    nu += u;
  }
  g->dep_start[n] = nd;
  g->unit_start[n] = nu;
  for (int i = 0; i < n; i++) { /* text order is topological */
    double sub = (double)g->size[i];
    int extra = users[i] > 1 ? users[i] - 1 : 0;
    for (int d = g->dep_start[i]; d < g->dep_start[i + 1]; d++) {
      sub += g->subtree[g->dep[d]];
      extra += g->extra_users[g->dep[d]];
      if (extra > INT32_MAX / 4) extra = INT32_MAX / 4;
    }
    g->subtree[i] = sub;
    g->extra_users[i] = extra;
  }
  free(users);
  return true;
}

/* Where unit k of forwarding instruction v comes from: (instruction,
 * element or -1 for all of it) pushed on the stack. */
static void push_source(Graph *g, int v, int k, int *top) {
  const Instr *in = g->c->instrs[v];
  int src = -1, elem = -1;
  if (in->op == OP_TUPLE) {
    if (k < in->noperands) src = local(g, in->operands[k]);
  } else if (in->op == OP_GET_TUPLE_ELEMENT) {
    const Attr *a = ir_attr(in, ATTR_INDEX);
    src = in->noperands ? local(g, in->operands[0]) : -1;
    elem = a && a->kind == AV_INT && a->v.i >= 0 && a->v.i < INT32_MAX ? (int)a->v.i : -1;
  } else if (in->noperands) { /* bitcast, add-dependency, opt-barrier, domain */
    src = local(g, in->operands[0]);
    elem = units_of(in) > 1 ? k : -1;
  }
  if (src < 0) return;
  g->stack[(*top)++] = src;
  g->stack[(*top)++] = elem;
}

/* Marks x's units (element elem, or all when -1), and the units they are
 * handed on from, as read at position p.  A unit is stamped once per
 * stamp and only a newly stamped unit pushes, so the stack holds at most
 * 2 * (nunits + 1) entries. */
static void mark_read(Graph *g, int x, int elem, int p, int stamp) {
  int top = 0;
  g->stack[top++] = x;
  g->stack[top++] = elem;
  while (top > 0) {
    int e = g->stack[--top], v = g->stack[--top];
    int u0 = g->unit_start[v], nu = g->unit_start[v + 1] - u0;
    int lo = e >= 0 && e < nu ? e : 0, hi = e >= 0 && e < nu ? e + 1 : nu;
    bool forwards = op_forwards(g->c->instrs[v]->op);
    for (int k = lo; k < hi; k++) {
      int u = u0 + k;
      if (g->stamp[u] == stamp) continue;
      g->stamp[u] = stamp;
      if (g->last[u] < p) g->last[u] = p;
      if (forwards) push_source(g, v, k, &top);
    }
  }
}

/* The peak of the bytes alive when running the instructions in `order`. */
static int64_t simulate(Graph *g, const int *order) {
  if (g->huge) return INT64_MAX;
  int n = g->n, stamp = 0;
  for (int k = 0; k < n; k++)
    for (int u = g->unit_start[order[k]]; u < g->unit_start[order[k] + 1]; u++)
      g->last[u] = k; /* unread: freed right after itself */
  for (int u = 0; u < g->nunits; u++) g->stamp[u] = 0;
  for (int k = 0; k < n; k++) {
    const Instr *in = g->c->instrs[order[k]];
    stamp++;
    for (int j = 0; j < in->noperands; j++) {
      int o = local(g, in->operands[j]);
      if (o >= 0) mark_read(g, o, -1, k, stamp);
    }
  }
  int root = local(g, g->c->root);
  if (root >= 0) mark_read(g, root, -1, n, ++stamp); /* lives on as the result */
  /* bytes freed after position k: the units' sizes bucketed by last read */
  int64_t *freed = calloc((size_t)n + 1, sizeof(int64_t));
  if (!freed) return INT64_MAX;
  for (int u = 0; u < g->nunits; u++)
    if (__builtin_add_overflow(freed[g->last[u]], g->unit_size[u], &freed[g->last[u]])) {
      free(freed);
      return INT64_MAX;
    }
  int64_t cur = 0, peak = 0;
  for (int k = 0; k < n; k++) {
    if (__builtin_add_overflow(cur, g->size[order[k]], &cur)) {
      free(freed);
      return INT64_MAX;
    }
    if (cur > peak) peak = cur;
    cur -= freed[k];
  }
  free(freed);
  return peak;
}

/* A dependency to visit: the node, and its place among its user's
 * dependencies (operands first, in operand order): ties keep that order. */
typedef struct Kid {
  int node, rank;
} Kid;

static _Thread_local const Graph *sort_graph;
static _Thread_local bool sort_xla;

/* Children visited first come first. */
static int cmp_kid(const void *pa, const void *pb) {
  const Kid *ka = pa, *kb = pb;
  int a = ka->node, b = kb->node;
  const Graph *g = sort_graph;
  if (sort_xla) {
    if (g->extra_users[a] != g->extra_users[b]) return g->extra_users[a] > g->extra_users[b] ? -1 : 1;
    if (g->subtree[a] != g->subtree[b]) return g->subtree[a] > g->subtree[b] ? -1 : 1;
  } else if (g->subtree[a] != g->subtree[b]) {
    return g->subtree[a] < g->subtree[b] ? -1 : 1;
  }
  return ka->rank - kb->rank;
}

/* A depth-first post-order from the root, then from every instruction the
 * root does not reach (in text order); children in cmp_kid's order. */
static bool dfs_order(Graph *g, bool xla, int *order) {
  int n = g->n, nd = g->dep_start[n];
  Kid *kids = malloc((size_t)(nd ? nd : 1) * sizeof *kids);
  unsigned char *seen = calloc((size_t)n, 1);
  int *st = malloc((size_t)(nd + n + 1) * sizeof(int)); /* entries: node*2 + expanded */
  if (!kids || !seen || !st) {
    free(kids); free(seen); free(st);
    return false;
  }
  for (int i = 0; i < n; i++)
    for (int d = g->dep_start[i]; d < g->dep_start[i + 1]; d++)
      kids[d] = (Kid){g->dep[d], d - g->dep_start[i]};
  sort_graph = g;
  sort_xla = xla;
  for (int i = 0; i < n; i++)
    qsort(kids + g->dep_start[i], (size_t)(g->dep_start[i + 1] - g->dep_start[i]), sizeof *kids, cmp_kid);
  sort_graph = NULL;
  int out = 0, root = local(g, g->c->root);
  for (int s = -1; s < n; s++) {
    int start = s < 0 ? root : s;
    if (start < 0 || seen[start]) continue;
    int top = 0;
    st[top++] = start * 2;
    while (top > 0) {
      int e = st[--top], v = e / 2;
      if (e & 1) {
        order[out++] = v;
        continue;
      }
      if (seen[v]) continue;
      seen[v] = 1;
      st[top++] = v * 2 + 1;
      for (int d = g->dep_start[v + 1] - 1; d >= g->dep_start[v]; d--) /* first kid on top */
        if (!seen[kids[d].node]) st[top++] = kids[d].node * 2;
    }
  }
  free(kids); free(seen); free(st);
  return out == n;
}

/* Reorders c when a depth-first order saves enough; *text and *chosen get
 * the simulated peaks. */
static void schedule_comp(Computation *c, unsigned char *state, int64_t min_saving, int64_t *text,
                          int64_t *chosen, bool *changed) {
  int n = c->ninstrs;
  *changed = false;
  *text = *chosen = 0;
  if (n < 3) return;
  Graph g = {0};
  int *ident = malloc((size_t)n * sizeof(int)), *cand = malloc((size_t)n * sizeof(int)),
      *best = malloc((size_t)n * sizeof(int));
  if (!ident || !cand || !best || !graph_build(&g, c, state)) goto done;
  for (int i = 0; i < n; i++) ident[i] = i;
  *text = *chosen = simulate(&g, ident);
  int64_t best_peak = INT64_MAX;
  for (int v = 0; v < 2; v++) {
    if (!dfs_order(&g, v == 1, cand)) continue;
    int64_t p = simulate(&g, cand);
    if (p < best_peak) {
      best_peak = p;
      memcpy(best, cand, (size_t)n * sizeof(int));
    }
  }
  int64_t saving = best_peak == INT64_MAX ? 0 : *text - best_peak;
  if (saving < min_saving || saving < *text / 16) goto done;
  Instr **was = malloc((size_t)n * sizeof *was);
  if (!was) goto done;
  memcpy(was, c->instrs, (size_t)n * sizeof *was);
  for (int k = 0; k < n; k++) {
    c->instrs[k] = was[best[k]];
    c->instrs[k]->index = k;
  }
  free(was);
  *chosen = best_peak;
  *changed = true;
done:
  graph_free(&g);
  free(ident); free(cand); free(best);
}

ScheduleStats schedule_module(Module *m) { return schedule_module_min(m, SCHEDULE_MIN_SAVING); }

ScheduleStats schedule_module_min(Module *m, int64_t min_saving) {
  ScheduleStats st = {0};
  if (min_saving < 1) min_saving = 1;
  if (m->is_scheduled || m->ncomps == 0) return st;
  unsigned char *state = calloc((size_t)m->ncomps, 1);
  if (!state) return st;
  for (int i = 0; i < m->ncomps; i++) {
    int64_t text, chosen;
    bool changed;
    schedule_comp(m->comps[i], state, min_saving, &text, &chosen, &changed);
    st.reordered += changed;
    if (m->comps[i] == m->entry) {
      st.text_peak_bytes = text;
      st.peak_bytes = chosen;
    }
  }
  free(state);
  return st;
}
