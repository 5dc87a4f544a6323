/* Thomas algorithm over all systems at once (k_tridiagonal.h): the
 * operands are first copied "lane-major", row i holding equation i of
 * every (batch, rhs) system side by side, so each step of the recurrence is
 * one k_binary call over a contiguous row of L lanes. */
#include <stdlib.h>
#include <string.h>

#include "kernels/k_movement.h"
#include "kernels/k_tridiagonal.h"
#include "kernels/kernels.h"

enum { LOWER, MAIN, UPPER };

static const char *diag_name(const KTridiagonal *s, int d) {
  static const char *names[3] = {"lower diagonal", "main diagonal", "upper diagonal"};
  return s->diag[0] == s->diag[1] ? "diagonals" : names[d];
}

/* XLA's shape rules (CheckSystemAndReturnNumEquations plus what its
 * degenerate broadcasting accepts). */
static bool check(const KTridiagonal *s, const KArray *rhs, const KArray *out, int64_t *m,
                  int64_t *r, Error *err) {
  int rank = rhs->rank;
  if (rank < 2)
    return error_set(err, ERR_RUNTIME, -1, "tridiagonal solve: arguments must have rank >= 2, got %d", rank);
  if (!etype_is_float(rhs->etype) && !etype_is_complex(rhs->etype))
    return error_set(err, ERR_RUNTIME, -1, "tridiagonal solve of %s: only float and complex types",
                     etype_name(rhs->etype));
  *m = rhs->dims[rank - (s->eq_major ? 2 : 1)];
  *r = rhs->dims[rank - (s->eq_major ? 1 : 2)];
  for (int d = 0; d < 3; d++) {
    const KArray *a = s->diag[d];
    const char *nm = diag_name(s, d);
    if (a->rank != rank)
      return error_set(err, ERR_RUNTIME, -1, "tridiagonal solve: %s has rank %d, rhs %d", nm,
                       a->rank, rank);
    if (a->etype != rhs->etype)
      return error_set(err, ERR_RUNTIME, -1, "tridiagonal solve: %s is %s, rhs %s", nm,
                       etype_name(a->etype), etype_name(rhs->etype));
    if (a->dims[rank - 1] != *m)
      return error_set(err, ERR_RUNTIME, -1,
                       "tridiagonal solve: %s has %lld equations (last dim), rhs %lld", nm,
                       (long long)a->dims[rank - 1], (long long)*m);
    if (s->row[d] < 0 || s->row[d] >= a->dims[rank - 2])
      return error_set(err, ERR_RUNTIME, -1,
                       "tridiagonal solve: %s needs %s %lld in its second-to-last dim, which has %lld",
                       nm, s->eq_major ? "at least" : "size", (long long)(s->eq_major ? 3 : 1),
                       (long long)a->dims[rank - 2]);
    if (!s->eq_major && a->dims[rank - 2] != 1)
      return error_set(err, ERR_RUNTIME, -1,
                       "tridiagonal solve: second to last dimension of %s should be 1 but is %lld",
                       nm, (long long)a->dims[rank - 2]);
    const KArray *outer = d == MAIN ? rhs : s->diag[MAIN];
    for (int k = 0; k < rank - 2; k++)
      if (a->dims[k] != 1 && a->dims[k] != outer->dims[k])
        return error_set(err, ERR_RUNTIME, -1,
                         "tridiagonal solve: %s dim %d is %lld, must be 1 or %s's %lld", nm, k,
                         (long long)a->dims[k], d == MAIN ? "rhs" : "the main diagonal",
                         (long long)outer->dims[k]);
  }
  if (*m == 0) return error_set(err, ERR_RUNTIME, -1, "tridiagonal solve: no equations (M = 0)");
  if (out->etype != rhs->etype || out->rank != rank ||
      memcmp(out->dims, rhs->dims, sizeof(int64_t) * (size_t)rank))
    return error_set(err, ERR_RUNTIME, -1, "tridiagonal solve: the result must have rhs's shape");
  return true;
}

/* The copies walk the index space (M, batch..., R): the lane-major
 * buffer's own row-major order, so gathering into it is a plain (blocked)
 * transpose or broadcast for k_strided_copy. */

/* Strides of (M, batch..., R) in the operand's own row-major layout. */
static void rhs_strides(const KTridiagonal *s, const KArray *rhs, int64_t *st) {
  int rank = rhs->rank, nb = rank - 2;
  int64_t rm[K_MAX_RANK];
  k_row_major_strides(rhs->dims, rank, rm);
  st[0] = rm[s->eq_major ? rank - 2 : rank - 1];
  for (int k = 0; k < nb; k++) st[1 + k] = rm[k];
  st[nb + 1] = rm[s->eq_major ? rank - 1 : rank - 2];
}

