/* Debugging aids of a run: --find-nonfinite, --dump-values and the
 * progress line (interp/run_debug.h), on the evaluator's hooks. */
#include "interp/run_debug.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "interp/io/npy.h"
#include "interp/value_scan.h"

struct RunDebugDevice {
  RunDebug *d;
  EvalCtx *ctx;
  EvalCall calls[EVAL_MAX_DEPTH];
  bool multi;
  int64_t replica, partition, npartitions;
  char prefix[48];        /* dump file names: "r1_" / "r1p0_" with several devices */
  unsigned char **match;  /* per plan, per instruction: 0 unknown, 1 dump, 2 not */
  int nplans;
  /* progress */
  bool progress;
  int64_t t0, last_check, last_draw, stride;
  const Instr *entry_at;  /* the entry instruction last seen running */
  int drawn;              /* length of the line on screen (0: none) */
};

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void run_debug_init(RunDebug *d) {
  memset(d, 0, sizeof *d);
  d->dump_limit = 1000;
  d->progress_delay_ns = 1000000000;
  pthread_mutex_init(&d->lock, NULL);
}

static void report_free(NonfiniteReport *r) {
  free(r->operands);
  free(r->context);
  memset(r, 0, sizeof *r);
}

void run_debug_free(RunDebug *d) {
  report_free(&d->nonfinite);
  pthread_mutex_destroy(&d->lock);
}

/* --- where an instruction runs --- */

/* The frame of the instruction a hook is called for. */
static int frame_depth(const EvalCtx *ctx) { return ctx->depth - 1; }

/* "in while %w iteration 3" for the call that runs frame depth d (> 0). */
static void call_context(const EvalCall *c, char *buf, size_t size) {
  const Instr *w = c->caller;
  if (!w) {
    snprintf(buf, size, "in computation %%%s", c->comp->name);
  } else if (w->op == OP_WHILE) {
    const Attr *cond = ir_attr(w, ATTR_CONDITION);
    bool is_cond = cond && cond->kind == AV_COMPUTATION && cond->v.comp == c->comp;
    snprintf(buf, size, "in while %%%s %siteration %" PRId64, w->name,
             is_cond ? "condition, " : "", c->iteration);
  } else {
    snprintf(buf, size, "in %s %%%s", opcode_name(w->op), w->name);
  }
}

/* --- --find-nonfinite --- */

static bool scan_operand(RunDebugDevice *dd, const Value *v, NonfiniteOperand *o, Error *err) {
  if (!v) return true;
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++)
      if (!scan_operand(dd, v->elems[i], o, err)) return false;
    return true;
  }
  if (!v->info || !v->buf || !scan_etype_is_float(v->info->etype)) return true;
  ValueScan s;
  if (!value_scan_float(&dd->ctx->vc, v, &s, err)) return false;
  o->is_float = true;
  o->elements += s.elements;
  o->nan += s.nan;
  o->inf += s.inf;
  if (!isnan(s.min) && (isnan(o->min) || s.min < o->min)) o->min = s.min;
  if (!isnan(s.max) && (isnan(o->max) || s.max > o->max)) o->max = s.max;
  return true;
}

/* The first leaf of v (flattened order) with a non-finite element. */
static bool first_bad_leaf(RunDebugDevice *dd, const Value *v, int *leaf, const Value **out,
                           Error *err) {
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple && !*out; i++)
      if (!first_bad_leaf(dd, v->elems[i], leaf, out, err)) return false;
    return true;
  }
  if (!v->info) return true; /* token */
  bool found;
  if (!value_find_nonfinite(&dd->ctx->vc, v, &found, err)) return false;
  if (found) *out = v;
  else (*leaf)++;
  return true;
}

