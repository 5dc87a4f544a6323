#include "interp/run.h"
#include "interp/io/bind_names.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/doc.h"
#include "interp/collective/groups.h"
#include "interp/run_debug.h"
#include "interp/run_internal.h"
#include "layout/etype_convert.h"

static int64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

int run_count_leaves(const Shape *s) {
  if (shape_is_tuple(s)) {
    int n = 0;
    for (int i = 0; i < s->ntuple; i++) n += run_count_leaves(&s->tuple[i]);
    return n;
  }
  return value_shape_has_data(s) ? 1 : 0;
}

static void dims_text(char *buf, size_t size, EType t, int rank, const int64_t *dims,
                      const bool *dynamic) {
  int n = snprintf(buf, size, "%s[", etype_name(t));
  for (int i = 0; i < rank && n < (int)size; i++)
    n += snprintf(buf + n, size - (size_t)n, "%s%s%" PRId64, i ? "," : "",
                  dynamic && dynamic[i] ? "<=" : "", dims[i]);
  if (n < (int)size) snprintf(buf + n, size - (size_t)n, "]");
}

/* --- binding inputs --- */

/* An input smaller than its dynamic bounds: bound as the array's elements
 * at their places in the bounded shape, zeros elsewhere, with its dims as
 * the value's sizes. */
