/* --unknown-custom-calls=zeros|random: a custom call whose target hlotools
 * cannot compute yields data of its declared shape instead of failing the
 * run, so that memory, layout and timing analysis of a whole module still
 * runs.  Each target is counted in the result (RunResult.substituted) for
 * the warning and --stats. */
#include <stdlib.h>
#include <string.h>

#include "interp/run_internal.h"

/* Counts one execution of target; false when out of memory. */
static bool count_target(RunResult *res, const char *target) {
  for (int i = 0; i < res->nsubstituted; i++)
    if (strcmp(res->substituted[i].target, target) == 0) {
      res->substituted[i].calls++;
      return true;
    }
  RunSubstitution *grown =
      realloc(res->substituted, (size_t)(res->nsubstituted + 1) * sizeof *grown);
  if (!grown) return false;
  res->substituted = grown;
  char *copy = strdup(target);
  if (!copy) return false;
  res->substituted[res->nsubstituted++] = (RunSubstitution){copy, 1};
  return true;
}

typedef struct Filler {
  EvalCtx *ctx;
  RunFeeds *feeds;
} Filler;

static bool fill_leaf(void *ud, const Shape *s, const char *desc, Value **out, Error *err) {
  Filler *f = ud;
  if (f->feeds->opt->unknown_calls == RUN_UNKNOWN_CALLS_RANDOM)
    return run_random_value(f->ctx, s, &f->feeds->unknown_rng, -1, desc, out, err);
  return value_new_array(&f->ctx->vc, s, true, desc, out, err);
}

bool run_unknown_call(void *ud, EvalCtx *ctx, const Instr *in, const char *target,
                      const Shape *rs, Value **out, Error *err) {
  RunFeeds *feeds = ud;
  if (!count_target(feeds->res, target)) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  Filler f = {ctx, feeds};
  (void)in;
  return value_build(&ctx->vc, rs, "", fill_leaf, &f, out, err);
}