static bool build_report(RunDebugDevice *dd, const Instr *in, Value *const *vals,
                         const Value *result, NonfiniteReport *r, Error *err) {
  memset(r, 0, sizeof *r);
  r->found = true;
  r->instr = in;
  int leaf = 0;
  const Value *bad = NULL;
  if (!first_bad_leaf(dd, result, &leaf, &bad, err)) return false;
  if (!bad) return error_set(err, ERR_RUNTIME, -1, "internal: no non-finite leaf");
  r->leaf = result->ntuple ? leaf : -1;
  ValueScan s;
  if (!value_scan_float(&dd->ctx->vc, bad, &s, err)) return false;
  r->etype = bad->info->etype;
  r->elements = s.elements;
  r->nan = s.nan;
  r->inf = s.inf;
  r->rank = s.rank;
  for (int64_t x = s.first, i = s.rank - 1; i >= 0; i--) { /* row-major -> index */
    r->index[i] = s.dims[i] ? x % s.dims[i] : 0;
    x = s.dims[i] ? x / s.dims[i] : 0;
  }
  r->operands = calloc((size_t)(in->noperands ? in->noperands : 1), sizeof *r->operands);
  int depth = frame_depth(dd->ctx);
  r->context = calloc((size_t)(depth ? depth : 1), sizeof *r->context);
  if (!r->operands || !r->context) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  r->noperands = in->noperands;
  for (int k = 0; k < in->noperands; k++) {
    NonfiniteOperand *o = &r->operands[k];
    o->instr = in->operands[k];
    o->min = o->max = NAN;
    if (!scan_operand(dd, vals[in->operands[k]->index], o, err)) return false;
  }
  for (int d = depth; d >= 1; d--)
    call_context(&dd->calls[d], r->context[r->ncontext++], sizeof r->context[0]);
  r->multi_device = dd->multi;
  r->replica = dd->replica;
  r->partition = dd->partition;
  r->npartitions = dd->npartitions;
  return true;
}

static bool check_nonfinite(RunDebugDevice *dd, const Instr *in, Value *const *vals,
                            const Value *result, Error *err) {
  /* Parameters hand on what their caller (or the inputs) gave; constants
   * are written so on purpose (-inf starts a max reduction). */
  if (in->op == OP_PARAMETER || in->op == OP_CONSTANT || !result) return true;
  bool found;
  if (!value_find_nonfinite(&dd->ctx->vc, result, &found, err)) return false;
  if (!found) return true;
  for (int k = 0; k < in->noperands; k++) {
    if (!value_find_nonfinite(&dd->ctx->vc, vals[in->operands[k]->index], &found, err))
      return false;
    if (found) return true; /* only propagated */
  }
  NonfiniteReport r;
  if (!build_report(dd, in, vals, result, &r, err)) {
    report_free(&r);
    return false;
  }
  char head[sizeof err->msg];
  nonfinite_headline(&r, head, sizeof head);
  RunDebug *d = dd->d;
  pthread_mutex_lock(&d->lock);
  if (!d->nonfinite.found) d->nonfinite = r; /* the first device to find one */
  else report_free(&r);
  pthread_mutex_unlock(&d->lock);
  return error_set(err, ERR_RUNTIME, in->offset, "%s", head);
}

void nonfinite_headline(const NonfiniteReport *r, char *buf, size_t size) {
  char idx[512];
  int n = snprintf(idx, sizeof idx, "[");
  for (int i = 0; i < r->rank && n < (int)sizeof idx - 24; i++)
    n += snprintf(idx + n, sizeof idx - (size_t)n, "%s%" PRId64, i ? "," : "", r->index[i]);
  snprintf(idx + n, sizeof idx - (size_t)n, "]");
  char leaf[48] = "";
  if (r->leaf >= 0) snprintf(leaf, sizeof leaf, "result leaf %d, ", r->leaf);
  snprintf(buf, size,
           "instruction %%%s produced %s from finite operands (%sfirst at index %s; %" PRId64
           " NaN, %" PRId64 " Inf of %" PRId64 " elements)",
           r->instr->name, r->nan ? "NaN" : "Inf", leaf, idx, r->nan, r->inf, r->elements);
}

void nonfinite_details(const NonfiniteReport *r, StrBuf *out) {
  for (int k = 0; k < r->noperands; k++) {
    const NonfiniteOperand *o = &r->operands[k];
    char *shape = shape_to_string(&o->instr->shape);
    sb_printf(out, "  operand %d: %%%s %s", k, o->instr->name, shape ? shape : "?");
    free(shape);
    if (!o->is_float) sb_puts(out, " (not floating-point)");
    else if (isnan(o->min)) sb_printf(out, " (no numbers) nan=%" PRId64 " inf=%" PRId64, o->nan, o->inf);
    else
      sb_printf(out, " min=%.9g max=%.9g nan=%" PRId64 " inf=%" PRId64, o->min, o->max, o->nan,
                o->inf);
    sb_putc(out, '\n');
  }
  for (int c = 0; c < r->ncontext; c++) sb_printf(out, "  %s\n", r->context[c]);
  if (r->multi_device) {
    if (r->npartitions > 1)
      sb_printf(out, "  on replica %" PRId64 ", partition %" PRId64 "\n", r->replica,
                r->partition);
    else
      sb_printf(out, "  on replica %" PRId64 "\n", r->replica);
  }
}