static bool input_dynamic(EvalCtx *ctx, const Shape *s, const ArrayInfo *ai,
                          const RunInput *in, const char *pdesc, const char *have, Value **out,
                          Error *err) {
  const NpyArray *a = in->array;
  char *compact = malloc((size_t)(a->count ? a->count : 1) * (size_t)ai->esize);
  char *dense = calloc((size_t)(ai->dense_bytes ? ai->dense_bytes : 1), 1);
  bool ok = compact && dense;
  if (!ok) error_set(err, ERR_RUNTIME, -1, "out of memory");
  Error e;
  if (ok && !npy_bind(a, s->etype, compact, &e))
    ok = error_set(err, ERR_RUNTIME, -1, "%s: %s holds %s: %s", pdesc, in->source, have, e.msg);
  int64_t idx[SHAPE_MAX_RANK] = {0};
  for (int64_t i = 0; ok && i < a->count; i++) {
    int64_t at = 0;
    for (int d = 0; d < ai->rank; d++) at = at * ai->dims[d] + idx[d];
    memcpy(dense + at * ai->esize, compact + i * ai->esize, (size_t)ai->esize);
    for (int d = ai->rank - 1; d >= 0 && ++idx[d] == a->dims[d]; d--) idx[d] = 0;
  }
  ok = ok && value_from_dense(&ctx->vc, s, dense, pdesc, out, err);
  if (ok && !value_set_dyn(*out, a->dims)) {
    value_unref(&ctx->vc, *out);
    ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  free(compact);
  free(dense);
  return ok;
}

static bool input_value(EvalCtx *ctx, const Shape *s, const RunInput *in, const char *pdesc,
                        Value **out, Error *err) {
  const NpyArray *a = in->array;
  char want[160], have[160];
  dims_text(want, sizeof want, s->etype, s->rank, s->dims, s->dynamic);
  npy_describe(a, have, sizeof have);
  /* A dynamic dimension ("<=N") takes any size up to its bound: the value
   * then carries that size, its padding zeroed. */
  bool dims_ok = a->rank == s->rank, partial = false;
  for (int i = 0; dims_ok && i < s->rank; i++) {
    if (s->dynamic && s->dynamic[i] && a->dims[i] < s->dims[i]) partial = true;
    else dims_ok = a->dims[i] == s->dims[i];
  }
  if (!dims_ok)
    return error_set(err, ERR_RUNTIME, -1, "%s: expects %s, %s holds %s", pdesc, want,
                     in->source, have);
  const ArrayInfo *ai = value_array_info(&ctx->vc, s, err);
  if (!ai) return false;
  if (partial) return input_dynamic(ctx, s, ai, in, pdesc, have, out, err);
  /* Straight into the value's buffer when its layout is the dense one;
   * through a temporary converted into the layout otherwise. */
  if (!value_new_array(&ctx->vc, s, false, pdesc, out, err)) return false;
  void *dense;
  DenseTmp tmp;
  if (!value_dense_target(&ctx->vc, *out, &dense, &tmp, err)) {
    value_unref(&ctx->vc, *out);
    *out = NULL;
    return false;
  }
  Error e;
  bool ok = npy_bind(a, s->etype, dense, &e);
  if (!ok) {
    error_set(err, ERR_RUNTIME, -1, "%s: %s holds %s: %s", pdesc, in->source, have, e.msg);
    value_tmp_free(&tmp);
  } else {
    ok = value_dense_commit(&ctx->vc, *out, &tmp, err);
  }
  if (!ok) {
    value_unref(&ctx->vc, *out);
    *out = NULL;
  }
  return ok;
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Deterministic data: floats uniform in [-1, 1), integers small (so that
 * arithmetic stays meaningful), pred 0/1.  size_bound >= 0: integers in
 * [0, size_bound] (the value is a dynamic dimension size, see size_bound_of). */
static bool random_value(EvalCtx *ctx, const Shape *s, uint64_t *state, int64_t size_bound,
                         const char *pdesc, Value **out, Error *err) {
  const ArrayInfo *ai = value_array_info(&ctx->vc, s, err);
  if (!ai) return false;
  int64_t n = ai->elements;
  MemSystem *mem = ctx->vc.mem;
  /* The temporary must not be bigger than the space the value goes to. */
  if (!mem_fits(mem, ai->space, ai->dense_bytes, pdesc, err)) return false;
  unsigned char *dense = mem_raw_alloc(mem, ai->dense_bytes, false);
  if (!dense) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  enum { CHUNK = 4096 };
  double d[2 * CHUNK];
  int64_t q[CHUNK];
  ETypeKind k = etype_kind(s->etype);
  int bits = etype_bits(s->etype);
  for (int64_t at = 0; at < n; at += CHUNK) {
    int64_t m = n - at < CHUNK ? n - at : CHUNK;
    unsigned char *dst = dense + at * ai->esize;
    if (k == EK_FLOAT) {
      for (int64_t i = 0; i < m; i++) d[i] = (double)(splitmix64(state) >> 11) * 0x1p-52 - 1.0;
      etype_convert_array(s->etype, dst, ET_F64, d, m);
    } else if (k == EK_COMPLEX) {
      for (int64_t i = 0; i < 2 * m; i++) d[i] = (double)(splitmix64(state) >> 11) * 0x1p-52 - 1.0;
      for (int64_t i = 0; i < m; i++)
        etype_store_complex(s->etype, d[2 * i], d[2 * i + 1], dst + i * ai->esize);
    } else {
      for (int64_t i = 0; i < m; i++) {
        uint64_t r = splitmix64(state);
        if (k == EK_PRED) q[i] = (int64_t)(r & 1);
        else if (size_bound >= 0) q[i] = (int64_t)(r % (uint64_t)(size_bound + 1));
        else if (k == EK_SINT)
          q[i] = bits <= 2 ? (int64_t)(r % 4) - 2 : bits <= 4 ? (int64_t)(r % 16) - 8 : (int64_t)(r % 201) - 100;
        else q[i] = bits <= 2 ? (int64_t)(r % 4) : bits <= 4 ? (int64_t)(r % 16) : (int64_t)(r % 201);
      }
      etype_convert_array(s->etype, dst, ET_S64, q, m);
    }
  }
  bool ok = value_from_dense(&ctx->vc, s, dense, pdesc, out, err);
  mem_raw_free(mem, dense, ai->dense_bytes);
  return ok;
}

typedef struct Binder {
  EvalCtx *ctx;
  const RunInput *inputs;
  int ninputs;
  bool *used;
  int cursor;
  const RunOptions *opt;
  uint64_t rng;
  int64_t size_bound; /* >= 0: random integers in [0, size_bound] */
  const char *names_tried; /* the names the parameter answers to */
} Binder;

static int next_positional(Binder *b) {
  while (b->cursor < b->ninputs && b->used[b->cursor]) b->cursor++;
  return b->cursor < b->ninputs ? b->cursor : -1;
}

/* One array leaf of a parameter: the next positional input, else random
 * data (--random-inputs). */
static bool bind_leaf(void *ud, const Shape *s, const char *pdesc, Value **out, Error *err) {
  Binder *b = ud;
  int k = next_positional(b);
  if (k >= 0) {
    b->used[k] = true;
    return input_value(b->ctx, s, &b->inputs[k], pdesc, out, err);
  }
  if (b->opt->random_inputs)
    return random_value(b->ctx, s, &b->rng, b->size_bound, pdesc, out, err);
  return error_set(err, ERR_RUNTIME, -1,
                   "%s is not bound: too few inputs (%d given%s%s; use --inputs or "
                   "--random-inputs)",
                   pdesc, b->ninputs, b->names_tried ? "; no .npz entry named " : "",
                   b->names_tried ? b->names_tried : "");
}

static const char *param_name(const Computation *c, int p) {
  if (computation_signature_lists_params(c) && c->sig_param_names && c->sig_param_names[p])
    return c->sig_param_names[p];
  return c->params[p] ? c->params[p]->name : "?";
}

/* As XLA's MakeFakeArguments constrains the values of parameters by their
 * uses, a parameter that is the size operand of a set-dimension-size gets
 * random sizes within the bound of that dimension (any other value is an
 * error, as in XLA's runtime): the smallest such bound, or -1 if none. */
static int64_t size_bound_of(const Computation *e, const Instr *param) {
  int64_t bound = -1;
  for (int i = 0; i < e->ninstrs; i++) {
    const Instr *in = e->instrs[i];
    const Attr *d = ir_attr(in, ATTR_DIMENSIONS);
    if (in->op != OP_SET_DIMENSION_SIZE || in->noperands != 2 || in->operands[1] != param ||
        !d || d->kind != AV_INT_LIST || d->v.ints.n != 1)
      continue;
    const Shape *s = &in->operands[0]->shape;
    int64_t k = d->v.ints.v[0];
    if (!shape_is_array(s) || k < 0 || k >= s->rank) continue;
    if (bound < 0 || s->dims[k] < bound) bound = s->dims[k];
  }
  return bound;
}

static bool bind_inputs(EvalCtx *ctx, const Module *m, const RunOptions *opt,
                        const RunInput *inputs, int ninputs, Value **args, Error *err) {
  const Computation *e = m->entry;
  Binder b = {ctx, inputs, ninputs, NULL, 0, opt, opt->seed, -1, NULL};
  b.used = calloc((size_t)(ninputs ? ninputs : 1), sizeof(bool));
  if (!b.used) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  bool ok = true;
  bool *named = calloc((size_t)(e->nparams ? e->nparams : 1), sizeof(bool));
  if (!named) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  /* npz entries bind by name first (interp/io/bind_names.h), the rest by
   * position. */
  int *owner = calloc((size_t)(ninputs ? ninputs : 1), sizeof *owner);
  const char **names = calloc((size_t)(ninputs ? ninputs : 1), sizeof *names);
  const char **sources = calloc((size_t)(ninputs ? ninputs : 1), sizeof *sources);
  if (ok && (!owner || !names || !sources)) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  for (int i = 0; i < ninputs && ok; i++) names[i] = inputs[i].name, sources[i] = inputs[i].source;
  if (ok) ok = bind_by_name(e, names, sources, ninputs, owner, err);
  for (int i = 0; i < ninputs && ok; i++) {
    int p = owner[i];
    if (p < 0) continue;
    char pdesc[300];
    snprintf(pdesc, sizeof pdesc, "parameter %d (%s)", p, param_name(e, p));
    b.used[i] = true;
    named[p] = true;
    ok = input_value(ctx, &e->params[p]->shape, &inputs[i], pdesc, &args[p], err);
  }
  free(owner);
  free(names);
  free(sources);
  for (int p = 0; p < e->nparams && ok; p++) {
    if (named[p]) continue;
    const Instr *pi = e->params[p];
    if (!pi) {
      ok = error_set(err, ERR_RUNTIME, -1, "entry computation %s has no parameter %d", e->name, p);
      break;
    }
    char pdesc[300];
    snprintf(pdesc, sizeof pdesc, "parameter %d (%s)", p, param_name(e, p));
    b.rng = opt->seed * 0x100000001B3ull + (uint64_t)p + 1;
    b.size_bound = size_bound_of(e, pi);
    ParamNames pn;
    char tried[1200];
    param_names(e, p, &pn);
    param_names_text(&pn, tried, sizeof tried);
    b.names_tried = shape_is_tuple(&pi->shape) ? NULL : tried; /* tuples bind by position */
    ok = value_build(&ctx->vc, &pi->shape, pdesc, bind_leaf, &b, &args[p], err);
  }
  if (ok) {
    int unused = 0, first = -1;
    for (int i = 0; i < ninputs; i++)
      if (!b.used[i]) {
        if (first < 0) first = i;
        unused++;
      }
    if (unused) {
      int leaves = 0;
      for (int p = 0; p < e->nparams; p++)
        if (e->params[p]) leaves += run_count_leaves(&e->params[p]->shape);
      /* An entry that binds nothing: say what names would have bound. */
      char tried[1600] = "";
      size_t at = 0;
      for (int p = 0; inputs[first].name && p < e->nparams && p < 4 && at < sizeof tried; p++) {
        ParamNames pn;
        char one[1200];
        param_names(e, p, &pn);
        param_names_text(&pn, one, sizeof one);
        int k = snprintf(tried + at, sizeof tried - at, "%s parameter %d: %s", p ? ";" : " (names tried:",
                         p, one);
        at += k > 0 ? (size_t)k : 0;
      }
      if (tried[0] && at < sizeof tried)
        snprintf(tried + at, sizeof tried - at, "%s)", e->nparams > 4 ? "; ..." : "");
      ok = error_set(err, ERR_RUNTIME, -1,
                     "too many inputs: the entry computation %s takes %d parameter%s (%d "
                     "array%s), given %d arrays; %s is not used%s",
                     e->name, e->nparams, e->nparams == 1 ? "" : "s", leaves,
                     leaves == 1 ? "" : "s", ninputs, inputs[first].source, tried);
    }
  }
  free(named);
  free(b.used);
  return ok;
}

/* --- results --- */

/* A copy of s that lives as long as res (see RunResult.shapes); NULL when
 * out of memory. */
static const Shape *result_shape(RunResult *res, const Shape *s) {
  if (!res->shapes && !(res->shapes = arena_new())) return NULL;
  return shape_clone(res->shapes, s);
}

/* Array v's dense bytes (its valid elements when it has sizes below its
 * bounds), its conversion temporary or a copy.  Freed with
 * mem_free_detached (run_result_free). */
static bool leaf_copy(EvalCtx *ctx, RunResult *res, const Value *v, RunLeaf *l, Error *err) {
  if (!(l->shape = result_shape(res, v->info->shape)))
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  int64_t n = 1;
  for (int i = 0; i < v->info->rank; i++) n *= l->dims[i] = value_dim_size(v, i);
  l->nbytes = n * v->info->esize;
  const void *d;
  DenseTmp tmp;
  if (!value_dense_read(&ctx->vc, v, &d, &tmp, err)) return false;
  if (tmp.p && !v->dyn) { /* the converted copy is the leaf */
    l->data = tmp.p;
    return true;
  }
  l->data = malloc((size_t)(l->nbytes ? l->nbytes : 1));
  if (l->data && v->dyn) value_dense_valid(v, d, l->data);
  else if (l->data && l->nbytes) memcpy(l->data, d, (size_t)l->nbytes);
  value_tmp_free(&tmp);
  if (!l->data) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  return true;
}

/* As leaf_copy, but a result value the run no longer needs gives up its
 * buffer instead when it can (value_take_dense): no copy of the result. */
static bool leaf_take(EvalCtx *ctx, RunResult *res, Value *v, RunLeaf *l, Error *err) {
  void *p = value_take_dense(&ctx->vc, v);
  if (!p) return leaf_copy(ctx, res, v, l, err);
  l->data = p;
  if (!(l->shape = result_shape(res, v->info->shape)))
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  l->nbytes = v->info->esize;
  for (int i = 0; i < v->info->rank; i++) l->nbytes *= l->dims[i] = v->info->dims[i];
  return true;
}

static bool collect_leaves(EvalCtx *ctx, Value *v, bool data, RunResult *res, Error *err) {
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++)
      if (!collect_leaves(ctx, v->elems[i], data, res, err)) return false;
    return true;
  }
  if (!v->info) return true; /* token */
  if (!data) {
    if (!(res->leaves[res->nleaves].shape = result_shape(res, v->info->shape)))
      return error_set(err, ERR_RUNTIME, -1, "out of memory");
  } else if (!leaf_take(ctx, res, v, &res->leaves[res->nleaves], err)) {
    return false;
  }
  res->nleaves++;
  return true;
}

