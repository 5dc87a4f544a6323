/* Exact decimal text for f32 values without snprintf/strtof.
 *
 * A finite f32 is v = m * 2^e (m < 2^24).  With k = floor(log10 v) and
 * s = 8 - k, X = v * 10^s lies in [10^8, 10^9); it is computed exactly as a
 * quotient of integers (m * 5^s / 2^t for s >= 0, m * 2^(e+s) / 5^-s for
 * s < 0; at most 152 bits, kept in a 128-bit high part and a 64-bit low
 * part), giving F = floor(X) and where the fraction lies against 1/2.  The
 * p-digit decimal (p <= 9) is F rounded at digit 9-p with round-half-even,
 * as glibc's printf rounds the exact binary value.  Whether the 6-digit
 * decimal reads back (strtof, correctly rounded) is decided exactly: it does
 * when it lies within v's rounding interval (half an ulp either side, the
 * smaller ulp below a power of two), the ends included when m is even (ties
 * round to even). */
#include "layout/float_text.h"

#include <math.h>
#include <stdbool.h>
#include <string.h>

__extension__ typedef unsigned __int128 u128;
__extension__ typedef __int128 i128;

static const uint64_t POW10[20] = {1u,
                                   10u,
                                   100u,
                                   1000u,
                                   10000u,
                                   100000u,
                                   1000000u,
                                   10000000u,
                                   100000000u,
                                   1000000000u,
                                   10000000000u,
                                   100000000000u,
                                   1000000000000u,
                                   10000000000000u,
                                   100000000000000u,
                                   1000000000000000u,
                                   10000000000000000u,
                                   100000000000000000u,
                                   1000000000000000000u,
                                   10000000000000000000u};