/* --- --dump-values --- */

static bool wants_dump(RunDebugDevice *dd, const Instr *in) {
  const regex_t *re = dd->d->dump_filter;
  if (!re) return true;
  const Computation *c = dd->calls[frame_depth(dd->ctx)].comp;
  unsigned char *m = NULL;
  if (c && c->index >= 0 && c->index < dd->nplans && in->index >= 0 &&
      in->index < c->ninstrs) {
    if (!dd->match[c->index]) dd->match[c->index] = calloc((size_t)c->ninstrs, 1);
    m = dd->match[c->index];
  }
  if (m && m[in->index]) return m[in->index] == 1;
  bool yes = regexec(re, in->name, 0, NULL, 0) == 0;
  if (m) m[in->index] = yes ? 1 : 2;
  return yes;
}

/* Writes each array leaf of v to base(.N).npy (N: flattened leaf index
 * when tuple is set). */
static bool dump_leaves(RunDebugDevice *dd, const Value *v, const char *base, bool tuple,
                        int *leaf, Error *err) {
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++)
      if (!dump_leaves(dd, v->elems[i], base, true, leaf, err)) return false;
    return true;
  }
  if (!v->info || !v->buf) return true; /* a token */
  char path[4096];
  if (tuple) snprintf(path, sizeof path, "%s.%d.npy", base, (*leaf)++);
  else snprintf(path, sizeof path, "%s.npy", base);
  RunDebug *d = dd->d;
  pthread_mutex_lock(&d->lock);
  bool room = d->dump_files < d->dump_limit;
  if (room) d->dump_files++;
  else d->dump_over_limit++;
  pthread_mutex_unlock(&d->lock);
  if (!room) return true;
  const void *data;
  void *owned;
  int64_t dims[SHAPE_MAX_RANK];
  if (!value_scan_dense(&dd->ctx->vc, v, &data, &owned, dims, err)) return false;
  bool ok = npy_write_file(path, v->info->etype, v->info->rank, dims, data, false, err);
  free(owned);
  int64_t bytes = v->info->esize;
  for (int i = 0; i < v->info->rank; i++) bytes *= dims[i];
  pthread_mutex_lock(&d->lock);
  d->dump_bytes += bytes;
  pthread_mutex_unlock(&d->lock);
  return ok;
}

static bool dump_value(RunDebugDevice *dd, const Instr *in, const Value *v, Error *err) {
  if (!v || !wants_dump(dd, in)) return true;
  int depth = frame_depth(dd->ctx);
  char base[3072];
  int n = snprintf(base, sizeof base, "%s/%s%s.%s", dd->d->dump_dir, dd->prefix,
                   dd->calls[depth].comp->name, in->name);
  /* One file per iteration of every while loop around it, outermost first. */
  for (int d = 1; d <= depth && n < (int)sizeof base - 32; d++)
    if (dd->calls[d].caller && dd->calls[d].caller->op == OP_WHILE)
      n += snprintf(base + n, sizeof base - (size_t)n, ".iter%" PRId64, dd->calls[d].iteration);
  int leaf = 0;
  return dump_leaves(dd, v, base, v->ntuple > 0, &leaf, err);
}

static bool watch(void *ud, EvalCtx *ctx, const Instr *in, Value *const *vals,
                  const Value *result, Error *err) {
  RunDebugDevice *dd = ud;
  (void)ctx;
  /* The culprit's own value is written before the run stops at it. */
  if (dd->d->dump_dir && !dump_value(dd, in, result, err)) return false;
  if (dd->d->find_nonfinite && !check_nonfinite(dd, in, vals, result, err)) return false;
  return true;
}

/* --- the progress line --- */

