/* Einsum execution (k_einsum.h): diagonals and inverse diagonals are
 * strided copies, summed-away dims one k_reduce, the contraction one k_dot
 * (BLAS for floats), the output order one k_transpose.  Every step also
 * runs "dry" (dims only) so k_einsum_shape and k_einsum share one plan. */
#include <stdlib.h>
#include <string.h>

#include "kernels/k_dot.h"
#include "kernels/k_einsum.h"
#include "kernels/k_movement.h"
#include "kernels/k_reduce.h"
#include "kernels/kernels.h"

enum { MAXL = K_EINSUM_MAX_LABELS };

/* A step's array: dims always, data unless dry. */
typedef struct Arr {
  EType t;
  int rank;
  int64_t dims[MAXL];
  void *data;
  bool own; /* data is ours to free */
} Arr;

static void arr_free(Arr *a) {
  if (a->own) free(a->data);
  a->data = NULL;
  a->own = false;
}

static int find(const int *labels, int n, int label) {
  for (int i = 0; i < n; i++)
    if (labels[i] == label) return i;
  return -1;
}

static bool has_dups(const int *labels, int n) {
  for (int i = 0; i < n; i++)
    if (find(labels, i, labels[i]) >= 0) return true;
  return false;
}

/* Distinct labels in order of first appearance. */
static int unique(const int *labels, int n, int *u) {
  int nu = 0;
  for (int i = 0; i < n; i++)
    if (find(u, nu, labels[i]) < 0) u[nu++] = labels[i];
  return nu;
}

static void label_text(int label, char *buf) {
  if (label > 0) buf[0] = (char)label, buf[1] = 0;
  else strcpy(buf, "...");
}

/* Sets r's dims (already filled) and, unless dry, its data: dst when given
 * (the caller's result buffer), else a fresh zeroed buffer. */
static bool arr_alloc(Arr *r, void *dst, bool dry, Error *err) {
  int64_t n;
  if (!k_num_elements(r->rank, r->dims, &n, err)) return false;
  r->data = NULL, r->own = false;
  if (dry) return true;
  if (dst) {
    r->data = dst;
    return true;
  }
  size_t bytes = (size_t)n * (size_t)k_elem_size(r->t);
  r->data = calloc(bytes ? bytes : 1, 1);
  if (!r->data) return error_set(err, ERR_RUNTIME, -1, "einsum: out of memory");
  r->own = true;
  return true;
}

static int64_t arr_count(const Arr *a) {
  int64_t n = 1;
  for (int d = 0; d < a->rank; d++) n *= a->dims[d];
  return n;
}

/* The diagonal over repeated labels of x: one dim per distinct label, sized
 * by its first occurrence; positions past a later occurrence's size are 0.
 * Float/complex values then get + 0 (XLA reduces the masked array with an
 * add, which turns -0 into +0). */
static bool diag(const Arr *x, const int *xl, Arr *r, int *rl, bool dry, Error *err) {
  int nu = unique(xl, x->rank, rl);
  int64_t xs[MAXL], src_st[MAXL] = {0}, ext[MAXL], dst_st[MAXL];
  k_row_major_strides(x->dims, x->rank, xs);
  r->t = x->t, r->rank = nu;
  for (int u = 0; u < nu; u++) r->dims[u] = -1;
  for (int d = 0; d < x->rank; d++) {
    int u = find(rl, nu, xl[d]);
    if (r->dims[u] < 0) r->dims[u] = ext[u] = x->dims[d];
    if (x->dims[d] < ext[u]) ext[u] = x->dims[d];
    src_st[u] += xs[d];
  }
  Arr vals = *r;
  if (!arr_alloc(&vals, NULL, dry, err)) return false;
  if (dry) return true;
  k_row_major_strides(r->dims, nu, dst_st);
  bool empty = false;
  for (int u = 0; u < nu; u++) empty |= ext[u] == 0;
  if (!empty)
    k_strided_copy(vals.data, dst_st, x->data, src_st, ext, nu, (size_t)k_elem_size(x->t));
  if (!etype_is_float(x->t) && !etype_is_complex(x->t)) {
    *r = vals;
    return true;
  }
  Arr zeros = *r;
  bool ok = arr_alloc(&zeros, NULL, false, err) && arr_alloc(r, NULL, false, err);
  ok = ok && k_binary(KB_ADD, r->t, r->data, vals.data, zeros.data, arr_count(r), err);
  if (!ok) arr_free(r);
  arr_free(&zeros);
  arr_free(&vals);
  return ok;
}

/* y (distinct labels yl) placed on the diagonals of the output labels ol
 * (with repeats), zeros elsewhere. */
