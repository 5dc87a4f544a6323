/* Einsum with the semantics of XlaBuilder's Einsum (xla/hlo/builder/lib/
 * matrix.cc), which XLA's MLIR tests call as the custom call
 * xla_builder.matrix.Einsum with the config in backend_config.
 *
 * Config "x,y->out" (or implicit "x,y": the output is "..." when any input
 * has one, then the letters that occur exactly once in the whole config,
 * in ASCII order).  Labels are ASCII letters; "..." stands for the leading
 * dims not named (an input's ellipsis rank is its rank minus its letters;
 * the output's is the larger of the two, the inputs' ellipsis dims aligned
 * at the right).  Steps, as the builder emits them:
 *   1. a letter repeated inside x (then y) takes the diagonal: one dim per
 *      distinct letter, sized by its first occurrence; positions where an
 *      index overruns a later occurrence's size are 0 (float and complex
 *      values get "+ 0", the reduction XLA uses, so -0 becomes +0);
 *   2. a letter repeated in the output puts the result on that diagonal,
 *      zeros elsewhere;
 *   3. a letter in x and y is a batch dim (also in the output) or a
 *      contracting dim of one dot_general; when its two sizes differ the
 *      side of size 1 (else y's side) is summed away first and the letter
 *      treated as free on the other side; free letters missing from the
 *      output are summed away before the dot;
 *   4. the dot result [batch, x free, y free] is transposed to the output.
 * Both operands have the same element type, which is the result's.  An
 * output letter found in neither input is an error (XLA's transpose fails
 * on it too). */
#ifndef HLO_KERNELS_K_EINSUM_H
#define HLO_KERNELS_K_EINSUM_H

#include "kernels/k_types.h"

enum { K_EINSUM_MAX_LABELS = 64 };

/* Labels: a letter is its character code; ellipsis dims are -r..-1. */
typedef struct KEinsumConfig {
  int nx, ny, nout;
  int x[K_EINSUM_MAX_LABELS], y[K_EINSUM_MAX_LABELS], out[K_EINSUM_MAX_LABELS];
} KEinsumConfig;

/* Parses config for operands of ranks x_rank and y_rank (XLA's
 * ParseEinsumString after NormalizeEinsumString).  Each input must end up
 * with as many labels as its rank. */
bool k_einsum_parse(const char *config, int x_rank, int y_rank, KEinsumConfig *c, Error *err);

/* Result dims of the einsum of x and y (data unused); *rank <= 64. */
bool k_einsum_shape(const KEinsumConfig *c, const KArray *x, const KArray *y, int *rank,
                    int64_t *dims, Error *err);

/* out: the k_einsum_shape dims, x's element type; written whole. */
bool k_einsum(const KEinsumConfig *c, const KArray *x, const KArray *y, KArray *out, Error *err);

#endif
