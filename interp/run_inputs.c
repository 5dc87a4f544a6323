/* Binding a run's inputs: .npy arrays and .npz entries to the entry
 * computation's parameters (by name, then by position), random data for
 * what is left (--random-inputs), and the arrays an infeed asks for. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/thread_pool.h"
#include "interp/io/bind_names.h"
#include "interp/mem_track.h"
#include "interp/run_internal.h"
#include "layout/etype_convert.h"

static void dims_text(char *buf, size_t size, EType t, int rank, const int64_t *dims,
                      const bool *dynamic) {
  int n = snprintf(buf, size, "%s[", etype_name(t));
  for (int i = 0; i < rank && n < (int)size; i++)
    n += snprintf(buf + n, size - (size_t)n, "%s%s%" PRId64, i ? "," : "",
                  dynamic && dynamic[i] ? "<=" : "", dims[i]);
  if (n < (int)size) snprintf(buf + n, size - (size_t)n, "]");
}

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

static const uint64_t SPLITMIX_GAMMA = 0x9E3779B97F4A7C15ull;

/* Draw k after the state x (k = 1: the next): splitmix64's state only
 * advances by its gamma, so any draw can be computed on its own, and the
 * elements of a big array filled in parallel chunks are the same bytes as
 * one sequential pass. */
static uint64_t splitmix64_at(uint64_t x, uint64_t k) {
  uint64_t z = x + k * SPLITMIX_GAMMA;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* One fill of random data: elements [first, first + n) of dst. */
typedef struct RandomFill {
  EType etype;
  ETypeKind kind;
  int bits, esize;
  int64_t size_bound;
  uint64_t state; /* before the array's first draw */
  unsigned char *dst;
  int64_t n, per_chunk;
} RandomFill;

static void fill_chunk(void *ud, int64_t chunk, int worker) {
  (void)worker;
  const RandomFill *f = ud;
  enum { BLOCK = 1024 };
  double d[2 * BLOCK];
  int64_t q[BLOCK];
  int64_t end = (chunk + 1) * f->per_chunk < f->n ? (chunk + 1) * f->per_chunk : f->n;
  for (int64_t at = chunk * f->per_chunk; at < end; at += BLOCK) {
    int64_t m = end - at < BLOCK ? end - at : BLOCK;
    unsigned char *dst = f->dst + at * f->esize;
    if (f->kind == EK_FLOAT) {
      for (int64_t i = 0; i < m; i++)
        d[i] = (double)(splitmix64_at(f->state, (uint64_t)(at + i) + 1) >> 11) * 0x1p-52 - 1.0;
      etype_convert_array(f->etype, dst, ET_F64, d, m);
    } else if (f->kind == EK_COMPLEX) { /* two draws per element */
      for (int64_t i = 0; i < 2 * m; i++)
        d[i] = (double)(splitmix64_at(f->state, (uint64_t)(2 * at + i) + 1) >> 11) * 0x1p-52 -
               1.0;
      for (int64_t i = 0; i < m; i++)
        etype_store_complex(f->etype, d[2 * i], d[2 * i + 1], dst + i * f->esize);
    } else {
      for (int64_t i = 0; i < m; i++) {
        uint64_t r = splitmix64_at(f->state, (uint64_t)(at + i) + 1);
        int bits = f->bits;
        if (f->kind == EK_PRED) q[i] = (int64_t)(r & 1);
        else if (f->size_bound >= 0) q[i] = (int64_t)(r % (uint64_t)(f->size_bound + 1));
        else if (f->kind == EK_SINT)
          q[i] = bits <= 2 ? (int64_t)(r % 4) - 2 : bits <= 4 ? (int64_t)(r % 16) - 8 : (int64_t)(r % 201) - 100;
        else q[i] = bits <= 2 ? (int64_t)(r % 4) : bits <= 4 ? (int64_t)(r % 16) : (int64_t)(r % 201);
      }
      etype_convert_array(f->etype, dst, ET_S64, q, m);
    }
  }
}

/* Deterministic data: floats uniform in [-1, 1), integers small (so that
 * arithmetic stays meaningful), pred 0/1.  size_bound >= 0: integers in
 * [0, size_bound] (the value is a dynamic dimension size, see size_bound_of).
 * Written straight into the value's buffer when its layout is the dense
 * one (else into the dense target value_dense_commit lays out), in
 * parallel chunks fixed by the size: the same bytes for every thread
 * count. */
bool run_random_value(EvalCtx *ctx, const Shape *s, uint64_t *state, int64_t size_bound,
                      const char *pdesc, Value **out, Error *err) {
  const ArrayInfo *ai = value_array_info(&ctx->vc, s, err);
  if (!ai) return false;
  Value *v;
  if (!value_new_array(&ctx->vc, s, false, pdesc, &v, err)) return false;
  void *dense;
  DenseTmp tmp;
  if (!value_dense_target(&ctx->vc, v, &dense, &tmp, err)) {
    value_unref(&ctx->vc, v);
    return false;
  }
  ETypeKind k = etype_kind(s->etype);
  RandomFill f = {s->etype, k, etype_bits(s->etype), ai->esize, size_bound, *state, dense,
                  ai->elements, 0};
  int64_t nchunks = pool_chunks(ai->dense_bytes, ai->elements > 0 ? ai->elements : 1);
  f.per_chunk = nchunks > 0 ? (ai->elements + nchunks - 1) / nchunks : 0;
  if (ai->elements > 0) pool_for(nchunks, fill_chunk, &f);
  *state += (uint64_t)ai->elements * (k == EK_COMPLEX ? 2u : 1u) * SPLITMIX_GAMMA;
  if (!value_dense_commit(&ctx->vc, v, &tmp, err)) {
    value_unref(&ctx->vc, v);
    return false;
  }
  *out = v;
  return true;
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
    return run_random_value(b->ctx, s, &b->rng, b->size_bound, pdesc, out, err);
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
                        const RunInput *inputs, int ninputs, Value **args, Error *err);

bool run_bind_inputs(EvalCtx *ctx, const Module *m, const RunOptions *opt,
                     const RunInput *inputs, int ninputs, Value **args, Error *err) {
  RunInput *mine;
  int n;
  if (!run_device_inputs(ctx, inputs, ninputs, &mine, &n, err)) return false;
  bool ok = bind_inputs(ctx, m, opt, mine ? mine : inputs, n, args, err);
  free(mine);
  return ok;
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
    if (ctx->vc.track) ctx->vc.track->cur = e->params[p]; /* defines its buffers */
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
    if (ctx->vc.track) ctx->vc.track->cur = pi;
    ok = value_build(&ctx->vc, &pi->shape, pdesc, bind_leaf, &b, &args[p], err);
  }
  if (ctx->vc.track) ctx->vc.track->cur = NULL;
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

/* --- infeed --- */

bool run_infeed_leaf(void *ud, EvalCtx *ctx, const Shape *s, Value **out, Error *err) {
  RunFeeds *f = ud;
  char desc[64];
  snprintf(desc, sizeof desc, "infeed array %d", f->next);
  if (f->next < f->opt->ninfeed)
    return input_value(ctx, s, &f->opt->infeed[f->next++], desc, out, err);
  if (f->opt->random_inputs) {
    f->next++;
    return run_random_value(ctx, s, &f->rng, -1, desc, out, err);
  }
  return error_set(err, ERR_RUNTIME, -1,
                   "%s: no infeed data left (%d given; use --infeed or --random-inputs)", desc,
                   f->opt->ninfeed);
}
