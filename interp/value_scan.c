/* NaN/Inf counts and ranges of array values (interp/value_scan.h). */
#include "interp/value_scan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layout/etype_convert.h"

bool scan_etype_is_float(EType t) { return etype_is_float(t) || etype_is_complex(t); }

bool value_scan_dense(ValueCtx *vc, const Value *v, const void **data, void **owned,
                      int64_t *dims, Error *err) {
  *owned = NULL;
  int64_t n = 1;
  for (int i = 0; i < v->info->rank; i++) n *= dims[i] = value_dim_size(v, i);
  const void *d;
  DenseTmp tmp;
  if (!value_dense_read(vc, v, &d, &tmp, err)) return false;
  if (!tmp.p && !v->dyn) { /* the buffer is its own dense view */
    *data = d;
    return true;
  }
  /* A conversion (given back at once) or only the valid elements: a copy. */
  size_t bytes = (size_t)(n * v->info->esize);
  void *copy = malloc(bytes ? bytes : 1);
  if (copy && v->dyn) value_dense_valid(v, d, copy);
  else if (copy && bytes) memcpy(copy, d, bytes);
  value_tmp_free(&tmp);
  if (!copy) return error_set(err, ERR_RUNTIME, -1, "out of memory");
  *data = *owned = copy;
  return true;
}

/* The part type of complex types; t itself for real ones. */
static EType part_type(EType t) {
  return t == ET_C64 ? ET_F32 : t == ET_C128 ? ET_F64 : t;
}

static double load_part(EType pt, const void *base, int64_t k) {
  switch (pt) {
  case ET_F32: return ((const float *)base)[k];
  case ET_F64: return ((const double *)base)[k];
  default: return etype_load_f64(pt, (const char *)base + k * etype_storage_bytes(pt));
  }
}

bool value_scan_float(ValueCtx *vc, const Value *v, ValueScan *s, Error *err) {
  memset(s, 0, sizeof *s);
  s->first = -1;
  s->min = s->max = NAN;
  s->rank = v->info->rank;
  const void *data;
  void *owned;
  if (!value_scan_dense(vc, v, &data, &owned, s->dims, err)) return false;
  int64_t n = 1;
  for (int i = 0; i < s->rank; i++) n *= s->dims[i];
  s->elements = n;
  EType t = v->info->etype, pt = part_type(t);
  int parts = pt == t ? 1 : 2;
  int64_t first_inf = -1;
  bool any = false;
  for (int64_t e = 0; e < n; e++) {
    bool nan = false, inf = false;
    for (int p = 0; p < parts; p++) {
      double x = load_part(pt, data, e * parts + p);
      if (isnan(x)) {
        nan = true;
        continue;
      }
      if (isinf(x)) inf = true;
      if (!any || x < s->min) s->min = x;
      if (!any || x > s->max) s->max = x;
      any = true;
    }
    if (nan) {
      if (!s->nan) s->first = e;
      s->nan++;
    } else if (inf) {
      if (!s->inf) first_inf = e;
      s->inf++;
    }
  }
  /* An element with a NaN part and an infinite one counts as NaN. */
  if (!s->nan) s->first = first_inf;
  free(owned);
  return true;
}

/* Whether n parts of type pt at data hold a NaN or an Inf (stops at the
 * first: the common case of the --find-nonfinite check is "none"). */
static bool parts_nonfinite(EType pt, const void *data, int64_t n) {
  if (pt == ET_F32) {
    const float *f = data;
    for (int64_t k = 0; k < n; k++)
      if (!isfinite(f[k])) return true;
    return false;
  }
  if (pt == ET_F64) {
    const double *f = data;
    for (int64_t k = 0; k < n; k++)
      if (!isfinite(f[k])) return true;
    return false;
  }
  for (int64_t k = 0; k < n; k++)
    if (!isfinite(load_part(pt, data, k))) return true;
  return false;
}

bool value_find_nonfinite(ValueCtx *vc, const Value *v, bool *found, Error *err) {
  *found = false;
  if (!v) return true;
  if (v->ntuple) {
    for (int i = 0; i < v->ntuple && !*found; i++)
      if (!value_find_nonfinite(vc, v->elems[i], found, err)) return false;
    return true;
  }
  if (!v->info || !v->buf || !scan_etype_is_float(v->info->etype)) return true;
  const void *data;
  void *owned;
  int64_t dims[SHAPE_MAX_RANK];
  if (!value_scan_dense(vc, v, &data, &owned, dims, err)) return false;
  int64_t n = 1;
  for (int i = 0; i < v->info->rank; i++) n *= dims[i];
  EType t = v->info->etype, pt = part_type(t);
  *found = parts_nonfinite(pt, data, pt == t ? n : 2 * n);
  free(owned);
  return true;
}
