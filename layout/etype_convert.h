/* Element values: loading, storing, converting and printing single elements
 * and whole arrays of any element type, with XLA's rounding and range rules.
 * Elements are in natural storage (etype_storage_bytes; sub-byte types one per
 * byte, sign-extended for sN; pred 0/1; complex = two floats re, im). */
#ifndef HLO_LAYOUT_ETYPE_CONVERT_H
#define HLO_LAYOUT_ETYPE_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "layout/etype.h"

/* Scalar helpers for the 16-bit floats (round to nearest even). */
float etype_bf16_to_f32(uint16_t bits);
uint16_t etype_f32_to_bf16(float v);
float etype_f16_to_f32(uint16_t bits);
uint16_t etype_f32_to_f16(float v);

/* --- storing literal values (the HLO text literal parser's rules) ---
 * Each returns false when the value does not fit the type: an integer out of
 * range for an integer type or pred (pred takes 0/1), a finite float that
 * overflows the float type after rounding (f16 65520 -> error, 65519 -> 65504),
 * a NaN payload that the type cannot hold.  For complex types the _float and
 * _int forms set the real part and zero the imaginary part;
 * etype_store_complex sets both. */
bool etype_store_int(EType t, int64_t v, void *dst);
bool etype_store_uint(EType t, uint64_t v, void *dst); /* values > INT64_MAX */
bool etype_store_float(EType t, double v, void *dst);
bool etype_store_nan(EType t, bool negative, uint64_t payload /* 0 = quiet default */, void *dst);
bool etype_store_complex(EType t, double re, double im, void *dst);

/* --- loading --- */
double etype_load_f64(EType t, const void *src);  /* real part for complex */
int64_t etype_load_i64(EType t, const void *src); /* ints/pred; u64 as bits */

/* --- converting whole arrays with XLA `convert` semantics ---
 * float->int: NaN -> 0, saturating at the integer range, truncation toward 0;
 * int/float->narrow float: round to nearest even, overflow to inf (or NaN / max
 * for types without inf as XLA does); complex->real takes the real part;
 * anything->pred: != 0. */
void etype_convert_array(EType dst_t, void *dst, EType src_t, const void *src, int64_t n);

/* --- printing in XLA's literal text format ---
 * Integers in decimal; floats with %.{max_digits10}g of the type (shortest
 * that round-trips: "0.1", "1e+10", "3.14159274"), "inf", "-inf", "nan",
 * "-nan", payloads as "nan(0x..)"; complex as "(re, im)"; pred as
 * "true"/"false" when as_word, else "1"/"0". */
void etype_format(StrBuf *sb, EType t, const void *elem, bool pred_as_word);

#endif