/* --- infeed / outfeed --- */

typedef struct Feeds {
  const RunOptions *opt;
  int next;     /* infeed arrays consumed */
  uint64_t rng; /* random infeed data */
  RunResult *res;
  int cap;
} Feeds;

static bool infeed_leaf(void *ud, EvalCtx *ctx, const Shape *s, Value **out, Error *err) {
  Feeds *f = ud;
  char desc[64];
  snprintf(desc, sizeof desc, "infeed array %d", f->next);
  if (f->next < f->opt->ninfeed)
    return input_value(ctx, s, &f->opt->infeed[f->next++], desc, out, err);
  if (f->opt->random_inputs) {
    f->next++;
    return random_value(ctx, s, &f->rng, -1, desc, out, err);
  }
  return error_set(err, ERR_RUNTIME, -1,
                   "%s: no infeed data left (%d given; use --infeed or --random-inputs)", desc,
                   f->opt->ninfeed);
}

static bool outfeed_leaf(void *ud, EvalCtx *ctx, const Value *v, Error *err) {
  Feeds *f = ud;
  RunResult *r = f->res;
  if (r->noutfeed == f->cap) {
    int cap = f->cap ? 2 * f->cap : 8;
    RunLeaf *nl = realloc(r->outfeed, sizeof *nl * (size_t)cap);
    if (!nl) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    r->outfeed = nl;
    f->cap = cap;
  }
  if (!leaf_copy(ctx, r, v, &r->outfeed[r->noutfeed], err)) return false;
  r->noutfeed++;
  return true;
}

