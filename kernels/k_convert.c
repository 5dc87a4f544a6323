/* convert, bitcast-convert and reduce-precision. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include <string.h>

#include "kernels/k_internal.h"
#include "kernels/kernels.h"

static bool convertible(EType t) { return etype_is_array(t) && t != ET_TOKEN && t != ET_OPAQUE; }

bool k_convert(EType dst_t, void *restrict out, EType src_t, const void *in, int64_t n, Error *err) {
  if (!convertible(dst_t) || !convertible(src_t))
    return error_set(err, ERR_RUNTIME, -1, "convert from %s to %s is not defined", etype_name(src_t),
                     etype_name(dst_t));
  etype_convert_array(dst_t, out, src_t, in, n);
  return true;
}

/* ---- bitcast-convert ---- */

int64_t k_bitcast_convert_count(EType dst_t, EType src_t, int64_t n_in) {
  int sb = etype_bits(src_t), db = etype_bits(dst_t);
  if (!convertible(dst_t) || !convertible(src_t) || sb <= 0 || db <= 0 || n_in < 0) return -1;
  if (sb == db) return n_in;
  if (sb > db) {
    if (sb % db) return -1;
    int64_t r;
    if (__builtin_mul_overflow(n_in, (int64_t)(sb / db), &r)) return -1;
    return r;
  }
  if (db % sb || n_in % (db / sb)) return -1;
  return n_in / (db / sb);
}

bool k_bitcast_convert(EType dst_t, void *restrict out, EType src_t, const void *in, int64_t n_in,
                       Error *err) {
  int64_t n_out = k_bitcast_convert_count(dst_t, src_t, n_in);
  if (n_out < 0)
    return error_set(err, ERR_RUNTIME, -1, "bitcast-convert from %s[%lld] to %s: bit widths do not divide",
                     etype_name(src_t), (long long)n_in, etype_name(dst_t));
  int sb = etype_bits(src_t), db = etype_bits(dst_t);
  uint8_t *o = out;
  const uint8_t *s = in;
  if (sb % 8 == 0 && db % 8 == 0) {
    /* natural storage is the packed little-endian stream itself */
    memcpy(o, s, (size_t)n_out * (size_t)(db / 8));
  } else {
    /* stream the bits: sub-byte elements contribute/take `bits` bits each,
     * wider ones whole bytes, lowest bits first */
    uint64_t acc = 0;
    int accbits = 0;
    int in_unit = sb < 8 ? sb : 8, out_unit = db < 8 ? db : 8;
    int64_t out_units = n_out * (db < 8 ? 1 : db / 8);
    bool sext = etype_kind(dst_t) == EK_SINT && db < 8;
    int64_t si = 0;
    for (int64_t oi = 0; oi < out_units; oi++) {
      while (accbits < out_unit) {
        acc |= (uint64_t)(s[si++] & ((1u << in_unit) - 1u)) << accbits;
        accbits += in_unit;
      }
      uint64_t v = acc & ((UINT64_C(1) << out_unit) - 1);
      acc >>= out_unit;
      accbits -= out_unit;
      o[oi] = sext ? (uint8_t)(int8_t)k_wrap((int64_t)v, db, true) : (uint8_t)v;
    }
  }
  if (dst_t == ET_PRED)
    for (int64_t i = 0; i < n_out; i++) o[i] = o[i] != 0;
  return true;
}

/* ---- reduce-precision (xla/service/elemental_ir_emitter.cc
 * EmitReducePrecisionIR with quiet_nans = false) ---- */

#define REDUCE_PRECISION(NAME, U, SM, SE)                                             \
  static U NAME(U x, int eb, int mb) {                                                \
    const U sign_mask = (U)1 << (SM + SE), exp_mask = (((U)1 << SE) - 1) << SM;        \
    bool is_nan = (x & ~sign_mask) > exp_mask;                                        \
    U xi = x;                                                                         \
    if (mb < SM) {                                                                    \
      U last = (U)1 << (SM - mb);                                                     \
      U bias = ((last >> 1) - 1) + ((xi & last) >> (SM - mb));                        \
      xi = (U)((U)(xi + bias) & ~(last - 1));                                         \
    }                                                                                 \
    if (eb < SE) {                                                                    \
      U ebias = ((U)1 << (SE - 1)) - 1, rbias = ((U)1 << (eb - 1)) - 1;                \
      U xe = xi & exp_mask;                                                           \
      U szero = xi & sign_mask;                                                       \
      if (xe > ((ebias + rbias) << SM)) xi = szero | exp_mask;                        \
      if (xe <= ((ebias - rbias) << SM)) xi = szero;                                  \
    }                                                                                 \
    if (is_nan) return mb > 0 ? x : exp_mask;                                         \
    return xi;                                                                        \
  }
REDUCE_PRECISION(rp_u32, uint32_t, 23, 8)
REDUCE_PRECISION(rp_u64, uint64_t, 52, 11)

bool k_reduce_precision(EType t, void *restrict out, const void *in, int64_t n, int exponent_bits,
                        int mantissa_bits, Error *err) {
  if (!etype_is_float(t))
    return error_set(err, ERR_RUNTIME, -1, "reduce-precision is not defined for element type %s",
                     etype_name(t));
  if (exponent_bits < 1 || mantissa_bits < 0)
    return error_set(err, ERR_RUNTIME, -1, "reduce-precision needs exponent_bits >= 1 and mantissa_bits >= 0");
  if (t == ET_F64) {
    const uint64_t *x = in;
    uint64_t *o = out;
    for (int64_t i = 0; i < n; i++) o[i] = rp_u64(x[i], exponent_bits, mantissa_bits);
    return true;
  }
  if (t == ET_F32) {
    const uint32_t *x = in;
    uint32_t *o = out;
    for (int64_t i = 0; i < n; i++) o[i] = rp_u32(x[i], exponent_bits, mantissa_bits);
    return true;
  }
  uint32_t buf[K_BLOCK];
  int sz = etype_storage_bytes(t);
  for (int64_t at = 0; at < n; at += K_BLOCK) {
    int64_t m = n - at < K_BLOCK ? n - at : K_BLOCK;
    etype_convert_array(ET_F32, buf, t, (const char *)in + at * sz, m);
    for (int64_t i = 0; i < m; i++) buf[i] = rp_u32(buf[i], exponent_bits, mantissa_bits);
    etype_convert_array(t, (char *)out + at * sz, ET_F32, buf, m);
  }
  return true;
}
