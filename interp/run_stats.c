/* --stats: the counters a run collects (per instruction, per padded shape)
 * and the report made of them, as text, YAML or JSON. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/doc.h"
#include "interp/cost_model.h"
#include "interp/run_internal.h"

/* --- collecting --- */

/* Which computations run as sequential code (XLA's CallGraph control
 * flow): the entry, and what a while, call, conditional or async op of one
 * of them runs.  Their instructions are the ones the cost model times; a
 * fusion body's, a reducer's or a comparator's are counted in the
 * instruction that applies them.  Callees come before callers in the
 * module, so one pass from the end reaches them all. */
static bool *sequential_comps(const Module *m) {
  bool *seq = calloc((size_t)(m->ncomps ? m->ncomps : 1), sizeof *seq);
  if (!seq) return NULL;
  if (m->entry && m->entry->index >= 0 && m->entry->index < m->ncomps) seq[m->entry->index] = true;
  for (int c = m->ncomps - 1; c >= 0; c--) {
    if (!seq[c]) continue;
    const Computation *comp = m->comps[c];
    for (int i = 0; i < comp->ninstrs; i++) {
      const Instr *in = comp->instrs[i];
      if (!(opcode_flags(in->op) & OPF_SEQ_CALLS)) continue;
      for (int k = 0; k < in->nattrs; k++) {
        const Attr *a = &in->attrs[k];
        if (a->kind == AV_COMPUTATION && a->v.comp && a->v.comp->index < m->ncomps)
          seq[a->v.comp->index] = true;
        else if (a->kind == AV_COMPUTATION_LIST)
          for (int j = 0; j < a->v.comps.n; j++)
            if (a->v.comps.v[j] && a->v.comps.v[j]->index < m->ncomps)
              seq[a->v.comps.v[j]->index] = true;
      }
    }
  }
  return seq;
}

/* The cost model of one collected instruction (interp/cost_model.h). */
static void cost_instr(RunResult *res, const MemSystem *mem, RunInstrStat *r) {
  CostFlops f = cost_flops(r->instr);
  f.flops *= (double)r->s.count;
  f.transcendentals *= (double)r->s.count;
  r->costed = true;
  r->peak_class = cost_peak_class(r->instr);
  r->flops = f.flops;
  r->transcendentals = f.transcendentals;
  CostEstimate e =
      cost_estimate(f, cost_peak(res->peak_flops, r->peak_class), r->s.space_bytes, mem);
  r->compute_s = e.compute_s;
  r->memory_s = e.memory_s;
  r->estimate_s = e.time_s;
  r->bound = (int)e.bound;
  r->bound_space = e.bound_space;
  res->est_flops += f.flops;
  res->est_transcendentals += f.transcendentals;
  res->est_time_s += e.time_s;
}

/* Most wasted bytes first. */
static int cmp_waste(const void *a, const void *b) {
  const RunShapeStat *x = a, *y = b;
  int64_t wx = (x->physical_bytes - x->logical_bytes) * x->allocs;
  int64_t wy = (y->physical_bytes - y->logical_bytes) * y->allocs;
  return wx < wy ? 1 : wx > wy ? -1 : 0;
}

