/* Fast, exact decimal text for floats and integers, for printing big arrays
 * (layout/etype_format.c).  Every routine writes the same characters as the
 * libc call named beside it, without calling it: correctly rounded digits
 * from exact integer arithmetic, printf's %g layout.  Buffers need room for
 * FLOAT_TEXT_MAX bytes; nothing is NUL-terminated; the length is returned. */
#ifndef HLO_LAYOUT_FLOAT_TEXT_H
#define HLO_LAYOUT_FLOAT_TEXT_H

#include <stdint.h>

enum { FLOAT_TEXT_MAX = 32 };

/* XLA's RoundTripFpToString for a non-NaN f32: snprintf "%.6g" if strtof
 * reads that back as v, else "%.9g" ("inf", "-inf", "-0" included). */
int float_text_f32_roundtrip(char *buf, float v);
/* snprintf "%.{precision}g" of a non-NaN f32 (exactly representable in
 * double, so the same as printing (double)v); precision 1..9. */
int float_text_f32_g(char *buf, float v, int precision);
/* snprintf "%" PRIu64 / "%" PRId64. */
int float_text_u64(char *buf, uint64_t v);
int float_text_i64(char *buf, int64_t v);

#endif
