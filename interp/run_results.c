/* A run's results: the result's array leaves and what outfeed sent, as
 * dense arrays the caller owns (RunResult), and freeing them. */
#include <stdlib.h>
#include <string.h>

#include "interp/run_internal.h"

int run_count_leaves(const Shape *s) {
  if (shape_is_tuple(s)) {
    int n = 0;
    for (int i = 0; i < s->ntuple; i++) n += run_count_leaves(&s->tuple[i]);
    return n;
  }
  return value_shape_has_data(s) ? 1 : 0;
}

const Shape *run_result_shape(RunResult *res, const Shape *s) {
  if (!res->shapes && !(res->shapes = arena_new())) return NULL;
  return shape_clone(res->shapes, s);
}

/* Array v's dense bytes (its valid elements when it has sizes below its
 * bounds), its conversion temporary or a copy.  Freed with
 * mem_free_detached (run_result_free). */
static bool leaf_copy(EvalCtx *ctx, RunResult *res, const Value *v, RunLeaf *l, Error *err) {
  if (!(l->shape = run_result_shape(res, v->info->shape)))
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
  if (!(l->shape = run_result_shape(res, v->info->shape)))
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  l->nbytes = v->info->esize;
  for (int i = 0; i < v->info->rank; i++) l->nbytes *= l->dims[i] = v->info->dims[i];
  return true;
}

bool run_collect_leaves(EvalCtx *ctx, Value *v, bool data, RunResult *res, Error *err) {
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple; i++)
      if (!run_collect_leaves(ctx, v->elems[i], data, res, err)) return false;
    return true;
  }
  if (!v->info) return true; /* token */
  if (!data) {
    if (!(res->leaves[res->nleaves].shape = run_result_shape(res, v->info->shape)))
      return error_set(err, ERR_RUNTIME, -1, "out of memory");
  } else if (!leaf_take(ctx, res, v, &res->leaves[res->nleaves], err)) {
    return false;
  }
  res->nleaves++;
  return true;
}

/* --- outfeed --- */

bool run_outfeed_leaf(void *ud, EvalCtx *ctx, const Value *v, Error *err) {
  RunFeeds *f = ud;
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

const RunResult *run_result_device(const RunResult *res, int d) {
  return d == 0 ? res : &res->devices[d - 1];
}

void run_result_free(RunResult *res) {
  for (int k = 0; res->ranks && k < res->nranks; k++) free(res->ranks[k].traffic);
  free(res->ranks);
  res->ranks = NULL;
  res->nranks = 0;
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
  for (int i = 0; res->instr_stats && i < res->ninstr_stats; i++)
    free(res->instr_stats[i].s.space_bytes);
  free(res->instr_stats);
  free(res->shape_stats);
  for (int i = 0; i < res->nsubstituted; i++) free(res->substituted[i].target);
  free(res->substituted);
  res->substituted = NULL;
  res->nsubstituted = 0;
  if (res->shapes) arena_free(res->shapes);
  res->shapes = NULL;
  res->leaves = NULL;
  res->instr_stats = NULL;
  res->shape_stats = NULL;
  res->nleaves = res->ninstr_stats = res->nshape_stats = 0;
}
