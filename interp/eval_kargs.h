/* Helpers of the compute-op files (eval_compute.c, eval_gather.c,
 * eval_sort.c, eval_rng.c, ...; not a public interface): dense views of
 * operands, results allocated in their memory spaces with dense targets, and
 * scalar computations (reducers, comparators) evaluated over whole vectors
 * at once -- never by walking the IR once per element. */
#ifndef HLO_INTERP_EVAL_KARGS_H
#define HLO_INTERP_EVAL_KARGS_H

#include "interp/eval_internal.h"
#include "kernels/k_types.h"

const Computation *attr_comp(const Instr *in, AttrKey key);
const IntList *attr_ints(const Instr *in, AttrKey key);

/* Dense views of operands, released together. */
typedef struct Views {
  int n;
  KArray a[16];
  void *tmp[16];
} Views;

/* Appends a dense view of array v (released by views_free). */
bool view(EvalCtx *ctx, Views *vs, const Value *v, const Instr *in, Error *err);
void views_free(Views *vs);

/* Results: one fresh array value per leaf of rs with dense targets. */
typedef struct Outs {
  int n;
  Value *v[8];
  void *tmp[8];
  KArray a[8];
} Outs;

bool outs_new(EvalCtx *ctx, const Instr *in, const Shape *rs, Outs *o, Error *err);
/* Releases results not yet finished (on errors). */
void outs_drop(EvalCtx *ctx, Outs *o);
/* Commits the dense targets; *out is the array or the tuple of them. */
bool outs_finish(EvalCtx *ctx, const Shape *rs, Outs *o, Value **out, Error *err);
/* outs_finish when ok, else outs_drop and false. */
bool outs_close(EvalCtx *ctx, const Shape *rs, Outs *o, bool ok, Value **out, Error *err);

/* Known reducer per value (ops[nvals]) when c's root is add/multiply/max/
 * min/and/or/xor of parameters i and nvals+i (a tuple of those for nvals>1). */
bool reducer_recognise(const Computation *c, int nvals, KReduceOp *ops);

/* A scalar computation evaluated over vectors of n elements. */
typedef struct VecFn {
  EvalCtx *ctx;
  const Computation *comp;
  const Instr *in;
  int64_t n;            /* size the override shapes were built for */
  const Shape **ov;     /* per instruction of comp */
  const Shape **pshape; /* per parameter */
} VecFn;

void vecfn_free(VecFn *f);
/* Runs f over args (nargs vectors of n elements) and copies result leaf i
 * into outs[i]. */
bool vecfn_call(VecFn *f, int nargs, const void *const *args, int nouts, void *const *outs,
                int64_t n, Error *err);
/* KReduceFn over a VecFn (vctx). */
bool reduce_cb(void *vctx, int nvals, void *const *acc, const void *const *vals, int64_t n,
               Error *err);

#endif
