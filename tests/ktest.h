/* Small helpers shared by the kernel unit tests (test_k_*.c). */
#ifndef HLO_TESTS_KTEST_H
#define HLO_TESTS_KTEST_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_common.h"
#include "kernels/k_types.h"

static inline KArray ka(EType t, int rank, const int64_t *dims, void *data) {
  KArray a = {t, rank, dims, data};
  return a;
}

/* Deterministic xorshift64* generator. */
typedef struct { uint64_t s; } Rng;
static inline uint64_t rng_next(Rng *r) {
  r->s ^= r->s >> 12;
  r->s ^= r->s << 25;
  r->s ^= r->s >> 27;
  return r->s * 2685821657736338717ull;
}
static inline int64_t rng_int(Rng *r, int64_t lo, int64_t hi) { /* [lo, hi] */
  return lo + (int64_t)(rng_next(r) % (uint64_t)(hi - lo + 1));
}
static inline double rng_unit(Rng *r) { return (double)(rng_next(r) >> 11) * 0x1p-53; }

static inline int64_t prod(int rank, const int64_t *d) {
  int64_t n = 1;
  for (int i = 0; i < rank; i++) n *= d[i];
  return n;
}

/* Element access through double / int64 (test side, slow and simple). */
static inline double get_f(EType t, const void *p, int64_t i) {
  double d;
  k_cvt(ET_F64, &d, t, (const char *)p + i * etype_storage_bytes(t), 1);
  return d;
}
static inline void set_f(EType t, void *p, int64_t i, double v) {
  k_cvt(t, (char *)p + i * etype_storage_bytes(t), ET_F64, &v, 1);
}
static inline int64_t get_i(EType t, const void *p, int64_t i) {
  int64_t v;
  k_cvt(ET_S64, &v, t, (const char *)p + i * etype_storage_bytes(t), 1);
  return v;
}
static inline void set_i(EType t, void *p, int64_t i, int64_t v) {
  k_cvt(t, (char *)p + i * etype_storage_bytes(t), ET_S64, &v, 1);
}

/* Random array of type t: small integers (exact in every float type) unless
 * wide is set. */
static inline void *rand_array(Rng *r, EType t, int64_t n, bool wide) {
  int es = etype_storage_bytes(t);
  char *p = calloc((size_t)(n ? n : 1), (size_t)es);
  for (int64_t i = 0; i < n; i++) {
    if (etype_is_complex(t)) {
      double v[2] = {(double)rng_int(r, -4, 4), (double)rng_int(r, -4, 4)};
      if (wide) { v[0] = rng_unit(r) * 2 - 1; v[1] = rng_unit(r) * 2 - 1; }
      if (t == ET_C64) { float f[2] = {(float)v[0], (float)v[1]}; memcpy(p + i * es, f, 8); }
      else memcpy(p + i * es, v, 16);
    } else if (etype_is_float(t)) {
      set_f(t, p, i, wide ? rng_unit(r) * 2 - 1 : (double)rng_int(r, -4, 4));
    } else if (t == ET_PRED) {
      p[i] = (char)(rng_next(r) & 1);
    } else {
      int bits = etype_bits(t);
      int64_t v = (int64_t)rng_next(r);
      if (!wide) v = rng_int(r, -8, 8);
      if (etype_kind(t) == EK_UINT && !wide) v = rng_int(r, 0, 15);
      if (bits < 64) {
        uint64_t mask = (1ull << bits) - 1;
        uint64_t u = (uint64_t)v & mask;
        if (etype_kind(t) == EK_SINT && (u >> (bits - 1))) u |= ~mask;
        v = (int64_t)u;
      }
      set_i(t, p, i, v);
    }
  }
  return p;
}

static inline bool close_enough(double a, double b, double rtol, double atol) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  if (isinf(a) || isinf(b)) return a == b;
  return fabs(a - b) <= atol + rtol * fabs(b);
}

#endif
