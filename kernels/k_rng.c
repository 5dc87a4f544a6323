/* rng-bit-generator: XLA's ThreeFry / Philox expansions computed directly. */
#include "kernels/k_rng.h"

#include <math.h>

#include "kernels/k_common.h"

static inline uint32_t rotl32(uint32_t v, int d) { return (v << d) | (v >> (32 - d)); }

void k_threefry2x32(const uint32_t key[2], const uint32_t ctr[2], uint32_t out[2]) {
  static const int rot[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  uint32_t ks[3] = {key[0], key[1], 0x1BD11BDAu ^ key[0] ^ key[1]};
  uint32_t x0 = ctr[0] + ks[0], x1 = ctr[1] + ks[1];
  for (int blk = 0; blk < 5; blk++) {
    const int *r = rot + (blk & 1) * 4;
    for (int i = 0; i < 4; i++) {
      x0 += x1;
      x1 = rotl32(x1, r[i]);
      x1 ^= x0;
    }
    x0 += ks[(blk + 1) % 3];
    x1 += ks[(blk + 2) % 3] + (uint32_t)(blk + 1);
  }
  out[0] = x0;
  out[1] = x1;
}

void k_philox4x32(const uint32_t key_in[2], const uint32_t ctr[4], uint32_t out[4]) {
  uint32_t k0 = key_in[0], k1 = key_in[1];
  uint32_t x0 = ctr[0], x1 = ctr[1], x2 = ctr[2], x3 = ctr[3];
  for (int r = 0; r < 10; r++) {
    uint64_t p0 = (uint64_t)x0 * 0xD2511F53u, p1 = (uint64_t)x2 * 0xCD9E8D57u;
    uint32_t n0 = (uint32_t)(p1 >> 32) ^ x1 ^ k0, n1 = (uint32_t)p1;
    uint32_t n2 = (uint32_t)(p0 >> 32) ^ x3 ^ k1, n3 = (uint32_t)p0;
    x0 = n0; x1 = n1; x2 = n2; x3 = n3;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  out[0] = x0; out[1] = x1; out[2] = x2; out[3] = x3;
}

/* Stores the low `bits` of v into element i of an array of type t. */
static inline void put_bits(EType t, int bits, void *data, int64_t i, uint64_t v) {
  switch (bits) {
  case 64: ((uint64_t *)data)[i] = v; break;
  case 32: ((uint32_t *)data)[i] = (uint32_t)v; break;
  case 16: ((uint16_t *)data)[i] = (uint16_t)v; break;
  case 8: ((uint8_t *)data)[i] = (uint8_t)v; break;
  default:
    ((uint8_t *)data)[i] = (uint8_t)k_wrap((int64_t)(v & ((1u << bits) - 1)), bits, etype_kind(t) == EK_SINT);
  }
}

/* ThreeFry 32-bit draws in XLA's split-shape order; calls put(i, bits). */
static uint64_t threefry32(uint64_t key, uint64_t ctr, int rank, const int64_t *dims, EType t, int bits, void *data) {
  uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  if (rank == 0) {
    uint32_t c[2] = {(uint32_t)ctr, (uint32_t)(ctr >> 32)}, o[2];
    k_threefry2x32(k, c, o);
    put_bits(t, bits, data, 0, o[0]);
    return ctr + 1;
  }
  int split = -1;
  for (int i = 0; i < rank; i++) if (dims[i] % 2 == 0) { split = i; break; }
  if (split < 0)
    for (int i = 0; i < rank; i++) if (split < 0 || dims[i] > dims[split]) split = i;
  int64_t hd[K_MAX_RANK], nhalf = 1;
  for (int i = 0; i < rank; i++) { hd[i] = i == split ? (dims[i] + 1) / 2 : dims[i]; nhalf *= hd[i]; }
  int64_t ost[K_MAX_RANK], s = 1;
  for (int i = rank - 1; i >= 0; i--) { ost[i] = s; s *= dims[i]; }
  int64_t idx[K_MAX_RANK] = {0};
  for (int64_t h = 0; h < nhalf; h++) {
    uint64_t in = ctr + (uint64_t)h;
    uint32_t c[2] = {(uint32_t)in, (uint32_t)(in >> 32)}, o[2];
    k_threefry2x32(k, c, o);
    int64_t base = 0;
    for (int i = 0; i < rank; i++) if (i != split) base += idx[i] * ost[i];
    for (int cc = 0; cc < 2; cc++) {
      int64_t p = 2 * idx[split] + cc;
      if (p < dims[split]) put_bits(t, bits, data, base + p * ost[split], o[cc]);
    }
    for (int i = rank - 1; i >= 0; i--) {
      if (++idx[i] < hd[i]) break;
      idx[i] = 0;
    }
  }
  return ctr + (uint64_t)nhalf;
}

/* XLA's expansion reads the key and counter from the first words of the
 * state and builds its new state from those alone ([key, counter'], 2 words
 * for three_fry, 3 for philox), so the words after them take part in
 * nothing.  They are carried over unchanged: the result must keep the
 * operand's shape, and XLA's expanded module (whose call root is then
 * shorter than the instruction's state) gives them no other value. */
static void keep_extra_words(const uint64_t *state, int nstate, int used, uint64_t *new_state) {
  for (int i = used; i < nstate; i++) new_state[i] = state[i];
}

bool k_rng_bit_generator(KRngAlgorithm alg, const uint64_t *state, int nstate, uint64_t *new_state, KArray *out, Error *err) {
  EType t = out->etype;
  int bits = etype_bits(t);
  ETypeKind kind = etype_kind(t);
  if (!(kind == EK_SINT || kind == EK_UINT || kind == EK_FLOAT) ||
      !(bits == 1 || bits == 2 || bits == 4 || bits == 8 || bits == 16 || bits == 32 || bits == 64))
    return error_set(err, ERR_RUNTIME, -1, "rng-bit-generator: unsupported result type %s", etype_name(t));
  int64_t n;
  if (!k_num_elements(out->rank, out->dims, &n, err)) return false;
  if (alg == K_RNG_DEFAULT) alg = K_RNG_PHILOX;
  uint64_t key = nstate > 0 ? state[0] : 0;
  if (alg == K_RNG_THREE_FRY) {
    if (nstate < 2) return error_set(err, ERR_RUNTIME, -1, "rng-bit-generator: three_fry needs a u64[n >= 2] state [key, counter, ...], got %d entries", nstate);
    uint64_t ctr = state[1];
    keep_extra_words(state, nstate, 2, new_state);
    new_state[0] = key;
    if (bits == 64) {
      uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
      for (int64_t i = 0; i < n; i++) {
        uint64_t in = ctr + (uint64_t)i;
        uint32_t c[2] = {(uint32_t)in, (uint32_t)(in >> 32)}, o[2];
        k_threefry2x32(k, c, o);
        ((uint64_t *)out->data)[i] = (uint64_t)o[0] | ((uint64_t)o[1] << 32);
      }
      new_state[1] = ctr + (uint64_t)n;
    } else {
      new_state[1] = threefry32(key, ctr, out->rank, out->dims, t, bits, out->data);
    }
    return true;
  }
  if (alg != K_RNG_PHILOX) return error_set(err, ERR_RUNTIME, -1, "rng-bit-generator: unknown algorithm %d", (int)alg);
  if (nstate < 2) return error_set(err, ERR_RUNTIME, -1, "rng-bit-generator: philox needs a u64[n >= 2] state [key, counter, ...], got %d entries", nstate);
  /* u64[2]: the counter is [state[1], state[0]] (XLA reverses the state, so
   * the key doubles as the counter's high word, which is not written back);
   * u64[n >= 3]: the counter is [state[1], state[2]]. */
  uint64_t lo = state[1], hi = nstate >= 3 ? state[2] : state[0];
  keep_extra_words(state, nstate, 3, new_state);
  uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
  int64_t nblocks = bits == 64 ? (2 * n + 3) / 4 : (n + 3) / 4;
  for (int64_t b = 0; b < nblocks; b++) {
    uint64_t l = lo + (uint64_t)b, h = hi + (l < lo ? 1 : 0);
    uint32_t c[4] = {(uint32_t)l, (uint32_t)(l >> 32), (uint32_t)h, (uint32_t)(h >> 32)}, o[4];
    k_philox4x32(k, c, o);
    if (bits == 64) {
      uint64_t v[2] = {(uint64_t)o[0] | ((uint64_t)o[1] << 32), (uint64_t)o[2] | ((uint64_t)o[3] << 32)};
      for (int j = 0; j < 2; j++) if (2 * b + j < n) ((uint64_t *)out->data)[2 * b + j] = v[j];
    } else {
      for (int j = 0; j < 4; j++) if (4 * b + j < n) put_bits(t, bits, out->data, 4 * b + j, o[j]);
    }
  }
  uint64_t nl = lo + (uint64_t)nblocks, nh = hi + (nl < lo ? 1 : 0);
  new_state[0] = key;
  new_state[1] = nl;
  if (nstate >= 3) new_state[2] = nh;
  return true;
}

/* ------------------------------------------------------------ uniform/normal */

/* Uniform [0, 1) doubles from philox bits the way prng.cc converts them for
 * the value type (mantissa-width bits). */
static bool uniform01(EType t, int64_t n, uint64_t state[2], double *u, Error *err) {
  int bits = etype_bits(t) >= 64 ? 64 : etype_bits(t) >= 32 ? 32 : 16;
  EType bt = bits == 64 ? ET_U64 : bits == 32 ? ET_U32 : ET_U16;
  void *raw = k_malloc((n + 1) * (bits / 8), err);
  if (!raw) return false;
  int64_t dims[1] = {n};
  KArray R = {bt, 1, dims, raw};
  uint64_t ns[2];
  if (!k_rng_bit_generator(K_RNG_PHILOX, state, 2, ns, &R, err)) { k_free(raw); return false; }
  state[0] = ns[0];
  state[1] = ns[1];
  for (int64_t i = 0; i < n; i++) {
    if (t == ET_F16) { /* f16 from 10 random mantissa bits with exponent 15, minus 1 */
      u[i] = 1.0 + (double)(((uint16_t *)raw)[i] & 0x3ff) / 1024.0 - 1.0;
      continue;
    }
    int mant = t == ET_F64 ? 52 : t == ET_F32 ? 23 : t == ET_BF16 ? 7 : 10;
    uint64_t b = bits == 64 ? ((uint64_t *)raw)[i] : bits == 32 ? ((uint32_t *)raw)[i] : ((uint16_t *)raw)[i];
    u[i] = ldexp((double)(b >> (bits - mant)), -mant);
  }
  k_free(raw);
  return true;
}

bool k_rng_uniform(const void *a, const void *b, uint64_t state[2], KArray *out, Error *err) {
  EType t = out->etype;
  int64_t n;
  if (!k_num_elements(out->rank, out->dims, &n, err)) return false;
  if (t == ET_F16 || t == ET_BF16 || t == ET_F32 || t == ET_F64) {
    double *u = k_malloc((n + 1) * 8, err);
    if (!u) return false;
    if (!uniform01(t, n, state, u, err)) { k_free(u); return false; }
    double lo, hi;
    k_cvt(ET_F64, &lo, t, a, 1);
    k_cvt(ET_F64, &hi, t, b, 1);
    for (int64_t i = 0; i < n; i++) u[i] = u[i] * (hi - lo) + lo;
    k_cvt(t, out->data, ET_F64, u, n);
    k_free(u);
    return true;
  }
  if (t == ET_S32 || t == ET_U32 || t == ET_S64 || t == ET_U64) {
    bool wide = etype_bits(t) == 64;
    int64_t dims[1] = {n};
    uint64_t *bitsv = k_malloc((n + 1) * 8, err);
    if (!bitsv) return false;
    KArray R = {wide ? ET_U64 : ET_U32, 1, dims, bitsv};
    uint64_t ns[2];
    if (!k_rng_bit_generator(K_RNG_PHILOX, state, 2, ns, &R, err)) { k_free(bitsv); return false; }
    state[0] = ns[0];
    state[1] = ns[1];
    int64_t lo, hi;
    k_cvt(ET_S64, &lo, t, a, 1);
    k_cvt(ET_S64, &hi, t, b, 1);
    uint64_t mask = wide ? UINT64_MAX : 0xffffffffu;
    uint64_t range = ((uint64_t)hi - (uint64_t)lo) & mask;
    for (int64_t i = n; i-- > 0;) {
      uint64_t bv = wide ? bitsv[i] : ((uint32_t *)bitsv)[i];
      uint64_t dist = range ? bv % range : bv; /* range 0 (b <= a): implementation-defined */
      uint64_t half = dist >> 1;
      uint64_t v = ((uint64_t)lo + half + (dist - half)) & mask;
      if (wide) ((uint64_t *)out->data)[i] = v;
      else ((uint32_t *)out->data)[i] = (uint32_t)v;
    }
    k_free(bitsv);
    return true;
  }
  return error_set(err, ERR_RUNTIME, -1, "rng uniform: unsupported type %s", etype_name(t));
}

bool k_rng_normal(const void *mu, const void *sigma, uint64_t state[2], KArray *out, Error *err) {
  EType t = out->etype;
  if (!(t == ET_F16 || t == ET_BF16 || t == ET_F32 || t == ET_F64)) return error_set(err, ERR_RUNTIME, -1, "rng normal: unsupported type %s", etype_name(t));
  int64_t n;
  if (!k_num_elements(out->rank, out->dims, &n, err)) return false;
  int64_t pairs = (n + 1) / 2;
  double *u = k_malloc((2 * pairs + 1) * 8, err);
  if (!u) return false;
  if (!uniform01(t, 2 * pairs, state, u, err)) { k_free(u); return false; }
  double m, s;
  k_cvt(ET_F64, &m, t, mu, 1);
  k_cvt(ET_F64, &s, t, sigma, 1);
  /* Box-Muller on consecutive pairs, as prng.cc's BoxMullerTransform. */
  for (int64_t p = 0; p < pairs; p++) {
    double u1 = u[2 * p] < 1e-7 ? 1e-7 : u[2 * p], v1 = 2.0 * M_PI * u[2 * p + 1];
    double r = sqrt(-2.0 * log(u1));
    u[2 * p] = sin(v1) * r * s + m;
    u[2 * p + 1] = cos(v1) * r * s + m;
  }
  k_cvt(t, out->data, ET_F64, u, n);
  k_free(u);
  return true;
}
