/* hlolayout --module --report: the memory timeline of the entry computation
 * from program order alone (no run), and a cost estimate per instruction
 * (interp/report.h). */
#include <stdlib.h>
#include <string.h>

#include "interp/buffers.h"
#include "interp/cost_model.h"
#include "interp/report.h"
#include "parser/opcode_flags.h"

/* The leaf of s at a shape index. */
static const Shape *leaf_at(const Shape *s, const int64_t *index, int n) {
  for (int k = 0; k < n && s; k++)
    s = shape_is_tuple(s) && index[k] >= 0 && index[k] < s->ntuple ? &s->tuple[index[k]] : NULL;
  return s;
}

/* Adds the padded bytes of every array leaf of s to bytes[2k + write] of
 * its space's index k in mem. */
static void leaf_bytes(MemTrack *t, const MemSystem *mem, const Shape *s, int write,
                       int64_t *bytes) {
  if (shape_is_tuple(s)) {
    for (int i = 0; i < s->ntuple; i++) leaf_bytes(t, mem, &s->tuple[i], write, bytes);
    return;
  }
  if (!shape_is_array(s)) return;
  int sh = memtrack_shape(t, s, s, NULL);
  if (sh < 0) return;
  for (int k = 0; k < mem->nspaces; k++)
    if (mem->spaces[k].id == s->layout.memory_space)
      bytes[2 * k + write] += t->shapes[sh].physical;
}

static bool plan_costs(const Module *m, const MemConfig *cfg, const MemSystem *mem, MemTrack *t,
                       ReportCost **cost, int *ncost) {
  const Computation *e = m->entry;
  ReportCost *c = calloc((size_t)(e->ninstrs ? e->ninstrs : 1), sizeof *c);
  if (!c) return false;
  for (int i = 0; i < e->ninstrs; i++) {
    const Instr *in = e->instrs[i];
    int64_t bytes[2 * MEM_MAX_SPACES] = {0};
    if (!(opcode_flags(in->op) & OPF_NO_TRAFFIC)) {
      for (int k = 0; k < in->noperands; k++) leaf_bytes(t, mem, &in->operands[k]->shape, 0, bytes);
      leaf_bytes(t, mem, &in->shape, 1, bytes);
    }
    CostFlops f = cost_flops(in);
    int cls = cost_peak_class(in);
    CostEstimate est = cost_estimate(f, cost_peak(cfg->peak_flops, cls), bytes, mem);
    int64_t total = 0;
    for (int k = 0; k < 2 * mem->nspaces; k++) total += bytes[k];
    c[i] = (ReportCost){in, 1, f.flops, f.transcendentals, total, est.compute_s, est.memory_s,
                        est.time_s, est.bound, est.bound_space};
  }
  *cost = c;
  *ncost = e->ninstrs;
  return true;
}

