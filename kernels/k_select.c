/* select and clamp.  clamp(lo, x, hi) = min(max(lo, x), hi) with XLA's float
 * max/min: a NaN lo wins, then a NaN x, then a NaN hi (HloEvaluator
 * HandleClamp checks them in that order). */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include <string.h>

#include "kernels/k_internal.h"
#include "kernels/kernels.h"

typedef struct {
  uint64_t lo, hi;
} K16;

#define SELECT_LOOP(T)                                                          \
  do {                                                                          \
    T *o = out;                                                                 \
    const T *x = on_true, *y = on_false;                                        \
    if (pred_scalar) {                                                          \
      memcpy(o, pred[0] ? (const void *)x : (const void *)y, (size_t)n * sizeof(T)); \
    } else {                                                                    \
      for (int64_t i = 0; i < n; i++) o[i] = pred[i] ? x[i] : y[i];             \
    }                                                                           \
  } while (0)

bool k_select(EType t, void *restrict out, const uint8_t *pred, bool pred_scalar, const void *on_true,
              const void *on_false, int64_t n, Error *err) {
  if (!etype_is_array(t) || t == ET_TOKEN || t == ET_OPAQUE)
    return error_set(err, ERR_RUNTIME, -1, "select is not defined for element type %s", etype_name(t));
  if (n <= 0) return true;
  switch (etype_storage_bytes(t)) {
  case 1: SELECT_LOOP(uint8_t); return true;
  case 2: SELECT_LOOP(uint16_t); return true;
  case 4: SELECT_LOOP(uint32_t); return true;
  case 8: SELECT_LOOP(uint64_t); return true;
  case 16: SELECT_LOOP(K16); return true;
  default: return error_set(err, ERR_RUNTIME, -1, "select is not defined for element type %s", etype_name(t));
  }
}

/* One loop per combination of scalar and array bounds: each indexes its
 * operands affinely, so all of them vectorise (a per-element "scalar ?
 * 0 : i" kept the array case scalar and branchy). */
#define CLAMP_LOOP(T, MAX, MIN)                                                  \
  do {                                                                           \
    T *restrict o = out;                                                         \
    const T *l = lo, *x = xv, *h = hi;                                           \
    if (lo_scalar && hi_scalar) {                                                \
      T L = l[0], H = h[0];                                                      \
      for (int64_t i = 0; i < n; i++) o[i] = MIN(MAX(L, x[i]), H);               \
    } else if (lo_scalar) {                                                      \
      T L = l[0];                                                                \
      for (int64_t i = 0; i < n; i++) o[i] = MIN(MAX(L, x[i]), h[i]);            \
    } else if (hi_scalar) {                                                      \
      T H = h[0];                                                                \
      for (int64_t i = 0; i < n; i++) o[i] = MIN(MAX(l[i], x[i]), H);            \
    } else {                                                                     \
      for (int64_t i = 0; i < n; i++) o[i] = MIN(MAX(l[i], x[i]), h[i]);         \
    }                                                                            \
  } while (0)

#define IMAX(a, b) ((a) >= (b) ? (a) : (b))
#define IMIN(a, b) ((a) <= (b) ? (a) : (b))

K_CLONES static void clamp_typed(EType t, void *restrict out, const void *lo, bool lo_scalar, const void *xv,
                        const void *hi, bool hi_scalar, int64_t n) {
  switch (t) {
  case ET_S1: case ET_S2: case ET_S4: case ET_S8: CLAMP_LOOP(int8_t, IMAX, IMIN); break;
  /* pred: false < true, as XLA's evaluator's std::min/max on bool */
  case ET_PRED: case ET_U1: case ET_U2: case ET_U4: case ET_U8: CLAMP_LOOP(uint8_t, IMAX, IMIN); break;
  case ET_S16: CLAMP_LOOP(int16_t, IMAX, IMIN); break;
  case ET_U16: CLAMP_LOOP(uint16_t, IMAX, IMIN); break;
  case ET_S32: CLAMP_LOOP(int32_t, IMAX, IMIN); break;
  case ET_U32: CLAMP_LOOP(uint32_t, IMAX, IMIN); break;
  case ET_S64: CLAMP_LOOP(int64_t, IMAX, IMIN); break;
  case ET_U64: CLAMP_LOOP(uint64_t, IMAX, IMIN); break;
  case ET_F32: CLAMP_LOOP(float, kmax_f32, kmin_f32); break;
  case ET_F64: CLAMP_LOOP(double, kmax_f64, kmin_f64); break;
  default: break;
  }
}

bool k_clamp(EType t, void *restrict out, const void *lo, bool lo_scalar, const void *x, const void *hi,
             bool hi_scalar, int64_t n, Error *err) {
  if (!etype_is_int(t) && !etype_is_float(t) && t != ET_PRED)
    return error_set(err, ERR_RUNTIME, -1, "clamp is not defined for element type %s", etype_name(t));
  if (n <= 0) return true;
  if (!k_is_narrow_float(t)) {
    clamp_typed(t, out, lo, lo_scalar, x, hi, hi_scalar, n);
    return true;
  }
  float fl[K_BLOCK], fx[K_BLOCK], fh[K_BLOCK], r[K_BLOCK];
  int sz = etype_storage_bytes(t);
  if (lo_scalar) etype_convert_array(ET_F32, fl, t, lo, 1);
  if (hi_scalar) etype_convert_array(ET_F32, fh, t, hi, 1);
  for (int64_t at = 0; at < n; at += K_BLOCK) {
    int64_t m = n - at < K_BLOCK ? n - at : K_BLOCK;
    if (!lo_scalar) etype_convert_array(ET_F32, fl, t, (const char *)lo + at * sz, m);
    if (!hi_scalar) etype_convert_array(ET_F32, fh, t, (const char *)hi + at * sz, m);
    etype_convert_array(ET_F32, fx, t, (const char *)x + at * sz, m);
    for (int64_t i = 0; i < m; i++)
      r[i] = kmin_f32(kmax_f32(fl[lo_scalar ? 0 : i], fx[i]), fh[hi_scalar ? 0 : i]);
    etype_convert_array(t, (char *)out + at * sz, ET_F32, r, m);
  }
  return true;
}