bool run_collect_stats(EvalCtx *ctx, RunResult *res) {
  int n = 0;
  for (int c = 0; c < ctx->nplans; c++)
    for (int i = 0; i < ctx->plans[c].comp->ninstrs; i++)
      if (ctx->plans[c].stats[i].count) n++;
  res->instr_stats = calloc((size_t)(n ? n : 1), sizeof *res->instr_stats);
  if (!res->instr_stats) return false;
  if (ctx->traffic_oom) return false;
  bool *seq = sequential_comps(ctx->module);
  if (!seq) return false;
  for (int c = 0; c < ctx->nplans; c++)
    for (int i = 0; i < ctx->plans[c].comp->ninstrs; i++)
      if (ctx->plans[c].stats[i].count) {
        RunInstrStat *r = &res->instr_stats[res->ninstr_stats++];
        r->instr = ctx->plans[c].comp->instrs[i];
        r->s = ctx->plans[c].stats[i];
        ctx->plans[c].stats[i].space_bytes = NULL; /* the result owns it now */
        r->bound_space = -1;
        /* plans past the module's are flat forms of scalar computations */
        const Computation *comp = ctx->plans[c].comp;
        if (c < ctx->module->ncomps && ctx->module->comps[c] == comp && seq[c])
          cost_instr(res, ctx->vc.mem, r);
      }
  free(seq);
  int pos = 0, ns = 0;
  const ArrayInfo *ai;
  while ((ai = value_ctx_next_info(&ctx->vc, &pos)))
    if (ai->nallocs && ai->phys_bytes > ai->plan.logical_bytes) ns++;
  res->shape_stats = calloc((size_t)(ns ? ns : 1), sizeof *res->shape_stats);
  if (!res->shape_stats) return false;
  pos = 0;
  while ((ai = value_ctx_next_info(&ctx->vc, &pos)))
    if (ai->nallocs && ai->phys_bytes > ai->plan.logical_bytes) {
      RunShapeStat *s = &res->shape_stats[res->nshape_stats++];
      if (!(s->shape = run_result_shape(res, ai->shape))) return false;
      s->allocs = ai->nallocs;
      s->logical_bytes = ai->plan.logical_bytes;
      s->physical_bytes = ai->phys_bytes;
    }
  qsort(res->shape_stats, (size_t)res->nshape_stats, sizeof *res->shape_stats, cmp_waste);
  res->conversions = ctx->vc.conversions;
  res->conversion_bytes = ctx->vc.conversion_bytes;
  res->nbuffers = ctx->vc.nbuffers;
  res->alloc_logical_bytes = ctx->vc.alloc_logical_bytes;
  res->alloc_physical_bytes = ctx->vc.alloc_physical_bytes;
  res->instructions_executed = ctx->instructions_executed;
  res->while_iterations = ctx->while_iterations;
  return true;
}

/* --- the report --- */

static void fmt_bytes(int64_t b, char *buf, int size) { mem_format_bytes(b, buf, size); }