/* 5^n as {high 64 bits, low 64 bits}; n <= 55 covers every f32 (s <= 54). */
static const uint64_t POW5[56][2] = {
    {0x0000000000000000u, 0x0000000000000001u}, /* 5^0 */
    {0x0000000000000000u, 0x0000000000000005u}, /* 5^1 */
    {0x0000000000000000u, 0x0000000000000019u}, /* 5^2 */
    {0x0000000000000000u, 0x000000000000007du}, /* 5^3 */
    {0x0000000000000000u, 0x0000000000000271u}, /* 5^4 */
    {0x0000000000000000u, 0x0000000000000c35u}, /* 5^5 */
    {0x0000000000000000u, 0x0000000000003d09u}, /* 5^6 */
    {0x0000000000000000u, 0x000000000001312du}, /* 5^7 */
    {0x0000000000000000u, 0x000000000005f5e1u}, /* 5^8 */
    {0x0000000000000000u, 0x00000000001dcd65u}, /* 5^9 */
    {0x0000000000000000u, 0x00000000009502f9u}, /* 5^10 */
    {0x0000000000000000u, 0x0000000002e90eddu}, /* 5^11 */
    {0x0000000000000000u, 0x000000000e8d4a51u}, /* 5^12 */
    {0x0000000000000000u, 0x0000000048c27395u}, /* 5^13 */
    {0x0000000000000000u, 0x000000016bcc41e9u}, /* 5^14 */
    {0x0000000000000000u, 0x000000071afd498du}, /* 5^15 */
    {0x0000000000000000u, 0x0000002386f26fc1u}, /* 5^16 */
    {0x0000000000000000u, 0x000000b1a2bc2ec5u}, /* 5^17 */
    {0x0000000000000000u, 0x000003782dace9d9u}, /* 5^18 */
    {0x0000000000000000u, 0x00001158e460913du}, /* 5^19 */
    {0x0000000000000000u, 0x000056bc75e2d631u}, /* 5^20 */
    {0x0000000000000000u, 0x0001b1ae4d6e2ef5u}, /* 5^21 */
    {0x0000000000000000u, 0x000878678326eac9u}, /* 5^22 */
    {0x0000000000000000u, 0x002a5a058fc295edu}, /* 5^23 */
    {0x0000000000000000u, 0x00d3c21bcecceda1u}, /* 5^24 */
    {0x0000000000000000u, 0x0422ca8b0a00a425u}, /* 5^25 */
    {0x0000000000000000u, 0x14adf4b7320334b9u}, /* 5^26 */
    {0x0000000000000000u, 0x6765c793fa10079du}, /* 5^27 */
    {0x0000000000000002u, 0x04fce5e3e2502611u}, /* 5^28 */
    {0x000000000000000au, 0x18f07d736b90be55u}, /* 5^29 */
    {0x0000000000000032u, 0x7cb2734119d3b7a9u}, /* 5^30 */
    {0x00000000000000fcu, 0x6f7c40458122964du}, /* 5^31 */
    {0x00000000000004eeu, 0x2d6d415b85acef81u}, /* 5^32 */
    {0x00000000000018a6u, 0xe32246c99c60ad85u}, /* 5^33 */
    {0x0000000000007b42u, 0x6fab61f00de36399u}, /* 5^34 */
    {0x000000000002684cu, 0x2e58e9b04570f1fdu}, /* 5^35 */
    {0x00000000000c097cu, 0xe7bc90715b34b9f1u}, /* 5^36 */
    {0x00000000003c2f70u, 0x86aed236c807a1b5u}, /* 5^37 */
    {0x00000000012ced32u, 0xa16a1b11e8262889u}, /* 5^38 */
    {0x0000000005e0a1fdu, 0x2712875988becaadu}, /* 5^39 */
    {0x000000001d6329f1u, 0xc35ca4bfabb9f561u}, /* 5^40 */
    {0x0000000092efd1b8u, 0xd0cf37be5aa1cae5u}, /* 5^41 */
    {0x00000002deaf189cu, 0x140c16b7c528f679u}, /* 5^42 */
    {0x0000000e596b7b0cu, 0x643c7196d9ccd05du}, /* 5^43 */
    {0x00000047bf19673du, 0xf52e37f2410011d1u}, /* 5^44 */
    {0x00000166bb7f0435u, 0xc9e717bb45005915u}, /* 5^45 */
    {0x00000701a97b150cu, 0xf18376a85901bd69u}, /* 5^46 */
    {0x000023084f676940u, 0xb7915149bd08b30du}, /* 5^47 */
    {0x0000af298d050e43u, 0x95d69670b12b7f41u}, /* 5^48 */
    {0x00036bcfc1194751u, 0xed30f03375d97c45u}, /* 5^49 */
    {0x00111b0ec57e6499u, 0xa1f4b1014d3f6d59u}, /* 5^50 */
    {0x00558749db77f700u, 0x29c77506823d22bdu}, /* 5^51 */
    {0x01aba4714957d300u, 0xd0e549208b31adb1u}, /* 5^52 */
    {0x085a36366eb71f04u, 0x147a6da2b7f86475u}, /* 5^53 */
    {0x29c30f1029939b14u, 0x6664242d97d9f649u}, /* 5^54 */
    {0xd0cf4b50cfe20765u, 0xfff4b4e3f741cf6du}, /* 5^55 */
};

/* The doubles nearest 10^j, j = -46 .. 39. */
static const double POW10_DOUBLE[86] = {
    1e-46, 1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39,
    1e-38, 1e-37, 1e-36, 1e-35, 1e-34, 1e-33, 1e-32, 1e-31,
    1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23,
    1e-22, 1e-21, 1e-20, 1e-19, 1e-18, 1e-17, 1e-16, 1e-15,
    1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7,
    1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1,
    1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
    1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17,
    1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25,
    1e26, 1e27, 1e28, 1e29, 1e30, 1e31, 1e32, 1e33,
    1e34, 1e35, 1e36, 1e37, 1e38, 1e39};