/* --- trace --- */

typedef struct Tracer {
  FILE *f;
  RunFormat fmt;
  MemSystem *mem;
  DocYamlSeq *yaml; /* RUN_FMT_YAML: the records' sequence (NULL if it could not start) */
} Tracer;

static void space_of(const Value *v, MemSystem *mem, char *buf, size_t size) {
  if (!v || (!v->info && !v->ntuple)) {
    snprintf(buf, size, "-");
    return;
  }
  if (v->ntuple) {
    snprintf(buf, size, "tuple");
    return;
  }
  MemSpace *s = mem_find(mem, v->info->space);
  if (s) mem_space_label(s, buf, (int)size);
  else snprintf(buf, size, "S(%" PRId64 ")", v->info->space);
}

/* One executed instruction as a trace record (YAML and JSON). */
static Doc *trace_record(Arena *a, const Instr *in, const char *shape, const char *space,
                         int64_t ns, int depth) {
  Doc *r = doc_flow(doc_map(a));
  doc_put(a, r, "name", doc_str(a, in->name));
  doc_put(a, r, "opcode", doc_str(a, opcode_name(in->op)));
  doc_put(a, r, "shape", doc_str(a, shape));
  doc_put(a, r, "space", doc_str(a, space));
  doc_put(a, r, "time_us", doc_num(a, (double)ns / 1000.0, 3));
  doc_put(a, r, "depth", doc_int(a, depth));
  return r;
}