static void fmt_time(int64_t ns, char *buf, size_t size) {
  if (ns >= 1000000000) snprintf(buf, size, "%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000) snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
  else snprintf(buf, size, "%.3f us", (double)ns / 1e3);
}

enum { TOP_N = 10 };

static int cmp_time(const void *a, const void *b) {
  const RunInstrStat *x = a, *y = b;
  return x->s.ns < y->s.ns ? 1 : x->s.ns > y->s.ns ? -1 : 0;
}

static int cmp_bytes(const void *a, const void *b) {
  const RunInstrStat *x = a, *y = b;
  int64_t bx = x->s.bytes_read + x->s.bytes_written, by = y->s.bytes_read + y->s.bytes_written;
  return bx < by ? 1 : bx > by ? -1 : 0;
}

/* Largest estimate first; equal ones (zeros, a loop's copies) in the
 * order collected, so the report does not depend on qsort's whims. */
static int cmp_estimate(const void *a, const void *b) {
  const RunInstrStat *const *x = a, *const *y = b;
  if ((*x)->estimate_s != (*y)->estimate_s) return (*x)->estimate_s < (*y)->estimate_s ? 1 : -1;
  return *x < *y ? -1 : *x > *y;
}

typedef struct StatsView {
  RunInstrStat *by_time, *by_bytes;
  int n;
  const RunInstrStat **costed, **by_estimate; /* costed: in collection order */
  int ncosted;
} StatsView;

static void stats_view_free(StatsView *v) {
  free(v->by_time);
  free(v->by_bytes);
  free(v->costed);
  free(v->by_estimate);
}

static bool stats_view(const RunResult *res, StatsView *v) {
  memset(v, 0, sizeof *v);
  v->n = res->ninstr_stats;
  size_t sz = sizeof(RunInstrStat) * (size_t)(v->n ? v->n : 1);
  size_t psz = sizeof(RunInstrStat *) * (size_t)(v->n ? v->n : 1);
  v->by_time = malloc(sz);
  v->by_bytes = malloc(sz);
  v->costed = malloc(psz);
  v->by_estimate = malloc(psz);
  if (!v->by_time || !v->by_bytes || !v->costed || !v->by_estimate) {
    stats_view_free(v);
    return false;
  }
  if (v->n) {
    memcpy(v->by_time, res->instr_stats, sz);
    memcpy(v->by_bytes, res->instr_stats, sz);
  }
  qsort(v->by_time, (size_t)v->n, sizeof(RunInstrStat), cmp_time);
  qsort(v->by_bytes, (size_t)v->n, sizeof(RunInstrStat), cmp_bytes);
  for (int i = 0; i < v->n; i++)
    if (res->instr_stats[i].costed) v->costed[v->ncosted++] = &res->instr_stats[i];
  if (v->ncosted) memcpy(v->by_estimate, v->costed, sizeof *v->costed * (size_t)v->ncosted);
  qsort(v->by_estimate, (size_t)v->ncosted, sizeof *v->by_estimate, cmp_estimate);
  return true;
}

/* An instruction's traffic in all spaces. */
static int64_t instr_bytes(const RunInstrStat *r) { return r->s.bytes_read + r->s.bytes_written; }

static void fmt_seconds(double s, char *buf, size_t size) {
  if (s >= 1) snprintf(buf, size, "%.3f s", s);
  else if (s >= 1e-3) snprintf(buf, size, "%.3f ms", s * 1e3);
  else if (s >= 1e-6) snprintf(buf, size, "%.3f us", s * 1e6);
  else snprintf(buf, size, "%.3f ns", s * 1e9);
}

static void bound_text(const RunInstrStat *r, char *buf, size_t size) {
  if (r->bound == COST_BOUND_MEMORY)
    snprintf(buf, size, "memory S(%" PRId64 ")", r->bound_space);
  else snprintf(buf, size, "%s", cost_bound_name((CostBound)r->bound));
}

/* The cost model's part of the text report. */
static void cost_text(const RunResult *res, const StatsView *v, StrBuf *o) {
  char a[48], b[48];
  sb_printf(o, "cost model: peak");
  for (int t = 0; t < PEAK_NTYPES; t++)
    if (res->peak_flops[t] > 0)
      sb_printf(o, " %s %.4g TFLOP/s", config_peak_names[t], res->peak_flops[t] / 1e12);
  fmt_seconds(res->est_time_s, a, sizeof a);
  sb_printf(o, "\nestimated device time: %s (%.0f flops, %.0f transcendentals)\n", a,
            res->est_flops, res->est_transcendentals);
  sb_printf(o, "top instructions by estimate:\n");
  for (int i = 0; i < v->ncosted && i < TOP_N; i++) {
    const RunInstrStat *r = v->by_estimate[i];
    if (r->estimate_s <= 0) break;
    fmt_seconds(r->estimate_s, a, sizeof a);
    fmt_bytes(instr_bytes(r), b, sizeof b);
    char bound[48];
    bound_text(r, bound, sizeof bound);
    sb_printf(o, "  %2d. %-28s %-20s %14.0f flops %10s %12s %s\n", i + 1, r->instr->name,
              opcode_name(r->instr->op), r->flops + r->transcendentals, b, a, bound);
  }
}

static double pct(int64_t a, int64_t b) { return b > 0 ? 100.0 * (double)a / (double)b : 0.0; }

static void stats_text(const RunResult *res, const StatsView *v, StrBuf *o) {
  char a[48], b[48], c[48], d[48];
  fmt_time(res->wall_ns, a, sizeof a);
  sb_printf(o, "== hlorun statistics ==\n");
  sb_printf(o, "device: %s\n", res->device);
  fmt_time(res->eval_ns, b, sizeof b);
  fmt_time(res->eval_cpu_ns, c, sizeof c);
  sb_printf(o, "run time: %s (evaluation %s, CPU %s), %" PRId64 " instructions executed, %" PRId64
               " while iterations\n",
            a, b, c, res->instructions_executed, res->while_iterations);
  if (res->repeat > 1) {
    fmt_time(res->eval_median_ns, c, sizeof c);
    fmt_time(res->eval_first_ns, d, sizeof d);
    sb_printf(o, "repeat: %" PRId64 " evaluations: best %s, median %s, first %s"
                 " (counters are totals over all of them)\n",
              res->repeat, b, c, d);
  }
  sb_printf(o, "memory spaces:\n");
  for (int i = 0; i < res->mem.nspaces; i++) {
    const MemSpace *s = &res->mem.spaces[i];
    fmt_bytes(s->capacity, a, sizeof a);
    fmt_bytes(s->peak, b, sizeof b);
    fmt_bytes(s->bytes_read, c, sizeof c);
    fmt_bytes(s->bytes_written, d, sizeof d);
    char label[MEM_NAME_MAX + 32];
    mem_space_label(s, label, sizeof label);
    sb_printf(o, "  %-11s capacity %-10s peak %-10s", label, a, b);
    if (s->capacity != MEM_UNLIMITED) sb_printf(o, " (%5.1f%%)", pct(s->peak, s->capacity));
    sb_printf(o, "  read %-10s written %-10s", c, d);
    if (s->bandwidth > 0) {
      char t[48];
      fmt_time((int64_t)((double)(s->bytes_read + s->bytes_written) / s->bandwidth * 1e9), t,
               sizeof t);
      sb_printf(o, " transfer time at %.0f GB/s: %s", s->bandwidth / 1e9, t);
    }
    sb_printf(o, "%s\n", s->implicit ? " (not configured)" : "");
  }
  fmt_bytes(res->alloc_logical_bytes, a, sizeof a);
  fmt_bytes(res->alloc_physical_bytes, b, sizeof b);
  sb_printf(o, "layout padding: %" PRId64 " buffers, %s logical, %s physical, overhead %.1f%%\n",
            res->nbuffers, a, b, pct(res->alloc_physical_bytes - res->alloc_logical_bytes,
                                     res->alloc_logical_bytes));
  for (int i = 0; i < res->nshape_stats && i < 5; i++) {
    const RunShapeStat *s = &res->shape_stats[i];
    char *t = shape_to_string(s->shape);
    fmt_bytes(s->logical_bytes, a, sizeof a);
    fmt_bytes(s->physical_bytes, b, sizeof b);
    sb_printf(o, "  %s: %s logical, %s physical (%.1fx), %" PRId64 " buffer%s\n", t ? t : "?", a,
              b, s->logical_bytes ? (double)s->physical_bytes / (double)s->logical_bytes : 0.0,
              s->allocs, s->allocs == 1 ? "" : "s");
    free(t);
  }
  fmt_bytes(res->conversion_bytes, a, sizeof a);
  sb_printf(o, "layout conversions: %" PRId64 " (%s)\n", res->conversions, a);
  if (res->nsubstituted) sb_printf(o, "custom calls with made-up results (--unknown-custom-calls):\n");
  for (int i = 0; i < res->nsubstituted; i++)
    sb_printf(o, "  %s: %" PRId64 " call%s\n", res->substituted[i].target,
              res->substituted[i].calls, res->substituted[i].calls == 1 ? "" : "s");
  int64_t total = 0;
  for (int i = 0; i < v->n; i++)
    if (v->by_time[i].instr->parent == res->module->entry) total += v->by_time[i].s.ns;
  sb_printf(o, "top instructions by time (inclusive of called computations):\n");
  for (int i = 0; i < v->n && i < TOP_N; i++) {
    const RunInstrStat *r = &v->by_time[i];
    fmt_time(r->s.ns, a, sizeof a);
    sb_printf(o, "  %2d. %-28s %-20s %12s %5.1f%%  x%" PRId64 "\n", i + 1, r->instr->name,
              opcode_name(r->instr->op), a, pct(r->s.ns, total), r->s.count);
  }
  sb_printf(o, "top instructions by bytes moved:\n");
  for (int i = 0; i < v->n && i < TOP_N; i++) {
    const RunInstrStat *r = &v->by_bytes[i];
    if (r->s.bytes_read + r->s.bytes_written == 0) break;
    fmt_bytes(r->s.bytes_read, a, sizeof a);
    fmt_bytes(r->s.bytes_written, b, sizeof b);
    sb_printf(o, "  %2d. %-28s %-20s read %-10s written %-10s x%" PRId64 "\n", i + 1,
              r->instr->name, opcode_name(r->instr->op), a, b, r->s.count);
  }
  cost_text(res, v, o);
}

/* One costed instruction, every number of the model, on one line. */
static Doc *cost_doc(Arena *a, const RunResult *res, const RunInstrStat *r) {
  Doc *m = doc_newline(doc_flow(doc_map(a)));
  doc_put(a, m, "name", doc_str(a, r->instr->name));
  doc_put(a, m, "opcode", doc_str(a, opcode_name(r->instr->op)));
  doc_put(a, m, "count", doc_int(a, r->s.count));
  doc_put(a, m, "flops", doc_num(a, r->flops, 0));
  doc_put(a, m, "transcendentals", doc_num(a, r->transcendentals, 0));
  doc_put(a, m, "peak_type", doc_str(a, config_peak_names[r->peak_class]));
  Doc *sp = doc_put(a, m, "bytes", doc_flow(doc_seq(a)));
  for (int k = 0; r->s.space_bytes && k < res->mem.nspaces; k++) {
    int64_t rd = r->s.space_bytes[2 * k], wr = r->s.space_bytes[2 * k + 1];
    if (!rd && !wr) continue;
    Doc *e = doc_push(sp, doc_flow(doc_map(a)));
    doc_put(a, e, "space", doc_int(a, res->mem.spaces[k].id));
    doc_put(a, e, "read", doc_int(a, rd));
    doc_put(a, e, "written", doc_int(a, wr));
  }
  doc_put(a, m, "compute_ns", doc_num(a, r->compute_s * 1e9, 3));
  doc_put(a, m, "memory_ns", doc_num(a, r->memory_s * 1e9, 3));
  doc_put(a, m, "estimate_ns", doc_num(a, r->estimate_s * 1e9, 3));
  doc_put(a, m, "bound", doc_str(a, cost_bound_name((CostBound)r->bound)));
  if (r->bound == COST_BOUND_MEMORY) doc_put(a, m, "bound_space", doc_int(a, r->bound_space));
  return m;
}

/* The cost model's part of the YAML/JSON report: the peaks, the totals,
 * the top instructions by estimate and every costed instruction. */
static Doc *cost_model_doc(Arena *a, const RunResult *res, const StatsView *v) {
  Doc *cm = doc_map(a);
  Doc *pk = doc_put(a, cm, "peak_flops_per_s", doc_flow(doc_map(a)));
  for (int t = 0; t < PEAK_NTYPES; t++)
    if (res->peak_flops[t] > 0) doc_put(a, pk, config_peak_names[t], doc_num(a, res->peak_flops[t], 0));
  doc_newline(doc_put(a, cm, "estimated_time_ns", doc_num(a, res->est_time_s * 1e9, 3)));
  doc_put(a, cm, "flops", doc_num(a, res->est_flops, 0));
  doc_put(a, cm, "transcendentals", doc_num(a, res->est_transcendentals, 0));
  Doc *top = doc_newline(doc_put(a, cm, "top_by_estimate", doc_seq(a)));
  for (int i = 0; i < v->ncosted && i < TOP_N && v->by_estimate[i]->estimate_s > 0; i++)
    doc_push(top, cost_doc(a, res, v->by_estimate[i]));
  Doc *all = doc_newline(doc_put(a, cm, "instructions", doc_seq(a)));
  for (int i = 0; i < v->ncosted; i++) doc_push(all, cost_doc(a, res, v->costed[i]));
  return cm;
}

/* The report as a document, for YAML and JSON alike.  In JSON, each
 * memory space and instruction and the keys from memory_spaces on start a
 * line; an unlimited space's capacity_bytes is null in JSON, and YAML
 * reports have always left that key out. */
static Doc *stats_doc(Arena *a, const RunResult *res, const StatsView *v, RunFormat fmt) {
  Doc *d = doc_map(a);
  doc_put(a, d, "device", doc_str(a, res->device));
  if (res->nreplicas * res->npartitions > 1) { /* one report per device */
    doc_put(a, d, "replica", doc_int(a, res->replica_id));
    doc_put(a, d, "partition", doc_int(a, res->partition_id));
  }
  const struct { const char *key; int64_t v; } counters[] = {
      {"run_time_ns", res->wall_ns},          {"eval_ns", res->eval_ns},
      {"repeat", res->repeat},                {"eval_median_ns", res->eval_median_ns},
      {"eval_first_ns", res->eval_first_ns},  {"eval_cpu_ns", res->eval_cpu_ns},
      {"instructions_executed", res->instructions_executed},
      {"while_iterations", res->while_iterations}};
  for (size_t i = 0; i < sizeof counters / sizeof *counters; i++)
    doc_put(a, d, counters[i].key, doc_int(a, counters[i].v));
  Doc *spaces = doc_newline(doc_put(a, d, "memory_spaces", doc_seq(a)));
  for (int i = 0; i < res->mem.nspaces; i++) {
    const MemSpace *s = &res->mem.spaces[i];
    Doc *m = doc_newline(doc_push(spaces, doc_map(a)));
    doc_put(a, m, "id", doc_int(a, s->id));
    doc_put(a, m, "name", doc_str(a, s->name));
    if (s->capacity != MEM_UNLIMITED) doc_put(a, m, "capacity_bytes", doc_int(a, s->capacity));
    else if (fmt == RUN_FMT_JSON) doc_put(a, m, "capacity_bytes", doc_null(a));
    doc_put(a, m, "peak_bytes", doc_int(a, s->peak));
    doc_put(a, m, "bytes_read", doc_int(a, s->bytes_read));
    doc_put(a, m, "bytes_written", doc_int(a, s->bytes_written));
    doc_put(a, m, "bandwidth_bytes_per_s", doc_num(a, s->bandwidth, 0));
    doc_put(a, m, "configured", doc_bool(a, !s->implicit));
  }
  Doc *pad = doc_newline(doc_put(a, d, "padding", doc_map(a)));
  doc_put(a, pad, "buffers", doc_int(a, res->nbuffers));
  doc_put(a, pad, "logical_bytes", doc_int(a, res->alloc_logical_bytes));
  doc_put(a, pad, "physical_bytes", doc_int(a, res->alloc_physical_bytes));
  doc_put(a, pad, "overhead_percent",
          doc_num(a, pct(res->alloc_physical_bytes - res->alloc_logical_bytes,
                         res->alloc_logical_bytes), 2));
  doc_newline(doc_put(a, d, "layout_conversions", doc_int(a, res->conversions)));
  if (res->nsubstituted) {
    Doc *subs = doc_newline(doc_put(a, d, "substituted_custom_calls", doc_seq(a)));
    for (int i = 0; i < res->nsubstituted; i++) {
      Doc *m = doc_push(subs, doc_map(a));
      doc_put(a, m, "target", doc_str(a, res->substituted[i].target));
      doc_put(a, m, "calls", doc_int(a, res->substituted[i].calls));
    }
  }
  for (int pass = 0; pass < 2; pass++) {
    Doc *top = doc_newline(doc_put(a, d, pass ? "top_by_bytes" : "top_by_time", doc_seq(a)));
    const RunInstrStat *arr = pass ? v->by_bytes : v->by_time;
    for (int i = 0; i < v->n && i < TOP_N; i++) {
      const RunInstrStat *r = &arr[i];
      Doc *m = doc_newline(doc_push(top, doc_map(a)));
      doc_put(a, m, "name", doc_str(a, r->instr->name));
      doc_put(a, m, "opcode", doc_str(a, opcode_name(r->instr->op)));
      doc_put(a, m, "count", doc_int(a, r->s.count));
      doc_put(a, m, "time_ns", doc_int(a, r->s.ns));
      doc_put(a, m, "bytes_read", doc_int(a, r->s.bytes_read));
      doc_put(a, m, "bytes_written", doc_int(a, r->s.bytes_written));
    }
  }
  doc_newline(doc_put(a, d, "cost_model", cost_model_doc(a, res, v)));
  return d;
}

bool run_format_stats(const RunResult *res, RunFormat fmt, StrBuf *out) {
  StatsView v;
  if (!stats_view(res, &v)) return false;
  Arena *a = fmt == RUN_FMT_TEXT ? NULL : arena_new();
  Doc *d = a ? stats_doc(a, res, &v, fmt) : NULL;
  bool ok = true;
  if (fmt == RUN_FMT_TEXT) stats_text(res, &v, out);
  else if (fmt == RUN_FMT_YAML) ok = doc_yaml(d, DOC_YAML_PLAIN, out);
  else ok = doc_json(d, DOC_JSON_COMPACT, out);
  arena_free(a);
  stats_view_free(&v);
  return ok && !out->oom;
}