static u128 pow5(int n) { return ((u128)POW5[n][0] << 64) | POW5[n][1]; }

/* v * 10^s as F + remainder, exactly. */
typedef struct {
  uint64_t F;
  int frac; /* X - F: 0 zero, 1 below 1/2, 2 exactly 1/2, 3 above */
  int k;    /* decimal exponent of v: s = 8 - k */
  /* How X is represented, for the read-back test:
   * KIND_INT: X = m * 5^s * 2^shift (shift >= 0), an integer;
   * KIND_POW2: X = F + R / 2^shift, with m * 5^s = F * 2^shift + R;
   * KIND_POW5: X = F + R / D, with m * 2^shift = F * D + R, D = 5^-s. */
  enum { KIND_INT, KIND_POW2, KIND_POW5 } kind;
  int shift;
  u128 R, D, five;
} Scaled;

static void scale(uint32_t m, int e, int k, Scaled *x) {
  int s = 8 - k;
  x->k = k;
  x->R = 0;
  if (s >= 0) {
    u128 p5 = pow5(s);
    x->five = p5;
    int sh = e + s;
    if (sh >= 0) { /* v >= 2^-3 or so: small numbers, all exact in 64 bits */
      x->kind = KIND_INT;
      x->shift = sh;
      x->F = (uint64_t)(((u128)m * p5) << sh);
      x->frac = 0;
      return;
    }
    /* N = m * 5^s (up to 2^150) = hi * 2^64 + lo; F = N >> t. */
    int t = -sh; /* 1 .. 104 */
    u128 a = (u128)m * (uint64_t)p5;
    u128 b = (u128)m * (uint64_t)(p5 >> 64);
    uint64_t lo = (uint64_t)a;
    u128 hi = b + (a >> 64);
    u128 R;
    if (t < 64) {
      x->F = (uint64_t)((hi << (64 - t)) | (lo >> t));
      R = lo & ((UINT64_C(1) << t) - 1);
    } else {
      x->F = (uint64_t)(hi >> (t - 64));
      R = ((hi & (((u128)1 << (t - 64)) - 1)) << 64) | lo;
    }
    u128 half = (u128)1 << (t - 1);
    /* branch-free: random data makes these comparisons unpredictable */
    x->frac = (R != 0) + (R >= half) + (R > half);
    x->kind = KIND_POW2;
    x->shift = t;
    x->R = R;
    return;
  }
  /* s < 0 means v >= 10^9, so e >= 6 and e + s > 0: N = m * 2^(e+s) < 2^98. */
  u128 D = pow5(-s);
  int sh = e + s;
  u128 N = (u128)m << sh;
  x->F = (uint64_t)(N / D);
  u128 R = N % D;
  x->frac = (R != 0) + (2 * R >= D) + (2 * R > D);
  x->kind = KIND_POW5;
  x->shift = sh;
  x->R = R;
  x->D = D;
}

/* Splits a finite nonzero |v| into m * 2^e and scales it (k estimated from
 * the binary exponent; when it is off by one, F leaves [10^8, 10^9) and the
 * scaling is redone). */
static void decompose(uint32_t bits, uint32_t *m, int *e, Scaled *x) {
  uint32_t biased = (bits >> 23) & 0xffu, mant = bits & 0x7fffffu;
  *m = biased ? mant | 0x800000u : mant;
  *e = biased ? (int)biased - 150 : -149;
  int bexp = *e + 31 - __builtin_clz(*m);
  int k = (bexp * 78913) >> 18; /* floor(bexp * log10(2)), arithmetic shift */
  /* v < 2^(bexp+1) < 10^(k+2): at most one power of ten lies above 10^k.
   * The doubles nearest 10^j decide it (rarely wrongly, by a hair; the
   * range check below catches that). */
  float v;
  memcpy(&v, &bits, 4);
  if (k + 1 <= 39 && fabs((double)v) >= POW10_DOUBLE[k + 1 + 46]) k++;
  scale(*m, *e, k, x);
  if (x->F >= POW10[9]) scale(*m, *e, k + 1, x);
  else if (x->F < POW10[8]) scale(*m, *e, k - 1, x);
}

