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

/* ---- stochastic-convert ---- */

/* XLA's StochasticConvertDecomposer (the only definition XLA gives; float
 * to signed integers): t = floor(|x|), f = |x| - t; round |x| up when
 * random < convert(f * 2^bits(random)); negate when x < 0; x <= MIN gives
 * MIN and x >= MAX gives MAX (MIN/MAX rounded to the operand type).  Every
 * step is exact in f64 for operands of at most 64 bits, so f64 is used. */
bool k_stochastic_convert(EType dst_t, void *restrict out, EType src_t, const void *in,
                          EType rnd_t, const void *rnd, int64_t n, Error *err) {
  int bits = etype_bits(dst_t), rbits = etype_bits(rnd_t);
  if (etype_kind(dst_t) != EK_SINT || !etype_is_float(src_t) || etype_kind(rnd_t) != EK_UINT ||
      bits < 2 || bits > 64 || rbits > 64)
    return error_set(err, ERR_RUNTIME, -1, "stochastic-convert from %s to %s is not defined",
                     etype_name(src_t), etype_name(dst_t));
  int64_t lim[2] = {bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1)),
                    bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1};
  double limf[2];
  char tmp[2 * 8];
  for (int i = 0; i < 2; i++) { /* MIN / MAX as the operand type rounds them */
    etype_convert_array(src_t, tmp, ET_S64, &lim[i], 1);
    etype_convert_array(ET_F64, &limf[i], src_t, tmp, 1);
  }
  double scale = ldexp(1.0, rbits);
  size_t ds = (size_t)etype_storage_bytes(dst_t), ss = (size_t)etype_storage_bytes(src_t),
         rs = (size_t)etype_storage_bytes(rnd_t);
  enum { CHUNK = 1024 };
  double x[CHUNK];
  uint64_t r[CHUNK];
  int64_t o[CHUNK];
  for (int64_t base = 0; base < n; base += CHUNK) {
    int64_t m = n - base < CHUNK ? n - base : CHUNK;
    etype_convert_array(ET_F64, x, src_t, (const char *)in + (size_t)base * ss, m);
    etype_convert_array(ET_U64, r, rnd_t, (const char *)rnd + (size_t)base * rs, m);
    for (int64_t i = 0; i < m; i++) {
      double a = fabs(x[i]), t = floor(a), fixed = (a - t) * scale;
      /* convert(fixed) to the random type: truncation; NaN converts to 0 */
      uint64_t fx = fixed >= 0 && fixed < scale ? (uint64_t)fixed : 0;
      int64_t v = t >= limf[1] ? lim[1] : t >= 0 ? (int64_t)t : 0;
      if (r[i] < fx) v++;
      if (x[i] < 0) v = -v;
      if (x[i] <= limf[0]) v = lim[0];
      if (x[i] >= limf[1]) v = lim[1];
      o[i] = v;
    }
    etype_convert_array(dst_t, (char *)out + (size_t)base * ds, ET_S64, o, m);
  }
  return true;
}
