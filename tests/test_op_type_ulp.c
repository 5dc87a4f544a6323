/* Transcendental elementwise ops on every float and complex element type,
 * within an ulp bound of a long double reference.
 *
 * testdata/op-type-matrix checks these ops only at points with an exact
 * result (the golden runner compares text); this test covers the values in
 * between.  The reference is glibc's long double function on the exact
 * input (the input rounded to the type first), rounded to the type.
 * Bounds (measured distance in units in the last place of the type):
 *   - f32, f64: MAX_ULP_WIDE = 2 (measured: at most 1 ulp with glibc 2.36;
 *     logistic and rsqrt add a rounding of their own);
 *   - narrow floats (bf16, f16, f8, f6, f4), computed in f32 and rounded:
 *     1 ulp (only a result next to a rounding tie can round the other way;
 *     measured: 0);
 *   - complex: |got - ref| <= CPLX_EPS_FACTOR * eps * |ref| (norm-wise;
 *     the real and imaginary parts go through several roundings). */
#include <complex.h>
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/kernels.h"
#include "layout/etype_convert.h"

enum { MAX_ULP_WIDE = 2, MAX_ULP_NARROW = 1, CPLX_EPS_FACTOR = 16 };

static const double INPUTS[] = {-7.5, -3.3, -1.25, -0.3, -0.015625, 0.1, 0.7, 1.9, 3.3, 7.5, 31.0};
enum { NIN = sizeof INPUTS / sizeof INPUTS[0] };

/* Position of a float's bit pattern in value order: sign-magnitude ->
 * two's complement (f8e8m0fnu has no sign bit: its bits are in order). */
static int64_t order_key(EType t, const void *elem) {
  uint64_t u = 0;
  memcpy(&u, elem, (size_t)etype_storage_bytes(t));
  int bits = etype_bits(t);
  if (t == ET_F8E8M0FNU) return (int64_t)u;
  uint64_t sign = UINT64_C(1) << (bits - 1);
  int64_t mag = (int64_t)(u & (sign - 1));
  return u & sign ? -mag : mag;
}

static long double ref_unary(KUnaryOp op, long double x) {
  switch (op) {
  case KU_EXP: return expl(x);
  case KU_EXPM1: return expm1l(x);
  case KU_LOG: return logl(x);
  case KU_LOG1P: return log1pl(x);
  case KU_SIN: return sinl(x);
  case KU_COS: return cosl(x);
  case KU_TAN: return tanl(x);
  case KU_TANH: return tanhl(x);
  case KU_LOGISTIC: return 1.0L / (1.0L + expl(-x));
  case KU_RSQRT: return 1.0L / sqrtl(x);
  case KU_CBRT: return cbrtl(x);
  case KU_ERF: return erfl(x);
  default: return NAN;
  }
}

static const KUnaryOp REAL_OPS[] = {KU_EXP, KU_EXPM1, KU_LOG, KU_LOG1P, KU_SIN, KU_COS, KU_TAN,
                                    KU_TANH, KU_LOGISTIC, KU_RSQRT, KU_CBRT, KU_ERF};

/* got (type t) is within max_ulp of the reference rounded to t. */
static void expect_close(EType t, const char *what, double x, double y, const void *got, long double ref) {
  unsigned char want[16];
  double r = (double)ref;
  etype_convert_array(t, want, ET_F64, &r, 1);
  double g, w;
  etype_convert_array(ET_F64, &g, t, got, 1);
  etype_convert_array(ET_F64, &w, t, want, 1);
  if (isnan(w) || isinf(w) || isnan(g) || isinf(g)) {
    cr_expect(isnan(w) ? isnan(g) : g == w, "%s %s(%g, %g): got %g, want %g", what, etype_name(t), x, y, g, w);
    return;
  }
  int64_t d = order_key(t, got) - order_key(t, want);
  int max_ulp = t == ET_F32 || t == ET_F64 ? MAX_ULP_WIDE : MAX_ULP_NARROW;
  cr_expect(llabs(d) <= max_ulp, "%s on %s at %.17g (%.17g): got %.17g, want %.17g (%lld ulp)", what,
            etype_name(t), x, y, g, w, (long long)d);
}

Test(op_type_ulp, real_unary_every_float_type) {
  Error err;
  for (int t = 1; t < ET_COUNT; t++) {
    if (!etype_is_float((EType)t)) continue;
    for (size_t k = 0; k < sizeof REAL_OPS / sizeof REAL_OPS[0]; k++) {
      KUnaryOp op = REAL_OPS[k];
      unsigned char in[NIN * 8], out[NIN * 8];
      etype_convert_array((EType)t, in, ET_F64, INPUTS, NIN);
      cr_assert(k_unary(op, (EType)t, out, in, NIN, &err), "%s on %s: %s", k_unary_name(op),
                etype_name((EType)t), err.msg);
      int es = etype_storage_bytes((EType)t);
      for (int i = 0; i < NIN; i++) {
        double x;
        etype_convert_array(ET_F64, &x, (EType)t, in + i * es, 1);
        if (isnan(x)) continue; /* not representable (f8e8m0fnu negatives) */
        long double ref = ref_unary(op, x);
        if (isnan(ref)) continue; /* log(-x): a NaN of the CPU's sign, checked in the matrix */
        expect_close((EType)t, k_unary_name(op), x, 0, out + i * es, ref);
      }
    }
  }
}

