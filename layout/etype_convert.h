/* Element values: loading, storing, converting and printing single elements
 * and whole arrays of any element type, with XLA's rounding and range rules.
 * Elements are in natural storage (etype_storage_bytes; sub-byte types one per
 * byte, sign-extended for sN; pred 0/1; complex = two floats re, im). */
#ifndef HLO_LAYOUT_ETYPE_CONVERT_H
#define HLO_LAYOUT_ETYPE_CONVERT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/strbuf.h"
#include "layout/etype.h"

/* Scalar helpers for the 16-bit floats (round to nearest even).  The bf16
 * pair is inline and branch-free so that array loops over bf16 (the common
 * type of real models) vectorise: NaN becomes the quiet NaN of its sign,
 * payload dropped, as Eigen's float_to_bfloat16_rtne. */
static inline float etype_bf16_to_f32(uint16_t bits) {
  uint32_t u = (uint32_t)bits << 16;
  float v;
  memcpy(&v, &u, 4);
  return v;
}
static inline uint16_t etype_f32_to_bf16(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  uint32_t quiet_nan = ((u >> 16) & 0x8000u) | 0x7fc0u;
  return (uint16_t)(v != v ? quiet_nan : rounded);
}
float etype_f16_to_f32(uint16_t bits);
uint16_t etype_f32_to_f16(float v);

/* --- small float formats (everything except f32/f64 is encoded in software) ---
 * Parameters of a binary float format as ml_dtypes/Eigen define it. */
typedef enum {
  EF_NAN_IEEE, /* exponent all ones: mantissa 0 = inf, else NaN (f16, bf16, e5m2, e4m3, e3m4) */
  EF_NAN_FN,   /* no inf; NaN = S.1111.111 (f8e4m3fn) */
  EF_NAN_FNUZ, /* no inf, no -0; NaN = 1000 0000 (f8e4m3fnuz, f8e5m2fnuz, f8e4m3b11fnuz) */
  EF_NAN_E8M0, /* unsigned, no zero, NaN = 0xff (f8e8m0fnu) */
  EF_NAN_NONE  /* no inf, no NaN: overflow saturates (f6e2m3fn, f6e3m2fn, f4e2m1fn) */
} EFloatNan;

typedef struct EFloatFormat {
  int ebits, mbits, bias;
  bool is_signed; /* has a sign bit (bit ebits+mbits) */
  EFloatNan nan;
  uint32_t max_bits;  /* largest finite magnitude */
  uint32_t inf_bits;  /* what overflow produces (inf, NaN or max), positive */
  uint32_t qnan_bits; /* default quiet NaN, positive (for FNUZ: 0x80) */
  uint32_t sign_bit;  /* 0 for unsigned formats */
  int max_digits10;   /* std::numeric_limits<T>::max_digits10 */
} EFloatFormat;

/* The format of a float type (f16, bf16, f32, f64, every f8/f6/f4); NULL for
 * other types. */
const EFloatFormat *etype_float_format(EType t);
/* Exact value of an encoded element (NaN keeps its sign, payload dropped). */
double etype_small_decode(const EFloatFormat *f, uint32_t bits);
/* Rounds to nearest even as ml_dtypes' ConvertFrom does (single rounding
 * from v); *overflow (may be NULL) is set when a finite v rounds past the
 * largest finite value. */
uint32_t etype_small_encode(const EFloatFormat *f, double v, bool *overflow);
bool etype_small_is_nan(const EFloatFormat *f, uint32_t bits);
/* Reads/writes one float element of any float type as f32/f64 with XLA's
 * conversion rules (f64 -> bf16/f16 goes through f32, as Eigen does). */
float etype_load_f32(EType t, const void *src);
void etype_store_f32(EType t, float v, void *dst);
void etype_store_f64_round(EType t, double v, void *dst);

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
/* The same text written at buf (room for ETYPE_TEXT_MAX bytes, not
 * NUL-terminated); returns its length. */
enum { ETYPE_TEXT_MAX = 96 };
int etype_format_to(char *buf, EType t, const void *elem, bool pred_as_word);

#endif
