/* Comparing one result array with a reference array (hlorun --expect).
 *
 * The reference is an array as read from a .npy file or .npz entry; it is
 * first converted to the result's declared element type with the rules that
 * bind inputs (npy_bind: the exact dtype, float32 for bf16/f8/f6/f4, raw
 * '<V2' bits for bf16/f16, one raw byte per element for 8-bit and sub-byte
 * types, int8/uint8 for s2/s4/u2/u4, bool for pred), so both sides are
 * values of the declared type and every statistic is in that type.
 *
 * Rules per element (docs/cli.md "Comparing with a reference"):
 *   floats   pass when |got - want| <= atol + rtol * |want| (numpy.isclose's
 *            rule), computed in double of the declared type's values;
 *            NaN matches NaN (any sign or payload); an infinity matches only
 *            the same infinity; -0 equals +0;
 *   complex  the same rule on the complex value (|got - want| and |want| are
 *            complex magnitudes); an element with a NaN or infinite part
 *            matches when, part by part, the NaN/infinity rules hold and the
 *            finite parts are equal;
 *   integers and pred: exact.
 * Nothing here prints; the caller formats the report. */
#ifndef HLO_INTERP_COMPARE_H
#define HLO_INTERP_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "interp/io/npy.h"
#include "layout/etype.h"
#include "layout/shape.h"

typedef struct CompareTolerance {
  double rtol, atol;
} CompareTolerance;

/* The default tolerance for a declared element type:
 *   f32, f64: rtol 1e-5, atol 1e-8 (numpy.isclose's defaults);
 *   f16, bf16, f8/f6/f4: rtol 2^(1 - m) for m explicit mantissa bits (two
 *   units in the last place, relative, at the bottom of a binade: bf16
 *   0.015625, f16 0.001953125, f8e4m3fn 0.25), atol the larger of 1e-8 and
 *   the smallest positive value of the type (one step at zero);
 *   integers, pred: 0 and 0 (they compare exactly in any case). */
CompareTolerance compare_default_tolerance(EType t);

typedef enum {
  COMPARE_OK,            /* every element matches */
  COMPARE_VALUES_DIFFER, /* same dtype and shape, some elements differ */
  COMPARE_DTYPE_DIFFERS, /* the reference's dtype cannot stand for the declared type */
  COMPARE_SHAPE_DIFFERS  /* the reference's dims are not the result's */
} CompareVerdict;

enum { COMPARE_ELEM_MAX = 16 }; /* bytes of the largest element (c128) */

typedef struct CompareReport {
  CompareVerdict verdict;
  char reason[1100]; /* for COMPARE_DTYPE_DIFFERS / COMPARE_SHAPE_DIFFERS */
  int64_t total, mismatches;
  /* Over the element pairs where both values are finite (non-finite pairs
   * either match exactly or count as mismatches):  max |got - want|,
   * max |got - want| / |want| (pairs with want == 0 left out), and for
   * float and complex types the largest distance in units in the last place
   * of the declared type (steps between the two encodings; +0 and -0 are the
   * same step; complex: the larger of the two parts').  Integers: max abs
   * and max rel only, max_ulp 0. */
  double max_abs, max_rel;
  uint64_t max_ulp;
  /* The first mismatched element (row-major order): its index and both
   * values in the declared type's natural storage (for etype_format).
   * first_linear is -1 when nothing mismatches. */
  int64_t first_linear;
  int rank;
  int64_t first_index[SHAPE_MAX_RANK];
  unsigned char got[COMPARE_ELEM_MAX], want[COMPARE_ELEM_MAX];
} CompareReport;

/* Compares a result array (declared type t, dims, dense row-major data in
 * natural storage) with a reference.  The verdict and statistics go into
 * *out.  Returns false only when memory runs out (err set). */
bool compare_array(EType t, int rank, const int64_t *dims, const void *data, const NpyArray *want,
                   CompareTolerance tol, CompareReport *out, Error *err);

/* One element pair of type t (natural storage) under the rules above. */
bool compare_element_matches(EType t, const void *got, const void *want, CompareTolerance tol);

/* Steps between two encodings of float type t (f16, bf16, f32, f64, every
 * f8/f6/f4): adjacent representable values are 1 apart, +0 and -0 are 0
 * apart, the smallest subnormals of either sign 2 apart; an infinity is one
 * step past the largest finite value.  NaN encodings give a meaningless
 * number: callers leave NaN out. */
uint64_t compare_ulp_distance(EType t, const void *a, const void *b);

#endif