static void trace_fn(void *ud, const Instr *in, const Value *result, int64_t ns, int depth) {
  Tracer *t = ud;
  char *shape = shape_to_string(&in->shape);
  char space[96];
  space_of(result, t->mem, space, sizeof space);
  if (t->fmt == RUN_FMT_TEXT) {
    fprintf(t->f, "%*s%-24s %-22s %-40s %-14s %10.3f us\n", depth * 2, "", in->name,
            opcode_name(in->op), shape ? shape : "?", space, (double)ns / 1000.0);
    free(shape);
    return;
  }
  Arena *a = arena_new();
  Doc *r = a ? trace_record(a, in, shape ? shape : "?", space, ns, depth) : NULL;
  if (r && t->fmt == RUN_FMT_JSON) { /* JSON Lines: one object a line */
    StrBuf sb;
    sb_init(&sb);
    doc_json(r, DOC_JSON_COMPACT, &sb);
    fputs(sb.data ? sb.data : "", t->f);
    sb_free(&sb);
  } else if (r && t->yaml) {
    doc_yaml_seq_item(t->yaml, r);
  }
  arena_free(a);
  free(shape);
}

/* --- statistics --- */

static int cmp_time(const void *a, const void *b) {
  const RunInstrStat *x = a, *y = b;
  return x->s.ns < y->s.ns ? 1 : x->s.ns > y->s.ns ? -1 : 0;
}

