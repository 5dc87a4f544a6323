/* Looking at the numbers of an array value: NaN and Inf counts, the range,
 * where the first non-finite element sits (--find-nonfinite), and a dense
 * copy of its valid elements (--dump-values). */
#ifndef HLO_INTERP_VALUE_SCAN_H
#define HLO_INTERP_VALUE_SCAN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "interp/value.h"

/* Whether arrays of t hold floating-point numbers (real or complex). */
bool scan_etype_is_float(EType t);

typedef struct ValueScan {
  int64_t elements;  /* valid elements (runtime sizes for dynamic dims) */
  int64_t nan, inf;  /* elements with a NaN / an infinite part (complex: either part) */
  double min, max;   /* over the non-NaN parts (complex: real and imaginary parts);
                      * NaN when there is none */
  /* Row-major index (over the valid dims) of the first NaN element, or of
   * the first infinite one when there is no NaN; -1 when all are finite. */
  int64_t first;
  int rank;
  int64_t dims[SHAPE_MAX_RANK]; /* valid dims */
} ValueScan;

/* Dense row-major natural storage of the valid elements of array leaf v:
 * *data points either into v's buffer or at *owned (malloc'd, the caller
 * frees it; NULL when nothing was copied).  dims receives the valid dims. */
bool value_scan_dense(ValueCtx *vc, const Value *v, const void **data, void **owned,
                      int64_t *dims, Error *err);

/* Scans a floating-point array leaf (scan_etype_is_float of its type). */
bool value_scan_float(ValueCtx *vc, const Value *v, ValueScan *s, Error *err);

/* *found: whether some floating-point array leaf of v (of a tuple: any
 * leaf, recursively) holds a NaN or an Inf.  False only on errors. */
bool value_find_nonfinite(ValueCtx *vc, const Value *v, bool *found, Error *err);

#endif
