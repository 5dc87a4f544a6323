/* Comparing a result array with a reference array (interp/compare.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/compare.h"
#include "layout/etype_convert.h"

CompareTolerance compare_default_tolerance(EType t) {
  if (t == ET_F32 || t == ET_F64 || etype_is_complex(t)) return (CompareTolerance){1e-5, 1e-8};
  const EFloatFormat *f = etype_float_format(t);
  if (!f) return (CompareTolerance){0, 0};
  /* Smallest positive value: encoding 1 (a subnormal, or the smallest
   * normal without subnormals); f8e8m0fnu has no zero, so encoding 0. */
  double smallest = etype_small_decode(f, f->nan == EF_NAN_E8M0 ? 0u : 1u);
  return (CompareTolerance){ldexp(1.0, 1 - f->mbits), fmax(1e-8, smallest)};
}

/* ---- units in the last place ---- */

/* Sign-magnitude distance: encodings of one sign are ordered like their
 * values, so the distance is the difference of magnitudes within a sign and
 * their sum across signs (which makes +0 and -0 the same step). */
static uint64_t sign_magnitude_distance(uint64_t a, uint64_t b, uint64_t sign_bit) {
  uint64_t ma = a & ~sign_bit, mb = b & ~sign_bit;
  if ((a & sign_bit) == (b & sign_bit)) return ma > mb ? ma - mb : mb - ma;
  return ma + mb;
}

uint64_t compare_ulp_distance(EType t, const void *a, const void *b) {
  if (t == ET_F64) {
    uint64_t x, y;
    memcpy(&x, a, 8);
    memcpy(&y, b, 8);
    return sign_magnitude_distance(x, y, UINT64_C(1) << 63);
  }
  if (t == ET_F32) {
    uint32_t x, y;
    memcpy(&x, a, 4);
    memcpy(&y, b, 4);
    return sign_magnitude_distance(x, y, UINT64_C(1) << 31);
  }
  const EFloatFormat *f = etype_float_format(t);
  if (!f) return 0;
  uint64_t x = 0, y = 0;
  if (etype_storage_bytes(t) == 2) {
    uint16_t p, q;
    memcpy(&p, a, 2);
    memcpy(&q, b, 2);
    x = p, y = q;
  } else {
    uint8_t p, q;
    memcpy(&p, a, 1);
    memcpy(&q, b, 1);
    /* sub-byte floats use the low bits of their byte */
    uint8_t mask = (uint8_t)((1u << etype_bits(t)) - 1u);
    x = p & mask, y = q & mask;
  }
  return sign_magnitude_distance(x, y, f->sign_bit);
}

/* ---- element rules ---- */

/* One real part: NaN matches NaN, an infinity only itself, finite values
 * by isclose's rule (or exactly when exact is set). */
static bool real_matches(double g, double w, CompareTolerance tol, bool exact) {
  if (isnan(g) || isnan(w)) return isnan(g) && isnan(w);
  if (isinf(g) || isinf(w)) return g == w;
  if (exact) return g == w;
  return fabs(g - w) <= tol.atol + tol.rtol * fabs(w);
}

static EType complex_part_type(EType t) { return t == ET_C64 ? ET_F32 : ET_F64; }

bool compare_element_matches(EType t, const void *got, const void *want, CompareTolerance tol) {
  if (etype_is_float(t))
    return real_matches(etype_load_f64(t, got), etype_load_f64(t, want), tol, false);
  if (etype_is_complex(t)) {
    EType pt = complex_part_type(t);
    size_t half = (size_t)etype_storage_bytes(pt);
    double gr = etype_load_f64(pt, got), gi = etype_load_f64(pt, (const char *)got + half);
    double wr = etype_load_f64(pt, want), wi = etype_load_f64(pt, (const char *)want + half);
    if (isfinite(gr) && isfinite(gi) && isfinite(wr) && isfinite(wi))
      return hypot(gr - wr, gi - wi) <= tol.atol + tol.rtol * hypot(wr, wi);
    return real_matches(gr, wr, tol, true) && real_matches(gi, wi, tol, true);
  }
  if (t == ET_U64) return memcmp(got, want, 8) == 0;
  return etype_load_i64(t, got) == etype_load_i64(t, want);
}

/* ---- statistics of one element pair ---- */

typedef struct PairStats {
  bool finite;
  double abs, rel; /* rel < 0: want is 0 */
  uint64_t ulp;
} PairStats;

static double int_value(EType t, const void *p) {
  if (t == ET_U64) {
    uint64_t v;
    memcpy(&v, p, 8);
    return (double)v;
  }
  return (double)etype_load_i64(t, p);
}

