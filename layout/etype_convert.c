/* Converting whole arrays between element types with XLA's `convert` rules.
 * Each conversion runs in blocks through one intermediate form (int64, f32,
 * f64 or complex double) chosen from the pair of types, so every loop is typed
 * and there is no switch per element:
 *   int/pred -> int/pred     via int64 (wraps to the width, sign-extends sN)
 *   int      -> f64/c128     via f64;  int -> other floats/c64 via f32 (as
 *                                       ml_dtypes/Eigen do: static_cast<float>)
 *   float    -> int/pred     via f64 (NaN -> 0, saturating, toward zero)
 *   f64/c128 -> floats       via f64 (f64 -> bf16/f16 through f32 as Eigen)
 *   others   -> floats       via f32 (exact: every narrow float fits f32)
 *   complex  -> complex      via complex double; complex -> real: real part. */
/* -O2 uses GCC's very-cheap vectoriser cost model, which skips loops needing an epilogue. */
#pragma GCC optimize("vect-cost-model=dynamic")
#include <math.h>
#include <string.h>

#include "layout/etype_convert.h"

enum { BLOCK = 256 };

/* The 16-bit float conversions of etype_float.c, bit for bit, written
 * without branches and inlined so that the array loops below vectorise
 * (f16 -> f32 2.5 -> 1.3 ns per element over 16M; the out-of-line calls
 * were a tenth of an f16 attention module's CPU).  tests/test_etype.c
 * checks them against the scalar ones. */
static inline uint32_t bits_of(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}
static inline float of_bits(uint32_t u) {
  float v;
  memcpy(&v, &u, 4);
  return v;
}
/* The three cases picked with masks rather than ?: so that loops over it
 * vectorise (GCC does not if-convert the nested selects). */