static bool inverse_diag(const Arr *y, const int *yl, const int *ol, int on, Arr *r, void *dst,
                         bool dry, Error *err) {
  r->t = y->t, r->rank = on;
  for (int o = 0; o < on; o++) r->dims[o] = y->dims[find(yl, y->rank, ol[o])];
  if (!arr_alloc(r, dst, dry, err)) return false;
  if (dry) return true;
  int64_t n = arr_count(r);
  memset(r->data, 0, (size_t)n * (size_t)k_elem_size(r->t));
  int64_t os[MAXL], src_st[MAXL], dst_st[MAXL] = {0};
  k_row_major_strides(r->dims, on, os);
  k_row_major_strides(y->dims, y->rank, src_st);
  for (int o = 0; o < on; o++) dst_st[find(yl, y->rank, ol[o])] += os[o];
  if (arr_count(y) > 0)
    k_strided_copy(r->data, dst_st, y->data, src_st, y->dims, y->rank, (size_t)k_elem_size(y->t));
  return true;
}

/* Sums x over the dims flagged in del (none: a borrowed view). */
static bool sum_away(const Arr *x, const bool *del, Arr *r, bool dry, Error *err) {
  int64_t dims[MAXL];
  int nd = 0;
  r->t = x->t, r->rank = 0;
  for (int d = 0; d < x->rank; d++) {
    if (del[d]) dims[nd++] = d;
    else r->dims[r->rank++] = x->dims[d];
  }
  if (nd == 0) {
    r->data = x->data, r->own = false;
    return true;
  }
  if (!arr_alloc(r, NULL, dry, err)) return false;
  if (dry) return true;
  static const unsigned char zero[16];
  const void *init = zero;
  KReduceOp op = K_RED_ADD;
  KReducer red = {&op, NULL, NULL};
  KArray in = {x->t, x->rank, x->dims, x->data}, out = {r->t, r->rank, r->dims, r->data};
  if (!k_reduce(1, &in, &init, nd, dims, &red, &out, err)) {
    arr_free(r);
    return false;
  }
  return true;
}

/* Distinct labels everywhere: one dot_general between summing away and a
 * final transpose, as XLA's Einsum builds it. */
static bool core(const Arr *x, const int *xl, const Arr *y, const int *yl, const int *ol, int on,
                 Arr *r, void *dst, bool dry, Error *err) {
  bool ldel[MAXL] = {0}, rdel[MAXL] = {0}, lfree[MAXL] = {0}, rfree[MAXL] = {0};
  int lb[MAXL], rb[MAXL], lc[MAXL], rc[MAXL], nb = 0, nc = 0;
  for (int i = 0; i < x->rank; i++) {
    int j = find(yl, y->rank, xl[i]);
    if (j < 0) {
      lfree[i] = true;
    } else if (x->dims[i] == y->dims[j]) {
      if (find(ol, on, xl[i]) >= 0) lb[nb] = i, rb[nb++] = j;
      else lc[nc] = i, rc[nc++] = j;
    } else if (x->dims[i] == 1) {
      ldel[i] = true, rfree[j] = true;
    } else {
      lfree[i] = true, rdel[j] = true;
    }
  }
  for (int j = 0; j < y->rank; j++)
    if (find(xl, x->rank, yl[j]) < 0) rfree[j] = true;
  /* Output position of each dot result dim: batch, x free, y free. */
  int opos[MAXL], nt = 0;
  for (int k = 0; k < nb; k++) opos[nt++] = find(ol, on, xl[lb[k]]);
  for (int i = 0; i < x->rank; i++)
    if (lfree[i]) {
      int o = find(ol, on, xl[i]);
      if (o >= 0) opos[nt++] = o;
      else ldel[i] = true;
    }
  for (int j = 0; j < y->rank; j++)
    if (rfree[j]) {
      int o = find(ol, on, yl[j]);
      if (o >= 0) opos[nt++] = o;
      else rdel[j] = true;
    }
  for (int o = 0; o < on; o++) {
    bool found = false;
    for (int k = 0; k < nt; k++) found |= opos[k] == o;
    if (!found) {
      char t[4];
      label_text(ol[o], t);
      return error_set(err, ERR_RUNTIME, -1, "einsum: output label %s is in neither operand", t);
    }
  }
  /* Dot dims after summing away: indices shift down past deleted dims. */
  int64_t dlb[MAXL], drb[MAXL], dlc[MAXL], drc[MAXL];
  int lshift[MAXL], rshift[MAXL];
  for (int i = 0, s = 0; i < x->rank; i++) lshift[i] = i - s, s += ldel[i];
  for (int j = 0, s = 0; j < y->rank; j++) rshift[j] = j - s, s += rdel[j];
  for (int k = 0; k < nb; k++) dlb[k] = lshift[lb[k]], drb[k] = rshift[rb[k]];
  for (int k = 0; k < nc; k++) dlc[k] = lshift[lc[k]], drc[k] = rshift[rc[k]];
  Arr dot = {.t = x->t};
  for (int k = 0; k < nb; k++) dot.dims[dot.rank++] = x->dims[lb[k]];
  for (int i = 0; i < x->rank; i++)
    if (lfree[i] && !ldel[i]) dot.dims[dot.rank++] = x->dims[i];
  for (int j = 0; j < y->rank; j++)
    if (rfree[j] && !rdel[j]) dot.dims[dot.rank++] = y->dims[j];
  int64_t perm[MAXL];
  bool identity = true;
  for (int k = 0; k < nt; k++) perm[opos[k]] = k;
  for (int k = 0; k < nt; k++) identity &= perm[k] == k;
  r->t = x->t, r->rank = on;
  for (int o = 0; o < on; o++) r->dims[o] = dot.dims[perm[o]];
  if (dry) return arr_alloc(r, NULL, true, err);

  Arr xs = {0}, ys = {0};
  bool ok = sum_away(x, ldel, &xs, false, err) && sum_away(y, rdel, &ys, false, err) &&
            arr_alloc(&dot, identity ? dst : NULL, false, err);
  if (ok) {
    KArray ka = {xs.t, xs.rank, xs.dims, xs.data}, kb = {ys.t, ys.rank, ys.dims, ys.data};
    KArray kd = {dot.t, dot.rank, dot.dims, dot.data};
    KDotDims dn = {nb, dlb, drb, nc, dlc, drc};
    ok = k_dot(&ka, &kb, &dn, &kd, err);
  }
  arr_free(&xs);
  arr_free(&ys);
  if (ok && identity) {
    *r = dot;
    return true;
  }
  ok = ok && arr_alloc(r, dst, false, err);
  if (ok) k_transpose(r->data, dot.data, dot.dims, perm, dot.rank, (size_t)k_elem_size(dot.t));
  arr_free(&dot);
  return ok;
}