/* The p-digit decimal of X (p <= 9): q in [10^(p-1), 10^p), exponent *exp.
 * Inlined so that the divisions by 10^(9-p) are by constants. */
static inline __attribute__((always_inline)) uint64_t round_digits(const Scaled *x, int p, int *exp) {
  uint64_t q;
  if (p == 9) {
    q = x->F + ((x->frac == 3) | ((x->frac == 2) & (x->F & 1)));
  } else {
    uint64_t div = POW10[9 - p], half = div / 2;
    q = x->F / div;
    uint64_t r = x->F % div;
    q += (r > half) | ((r == half) & ((x->frac != 0) | (q & 1)));
  }
  *exp = x->k;
  if (q == POW10[p]) {
    q = POW10[p - 1];
    ++*exp;
  }
  return q;
}

/* Does q * 10^(exp-5) (q from round_digits with p = 6) read back as v? */
static bool reads_back(const Scaled *x, uint32_t m, int e, uint64_t q, int exp) {
  i128 dC = (i128)(q * POW10[3 + exp - x->k]) - (i128)x->F; /* |dC| <= 500 */
  bool boundary = m == 0x800000u && e > -149; /* the ulp below is half as big */
  i128 diff, up, down;
  /* diff = 4 * (decimal - v) and the half-ulps, all in units of X / (4 * denominator). */
  switch (x->kind) {
  case KIND_INT:
    diff = 4 * dC;
    up = (i128)(x->five << (x->shift + 1));
    down = boundary ? (i128)(x->five << x->shift) : up;
    break;
  case KIND_POW2:
    diff = 4 * (dC * ((i128)1 << x->shift) - (i128)x->R);
    up = (i128)(x->five * 2);
    down = boundary ? (i128)x->five : up;
    break;
  default:
    diff = 4 * (dC * (i128)x->D - (i128)x->R);
    up = (i128)1 << (x->shift + 1);
    down = boundary ? (i128)1 << x->shift : up;
    break;
  }
  if (m & 1) return -down < diff && diff < up;
  return -down <= diff && diff <= up;
}

/* printf's %g layout of q (p digits) * 10^(exp - p + 1). */
static const char DIGIT_PAIRS[201] = "00010203040506070809101112131415161718192021222324"
                                     "25262728293031323334353637383940414243444546474849"
                                     "50515253545556575859606162636465666768697071727374"
                                     "75767778798081828384858687888990919293949596979899";

/* Four digits of v < 10000. */
static void put4(char *d, uint32_t v) {
  memcpy(d, DIGIT_PAIRS + 2 * (v / 100), 2);
  memcpy(d + 2, DIGIT_PAIRS + 2 * (v % 100), 2);
}

/* The p decimal digits of q (q < 10^p), leading zeros included.  p = 9 and
 * 6 (f32's two precisions) split q into independent groups rather than one
 * long chain of divisions. */
static void put_digits(char *d, uint64_t q, int p) {
  if (p == 9) {
    uint32_t lo = (uint32_t)(q % 100000000u);
    d[0] = (char)('0' + q / 100000000u);
    put4(d + 1, lo / 10000);
    put4(d + 5, lo % 10000);
    return;
  }
  if (p == 6) {
    memcpy(d, DIGIT_PAIRS + 2 * (q / 10000), 2);
    put4(d + 2, (uint32_t)(q % 10000));
    return;
  }
  int i = p;
  while (i >= 2) {
    memcpy(d + i - 2, DIGIT_PAIRS + 2 * (q % 100), 2);
    q /= 100;
    i -= 2;
  }
  if (i) d[0] = (char)('0' + q);
}