static PairStats pair_stats(EType t, const void *got, const void *want) {
  PairStats s = {true, 0, -1, 0};
  double g, w;
  if (etype_is_complex(t)) {
    EType pt = complex_part_type(t);
    size_t half = (size_t)etype_storage_bytes(pt);
    double gr = etype_load_f64(pt, got), gi = etype_load_f64(pt, (const char *)got + half);
    double wr = etype_load_f64(pt, want), wi = etype_load_f64(pt, (const char *)want + half);
    s.finite = isfinite(gr) && isfinite(gi) && isfinite(wr) && isfinite(wi);
    if (!s.finite) return s;
    s.abs = hypot(gr - wr, gi - wi);
    double mag = hypot(wr, wi);
    if (mag != 0) s.rel = s.abs / mag;
    uint64_t ur = compare_ulp_distance(pt, got, want);
    uint64_t ui = compare_ulp_distance(pt, (const char *)got + half, (const char *)want + half);
    s.ulp = ur > ui ? ur : ui;
    return s;
  }
  if (etype_is_float(t)) {
    g = etype_load_f64(t, got);
    w = etype_load_f64(t, want);
    s.finite = isfinite(g) && isfinite(w);
    if (!s.finite) return s;
    s.ulp = compare_ulp_distance(t, got, want);
  } else {
    g = int_value(t, got);
    w = int_value(t, want);
  }
  s.abs = fabs(g - w);
  if (w != 0) s.rel = s.abs / fabs(w);
  return s;
}

/* ---- whole arrays ---- */

bool compare_array(EType t, int rank, const int64_t *dims, const void *data, const NpyArray *want,
                   CompareTolerance tol, CompareReport *out, Error *err) {
  memset(out, 0, sizeof *out);
  out->first_linear = -1;
  out->rank = rank;
  int64_t total = 1;
  for (int d = 0; d < rank; d++) total *= dims[d];
  out->total = total;

  /* The dtype first, with npy_bind's rules on no elements (nothing is
   * converted, only the dtype is checked). */
  char held[128];
  npy_describe(want, held, sizeof held);
  NpyArray probe = *want;
  probe.count = 0;
  probe.crc_pending = false; /* no data bound, none checked */
  unsigned char scratch[COMPARE_ELEM_MAX];
  Error bind_err = {0};
  if (!npy_bind(&probe, t, scratch, &bind_err)) {
    out->verdict = COMPARE_DTYPE_DIFFERS;
    snprintf(out->reason, sizeof out->reason, "dtype differs: %s", bind_err.msg);
    return true;
  }
  bool same_shape = want->rank == rank;
  for (int d = 0; same_shape && d < rank; d++) same_shape = want->dims[d] == dims[d];
  if (!same_shape) {
    out->verdict = COMPARE_SHAPE_DIFFERS;
    snprintf(out->reason, sizeof out->reason, "shape differs: the reference holds %s", held);
    return true;
  }

  size_t esize = (size_t)etype_storage_bytes(t);
  void *ref = malloc(total ? (size_t)total * esize : 1);
  if (!ref) return error_set(err, ERR_RUNTIME, -1, "out of memory for the reference %s", held);
  if (!npy_bind(want, t, ref, &bind_err)) { /* cannot happen after the probe */
    free(ref);
    out->verdict = COMPARE_DTYPE_DIFFERS;
    snprintf(out->reason, sizeof out->reason, "dtype differs: %s", bind_err.msg);
    return true;
  }
  const char *g = data, *w = ref;
  for (int64_t i = 0; i < total; i++) {
    const void *ge = g + (size_t)i * esize, *we = w + (size_t)i * esize;
    PairStats s = pair_stats(t, ge, we);
    if (s.finite) {
      if (s.abs > out->max_abs) out->max_abs = s.abs;
      if (s.rel > out->max_rel) out->max_rel = s.rel;
      if (s.ulp > out->max_ulp) out->max_ulp = s.ulp;
    }
    if (compare_element_matches(t, ge, we, tol)) continue;
    if (out->mismatches++ == 0) {
      out->first_linear = i;
      int64_t rest = i;
      for (int d = rank - 1; d >= 0; d--) {
        out->first_index[d] = rest % dims[d];
        rest /= dims[d];
      }
      memcpy(out->got, ge, esize);
      memcpy(out->want, we, esize);
    }
  }
  free(ref);
  out->verdict = out->mismatches ? COMPARE_VALUES_DIFFER : COMPARE_OK;
  return true;
}