/* XLA's order: x's diagonal, then y's, then the output's inverse diagonal
 * around the rest. */
static bool run(const Arr *x, const int *xl, const Arr *y, const int *yl, const int *ol, int on,
                Arr *r, void *dst, bool dry, Error *err) {
  int ul[MAXL];
  Arr t = {0};
  bool ok;
  if (has_dups(xl, x->rank)) {
    ok = diag(x, xl, &t, ul, dry, err) && run(&t, ul, y, yl, ol, on, r, dst, dry, err);
  } else if (has_dups(yl, y->rank)) {
    ok = diag(y, yl, &t, ul, dry, err) && run(x, xl, &t, ul, ol, on, r, dst, dry, err);
  } else if (has_dups(ol, on)) {
    int nu = unique(ol, on, ul);
    ok = run(x, xl, y, yl, ul, nu, &t, NULL, dry, err) &&
         inverse_diag(&t, ul, ol, on, r, dst, dry, err);
  } else {
    return core(x, xl, y, yl, ol, on, r, dst, dry, err);
  }
  arr_free(&t);
  return ok;
}

static bool start(const KEinsumConfig *c, const KArray *x, const KArray *y, Arr *ax, Arr *ay,
                  Error *err) {
  if (x->rank != c->nx || y->rank != c->ny || x->rank > MAXL || y->rank > MAXL)
    return error_set(err, ERR_RUNTIME, -1, "einsum: the config names %d and %d dims, operands have %d and %d",
                     c->nx, c->ny, x->rank, y->rank);
  if (x->etype != y->etype)
    return error_set(err, ERR_RUNTIME, -1, "einsum: operands of different element types (%s, %s)",
                     etype_name(x->etype), etype_name(y->etype));
  if (!etype_is_array(x->etype))
    return error_set(err, ERR_RUNTIME, -1, "einsum: element type %s is not supported",
                     etype_name(x->etype));
  *ax = (Arr){.t = x->etype, .rank = x->rank, .data = x->data};
  *ay = (Arr){.t = y->etype, .rank = y->rank, .data = y->data};
  if (x->rank) memcpy(ax->dims, x->dims, sizeof(int64_t) * (size_t)x->rank);
  if (y->rank) memcpy(ay->dims, y->dims, sizeof(int64_t) * (size_t)y->rank);
  return true;
}

bool k_einsum_shape(const KEinsumConfig *c, const KArray *x, const KArray *y, int *rank,
                    int64_t *dims, Error *err) {
  Arr ax, ay, r = {0};
  if (!start(c, x, y, &ax, &ay, err) || !run(&ax, c->x, &ay, c->y, c->out, c->nout, &r, NULL, true, err))
    return false;
  *rank = r.rank;
  if (r.rank) memcpy(dims, r.dims, sizeof(int64_t) * (size_t)r.rank);
  return true;
}

bool k_einsum(const KEinsumConfig *c, const KArray *x, const KArray *y, KArray *out, Error *err) {
  Arr ax, ay, r = {0};
  int rank;
  int64_t dims[MAXL];
  if (!k_einsum_shape(c, x, y, &rank, dims, err) || !start(c, x, y, &ax, &ay, err)) return false;
  if (out->etype != x->etype || out->rank != rank ||
      (rank && memcmp(out->dims, dims, sizeof(int64_t) * (size_t)rank)))
    return error_set(err, ERR_RUNTIME, -1, "einsum: the result array has the wrong shape");
  if (!run(&ax, c->x, &ay, c->y, c->out, c->nout, &r, out->data, false, err)) return false;
  /* Every last step writes into dst; a copy only if one did not. */
  if (r.data != out->data) {
    int64_t n = arr_count(&r);
    memcpy(out->data, r.data, (size_t)n * (size_t)k_elem_size(r.t));
  }
  arr_free(&r);
  return true;
}
