/* Data-movement kernels: dense row-major arrays of any element size (bytes
 * per element in natural storage, sub-byte types one byte each).  Nothing
 * here knows HLO; the evaluator maps each op onto these.
 *
 * The workhorse is k_strided_copy: every broadcast, slice, reverse,
 * transpose, box copy and interior-pad scatter is a strided copy over an
 * index space, which it simplifies (drops size-1 dims, merges contiguous
 * ones) and then runs as memcpy of contiguous runs, a fill, a blocked 2-D
 * transpose, or a typed strided loop. */
#ifndef HLO_KERNELS_K_MOVEMENT_H
#define HLO_KERNELS_K_MOVEMENT_H

#include <stddef.h>
#include <stdint.h>

#include "layout/etype.h"

#ifndef K_MAX_RANK
#define K_MAX_RANK 64
#endif

/* For every index i in dims[0..rank): dst[sum i*dst_strides] = src[sum
 * i*src_strides] (strides in elements; may be 0 or negative; dst and src are
 * the addresses of index 0).  Destination positions must be distinct. */
void k_strided_copy(void *dst, const int64_t *dst_strides, const void *src,
                    const int64_t *src_strides, const int64_t *dims, int rank, size_t esize);

/* Row-major strides of dims. */
void k_row_major_strides(const int64_t *dims, int rank, int64_t *strides);

/* n copies of the element at val. */
void k_fill(void *dst, int64_t n, const void *val, size_t esize);

/* out[i_0..] = in[i_perm[0]..]: output dim k is input dim perm[k]. */
void k_transpose(void *dst, const void *src, const int64_t *src_dims, const int64_t *perm,
                 int rank, size_t esize);

/* Output dims out_dims[0..out_rank); input dim k maps to output dim
 * bdims[k] (sizes equal, or the input size is 1). */
void k_broadcast(void *dst, const int64_t *out_dims, int out_rank, const void *src,
                 const int64_t *src_dims, int src_rank, const int64_t *bdims, size_t esize);

/* out[i] = in[start + i*stride] per dim; out_dims given. */
void k_slice(void *dst, const int64_t *out_dims, const void *src, const int64_t *src_dims,
             int rank, const int64_t *start, const int64_t *stride, size_t esize);

/* Copies the box of size box[] at src_start in src into dst at dst_start. */
void k_move_box(void *dst, const int64_t *dst_dims, const int64_t *dst_start, const void *src,
                const int64_t *src_dims, const int64_t *src_start, const int64_t *box, int rank,
                size_t esize);

/* Reverses the dims with rev[d] != 0. */
void k_reverse(void *dst, const void *src, const int64_t *dims, const uint8_t *rev, int rank,
               size_t esize);

/* XLA Pad: dst (out_dims) is filled with *padval; input element i lands at
 * lo + i*(interior+1) per dim when that is inside [0, out_dim) (negative
 * lo/hi cut elements off). */
void k_pad(void *dst, const int64_t *out_dims, const void *src, const int64_t *src_dims,
           int rank, const int64_t *lo, const int64_t *interior, const void *padval,
           size_t esize);

/* dst[i] = i's index along iota_dim, converted to element type t as
 * `convert` does (natural storage, row-major); on the pool. */
void k_iota(EType t, void *dst, const int64_t *dims, int rank, int iota_dim);

#endif
