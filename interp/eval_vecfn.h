/* Scalar computations evaluated over whole vectors (reducers, comparators,
 * scatter combiners) and recognition of known reducers; used by the
 * compute-op files (eval_compute.c, eval_gather.c, eval_sort.c, ...). */
#ifndef HLO_INTERP_EVAL_VECFN_H
#define HLO_INTERP_EVAL_VECFN_H

#include "interp/eval_internal.h"
#include "kernels/k_reduce.h"
#include "kernels/k_types.h"

/* Known reducer per value (ops[nvals]) when c's root is add/multiply/max/
 * min/and/or/xor of parameters i and nvals+i (a tuple of those for nvals>1). */
bool reducer_recognise(const Computation *c, int nvals, KReduceOp *ops);

/* Most parameters a vectorised body may take (a comparator of 64 sort
 * operands takes 128). */
enum { VECFN_MAX_ARGS = 128 };

/* A scalar computation evaluated over vectors of n elements. */
typedef struct VecFn {
  EvalCtx *ctx;
  const Computation *comp;
  const Instr *in;
  int64_t n;            /* size the override shapes were built for */
  const Shape **ov;     /* per instruction of comp */
  const Shape **pshape; /* per parameter */
  /* Element types of the data the caller passes and of the buffers it takes
   * the results in (NULL: the body's own parameter and result types).  XLA's
   * shape inference lets a body's scalars differ from the operands in
   * floating-point precision (an f64 reducer parameter for an f32 operand);
   * such arguments and results are converted on the way in and out. */
  const EType *arg_types;
  const EType *out_types;
} VecFn;
/* A body with an instruction that cannot run over vectors (an iota, a
 * reshape, non-scalar intermediates...) runs once per element instead: then
 * ov is NULL and pshape holds its declared scalar parameter shapes. */

void vecfn_free(VecFn *f);
/* Runs f over args (nargs vectors of n elements) and copies result leaf i
 * into outs[i]. */
bool vecfn_call(VecFn *f, int nargs, const void *const *args, int nouts, void *const *outs,
                int64_t n, Error *err);
/* KReduceFn over a VecFn (vctx). */
bool reduce_cb(void *vctx, int nvals, void *const *acc, const void *const *vals, int64_t n,
               Error *err);

#endif