Test(op_type_ulp, real_power_atan2_every_float_type) {
  static const double A[] = {0.5, 1.9, 3.3, 7.5, 0.1, 2.0, 0.7};
  static const double B[] = {1.5, -0.3, 2.5, 0.25, -1.25, 3.3, 7.5};
  enum { N = sizeof A / sizeof A[0] };
  Error err;
  for (int t = 1; t < ET_COUNT; t++) {
    if (!etype_is_float((EType)t)) continue;
    int es = etype_storage_bytes((EType)t);
    unsigned char a[N * 8], b[N * 8], out[N * 8];
    etype_convert_array((EType)t, a, ET_F64, A, N);
    etype_convert_array((EType)t, b, ET_F64, B, N);
    for (int which = 0; which < 2; which++) {
      KBinaryOp op = which ? KB_ATAN2 : KB_POW;
      cr_assert(k_binary(op, (EType)t, out, a, b, N, &err), "%s on %s: %s", k_binary_name(op),
                etype_name((EType)t), err.msg);
      for (int i = 0; i < N; i++) {
        double x, y;
        etype_convert_array(ET_F64, &x, (EType)t, a + i * es, 1);
        etype_convert_array(ET_F64, &y, (EType)t, b + i * es, 1);
        if (isnan(x) || isnan(y)) continue;
        long double ref = which ? atan2l(x, y) : powl(x, y);
        expect_close((EType)t, k_binary_name(op), x, y, out + i * es, ref);
      }
    }
  }
}

static long double complex ref_complex(KUnaryOp op, long double complex z) {
  switch (op) {
  case KU_EXP: return cexpl(z);
  case KU_EXPM1: return cexpl(z) - 1.0L;
  case KU_LOG: return clogl(z);
  case KU_LOG1P: return clogl(1.0L + z);
  case KU_SIN: return csinl(z);
  case KU_COS: return ccosl(z);
  case KU_TAN: return ctanl(z);
  case KU_TANH: return ctanhl(z);
  case KU_LOGISTIC: return 1.0L / (1.0L + cexpl(-z));
  case KU_RSQRT: return 1.0L / csqrtl(z);
  case KU_SQRT: return csqrtl(z);
  default: return NAN;
  }
}

static void expect_complex_close(EType t, const char *what, long double complex z, long double complex got,
                                 long double complex ref) {
  long double eps = t == ET_C64 ? FLT_EPSILON : DBL_EPSILON;
  long double err = cabsl(got - ref), bound = CPLX_EPS_FACTOR * eps * cabsl(ref);
  cr_expect(err <= bound, "%s on %s at (%Lg, %Lg): got (%.17Lg, %.17Lg), want (%.17Lg, %.17Lg)", what,
            etype_name(t), creall(z), cimagl(z), creall(got), cimagl(got), creall(ref), cimagl(ref));
}

Test(op_type_ulp, complex_transcendental) {
  static const KUnaryOp OPS[] = {KU_EXP, KU_EXPM1, KU_LOG, KU_LOG1P, KU_SIN, KU_COS, KU_TAN,
                                 KU_TANH, KU_LOGISTIC, KU_RSQRT, KU_SQRT};
  static const double ZS[][2] = {{0.5, 0.25}, {-1.25, 0.7}, {1.9, -3.3}, {-0.3, -0.1}, {3.3, 1.0}, {0.1, 2.5}};
  enum { N = sizeof ZS / sizeof ZS[0] };
  Error err;
  for (int which = 0; which < 2; which++) {
    EType t = which ? ET_C128 : ET_C64;
    for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; k++) {
      float complex in32[N], out32[N];
      double complex in64[N], out64[N];
      for (int i = 0; i < N; i++) {
        in32[i] = CMPLXF((float)ZS[i][0], (float)ZS[i][1]);
        in64[i] = CMPLX(ZS[i][0], ZS[i][1]);
      }
      cr_assert(k_unary(OPS[k], t, which ? (void *)out64 : (void *)out32, which ? (void *)in64 : (void *)in32, N,
                        &err),
                "%s on %s: %s", k_unary_name(OPS[k]), etype_name(t), err.msg);
      for (int i = 0; i < N; i++) {
        long double complex z = which ? (long double complex)in64[i] : (long double complex)in32[i];
        long double complex got = which ? (long double complex)out64[i] : (long double complex)out32[i];
        expect_complex_close(t, k_unary_name(OPS[k]), z, got, ref_complex(OPS[k], z));
      }
    }
  }
}

Test(op_type_ulp, complex_power_atan2) {
  static const double A[][2] = {{0.5, 0.25}, {1.9, -3.3}, {-1.25, 0.7}};
  static const double B[][2] = {{1.5, -0.5}, {0.3, 0.2}, {-2.0, 1.0}};
  enum { N = sizeof A / sizeof A[0] };
  Error err;
  double complex a[N], b[N], out[N];
  for (int i = 0; i < N; i++) a[i] = CMPLX(A[i][0], A[i][1]), b[i] = CMPLX(B[i][0], B[i][1]);
  cr_assert(k_binary(KB_POW, ET_C128, out, a, b, N, &err), "%s", err.msg);
  for (int i = 0; i < N; i++)
    expect_complex_close(ET_C128, "power", a[i], out[i], cpowl(a[i], b[i]));
  cr_assert(k_binary(KB_ATAN2, ET_C128, out, a, b, N, &err), "%s", err.msg);
  for (int i = 0; i < N; i++) {
    /* XLA's definition: atan2(y, x) = -i log((x + iy) / sqrt(x^2 + y^2)) */
    long double complex y = a[i], x = b[i];
    long double complex ref = -I * clogl((x + I * y) / csqrtl(x * x + y * y));
    expect_complex_close(ET_C128, "atan2", a[i], out[i], ref);
  }
}
