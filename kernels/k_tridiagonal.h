/* XlaBuilder's tridiagonal::TridiagonalSolver with the Thomas algorithm
 * (xla/hlo/builder/lib/tridiagonal.cc), called by XLA's MLIR tests as the
 * custom call xla_builder.tridiagonal.TridiagonalSolver.
 *
 * Systems: lower/main/upper diagonals of M equations each (lower[0] and
 * upper[M-1] are never read) and R right-hand sides per batch entry.
 *   - four-operand form: lower, main, upper [..., 1, M], rhs [..., R, M],
 *     result [..., R, M];
 *   - two-operand form: diagonals [..., K >= 3, M] with rows 0/1/2 = upper/
 *     main/lower, rhs [..., M, R] (equations major), result [..., M, R].
 * Batch dims follow XLA's degenerate broadcasting: main's are rhs's or 1,
 * lower's and upper's are main's or 1.  All operands share one float or
 * complex element type; every step is one elementwise op in that type
 * (k_binary: narrow floats computed in f32 and rounded after each op), in
 * XLA's order:
 *   w = lower[i] / main'[i-1];  main'[i] = main[i] - w * upper[i-1];
 *   rhs'[i] = rhs[i] - w * rhs'[i-1];  x[M-1] = rhs'[M-1] / main'[M-1];
 *   x[i] = (rhs'[i] - upper[i] * x[i+1]) / main'[i]
 * with no pivoting (a zero pivot gives inf/nan, as in XLA). */
#ifndef HLO_KERNELS_K_TRIDIAGONAL_H
#define HLO_KERNELS_K_TRIDIAGONAL_H

#include "kernels/k_types.h"

typedef struct KTridiagonal {
  const KArray *diag[3]; /* lower, main, upper: [..., K, M] */
  int64_t row[3];        /* the row of dim -2 each diagonal is read from */
  bool eq_major;         /* rhs and result are [..., M, R] (two-operand form) */
} KTridiagonal;

bool k_tridiagonal_solve(const KTridiagonal *s, const KArray *rhs, KArray *out, Error *err);

#endif