enum { PROGRESS_EVERY_NS = 100000000 }; /* at most 10 updates a second */

static void draw(RunDebugDevice *dd, const char *line) {
  int len = (int)strlen(line);
  FILE *f = dd->d->progress;
  /* Spaces over what a longer previous line left. */
  fprintf(f, "\r%s%*s", line, dd->drawn > len ? dd->drawn - len : 0, "");
  fflush(f);
  dd->drawn = len > 0 ? len : 1;
}

static int64_t progress(void *ud, EvalCtx *ctx, const Instr *next) {
  RunDebugDevice *dd = ud;
  int64_t now = now_ns();
  /* Read the clock about every few ms: more instructions between calls
   * while they are quick, fewer when they are slow. */
  int64_t since = now - dd->last_check;
  dd->last_check = now;
  if (since < 2000000 && dd->stride < ((int64_t)1 << 16)) dd->stride *= 2;
  else if (since > 20000000 && dd->stride > 1) dd->stride /= 2;
  int depth = frame_depth(ctx);
  if (depth == 0) dd->entry_at = next;
  else if (dd->calls[1].caller) dd->entry_at = dd->calls[1].caller;
  if (now - dd->t0 < dd->d->progress_delay_ns) return dd->stride;
  if (dd->drawn && now - dd->last_draw < PROGRESS_EVERY_NS) return dd->stride;
  dd->last_draw = now;
  const Computation *entry = dd->calls[0].comp;
  const Instr *at = dd->entry_at ? dd->entry_at : next;
  char line[512];
  snprintf(line, sizeof line,
           "%s: %d/%d entry instructions done, at %%%s, %" PRId64 " while iterations, %.1f s",
           dd->d->progress_label ? dd->d->progress_label : "run", at->index,
           entry ? entry->ninstrs : 0, at->name, ctx->while_iterations,
           (double)(now - dd->t0) / 1e9);
  draw(dd, line);
  return dd->stride;
}

/* --- attaching --- */

bool run_debug_attach(RunDebug *d, EvalCtx *ctx, bool show_progress, int64_t replica,
                      int64_t partition, int64_t nreplicas, int64_t npartitions,
                      RunDebugDevice **out, Error *err) {
  *out = NULL;
  bool progress_on = show_progress && d->progress;
  if (!d->find_nonfinite && !d->dump_dir && !progress_on) return true;
  RunDebugDevice *dd = calloc(1, sizeof *dd);
  if (!dd) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  dd->d = d;
  dd->ctx = ctx;
  dd->multi = nreplicas * npartitions > 1;
  dd->replica = replica;
  dd->partition = partition;
  dd->npartitions = npartitions;
  if (dd->multi && npartitions > 1)
    snprintf(dd->prefix, sizeof dd->prefix, "r%" PRId64 "p%" PRId64 "_", replica, partition);
  else if (dd->multi)
    snprintf(dd->prefix, sizeof dd->prefix, "r%" PRId64 "_", replica);
  dd->nplans = ctx->nplans;
  dd->match = calloc((size_t)(dd->nplans ? dd->nplans : 1), sizeof *dd->match);
  if (!dd->match) {
    free(dd);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  ctx->calls = dd->calls;
  if (d->find_nonfinite || d->dump_dir) {
    ctx->watch = watch;
    ctx->watch_ud = dd;
    /* Fused elementwise groups keep most members in block scratch: run
     * them one by one so that each has a value to look at. */
    ctx->fuse = false;
  }
  if (progress_on) {
    dd->progress = true;
    dd->t0 = dd->last_check = now_ns();
    dd->stride = 1;
    ctx->progress = progress;
    ctx->progress_ud = dd;
  }
  *out = dd;
  return true;
}

void run_debug_detach(RunDebugDevice *dd) {
  if (!dd) return;
  if (dd->drawn) { /* clear the line */
    fprintf(dd->d->progress, "\r%*s\r", dd->drawn, "");
    fflush(dd->d->progress);
  }
  EvalCtx *ctx = dd->ctx;
  ctx->watch = NULL;
  ctx->progress = NULL;
  ctx->calls = NULL;
  for (int i = 0; i < dd->nplans; i++) free(dd->match[i]);
  free(dd->match);
  free(dd);
}
