/* gather and scatter (operation semantics "Gather", "Scatter"; StableHLO's
 * batching dims).
 *
 * Indices may be any integer type (unsigned values above INT64_MAX count as
 * INT64_MAX).  index_vector_dim == rank of the indices means an implicit
 * trailing dimension of size 1.
 *
 * Out of bounds, as XLA:
 *   - gather clamps each start index into [0, operand_dim - slice_size];
 *   - scatter skips a whole update window when any of its elements would
 *     fall outside the operand (start < 0 or start + window > dim).
 * Scatter applies updates scatter index by scatter index (row-major over the
 * update scatter dims), each window in row-major order -- the order of XLA's
 * evaluator; any order is valid for XLA's unordered semantics and this one
 * makes results deterministic. */
#ifndef HLO_KERNELS_K_GATHER_H
#define HLO_KERNELS_K_GATHER_H

#include "kernels/k_types.h"

typedef struct KGatherDims {
  int noffset;
  const int64_t *offset_dims;          /* result dims that index into the slice */
  int ncollapsed;
  const int64_t *collapsed_slice_dims; /* operand dims with slice size 1, dropped */
  int nstart_map;
  const int64_t *start_index_map;      /* index vector entry k -> operand dim */
  int nbatching;
  const int64_t *operand_batching_dims;       /* operand dims paired with ... */
  const int64_t *start_indices_batching_dims; /* ... these indices dims */
  int64_t index_vector_dim;
  const int64_t *slice_sizes;          /* operand rank entries */
} KGatherDims;

bool k_gather(const KArray *operand, const KArray *indices, const KGatherDims *d, KArray *out,
              Error *err);

typedef struct KScatterDims {
  int nupdate_window;
  const int64_t *update_window_dims;   /* update dims that index into the window */
  int ninserted;
  const int64_t *inserted_window_dims; /* operand dims with window size 1 */
  int nscatter_map;
  const int64_t *scatter_dims_to_operand_dims;
  int nbatching;
  const int64_t *input_batching_dims;
  const int64_t *scatter_indices_batching_dims;
  int64_t index_vector_dim;
} KScatterDims;

/* Variadic scatter: outs[i] = operands[i] with updates[i] combined in by the
 * reducer (known combiner per operand -- add/mul/max/min/and/or/xor, or
 * K_RED_REPLACE for "return update" -- or a callback that receives the current
 * values as acc and the updates as vals).  outs[i].data may equal
 * operands[i].data (in place). */
bool k_scatter(int nvals, const KArray *operands, const KArray *indices, const KArray *updates,
               const KScatterDims *d, const KReducer *r, KArray *outs, Error *err);

#endif