static int cmp_bytes(const void *a, const void *b) {
  const RunInstrStat *x = a, *y = b;
  int64_t bx = x->s.bytes_read + x->s.bytes_written, by = y->s.bytes_read + y->s.bytes_written;
  return bx < by ? 1 : bx > by ? -1 : 0;
}

static int cmp_waste(const void *a, const void *b) {
  const RunShapeStat *x = a, *y = b;
  int64_t wx = (x->physical_bytes - x->logical_bytes) * x->allocs;
  int64_t wy = (y->physical_bytes - y->logical_bytes) * y->allocs;
  return wx < wy ? 1 : wx > wy ? -1 : 0;
}

static bool collect_stats(EvalCtx *ctx, RunResult *res) {
  int n = 0;
  for (int c = 0; c < ctx->nplans; c++)
    for (int i = 0; i < ctx->plans[c].comp->ninstrs; i++)
      if (ctx->plans[c].stats[i].count) n++;
  res->instr_stats = calloc((size_t)(n ? n : 1), sizeof *res->instr_stats);
  if (!res->instr_stats) return false;
  for (int c = 0; c < ctx->nplans; c++)
    for (int i = 0; i < ctx->plans[c].comp->ninstrs; i++)
      if (ctx->plans[c].stats[i].count) {
        RunInstrStat *r = &res->instr_stats[res->ninstr_stats++];
        r->instr = ctx->plans[c].comp->instrs[i];
        r->s = ctx->plans[c].stats[i];
      }
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
      if (!(s->shape = result_shape(res, ai->shape))) return false;
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

/* --- the run --- */

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Binds the inputs and evaluates the entry computation on one device (the
 * whole run of a single-device run; one thread of a multi-device run). */
bool run_device(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                const RunDevice *dev, RunResult *res, Error *err) {
  memset(res, 0, sizeof *res);
  res->module = m;
  res->replica_id = dev->id / dev->partitions;
  res->partition_id = dev->id % dev->partitions;
  res->nreplicas = dev->replicas;
  res->npartitions = dev->partitions;
  res->ndevices = 1;
  MemConfig defcfg;
  const MemConfig *cfg = opt->memory;
  if (!cfg) {
    config_default(&defcfg);
    cfg = &defcfg;
  }
  snprintf(res->device, sizeof res->device, "%s", cfg->device);
  MemSystem *mem = malloc(sizeof *mem);
  Arena *arena = arena_new();
  EvalCtx *ctx = calloc(1, sizeof *ctx);
  if (!mem || !arena || !ctx) {
    free(mem);
    free(ctx);
    if (arena) arena_free(arena);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  bool ok = config_apply(cfg, mem, err);
  mem->host = dev->host;
  bool inited = ok && eval_init(ctx, m, mem, arena, err);
  ok = inited;
  FILE *trace = dev->trace ? opt->trace : NULL;
  Tracer tracer = {trace, opt->trace_format, mem, NULL};
  Feeds feeds = {opt, 0, opt->seed ^ 0x1f2e3d4c5b6a7988ull, res, 0};
  if (ok) {
    ctx->infeed = infeed_leaf;
    ctx->outfeed = outfeed_leaf;
    ctx->feed_ud = &feeds;
    ctx->timing = opt->stats || opt->trace;
    ctx->max_instructions = opt->max_instructions;
    ctx->deadline_ns = opt->timeout_ns > 0 ? now_ns() + opt->timeout_ns : 0;
    ctx->rendezvous = dev->rendezvous;
    ctx->device_id = dev->id;
    ctx->num_replicas = dev->replicas;
    ctx->num_partitions = dev->partitions;
    ctx->replica_id = res->replica_id;
    ctx->partition_id = res->partition_id;
    if (trace) {
      ctx->trace = trace_fn;
      ctx->trace_ud = &tracer;
      if (opt->trace_format == RUN_FMT_YAML)
        tracer.yaml = doc_yaml_seq_open(trace, DOC_YAML_PLAIN);
    }
  }
  RunDebugDevice *debug = NULL;
  if (ok && opt->debug)
    ok = run_debug_attach(opt->debug, ctx, dev->trace, res->replica_id, res->partition_id,
                          dev->replicas, dev->partitions, &debug, err);
  const Computation *e = m->entry;
  Value **args = calloc((size_t)(e->nparams ? e->nparams : 1), sizeof *args);
  if (!args) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  Value *result = NULL;
  int64_t t0 = now_ns();
  if (ok) ok = bind_inputs(ctx, m, opt, inputs, ninputs, args, err);
  int64_t t1 = now_ns();
  /* --repeat: the same bound inputs, each earlier result released before the
   * next evaluation (so later ones reuse warm memory).  Counters add up. */
  int64_t reps = opt->repeat > 1 ? opt->repeat : 1;
  int64_t *times = calloc((size_t)reps, sizeof *times);
  if (!times) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
  int64_t done = 0;
  res->eval_cpu_ns = INT64_MAX;
  for (; ok && done < reps; done++) {
    if (result) value_unref(&ctx->vc, result);
    result = NULL;
    int64_t ta = now_ns(), ca = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    ok = eval_computation(ctx, e, args, e->nparams, &result, err);
    times[done] = now_ns() - ta;
    int64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - ca;
    if (cpu < res->eval_cpu_ns) res->eval_cpu_ns = cpu;
  }
  if (!done) res->eval_cpu_ns = 0;
  int64_t t2 = now_ns();
  res->wall_ns = t2 - t0;
  res->repeat = done ? done : 1;
  if (times && done) {
    res->eval_first_ns = times[0];
    qsort(times, (size_t)done, sizeof *times, cmp_i64);
    res->eval_ns = times[0];
    res->eval_median_ns = done % 2 ? times[done / 2] : (times[done / 2 - 1] + times[done / 2]) / 2;
  } else {
    res->eval_ns = res->eval_first_ns = res->eval_median_ns = t2 - t1;
  }
  free(times);
  run_debug_detach(debug);
  if (tracer.yaml) doc_yaml_seq_close(tracer.yaml);
  if (ok) {
    res->shape = &e->root->shape;
    int nl = run_count_leaves(result->shape ? result->shape : &e->root->shape);
    res->leaves = calloc((size_t)(nl ? nl : 1), sizeof *res->leaves);
    if (!res->leaves) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    else ok = collect_leaves(ctx, result, !opt->discard_result, res, err);
  }
  if (inited) {
    value_unref(&ctx->vc, result);
    for (int p = 0; args && p < e->nparams; p++) value_unref(&ctx->vc, args[p]);
    if (ok && !collect_stats(ctx, res)) ok = error_set(err, ERR_RUNTIME, -1, "out of memory");
    eval_free(ctx);
  }
  /* Final counters (constants and results released: live is back to 0). */
  mem_destroy(mem);
  res->mem = *mem;
  res->mem.host = NULL; /* the budget lives only as long as the run */
  free(args);
  free(ctx);
  free(mem);
  arena_free(arena);
  if (!ok) run_result_free(res);
  return ok;
}

void run_device_grid(const Module *m, const RunOptions *opt, int64_t *replicas,
                     int64_t *partitions) {
  if (opt->replicas <= 0 && opt->partitions <= 0 && m->replica_count <= 1 &&
      m->num_partitions <= 1) {
    collective_grid_needed(m, replicas, partitions);
    return;
  }
  *replicas = opt->replicas > 0 ? opt->replicas : m->replica_count;
  *partitions = opt->partitions > 0 ? opt->partitions : m->num_partitions;
  if (*replicas < 1) *replicas = 1;
  if (*partitions < 1) *partitions = 1;
}

bool run_module(const Module *m, const RunOptions *opt, const RunInput *inputs, int ninputs,
                RunResult *res, Error *err) {
  memset(res, 0, sizeof *res);
  res->module = m;
  if (!m->entry) return error_set(err, ERR_RUNTIME, -1, "the module has no entry computation");
  int64_t replicas, partitions;
  run_device_grid(m, opt, &replicas, &partitions);
  if (replicas > RUN_MAX_DEVICES || partitions > RUN_MAX_DEVICES ||
      replicas * partitions > RUN_MAX_DEVICES)
    return error_set(err, ERR_RUNTIME, -1,
                     "%" PRId64 " replicas x %" PRId64 " partitions: at most %d devices can be "
                     "run",
                     replicas, partitions, RUN_MAX_DEVICES);
  if (replicas * partitions == 1) {
    RunDevice one = {NULL, 0, 1, 1, true, NULL};
    return run_device(m, opt, inputs, ninputs, &one, res, err);
  }
  return run_devices(m, opt, inputs, ninputs, replicas, partitions, res, err);
}

const RunResult *run_result_device(const RunResult *res, int d) {
  return d == 0 ? res : &res->devices[d - 1];
}

void run_result_free(RunResult *res) {
  for (int d = 0; res->devices && d < res->ndevices - 1; d++) run_result_free(&res->devices[d]);
  free(res->devices);
  res->devices = NULL;
  res->ndevices = 1;
  for (int i = 0; i < res->nleaves; i++) mem_free_detached(res->leaves[i].data);
  free(res->leaves);
  for (int i = 0; i < res->noutfeed; i++) mem_free_detached(res->outfeed[i].data);
  free(res->outfeed);
  res->outfeed = NULL;
  res->noutfeed = 0;
  free(res->instr_stats);
  free(res->shape_stats);
  if (res->shapes) arena_free(res->shapes);
  res->shapes = NULL;
  res->leaves = NULL;
  res->instr_stats = NULL;
  res->shape_stats = NULL;
  res->nleaves = res->ninstr_stats = res->nshape_stats = 0;
}

/* --- the --stats report --- */

static void fmt_bytes(int64_t b, char *buf, int size) { mem_format_bytes(b, buf, size); }

static void fmt_time(int64_t ns, char *buf, size_t size) {
  if (ns >= 1000000000) snprintf(buf, size, "%.3f s", (double)ns / 1e9);
  else if (ns >= 1000000) snprintf(buf, size, "%.3f ms", (double)ns / 1e6);
  else snprintf(buf, size, "%.3f us", (double)ns / 1e3);
}

enum { TOP_N = 10 };

typedef struct StatsView {
  RunInstrStat *by_time, *by_bytes;
  int n;
} StatsView;

static bool stats_view(const RunResult *res, StatsView *v) {
  v->n = res->ninstr_stats;
  size_t sz = sizeof(RunInstrStat) * (size_t)(v->n ? v->n : 1);
  v->by_time = malloc(sz);
  v->by_bytes = malloc(sz);
  if (!v->by_time || !v->by_bytes) {
    free(v->by_time);
    free(v->by_bytes);
    return false;
  }
  if (v->n) {
    memcpy(v->by_time, res->instr_stats, sz);
    memcpy(v->by_bytes, res->instr_stats, sz);
  }
  qsort(v->by_time, (size_t)v->n, sizeof(RunInstrStat), cmp_time);
  qsort(v->by_bytes, (size_t)v->n, sizeof(RunInstrStat), cmp_bytes);
  return true;
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
  return d;
}

void run_format_stats(const RunResult *res, RunFormat fmt, StrBuf *out) {
  StatsView v;
  if (!stats_view(res, &v)) return;
  Arena *a = fmt == RUN_FMT_TEXT ? NULL : arena_new();
  Doc *d = a ? stats_doc(a, res, &v, fmt) : NULL;
  if (fmt == RUN_FMT_TEXT) stats_text(res, &v, out);
  else if (d && fmt == RUN_FMT_YAML) doc_yaml(d, DOC_YAML_PLAIN, out);
  else if (d) doc_json(d, DOC_JSON_COMPACT, out);
  arena_free(a);
  free(v.by_time);
  free(v.by_bytes);
}