/* A diagonal broadcast over batch dims of size 1 and over the rhs index. */
static void diag_strides(const KArray *a, const KArray *rhs, int64_t *st) {
  int rank = a->rank, nb = rank - 2;
  int64_t rm[K_MAX_RANK];
  k_row_major_strides(a->dims, rank, rm);
  st[0] = 1;
  for (int k = 0; k < nb; k++) st[1 + k] = a->dims[k] == rhs->dims[k] ? rm[k] : 0;
  st[nb + 1] = 0;
}

/* Forward elimination and back substitution over rows of l lanes; main
 * and rhs are overwritten (rhs with the solution).  w, t, u: scratch rows. */
static bool thomas(EType t, int64_t m, int64_t l, const char *lower, char *main, const char *upper,
                   char *rhs, char *w, char *tmp, char *u, Error *err) {
  size_t row = (size_t)l * (size_t)k_elem_size(t);
#define ROW(p, i) ((p) + (size_t)(i) * row)
  for (int64_t i = 1; i < m; i++) {
    if (!k_binary(KB_DIV, t, w, ROW(lower, i), ROW(main, i - 1), l, err) ||
        !k_binary(KB_MUL, t, tmp, w, ROW(upper, i - 1), l, err) ||
        !k_binary(KB_SUB, t, u, ROW(main, i), tmp, l, err))
      return false;
    memcpy(ROW(main, i), u, row);
    if (!k_binary(KB_MUL, t, tmp, w, ROW(rhs, i - 1), l, err) ||
        !k_binary(KB_SUB, t, u, ROW(rhs, i), tmp, l, err))
      return false;
    memcpy(ROW(rhs, i), u, row);
  }
  if (!k_binary(KB_DIV, t, u, ROW(rhs, m - 1), ROW(main, m - 1), l, err)) return false;
  memcpy(ROW(rhs, m - 1), u, row);
  for (int64_t i = m - 2; i >= 0; i--) {
    if (!k_binary(KB_MUL, t, tmp, ROW(upper, i), ROW(rhs, i + 1), l, err) ||
        !k_binary(KB_SUB, t, w, ROW(rhs, i), tmp, l, err) ||
        !k_binary(KB_DIV, t, ROW(rhs, i), w, ROW(main, i), l, err))
      return false;
  }
#undef ROW
  return true;
}

bool k_tridiagonal_solve(const KTridiagonal *s, const KArray *rhs, KArray *out, Error *err) {
  int64_t m = 0, r = 0, n = 0, l;
  if (!check(s, rhs, out, &m, &r, err) || !k_num_elements(rhs->rank, rhs->dims, &n, err))
    return false;
  if (n == 0) return true;
  l = n / m;
  int nd = rhs->rank; /* index space: M, batch..., R */
  int64_t space[K_MAX_RANK], lane_st[K_MAX_RANK], st[K_MAX_RANK];
  space[0] = m;
  for (int k = 0; k < nd - 2; k++) space[1 + k] = rhs->dims[k];
  space[nd - 1] = r;
  k_row_major_strides(space, nd, lane_st);
  size_t es = (size_t)k_elem_size(rhs->etype), bytes = (size_t)n * es, row = (size_t)l * es;
  char *buf[4], *scratch = malloc(3 * row);
  bool ok = scratch != NULL;
  for (int i = 0; i < 4; i++) ok &= (buf[i] = malloc(bytes)) != NULL;
  if (ok) {
    for (int d = 0; d < 3; d++) {
      const KArray *a = s->diag[d];
      int64_t rm[K_MAX_RANK];
      k_row_major_strides(a->dims, a->rank, rm);
      diag_strides(a, rhs, st);
      const char *src = (const char *)a->data + (size_t)(s->row[d] * rm[a->rank - 2]) * es;
      k_strided_copy(buf[d], lane_st, src, st, space, nd, es);
    }
    rhs_strides(s, rhs, st);
    k_strided_copy(buf[3], lane_st, rhs->data, st, space, nd, es);
    ok = thomas(rhs->etype, m, l, buf[LOWER], buf[MAIN], buf[UPPER], buf[3], scratch,
                scratch + row, scratch + 2 * row, err);
    if (ok) k_strided_copy(out->data, st, buf[3], lane_st, space, nd, es);
  } else {
    error_set(err, ERR_RUNTIME, -1, "tridiagonal solve: out of memory");
  }
  for (int i = 0; i < 4; i++) free(buf[i]);
  free(scratch);
  return ok;
}