bool report_plan(const Module *m, const MemConfig *cfg, MemTrack **track, ReportCost **cost,
                 int *ncost, Error *err) {
  *track = NULL;
  *cost = NULL;
  *ncost = 0;
  const Computation *e = m->entry;
  if (!e) return error_set(err, ERR_RUNTIME, -1, "the module has no entry computation");
  MemSystem mem;
  mem_init(&mem);
  if (!config_apply(cfg, &mem, err)) return false;
  BufferReport r;
  if (!buffers_report(m, &r, err)) return false;
  int n = e->ninstrs;
  int *own = calloc((size_t)n + 1, sizeof *own);    /* CSR of owned rows */
  int *rows = calloc((size_t)r.nrows + 1, sizeof *rows);
  int *end = calloc((size_t)n + 1, sizeof *end);
  int *rel = calloc((size_t)n + 2, sizeof *rel);    /* CSR of rows ending at i */
  int *relrows = calloc((size_t)r.nrows + 1, sizeof *relrows);
  int64_t *rec = calloc((size_t)r.nrows + 1, sizeof *rec);
  int *slot = calloc((size_t)r.nrows + 1, sizeof *slot);
  MemTrack *t = memtrack_new(m, true);
  bool ok = own && rows && end && rel && relrows && rec && slot && t;
  /* The entry's own buffers, by instruction; every space they use exists
   * before the cost loop indexes mem's spaces. */
  for (int i = 0; ok && i < r.nrows; i++) {
    const BufferRow *b = &r.rows[i];
    if (b->comp != e || b->alias || !b->sized) continue;
    own[b->instr->index + 1]++;
    Error e2;
    if (!mem_space(&mem, b->memory_space, &e2)) ok = error_set(err, ERR_RUNTIME, -1, "%s", e2.msg);
  }
  for (int i = 0; ok && i < n; i++) own[i + 1] += own[i];
  if (ok) {
    int *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!fill) ok = false;
    /* Module order within an instruction (the rows come largest first). */
    for (int i = 0; ok && i < r.nrows; i++) {
      const BufferRow *b = &r.rows[i];
      if (b->comp != e || b->alias || !b->sized) continue;
      rows[own[b->instr->index] + fill[b->instr->index]++] = i;
    }
    free(fill);
  }
  /* Last use: an instruction owning no buffer (tuple, get-tuple-element,
   * bitcast, ...) hands its operands on, so they live as long as it does;
   * the root's live to the end. */
  for (int i = 0; ok && i < n; i++) end[i] = i;
  if (ok && e->root) end[e->root->index] = n;
  for (int u = n - 1; ok && u >= 0; u--) {
    const Instr *in = e->instrs[u];
    bool forwards = own[u + 1] == own[u];
    for (int k = 0; k < in->noperands; k++) {
      const Instr *o = in->operands[k];
      if (o->parent != e) continue;
      int until = forwards ? end[u] : u;
      if (until > end[o->index]) end[o->index] = until;
    }
  }
  for (int i = 0; ok && i < n; i++)
    if (end[i] < n) rel[end[i] + 1] += own[i + 1] - own[i];
  for (int i = 0; ok && i <= n; i++) rel[i + 1] += rel[i];
  if (ok) {
    int *fill = calloc((size_t)n + 1, sizeof *fill);
    if (!fill) ok = false;
    for (int i = 0; ok && i < n; i++)
      if (end[i] < n)
        for (int k = own[i]; k < own[i + 1]; k++) relrows[rel[end[i]] + fill[end[i]]++] = rows[k];
    free(fill);
  }
  for (int i = 0; ok && i < n; i++) {
    const Instr *in = e->instrs[i];
    memtrack_step(t, in);
    for (int k = own[i]; ok && k < own[i + 1]; k++) {
      const BufferRow *b = &r.rows[rows[k]];
      const Shape *leaf = leaf_at(&in->shape, b->index, b->index_len);
      int sl = memtrack_slot(t, &mem, b->memory_space);
      int sh = leaf ? memtrack_shape(t, leaf, leaf, NULL) : -1;
      if (sl < 0 || sh < 0) {
        ok = false;
        break;
      }
      slot[rows[k]] = sl;
      rec[rows[k]] = memtrack_alloc_raw(t, sl, sh, in, b->physical_bytes);
    }
    for (int k = rel[i]; ok && k < rel[i + 1]; k++) {
      int row = relrows[k];
      memtrack_release_raw(t, slot[row], rec[row], r.rows[row].physical_bytes);
    }
  }
  if (ok) ok = plan_costs(m, cfg, &mem, t, cost, ncost);
  if (!ok && !err->msg[0]) error_set(err, ERR_RUNTIME, -1, "out of memory");
  free(own);
  free(rows);
  free(end);
  free(rel);
  free(relrows);
  free(rec);
  free(slot);
  buffers_report_free(&r);
  mem_destroy(&mem);
  if (ok) *track = t;
  else memtrack_free(t);
  return ok;
}