static inline float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  uint32_t special = sign | 0x7f800000u | (m << 13);              /* inf, NaN */
  uint32_t sub = bits_of((float)(int32_t)m * 0x1p-24f) | sign;    /* exact */
  uint32_t normal = sign | ((e + 112u) << 23) | (m << 13);
  uint32_t is_special = 0u - (uint32_t)(e == 0x1f), is_sub = 0u - (uint32_t)(e == 0);
  return of_bits((special & is_special) | (sub & is_sub) | (normal & ~(is_special | is_sub)));
}
static inline uint16_t f32_to_f16(float v) {
  uint32_t x = bits_of(v), sign = (x >> 16) & 0x8000u;
  x &= 0x7fffffffu;
  uint32_t special = x > 0x7f800000u ? 0x7e00u : 0x7c00u;               /* NaN, inf */
  uint32_t sub = bits_of(of_bits(x) + 0.5f) - 0x3f000000u;              /* FPU rounds */
  uint32_t normal = (x + 0xc8000fffu + ((x >> 13) & 1u)) >> 13;         /* rebias, round */
  uint32_t r = x >= 0x7f800000u ? special : x >= 0x477ff000u ? 0x7c00u : x < 0x38800000u ? sub : normal;
  return (uint16_t)(sign | (r & 0xffffu));
}
static inline float bf16_to_f32(uint16_t b) { return of_bits((uint32_t)b << 16); }
static inline uint16_t f32_to_bf16(float v) {
  uint32_t u = bits_of(v);
  uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
  uint32_t nan = (u >> 31) ? 0xffc0u : 0x7fc0u;
  return (uint16_t)((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
}

/* The four conversions real models spend their time in (bf16 and f16
 * activations to and from f32 compute), built for AVX-512, AVX2 and the
 * baseline and picked at load time: integer bit work (and f16's one
 * exactly rounded add), so every build gives the same bits.  In 25-bert's
 * training step they were a quarter of the run at SSE2 width. */
#if defined(__GNUC__) && defined(__x86_64__)
#define CVT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CVT_CLONES
#endif
CVT_CLONES static void bf16s_to_f32(float *d, const uint16_t *s, int64_t n) {
  for (int64_t i = 0; i < n; i++) d[i] = bf16_to_f32(s[i]);
}
CVT_CLONES static void f32s_to_bf16(uint16_t *d, const float *s, int64_t n) {
  for (int64_t i = 0; i < n; i++) d[i] = f32_to_bf16(s[i]);
}
CVT_CLONES static void f16s_to_f32(float *d, const uint16_t *s, int64_t n) {
  for (int64_t i = 0; i < n; i++) d[i] = f16_to_f32(s[i]);
}
CVT_CLONES static void f32s_to_f16(uint16_t *d, const float *s, int64_t n) {
  for (int64_t i = 0; i < n; i++) d[i] = f32_to_f16(s[i]);
}

typedef enum { MID_I64, MID_F32, MID_F64, MID_C128 } Mid;

static bool is_intlike(EType t) { return etype_is_int(t) || t == ET_PRED; }

static Mid choose_mid(EType dst, EType src) {
  if (is_intlike(src)) {
    if (is_intlike(dst)) return MID_I64;
    if (dst == ET_F64 || dst == ET_C128) return MID_F64;
    return MID_F32;
  }
  if (is_intlike(dst)) return MID_F64;
  if (etype_is_complex(src) && etype_is_complex(dst)) return MID_C128;
  if (dst == ET_F64 || dst == ET_C128 || src == ET_F64 || src == ET_C128) return MID_F64;
  return MID_F32;
}

/* ---- loading a block into the intermediate form ---- */

#define LOAD_LOOP(CT, EXPR)                                 \
  do {                                                      \
    const CT *s = (const CT *)src;                          \
    for (int64_t i = 0; i < n; i++) out[i] = (EXPR);        \
  } while (0)

static void load_i64(EType t, const void *src, int64_t *out, int64_t n) {
  switch (t) {
  case ET_PRED: LOAD_LOOP(uint8_t, s[i] != 0); break;
  case ET_S1: case ET_S2: case ET_S4: case ET_S8: LOAD_LOOP(int8_t, s[i]); break;
  case ET_U1: case ET_U2: case ET_U4: case ET_U8: LOAD_LOOP(uint8_t, s[i]); break;
  case ET_S16: LOAD_LOOP(int16_t, s[i]); break;
  case ET_U16: LOAD_LOOP(uint16_t, s[i]); break;
  case ET_S32: LOAD_LOOP(int32_t, s[i]); break;
  case ET_U32: LOAD_LOOP(uint32_t, s[i]); break;
  case ET_S64: LOAD_LOOP(int64_t, s[i]); break;
  case ET_U64: LOAD_LOOP(uint64_t, (int64_t)s[i]); break;
  default: memset(out, 0, (size_t)n * sizeof *out); break;
  }
}

#define LOAD_INT_AS(FT)                                              \
  case ET_PRED: LOAD_LOOP(uint8_t, (FT)(s[i] != 0)); return true;    \
  case ET_S1: case ET_S2: case ET_S4: case ET_S8: LOAD_LOOP(int8_t, (FT)s[i]); return true; \
  case ET_U1: case ET_U2: case ET_U4: case ET_U8: LOAD_LOOP(uint8_t, (FT)s[i]); return true; \
  case ET_S16: LOAD_LOOP(int16_t, (FT)s[i]); return true;            \
  case ET_U16: LOAD_LOOP(uint16_t, (FT)s[i]); return true;           \
  case ET_S32: LOAD_LOOP(int32_t, (FT)s[i]); return true;            \
  case ET_U32: LOAD_LOOP(uint32_t, (FT)s[i]); return true;           \
  case ET_S64: LOAD_LOOP(int64_t, (FT)s[i]); return true;            \
  case ET_U64: LOAD_LOOP(uint64_t, (FT)s[i]); return true;

static bool load_f32(EType t, const void *src, float *out, int64_t n) {
  switch (t) {
  LOAD_INT_AS(float)
  case ET_F32: memcpy(out, src, (size_t)n * 4); return true;
  case ET_F64: LOAD_LOOP(double, (float)s[i]); return true;
  case ET_BF16: bf16s_to_f32(out, src, n); return true;
  case ET_F16: f16s_to_f32(out, src, n); return true;
  case ET_C64: LOAD_LOOP(float, s[2 * i]); return true;
  case ET_C128: LOAD_LOOP(double, (float)s[2 * i]); return true;
  default: {
    const EFloatFormat *f = etype_float_format(t);
    if (!f) break;
    LOAD_LOOP(uint8_t, (float)etype_small_decode(f, s[i]));
    return true;
  }
  }
  memset(out, 0, (size_t)n * sizeof *out);
  return false;
}

static bool load_f64(EType t, const void *src, double *out, int64_t n) {
  switch (t) {
  LOAD_INT_AS(double)
  case ET_F32: LOAD_LOOP(float, (double)s[i]); return true;
  case ET_F64: memcpy(out, src, (size_t)n * 8); return true;
  case ET_BF16: LOAD_LOOP(uint16_t, (double)bf16_to_f32(s[i])); return true;
  case ET_F16: LOAD_LOOP(uint16_t, (double)f16_to_f32(s[i])); return true;
  case ET_C64: LOAD_LOOP(float, (double)s[2 * i]); return true;
  case ET_C128: LOAD_LOOP(double, s[2 * i]); return true;
  default: {
    const EFloatFormat *f = etype_float_format(t);
    if (!f) break;
    LOAD_LOOP(uint8_t, etype_small_decode(f, s[i]));
    return true;
  }
  }
  memset(out, 0, (size_t)n * sizeof *out);
  return false;
}

static void load_c128(EType t, const void *src, double *out, int64_t n) {
  if (t == ET_C128) {
    memcpy(out, src, (size_t)n * 16);
  } else {
    const float *s = (const float *)src;
    for (int64_t i = 0; i < 2 * n; i++) out[i] = (double)s[i];
  }
}

/* ---- storing a block from the intermediate form ---- */

#define STORE_LOOP(CT, EXPR)                     \
  do {                                           \
    CT *d = (CT *)dst;                           \
    for (int64_t i = 0; i < n; i++) d[i] = (EXPR); \
  } while (0)

static inline int8_t wrap_s(int64_t v, int bits) {
  uint64_t m = (UINT64_C(1) << bits) - 1, x = (uint64_t)v & m;
  if (x >> (bits - 1)) x |= ~m;
  return (int8_t)(int64_t)x;
}

static void store_i64(EType t, void *dst, const int64_t *in, int64_t n) {
  switch (t) {
  case ET_PRED: STORE_LOOP(uint8_t, (uint8_t)(in[i] != 0)); break;
  case ET_S1: STORE_LOOP(int8_t, wrap_s(in[i], 1)); break;
  case ET_S2: STORE_LOOP(int8_t, wrap_s(in[i], 2)); break;
  case ET_S4: STORE_LOOP(int8_t, wrap_s(in[i], 4)); break;
  case ET_S8: STORE_LOOP(int8_t, (int8_t)(uint8_t)(uint64_t)in[i]); break;
  case ET_U1: STORE_LOOP(uint8_t, (uint8_t)((uint64_t)in[i] & 1u)); break;
  case ET_U2: STORE_LOOP(uint8_t, (uint8_t)((uint64_t)in[i] & 3u)); break;
  case ET_U4: STORE_LOOP(uint8_t, (uint8_t)((uint64_t)in[i] & 15u)); break;
  case ET_U8: STORE_LOOP(uint8_t, (uint8_t)(uint64_t)in[i]); break;
  case ET_S16: STORE_LOOP(int16_t, (int16_t)(uint16_t)(uint64_t)in[i]); break;
  case ET_U16: STORE_LOOP(uint16_t, (uint16_t)(uint64_t)in[i]); break;
  case ET_S32: STORE_LOOP(int32_t, (int32_t)(uint32_t)(uint64_t)in[i]); break;
  case ET_U32: STORE_LOOP(uint32_t, (uint32_t)(uint64_t)in[i]); break;
  case ET_S64: STORE_LOOP(int64_t, in[i]); break;
  case ET_U64: STORE_LOOP(uint64_t, (uint64_t)in[i]); break;
  default: break;
  }
}

static void store_f32(EType t, void *dst, const float *in, int64_t n) {
  switch (t) {
  case ET_F32: memcpy(dst, in, (size_t)n * 4); return;
  case ET_F64: STORE_LOOP(double, (double)in[i]); return;
  case ET_BF16: f32s_to_bf16(dst, in, n); return;
  case ET_F16: f32s_to_f16(dst, in, n); return;
  case ET_C64: {
    float *d = (float *)dst;
    for (int64_t i = 0; i < n; i++) d[2 * i] = in[i], d[2 * i + 1] = 0.0f;
    return;
  }
  case ET_C128: {
    double *d = (double *)dst;
    for (int64_t i = 0; i < n; i++) d[2 * i] = (double)in[i], d[2 * i + 1] = 0.0;
    return;
  }
  default: {
    const EFloatFormat *f = etype_float_format(t);
    if (f) STORE_LOOP(uint8_t, (uint8_t)etype_small_encode(f, (double)in[i], NULL));
    return;
  }
  }
}

/* Saturating float -> integer conversion, NaN -> 0, truncation toward 0. */
static inline int64_t sat_s(double v, int bits) {
  double hi = ldexp(1.0, bits - 1);
  if (v != v) return 0;
  if (v >= hi) return (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
  if (v <= -hi) return -(int64_t)((UINT64_C(1) << (bits - 1)) - 1) - 1;
  return (int64_t)v;
}
static inline uint64_t sat_u(double v, int bits) {
  if (v != v || v <= 0) return 0;
  if (v >= ldexp(1.0, bits)) return bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  return (uint64_t)v;
}

static void store_f64(EType t, void *dst, const double *in, int64_t n) {
  switch (t) {
  case ET_PRED: STORE_LOOP(uint8_t, (uint8_t)(in[i] != 0)); return;
  case ET_S1: STORE_LOOP(int8_t, (int8_t)sat_s(in[i], 1)); return;
  case ET_S2: STORE_LOOP(int8_t, (int8_t)sat_s(in[i], 2)); return;
  case ET_S4: STORE_LOOP(int8_t, (int8_t)sat_s(in[i], 4)); return;
  case ET_S8: STORE_LOOP(int8_t, (int8_t)sat_s(in[i], 8)); return;
  case ET_S16: STORE_LOOP(int16_t, (int16_t)sat_s(in[i], 16)); return;
  case ET_S32: STORE_LOOP(int32_t, (int32_t)sat_s(in[i], 32)); return;
  case ET_S64: STORE_LOOP(int64_t, sat_s(in[i], 64)); return;
  case ET_U1: STORE_LOOP(uint8_t, (uint8_t)sat_u(in[i], 1)); return;
  case ET_U2: STORE_LOOP(uint8_t, (uint8_t)sat_u(in[i], 2)); return;
  case ET_U4: STORE_LOOP(uint8_t, (uint8_t)sat_u(in[i], 4)); return;
  case ET_U8: STORE_LOOP(uint8_t, (uint8_t)sat_u(in[i], 8)); return;
  case ET_U16: STORE_LOOP(uint16_t, (uint16_t)sat_u(in[i], 16)); return;
  case ET_U32: STORE_LOOP(uint32_t, (uint32_t)sat_u(in[i], 32)); return;
  case ET_U64: STORE_LOOP(uint64_t, sat_u(in[i], 64)); return;
  case ET_F32: STORE_LOOP(float, (float)in[i]); return;
  case ET_F64: memcpy(dst, in, (size_t)n * 8); return;
  case ET_BF16: STORE_LOOP(uint16_t, f32_to_bf16((float)in[i])); return;
  case ET_F16: STORE_LOOP(uint16_t, f32_to_f16((float)in[i])); return;
  case ET_C64: {
    float *d = (float *)dst;
    for (int64_t i = 0; i < n; i++) d[2 * i] = (float)in[i], d[2 * i + 1] = 0.0f;
    return;
  }
  case ET_C128: {
    double *d = (double *)dst;
    for (int64_t i = 0; i < n; i++) d[2 * i] = in[i], d[2 * i + 1] = 0.0;
    return;
  }
  default: {
    const EFloatFormat *f = etype_float_format(t);
    if (f) STORE_LOOP(uint8_t, (uint8_t)etype_small_encode(f, in[i], NULL));
    return;
  }
  }
}

static void store_c128(EType t, void *dst, const double *in, int64_t n) {
  if (t == ET_C128) {
    memcpy(dst, in, (size_t)n * 16);
  } else {
    float *d = (float *)dst;
    for (int64_t i = 0; i < 2 * n; i++) d[i] = (float)in[i];
  }
}

void etype_convert_array(EType dst_t, void *dst, EType src_t, const void *src, int64_t n) {
  int dsz = etype_storage_bytes(dst_t), ssz = etype_storage_bytes(src_t);
  if (n <= 0 || dsz == 0 || ssz == 0 || !etype_is_array(dst_t) || !etype_is_array(src_t)) return;
  if (dst_t == src_t) {
    memmove(dst, src, (size_t)n * (size_t)dsz);
    return;
  }
  /* The pairs real models convert most (bf16/f16 weights and activations
   * to and from f32 compute) in one pass, not through the block buffer. */
  if (dst_t == ET_F32 && (src_t == ET_BF16 || src_t == ET_F16)) {
    if (src_t == ET_BF16) bf16s_to_f32(dst, src, n);
    else f16s_to_f32(dst, src, n);
    return;
  }
  if (src_t == ET_F32 && (dst_t == ET_BF16 || dst_t == ET_F16)) {
    if (dst_t == ET_BF16) f32s_to_bf16(dst, src, n);
    else f32s_to_f16(dst, src, n);
    return;
  }
  Mid mid = choose_mid(dst_t, src_t);
  union {
    int64_t i[BLOCK];
    float f[BLOCK];
    double d[2 * BLOCK];
  } buf;
  const char *s = (const char *)src;
  char *d = (char *)dst;
  for (int64_t at = 0; at < n; at += BLOCK) {
    int64_t m = n - at < BLOCK ? n - at : BLOCK;
    const void *sp = s + at * ssz;
    void *dp = d + at * dsz;
    switch (mid) {
    case MID_I64: load_i64(src_t, sp, buf.i, m); store_i64(dst_t, dp, buf.i, m); break;
    case MID_F32: load_f32(src_t, sp, buf.f, m); store_f32(dst_t, dp, buf.f, m); break;
    case MID_F64: load_f64(src_t, sp, buf.d, m); store_f64(dst_t, dp, buf.d, m); break;
    case MID_C128: load_c128(src_t, sp, buf.d, m); store_c128(dst_t, dp, buf.d, m); break;
    }
  }
}

/* ---- single elements ---- */

float etype_load_f32(EType t, const void *src) {
  float v;
  load_f32(t, src, &v, 1);
  return v;
}

void etype_store_f32(EType t, float v, void *dst) { etype_convert_array(t, dst, ET_F32, &v, 1); }
void etype_store_f64_round(EType t, double v, void *dst) { etype_convert_array(t, dst, ET_F64, &v, 1); }

double etype_load_f64(EType t, const void *src) {
  double v;
  load_f64(t, src, &v, 1);
  return v;
}

int64_t etype_load_i64(EType t, const void *src) {
  if (is_intlike(t)) {
    int64_t v;
    load_i64(t, src, &v, 1);
    return v;
  }
  double d = etype_load_f64(t, src);
  return sat_s(d, 64);
}