static int g_layout(char *buf, bool neg, uint64_t q, int p, int exp) {
  /* Fixed-size copies (16 bytes, more than any digit string here) compile to
   * a few moves instead of a memcpy call per element; buf has room for
   * FLOAT_TEXT_MAX bytes, which covers the overrun. */
  char d[32];
  put_digits(d, q, p);
  int nd = p; /* significant digits left after stripping trailing zeros */
  while (nd > 1 && d[nd - 1] == '0') nd--;
  char *o = buf;
  *o = '-';
  o += neg;
  if (exp < -4 || exp >= p) {
    *o++ = d[0];
    if (nd > 1) {
      *o++ = '.';
      memcpy(o, d + 1, 16);
      o += nd - 1;
    }
    *o++ = 'e';
    *o++ = exp < 0 ? '-' : '+';
    int ax = exp < 0 ? -exp : exp;
    if (ax >= 100) {
      *o++ = (char)('0' + ax / 100);
      ax %= 100;
    }
    memcpy(o, DIGIT_PAIRS + 2 * ax, 2);
    o += 2;
  } else if (exp >= 0) {
    memcpy(o, d, 16);
    o += exp + 1;
    if (nd > exp + 1) {
      *o++ = '.';
      memcpy(o, d + exp + 1, 16);
      o += nd - exp - 1;
    }
  } else {
    memcpy(o, "0.000000", 8); /* "0." and -exp-1 (at most 3) zeros */
    o += 1 - exp;
    memcpy(o, d, 16);
    o += nd;
  }
  return (int)(o - buf);
}

/* "inf", "-inf", "0", "-0": the values without a digit string; 0 if v is
 * finite and nonzero. */
static int special(char *buf, uint32_t bits) {
  bool neg = bits >> 31;
  uint32_t mag = bits & 0x7fffffffu;
  if (mag == 0x7f800000u) {
    memcpy(buf, neg ? "-inf" : "inf", neg ? 4 : 3);
    return neg ? 4 : 3;
  }
  if (mag == 0) {
    memcpy(buf, neg ? "-0" : "0", neg ? 2 : 1);
    return neg ? 2 : 1;
  }
  return 0;
}

/* The bits of v in *bits; a special value's text in buf (its length
 * returned), else 0 with v decomposed into *m, *e and *x. */
static int f32_start(char *buf, float v, uint32_t *bits, uint32_t *m, int *e, Scaled *x) {
  memcpy(bits, &v, 4);
  int n = special(buf, *bits);
  if (!n) decompose(*bits, m, e, x);
  return n;
}

int float_text_f32_roundtrip(char *buf, float v) {
  uint32_t bits, m;
  int e, exp;
  Scaled x;
  int n = f32_start(buf, v, &bits, &m, &e, &x);
  if (n) return n;
  uint64_t q = round_digits(&x, 6, &exp);
  if (reads_back(&x, m, e, q, exp)) return g_layout(buf, bits >> 31, q, 6, exp);
  q = round_digits(&x, 9, &exp);
  return g_layout(buf, bits >> 31, q, 9, exp);
}

int float_text_f32_g(char *buf, float v, int precision) {
  uint32_t bits, m;
  int e, exp;
  Scaled x;
  int n = f32_start(buf, v, &bits, &m, &e, &x);
  if (n) return n;
  uint64_t q = round_digits(&x, precision, &exp);
  return g_layout(buf, bits >> 31, q, precision, exp);
}

int float_text_u64(char *buf, uint64_t v) {
  int n = 1;
  for (uint64_t t = v; t >= 10; t /= 10) n++;
  put_digits(buf, v, n);
  return n;
}

int float_text_i64(char *buf, int64_t v) {
  if (v >= 0) return float_text_u64(buf, (uint64_t)v);
  buf[0] = '-';
  return 1 + float_text_u64(buf + 1, 0 - (uint64_t)v);
}
