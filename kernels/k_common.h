/* Private helpers shared by the compute kernels (dot, reduce, windows, conv,
 * gather/scatter, sort, linalg, fft, rng): compute types, whole-array
 * conversions, a blocked permuting copy, typed combine loops.  Not a public
 * interface; the interpreter uses the k_*.h headers. */
#ifndef HLO_KERNELS_K_COMMON_H
#define HLO_KERNELS_K_COMMON_H

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "kernels/k_internal.h"
#include "kernels/k_types.h"
#include "layout/etype.h"

#define K_MAX_RANK 64

typedef float _Complex kc64;
typedef double _Complex kc128;

/* Element type the kernels compute in for t: narrow floats (bf16, f16, f8,
 * f6, f4) -> f32; s1/s2/s4 -> s8 and u1/u2/u4 -> u8 (rewrapped on the way
 * back); everything else is its own compute type. */
EType k_compute_etype(EType t);
/* Converts n elements of t into its compute type / back (wrapping sub-byte
 * ints, rounding narrow floats to nearest even).  In-place is allowed when
 * both sides have the same element size. */
void k_to_compute(EType t, const void *src, void *dst, int64_t n);
void k_from_compute(EType t, const void *src, void *dst, int64_t n);
/* General element conversion (XLA convert semantics, etype_convert_array)
 * between any two array types; dst must not overlap src unless the types
 * are equal. */
void k_cvt(EType dst_t, void *dst, EType src_t, const void *src, int64_t n);


/* dst[i0..] = src permuted: dst dim i is src dim perm[i].  Blocked over the
 * two innermost-moving dims, element size 1..16 bytes. */
void k_permute(int esize, const void *src, int rank, const int64_t *src_dims, const int *perm,
               void *dst);

/* acc[i] = op(acc[i], v[i]) for a compute type; false if op/type invalid. */
bool k_combine(KReduceOp op, EType ct, void *acc, const void *v, int64_t n, Error *err);
/* Whether op is defined on compute type ct. */
bool k_op_valid(KReduceOp op, EType ct);

/* Applies a reducer to nvals vector pairs (known ops in compute types when
 * use_ct, else element types; or the callback in element types). */
bool k_reducer_apply(const KReducer *r, int nvals, const EType *types, void *const *acc,
                     const void *const *vals, int64_t n, Error *err);

/* Work type of operand type t under reducer r: compute type for known ops,
 * the element type itself for callbacks. */
EType k_work_etype(const KReducer *r, EType t);

/* Sequentially-equivalent scatter of updates into targets:
 *   for p in 0..npairs: target[tidx[p]] = reducer(target[tidx[p]], upd[uidx[p]])
 * in order, for nvals parallel arrays.  Updates are in the work types
 * wtypes; targets in ttypes (NULL: the work types), converted to the work
 * types and back one range at a time (no whole work copy of a big operand).
 * Runs of pairs without a repeated target are combined in one reducer call.
 * Known reducers run on the pool, each chunk the targets of one range (cut
 * by the sizes alone), so every target takes its updates in the same order
 * at any thread count. */
bool k_apply_pairs(const KReducer *r, int nvals, const EType *wtypes, const EType *ttypes, void *const *targets,
                   int64_t ntargets, const void *const *upd, const int64_t *tidx,
                   const int64_t *uidx, int64_t npairs, Error *err);


/* Loads n integer indices of any integer type as int64 (u64 above INT64_MAX
 * saturates).  *out is k_malloc'ed (k_free). */
bool k_load_indices(const KArray *idx, int64_t n, int64_t **out, Error *err);
/* Copies the box [start, start + size) of a row-major array to dst. */
void k_copy_box(int es, const void *src, int rank, const int64_t *dims, const int64_t *start,
                const int64_t *size, void *dst);

/* Kernel temporaries: give back with k_free (any malloc'd pointer too). */
void *k_malloc(int64_t bytes, Error *err);
void k_free(void *p);
bool k_mul3(int64_t a, int64_t b, int64_t *out, Error *err);

/* Float total order key: monotone map of the bit pattern to unsigned. */
static inline uint32_t k_f32_key(uint32_t b) { return (b & 0x80000000u) ? ~b : (b | 0x80000000u); }
static inline uint64_t k_f64_key(uint64_t b) {
  return (b & 0x8000000000000000ull) ? ~b : (b | 0x8000000000000000ull);
}

#endif
