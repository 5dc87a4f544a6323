/* Expansion of a 2:4 structured-sparse dot operand (kernels/k_sparse.h). */
#include "kernels/k_sparse.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/k_common.h"
#include "kernels/kernels.h"

/* dst += src for one element of compute type t. */
static void add_elem(EType t, char *dst, const char *src) {
  switch (t) {
  case ET_F32: *(float *)dst += *(const float *)src; break;
  case ET_F64: *(double *)dst += *(const double *)src; break;
  case ET_C64:
    ((float *)dst)[0] += ((const float *)src)[0];
    ((float *)dst)[1] += ((const float *)src)[1];
    break;
  case ET_C128:
    ((double *)dst)[0] += ((const double *)src)[0];
    ((double *)dst)[1] += ((const double *)src)[1];
    break;
  default: /* S64: wrapping, as the integer dot */
    *(int64_t *)dst = (int64_t)((uint64_t) * (int64_t *)dst + (uint64_t) * (const int64_t *)src);
  }
}

static bool check_shapes(const KArray *packed, int dim, const KArray *meta, const KArray *dense,
                         Error *err) {
  EType t = dense->etype;
  if (t != ET_F32 && t != ET_F64 && t != ET_C64 && t != ET_C128 && t != ET_S64)
    return error_set(err, ERR_RUNTIME, -1, "sparse dot: %s is not a dot compute type", etype_name(t));
  if (dim < 0 || dim >= packed->rank)
    return error_set(err, ERR_RUNTIME, -1, "sparse dot: sparse dimension %d out of range", dim);
  int64_t s = packed->dims[dim];
  if (s % 2)
    return error_set(err, ERR_RUNTIME, -1,
                     "sparse dot: 2:4 sparsity stores 2 values per group, but dimension %d holds %lld",
                     dim, (long long)s);
  if (meta->etype != ET_U16 || meta->rank != packed->rank || dense->rank != packed->rank)
    return error_set(err, ERR_RUNTIME, -1, "sparse dot: metadata must be u16 of the operand's rank");
  for (int d = 0; d < packed->rank; d++) {
    int64_t want = d == dim ? (s + 7) / 8 : packed->dims[d];
    if (meta->dims[d] != want)
      return error_set(err, ERR_RUNTIME, -1,
                       "sparse dot: metadata dimension %d is %lld, expected %lld (2 bits per "
                       "stored value, 8 per u16)", d, (long long)meta->dims[d], (long long)want);
    if (dense->dims[d] != (d == dim ? 2 * s : packed->dims[d]))
      return error_set(err, ERR_RUNTIME, -1, "sparse dot: bad expanded shape");
  }
  return true;
}

bool k_sparse_expand_2_4(const KArray *packed, int dim, const KArray *meta, KArray *dense,
                         Error *err) {
  if (!check_shapes(packed, dim, meta, dense, err)) return false;
  int64_t n, outer = 1, inner = 1, s = packed->dims[dim], words = meta->dims[dim];
  if (!k_num_elements(packed->rank, packed->dims, &n, err)) return false;
  for (int d = 0; d < dim; d++) outer *= packed->dims[d];
  for (int d = dim + 1; d < packed->rank; d++) inner *= packed->dims[d];
  EType t = dense->etype;
  size_t es = (size_t)etype_storage_bytes(t);
  memset(dense->data, 0, (size_t)(2 * n) * es);
  if (n == 0) return true;
  char *vals = k_malloc(n * (int64_t)es, err);
  if (!vals || !k_convert(t, vals, packed->etype, packed->data, n, err)) {
    free(vals);
    return false;
  }
  const uint16_t *m = meta->data;
  char *out = dense->data;
  for (int64_t o = 0; o < outer; o++)
    for (int64_t g = 0; g < s / 2; g++) {
      /* Stored values 2g, 2g+1: the nibble of group g in word g / 4. */
      const uint16_t *mrow = m + (o * words + g / 4) * inner;
      int shift = (int)(4 * (g % 4));
      const char *src = vals + (size_t)((o * s + 2 * g) * inner) * es;
      char *dst = out + (size_t)((o * 2 * s + 4 * g) * inner) * es;
      for (int64_t i = 0; i < inner; i++) {
        int p0 = (mrow[i] >> shift) & 3, p1 = (mrow[i] >> (shift + 2)) & 3;
        memcpy(dst + (size_t)(p0 * inner + i) * es, src + (size_t)i * es, es);
        if (p1 != p0) memcpy(dst + (size_t)(p1 * inner + i) * es, src + (size_t)(inner + i) * es, es);
        else add_elem(t, dst + (size_t)(p1 * inner + i) * es, src + (size_t)(inner + i) * es);
      }
    }
  free(vals);
  return true;
}
