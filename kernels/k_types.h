/* Shared vocabulary of the compute kernels (k_dot, k_reduce, k_window,
 * k_conv, k_gather, k_scatter, k_sort, k_linalg, k_fft, k_rng).
 *
 * Kernels know nothing of the IR: they take dense row-major buffers in natural
 * element storage (layout/etype_convert.h: sub-byte types one per byte, sN
 * sign-extended; pred 0/1; complex = re, im) plus plain parameter structs,
 * and return false with an Error when a combination is unsupported or a size
 * overflows.  They never print and never abort. */
#ifndef HLO_KERNELS_K_TYPES_H
#define HLO_KERNELS_K_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "layout/etype.h"

/* A dense row-major array.  dims may be NULL when rank == 0.  Kernels never
 * write through an input KArray; outputs are written whole. */
typedef struct KArray {
  EType etype;
  int rank;
  const int64_t *dims;
  void *data;
} KArray;

/* Reducers/combiners the kernels run as tight typed loops.  ADD on pred is
 * OR, MUL on pred is AND (as XLA).  MAX/MIN on floats propagate NaN and order
 * -0 < +0 (llvm.maximum/minimum, what XLA's CPU backend emits).  K_RED_REPLACE
 * ("return update") is only meaningful for scatter. */
typedef enum {
  K_RED_NONE = 0, /* not a known reducer: use the callback */
  K_RED_ADD,
  K_RED_MUL,
  K_RED_MAX,
  K_RED_MIN,
  K_RED_AND,
  K_RED_OR,
  K_RED_XOR,
  K_RED_REPLACE
} KReduceOp;

/* A reducer/combiner computation applied to whole vectors at once: for every
 * j < n and every operand i < nvals,
 *     (acc[0][j], ..., acc[nvals-1][j]) =
 *         f(acc[0][j], ..., acc[nvals-1][j], vals[0][j], ..., vals[nvals-1][j])
 * acc[i] and vals[i] hold n elements of operand i's element type (natural
 * storage); results are written back into acc.  The interpreter evaluates the
 * scalar computation over these vectors (one call per vector, never one per
 * element).  Return false with err set to abort the kernel. */
typedef bool (*KReduceFn)(void *ctx, int nvals, void *const *acc, const void *const *vals,
                          int64_t n, Error *err);

/* A reducer: known op per operand (all must be known), or a callback. */
typedef struct KReducer {
  const KReduceOp *ops; /* nvals entries, or NULL to use fn */
  KReduceFn fn;
  void *ctx;
} KReducer;

/* Number of elements of dims[0..rank) with overflow and negativity checks. */
bool k_num_elements(int rank, const int64_t *dims, int64_t *out, Error *err);
/* Natural storage bytes of one element (1 for pred and sub-byte types). */
int k_elem_size(EType t);
const char *k_reduce_op_name(KReduceOp op);

#endif
