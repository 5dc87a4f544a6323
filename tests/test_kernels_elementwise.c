/* Elementwise kernels: XLA's integer edge rules, NaN/-0 handling, narrow
 * float rounding, compare orders, bitcast-convert, reduce-precision.
 * Expected values are derived by hand from the rules in kernels/kernels.h. */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "kernels/kernels.h"
#include "layout/etype_convert.h"

static uint32_t f32b(float v) {
  uint32_t u;
  memcpy(&u, &v, 4);
  return u;
}

Test(k_binary, s32_wrap_div_rem) {
  int32_t a[] = {INT32_MAX, INT32_MIN, 7, -7, INT32_MIN, 5, -5, 0};
  int32_t b[] = {1, -1, 0, 0, -1, -2, 2, 0};
  int32_t o[8];
  Error err;
  cr_assert(k_binary(KB_ADD, ET_S32, o, a, b, 8, &err));
  cr_expect_eq(o[0], INT32_MIN); /* wraps */
  cr_assert(k_binary(KB_MUL, ET_S32, o, a, b, 8, &err));
  cr_expect_eq(o[1], INT32_MIN); /* INT_MIN * -1 wraps */
  cr_assert(k_binary(KB_DIV, ET_S32, o, a, b, 8, &err));
  cr_expect_eq(o[1], INT32_MIN); /* INT_MIN / -1 */
  cr_expect_eq(o[2], -1);        /* x / 0 = -1 */
  cr_expect_eq(o[3], -1);
  cr_expect_eq(o[5], -2); /* truncation toward zero */
  cr_expect_eq(o[6], -2);
  cr_expect_eq(o[7], -1);
  cr_assert(k_binary(KB_REM, ET_S32, o, a, b, 8, &err));
  cr_expect_eq(o[1], 0);  /* INT_MIN % -1 */
  cr_expect_eq(o[2], 7);  /* x % 0 = x */
  cr_expect_eq(o[3], -7);
  cr_expect_eq(o[5], 1);  /* sign of dividend */
  cr_expect_eq(o[6], -1);
}

Test(k_binary, unsigned_div_zero_and_sub_byte) {
  uint8_t a[] = {200, 9, 0}, b[] = {0, 2, 1}, o[3];
  Error err;
  cr_assert(k_binary(KB_DIV, ET_U8, o, a, b, 3, &err));
  cr_expect_eq(o[0], 255);
  cr_expect_eq(o[1], 4);
  cr_assert(k_binary(KB_REM, ET_U8, o, a, b, 3, &err));
  cr_expect_eq(o[0], 200);
  cr_assert(k_binary(KB_SUB, ET_U8, o, b, a, 3, &err));
  cr_expect_eq(o[0], 56); /* 0 - 200 wraps */
  /* s4: -8 / -1 = -8, 7 + 1 = -8, -8 * -1 = -8 */
  int8_t x[] = {-8, 7, -8, 3}, y[] = {-1, 1, 0, -3}, r[4];
  cr_assert(k_binary(KB_DIV, ET_S4, r, x, y, 4, &err));
  cr_expect_eq(r[0], -8);
  cr_expect_eq(r[2], -1);
  cr_expect_eq(r[3], -1);
  cr_assert(k_binary(KB_ADD, ET_S4, r, x, y, 4, &err));
  cr_expect_eq(r[1], -8);
  cr_expect_eq(r[0], 7); /* -8 + -1 = -9 wraps to 7 */
  cr_assert(k_binary(KB_REM, ET_S4, r, x, y, 4, &err));
  cr_expect_eq(r[0], 0);
  cr_expect_eq(r[2], -8);
  uint8_t u[] = {15, 9}, v[] = {1, 9}, w[2];
  cr_assert(k_binary(KB_ADD, ET_U4, w, u, v, 2, &err));
  cr_expect_eq(w[0], 0);
  cr_expect_eq(w[1], 2); /* 18 mod 16 */
  cr_assert(k_binary(KB_DIV, ET_U4, w, u, (uint8_t[]){0, 0}, 2, &err));
  cr_expect_eq(w[0], 15); /* all ones of 4 bits */
}

Test(k_binary, shifts) {
  int32_t a[] = {1, -8, -8, 5, 1}, b[] = {31, 1, 32, -1, 33}, o[5];
  Error err;
  cr_assert(k_binary(KB_SHL, ET_S32, o, a, b, 5, &err));
  cr_expect_eq(o[0], INT32_MIN);
  cr_expect_eq(o[1], -16);
  cr_expect_eq(o[2], 0);
  cr_expect_eq(o[3], 0); /* negative amount = huge unsigned */
  cr_expect_eq(o[4], 0);
  cr_assert(k_binary(KB_SHR_ARITH, ET_S32, o, a, b, 5, &err));
  cr_expect_eq(o[1], -4);
  cr_expect_eq(o[2], -1); /* >= width: sign fill */
  cr_expect_eq(o[3], 0);
  cr_assert(k_binary(KB_SHR_LOGICAL, ET_S32, o, a, b, 5, &err));
  cr_expect_eq(o[1], 0x7ffffffc);
  cr_expect_eq(o[2], 0);
  uint8_t x[] = {0x80, 0x80, 0xff}, y[] = {1, 8, 7}, r[3];
  cr_assert(k_binary(KB_SHR_ARITH, ET_U8, r, x, y, 3, &err));
  cr_expect_eq(r[0], 0xc0);
  cr_expect_eq(r[1], 0xff);
  cr_expect_eq(r[2], 0xff);
  int8_t s[] = {-8, -8, 7, 1}, t[] = {1, 4, 1, 3}, q[4];
  cr_assert(k_binary(KB_SHR_LOGICAL, ET_S4, q, s, t, 4, &err));
  cr_expect_eq(q[0], 4); /* 1000b >> 1 = 0100b */
  cr_expect_eq(q[1], 0);
  cr_assert(k_binary(KB_SHL, ET_S4, q, s, t, 4, &err));
  cr_expect_eq(q[2], -2); /* 0111b << 1 = 1110b */
  cr_expect_eq(q[3], -8);
  cr_expect_eq(q[1], 0);
}

Test(k_binary, integer_power) {
  int32_t a[] = {3, 2, 1, -1, 2, -2, 0}, b[] = {4, 31, -5, -1, -1, 3, 0}, o[7];
  Error err;
  cr_assert(k_binary(KB_POW, ET_S32, o, a, b, 7, &err));
  cr_expect_eq(o[0], 81);
  cr_expect_eq(o[1], INT32_MIN);
  cr_expect_eq(o[2], 1);
  cr_expect_eq(o[3], 0);
  cr_expect_eq(o[4], 0);
  cr_expect_eq(o[5], -8);
  cr_expect_eq(o[6], 1);
}

Test(k_binary, float_max_min_nan_zero) {
  float a[] = {NAN, 1.0f, -0.0f, 0.0f, 2.0f}, b[] = {1.0f, NAN, 0.0f, -0.0f, -3.0f}, o[5];
  Error err;
  cr_assert(k_binary(KB_MAX, ET_F32, o, a, b, 5, &err));
  cr_expect(isnan(o[0]) && isnan(o[1]));
  cr_expect(o[2] == 0 && !signbit(o[2]));
  cr_expect(o[3] == 0 && !signbit(o[3]));
  cr_expect_eq(o[4], 2.0f);
  cr_assert(k_binary(KB_MIN, ET_F32, o, a, b, 5, &err));
  cr_expect(isnan(o[0]) && isnan(o[1]));
  cr_expect(o[2] == 0 && signbit(o[2]));
  cr_expect(o[3] == 0 && signbit(o[3]));
  cr_expect_eq(o[4], -3.0f);
  double c[] = {7.5, -7.5}, d[] = {2.0, 2.0}, r[2];
  cr_assert(k_binary(KB_REM, ET_F64, r, c, d, 2, &err));
  cr_expect(r[0] == 1.5 && r[1] == -1.5);
}

Test(k_binary, bf16_rounds_after_op) {
  /* 1 + 2^-8 is a tie in bf16 (8 significant bits): rounds to even = 1 */
  uint16_t a[] = {0x3f80, 0x3f81}, b[2], o[2];
  float eps = 0x1p-8f;
  etype_convert_array(ET_BF16, b, ET_F32, (float[]){eps, eps}, 2);
  Error err;
  cr_assert(k_binary(KB_ADD, ET_BF16, o, a, b, 2, &err));
  cr_expect_eq(o[0], 0x3f80);
  cr_expect_eq(o[1], 0x3f82); /* 1.0078125 + 0.00390625: tie, odd -> up */
  uint8_t x[] = {0x7e}, y[] = {0x40}, r[1]; /* f8e4m3fn: 448 * 2 overflows to NaN */
  cr_assert(k_binary(KB_MUL, ET_F8E4M3FN, r, x, y, 1, &err));
  cr_expect_eq(r[0], 0x7f);
  uint16_t h[] = {0x7bff}, h1[] = {0x3c00}, hr[1]; /* f16 65504 + 1 = 65505 -> 65504 */
  cr_assert(k_binary(KB_ADD, ET_F16, hr, h, h1, 1, &err));
  cr_expect_eq(hr[0], 0x7bff);
}

Test(k_binary, pred_and_complex) {
  uint8_t a[] = {0, 1, 1}, b[] = {1, 1, 0}, o[3];
  Error err;
  cr_assert(k_binary(KB_XOR, ET_PRED, o, a, b, 3, &err));
  cr_expect(o[0] == 1 && o[1] == 0 && o[2] == 1);
  cr_assert(k_binary(KB_ADD, ET_PRED, o, a, b, 3, &err));
  cr_expect(o[0] == 1 && o[1] == 1 && o[2] == 1);
  cr_expect(!k_binary(KB_SUB, ET_PRED, o, a, b, 3, &err));
  float re[] = {1, 3}, im[] = {2, -4}, c[4];
  cr_assert(k_binary(KB_COMPLEX, ET_F32, c, re, im, 2, &err));
  cr_expect(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == -4);
  float m[4];
  cr_assert(k_binary(KB_MUL, ET_C64, m, c, c, 2, &err)); /* (1+2i)^2 = -3+4i */
  cr_expect(m[0] == -3 && m[1] == 4);
  cr_expect(!k_binary(KB_AND, ET_F32, m, re, im, 2, &err));
  cr_expect(!k_binary(KB_SHL, ET_F32, m, re, im, 2, &err));
}

/* XLA's HloEvaluator defines complex atan2(y, x) = -i*log((x + i*y)/sqrt(x^2 + y^2));
 * expected values from numpy: -1j*np.log((x+1j*y)/np.sqrt(x*x+y*y)). */
Test(k_binary, complex_atan2) {
  double y[] = {1, 0, 1, 1, -2, 0.5}, x[] = {1, 0, 2, -1, -1, -3}, o[6];
  const double want[] = {0.78539816339744828, 0, 0.29400130177378375, 0.6412373393653843,
                         -3.0554972463283239, -0.77047749244876085};
  Error err;
  cr_assert(k_binary(KB_ATAN2, ET_C128, o, y, x, 3, &err));
  for (int i = 0; i < 6; i++) cr_expect(fabs(o[i] - want[i]) < 1e-14, "%d: %.17g", i, o[i]);
  float yf[] = {1, 0}, xf[] = {1, 0}, of[2];
  cr_assert(k_binary(KB_ATAN2, ET_C64, of, yf, xf, 1, &err));
  cr_expect(fabsf(of[0] - 0.785398163f) < 1e-6f && fabsf(of[1]) < 1e-6f);
  cr_expect(!k_binary(KB_ATAN2, ET_S32, o, y, x, 1, &err));
}

Test(k_unary, integers) {
  int8_t s4[] = {-8, 7, -1, 0}, o[4];
  Error err;
  cr_assert(k_unary(KU_NEGATE, ET_S4, o, s4, 4, &err));
  cr_expect(o[0] == -8 && o[1] == -7 && o[2] == 1 && o[3] == 0);
  cr_assert(k_unary(KU_ABS, ET_S4, o, s4, 4, &err));
  cr_expect(o[0] == -8 && o[1] == 7 && o[2] == 1);
  cr_assert(k_unary(KU_POPCNT, ET_S4, o, s4, 4, &err));
  cr_expect(o[0] == 1 && o[1] == 3 && o[2] == 4 && o[3] == 0);
  cr_assert(k_unary(KU_CLZ, ET_S4, o, s4, 4, &err));
  cr_expect(o[0] == 0 && o[1] == 1 && o[2] == 0 && o[3] == 4);
  cr_assert(k_unary(KU_NOT, ET_S4, o, s4, 4, &err));
  cr_expect(o[0] == 7 && o[1] == -8 && o[2] == 0 && o[3] == -1);
  cr_assert(k_unary(KU_SIGN, ET_S4, o, s4, 4, &err));
  cr_expect(o[0] == -1 && o[1] == 1 && o[3] == 0);
  uint8_t u4[] = {1, 15, 0}, p[3];
  cr_assert(k_unary(KU_CLZ, ET_U4, p, u4, 3, &err));
  cr_expect(p[0] == 3 && p[1] == 0 && p[2] == 4);
  cr_assert(k_unary(KU_NOT, ET_U4, p, u4, 3, &err));
  cr_expect(p[0] == 14 && p[1] == 0 && p[2] == 15);
  cr_assert(k_unary(KU_NEGATE, ET_U4, p, u4, 3, &err));
  cr_expect(p[0] == 15 && p[1] == 1 && p[2] == 0);
  int64_t s64[] = {INT64_MIN, -1, 1}, q[3];
  cr_assert(k_unary(KU_ABS, ET_S64, q, s64, 3, &err));
  cr_expect(q[0] == INT64_MIN && q[1] == 1);
  cr_assert(k_unary(KU_CLZ, ET_S64, q, s64, 3, &err));
  cr_expect(q[0] == 0 && q[1] == 0 && q[2] == 63);
  cr_assert(k_unary(KU_POPCNT, ET_S64, q, s64, 3, &err));
  cr_expect(q[0] == 1 && q[1] == 64 && q[2] == 1);
  uint8_t pr[] = {0, 1}, pn[2];
  cr_assert(k_unary(KU_NOT, ET_PRED, pn, pr, 2, &err));
  cr_expect(pn[0] == 1 && pn[1] == 0);
}

Test(k_unary, floats) {
  float x[] = {-0.0f, NAN, -2.5f, 2.5f, 0.5f, -0.5f, 3.0f, INFINITY}, o[8];
  uint8_t p[8];
  Error err;
  cr_assert(k_unary(KU_SIGN, ET_F32, o, x, 8, &err));
  cr_expect(o[0] == 0 && signbit(o[0]));
  cr_expect(isnan(o[1]));
  cr_expect(o[2] == -1 && o[3] == 1 && o[7] == 1);
  cr_assert(k_unary(KU_ROUND_AFZ, ET_F32, o, x, 8, &err));
  cr_expect(o[2] == -3 && o[3] == 3 && o[4] == 1 && o[5] == -1);
  cr_assert(k_unary(KU_ROUND_EVEN, ET_F32, o, x, 8, &err));
  cr_expect(o[2] == -2 && o[3] == 2 && o[4] == 0 && o[5] == 0 && signbit(o[5]));
  cr_assert(k_unary(KU_IS_FINITE, ET_F32, p, x, 8, &err));
  cr_expect(p[0] == 1 && p[1] == 0 && p[2] == 1 && p[7] == 0);
  cr_assert(k_unary(KU_ABS, ET_F32, o, x, 8, &err));
  cr_expect(f32b(o[0]) == 0 && o[2] == 2.5f);
  cr_assert(k_unary(KU_CBRT, ET_F32, o, (float[]){-27.0f}, 1, &err));
  cr_expect_eq(o[0], -3.0f);
  cr_assert(k_unary(KU_LOGISTIC, ET_F32, o, (float[]){0.0f}, 1, &err));
  cr_expect_eq(o[0], 0.5f);
  cr_assert(k_unary(KU_RSQRT, ET_F32, o, (float[]){4.0f}, 1, &err));
  cr_expect_eq(o[0], 0.5f);
  cr_expect(!k_unary(KU_NOT, ET_F32, o, x, 8, &err));
  cr_expect(!k_unary(KU_POPCNT, ET_F64, o, x, 1, &err));
  cr_expect(!k_unary(KU_IS_FINITE, ET_S32, p, x, 1, &err));
  /* narrow: f8e4m3fnuz negate(0) stays +0; is-finite(NaN 0x80) = 0 */
  uint8_t f8[] = {0x00, 0x80, 0x40}, r8[3];
  cr_assert(k_unary(KU_NEGATE, ET_F8E4M3FNUZ, r8, f8, 3, &err));
  cr_expect(r8[0] == 0x00 && r8[1] == 0x80 && r8[2] == 0xc0);
  cr_assert(k_unary(KU_IS_FINITE, ET_F8E4M3FNUZ, r8, f8, 3, &err));
  cr_expect(r8[0] == 1 && r8[1] == 0 && r8[2] == 1);
  uint16_t b[] = {0x4049}, rb[1]; /* bf16 3.140625: sqrt = 1.7722 -> bf16 1.7734375 (0x3fe3) */
  cr_assert(k_unary(KU_SQRT, ET_BF16, rb, b, 1, &err));
  cr_expect_eq(rb[0], 0x3fe3);
}

Test(k_unary, complex) {
  float z[] = {3, 4, 0, 0}, r[2], c[4];
  Error err;
  cr_assert(k_unary(KU_ABS, ET_C64, r, z, 2, &err));
  cr_expect(r[0] == 5 && r[1] == 0);
  cr_assert(k_unary(KU_SIGN, ET_C64, c, z, 2, &err));
  cr_expect(fabsf(c[0] - 0.6f) < 1e-7f && fabsf(c[1] - 0.8f) < 1e-7f && c[2] == 0 && c[3] == 0);
  cr_assert(k_unary(KU_IMAG, ET_C64, r, z, 2, &err));
  cr_expect(r[0] == 4);
  cr_assert(k_unary(KU_REAL, ET_C64, r, z, 2, &err));
  cr_expect(r[0] == 3);
  double w[] = {-4, 0}, s[2];
  cr_assert(k_unary(KU_SQRT, ET_C128, s, w, 1, &err));
  cr_expect(s[0] == 0 && s[1] == 2);
  cr_expect(!k_unary(KU_FLOOR, ET_C64, c, z, 1, &err));
  cr_expect_eq(k_unary_result_type(KU_ABS, ET_C128), ET_F64);
  cr_expect_eq(k_unary_result_type(KU_IS_FINITE, ET_BF16), ET_PRED);
}

/* Complex log1p and expm1 must not form 1 + z or e^z - 1 first: for a small z
 * that drops the whole real part (log1p(1e-13) came out 0). Expected values
 * are the Taylor series by hand: log1p(x) = x - x^2/2 + ..., |1 + z| for
 * z = -1e-13 + 2e-13i is 1 - 1e-13 + 1.5e-26 + ..., and for a huge z the
 * modulus is |z| itself (log(1e30 * sqrt 2) = 30 ln 10 + ln 2 / 2). */
Test(k_unary, complex_log1p_expm1_keep_small_real_parts) {
  Error err;
  double z[] = {1e-13, 0, -1e-13, 2e-13, -1, 0}, w[6];
  cr_assert(k_unary(KU_LOG1P, ET_C128, w, z, 3, &err));
  cr_expect(fabs(w[0] - (1e-13 - 5e-27)) < 1e-28 && w[1] == 0);
  cr_expect(fabs(w[2] - (-1e-13 + 1.5e-26)) < 1e-28);
  cr_expect(fabs(w[3] - 2e-13 * (1 + 1e-13)) < 1e-27);
  cr_expect(isinf(w[4]) && w[4] < 0 && w[5] == 0);
  float big[] = {1e30f, 1e30f}, b[2];
  cr_assert(k_unary(KU_LOG1P, ET_C64, b, big, 1, &err));
  cr_expect(fabsf(b[0] - (float)(30 * log(10.0) + 0.5 * log(2.0))) < 1e-5f);
  cr_expect(fabsf(b[1] - (float)(M_PI / 4)) < 1e-7f);
  float e[] = {1e-10f, 0, INFINITY, 0}, eo[4];
  cr_assert(k_unary(KU_EXPM1, ET_C64, eo, e, 2, &err));
  cr_expect(eo[0] == 1e-10f && eo[1] == 0);
  cr_expect(isinf(eo[2]) && eo[2] > 0 && eo[3] == 0);
  double d[] = {1e-10, 1e-10}, dout[2];
  cr_assert(k_unary(KU_EXPM1, ET_C128, dout, d, 1, &err));
  /* (x + x^2/2)(1 - y^2/2) - y^2/2 = x + O(1e-30); e^x sin y = y(1 + x) */
  cr_expect(fabs(dout[0] - 1e-10) < 1e-25);
  cr_expect(fabs(dout[1] - 1e-10 * (1 + 1e-10)) < 1e-25);
}

Test(k_compare, directions_and_orders) {
  float a[] = {1, NAN, -0.0f, 2}, b[] = {2, NAN, 0.0f, 2};
  uint8_t o[4];
  Error err;
  cr_assert(k_compare(KCMP_LT, KCMP_DEFAULT, ET_F32, o, a, b, 4, &err));
  cr_expect(o[0] == 1 && o[1] == 0 && o[2] == 0 && o[3] == 0);
  cr_assert(k_compare(KCMP_NE, KCMP_FLOAT, ET_F32, o, a, b, 4, &err));
  cr_expect(o[0] == 1 && o[1] == 1 && o[2] == 0 && o[3] == 0);
  cr_assert(k_compare(KCMP_EQ, KCMP_FLOAT, ET_F32, o, a, b, 4, &err));
  cr_expect(o[1] == 0 && o[2] == 1 && o[3] == 1);
  /* total order: -NaN < -Inf < -1 < -0 < +0 < 1 < Inf < NaN */
  float ord[] = {-NAN, -INFINITY, -1.0f, -0.0f, 0.0f, 1.0f, INFINITY, NAN};
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++) {
      cr_assert(k_compare(KCMP_LT, KCMP_TOTALORDER, ET_F32, o, &ord[i], &ord[j], 1, &err));
      cr_expect_eq(o[0], i < j, "%d < %d", i, j);
      cr_assert(k_compare(KCMP_EQ, KCMP_TOTALORDER, ET_F32, o, &ord[i], &ord[j], 1, &err));
      cr_expect_eq(o[0], i == j, "%d == %d", i, j);
    }
  uint16_t h[] = {0xfe00, 0xfc00, 0x8000, 0x0000, 0x7c00, 0x7e00};
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      cr_assert(k_compare(KCMP_GE, KCMP_TOTALORDER, ET_F16, o, &h[i], &h[j], 1, &err));
      cr_expect_eq(o[0], i >= j, "f16 %d >= %d", i, j);
    }
  uint8_t e4[] = {0xff, 0xb8, 0x80, 0x00, 0x38, 0x7f}; /* e4m3fn: -nan, -1, -0, 0, 1, nan */
  for (int i = 0; i < 6; i++)
    for (int j = 0; j < 6; j++) {
      cr_assert(k_compare(KCMP_LT, KCMP_TOTALORDER, ET_F8E4M3FN, o, &e4[i], &e4[j], 1, &err));
      cr_expect_eq(o[0], i < j, "e4m3fn %d < %d", i, j);
    }
  uint32_t u[] = {0xffffffffu, 1}, v[] = {1, 0xffffffffu};
  cr_assert(k_compare(KCMP_GT, KCMP_DEFAULT, ET_U32, o, u, v, 2, &err));
  cr_expect(o[0] == 1 && o[1] == 0);
  int32_t s[] = {-1, 1}, t[] = {1, -1};
  cr_assert(k_compare(KCMP_GT, KCMP_SIGNED, ET_S32, o, s, t, 2, &err));
  cr_expect(o[0] == 0 && o[1] == 1);
  cr_expect(!k_compare(KCMP_GT, KCMP_UNSIGNED, ET_S32, o, s, t, 2, &err));
  cr_expect(!k_compare(KCMP_LT, KCMP_FLOAT, ET_C64, o, a, b, 1, &err));
  uint8_t f8a[] = {0x80}, f8b[] = {0x80}; /* fnuz NaN is unordered */
  cr_assert(k_compare(KCMP_EQ, KCMP_FLOAT, ET_F8E4M3FNUZ, o, f8a, f8b, 1, &err));
  cr_expect_eq(o[0], 0);
}

Test(k_select_clamp, basics) {
  uint8_t p[] = {1, 0, 1};
  int16_t a[] = {1, 2, 3}, b[] = {-1, -2, -3}, o[3];
  Error err;
  cr_assert(k_select(ET_S16, o, p, false, a, b, 3, &err));
  cr_expect(o[0] == 1 && o[1] == -2 && o[2] == 3);
  cr_assert(k_select(ET_S16, o, (uint8_t[]){0}, true, a, b, 3, &err));
  cr_expect(o[0] == -1 && o[2] == -3);
  double c1[] = {1, 2, 3, 4}, c2[] = {5, 6, 7, 8}, co[4];
  cr_assert(k_select(ET_C128, co, p, false, c1, c2, 2, &err));
  cr_expect(co[0] == 1 && co[1] == 2 && co[2] == 7 && co[3] == 8);
  float lo = 0.0f, hi = 1.0f, x[] = {-1, 0.5f, 2, NAN}, r[4];
  cr_assert(k_clamp(ET_F32, r, &lo, true, x, &hi, true, 4, &err));
  cr_expect(r[0] == 0 && r[1] == 0.5f && r[2] == 1 && isnan(r[3]));
  int8_t slo = -2, shi = 3, sx[] = {-8, 0, 7}, sr[3];
  cr_assert(k_clamp(ET_S4, sr, &slo, true, sx, &shi, true, 3, &err));
  cr_expect(sr[0] == -2 && sr[1] == 0 && sr[2] == 3);
  uint16_t blo = 0x0000, bhi = 0x3f80, bx[] = {0x4000, 0xbf80}, br[2]; /* bf16 clamp(0, x, 1) */
  cr_assert(k_clamp(ET_BF16, br, &blo, true, bx, &bhi, true, 2, &err));
  cr_expect(br[0] == 0x3f80 && br[1] == 0x0000);
  /* pred: false < true, as HloEvaluator's std::min/max on bool */
  uint8_t plo[] = {1, 0, 0, 1}, px[] = {0, 1, 0, 1}, phi[] = {1, 0, 1, 1}, pr[4];
  cr_assert(k_clamp(ET_PRED, pr, plo, false, px, phi, false, 4, &err));
  cr_expect(pr[0] == 1 && pr[1] == 0 && pr[2] == 0 && pr[3] == 1);
  /* NaN precedence (HloEvaluator HandleClamp): lo, then x, then hi */
  float nlo[] = {-NAN, 0.0f, 0.0f}, nx[] = {1.0f, -NAN, 1.0f}, nhi[] = {NAN, NAN, -NAN}, nr[3];
  cr_assert(k_clamp(ET_F32, nr, nlo, false, nx, nhi, false, 3, &err));
  cr_expect(isnan(nr[0]) && signbit(nr[0]) && isnan(nr[1]) && signbit(nr[1]) && isnan(nr[2]) && signbit(nr[2]));
}

/* The branch-free max/min (kernels/k_internal.h) against XLA's rule written
 * with branches (llvm.maximum/minimum: a NaN first operand, then a NaN
 * second, wins; -0 < +0), over every pair of special and ordinary values,
 * through clamp with array and scalar bounds and through maximum/minimum,
 * in vector-length runs so the vectorised loops see every pair. */
static float ref_max(float a, float b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}
static float ref_min(float a, float b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}
static uint32_t bits32(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

Test(k_select_clamp, branch_free_max_min_match_the_rule) {
  static const uint32_t sv[] = {0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x7f800000, 0xff800000,
                                0x7fc00000, 0xffc00001, 0x7f800001, 0x00000001, 0x80000001, 0x7f7fffff,
                                0x40c00000, 0xc0c00000, 0x3f000000};
  enum { NS = sizeof sv / sizeof *sv, N = NS * NS };
  static float a[N], b[N], x[N], r[N];
  Error err;
  for (int i = 0; i < NS; i++)
    for (int j = 0; j < NS; j++) {
      memcpy(&a[i * NS + j], &sv[i], 4);
      memcpy(&b[i * NS + j], &sv[j], 4);
    }
  KBinaryOp mx, mn;
  cr_assert(k_binary_lookup("maximum", &mx) && k_binary_lookup("minimum", &mn));
  cr_assert(k_binary(mx, ET_F32, r, a, b, N, &err));
  for (int k = 0; k < N; k++)
    cr_assert_eq(bits32(r[k]), bits32(ref_max(a[k], b[k])), "max(%08x, %08x)", bits32(a[k]), bits32(b[k]));
  cr_assert(k_binary(mn, ET_F32, r, a, b, N, &err));
  for (int k = 0; k < N; k++)
    cr_assert_eq(bits32(r[k]), bits32(ref_min(a[k], b[k])), "min(%08x, %08x)", bits32(a[k]), bits32(b[k]));
  /* clamp(lo, x, hi) = min(max(lo, x), hi): every (lo, hi) pair over every x */
  for (int i = 0; i < NS; i++) memcpy(&x[i], &sv[i], 4);
  for (int l = 0; l < NS; l++)
    for (int h = 0; h < NS; h++) {
      float lo, hi, los[NS], his[NS];
      memcpy(&lo, &sv[l], 4);
      memcpy(&hi, &sv[h], 4);
      for (int i = 0; i < NS; i++) { los[i] = lo; his[i] = hi; }
      for (int scalar = 0; scalar < 2; scalar++) {
        cr_assert(k_clamp(ET_F32, r, scalar ? &lo : los, scalar, x, scalar ? &hi : his, scalar, NS, &err));
        for (int i = 0; i < NS; i++)
          cr_assert_eq(bits32(r[i]), bits32(ref_min(ref_max(lo, x[i]), hi)), "clamp(%08x, %08x, %08x)%s",
                       sv[l], sv[i], sv[h], scalar ? " scalar bounds" : "");
      }
    }
}

Test(k_convert, bitcast_widths) {
  Error err;
  float f = 1.0f; /* 0x3f800000 -> f16[2] = {0x0000, 0x3f80} (little-endian order) */
  uint16_t h[2];
  cr_expect_eq(k_bitcast_convert_count(ET_F16, ET_F32, 1), 2);
  cr_assert(k_bitcast_convert(ET_F16, h, ET_F32, &f, 1, &err));
  cr_expect(h[0] == 0x0000 && h[1] == 0x3f80);
  uint32_t back;
  cr_expect_eq(k_bitcast_convert_count(ET_U32, ET_F16, 2), 1);
  cr_assert(k_bitcast_convert(ET_U32, &back, ET_F16, h, 2, &err));
  cr_expect_eq(back, 0x3f800000u);
  cr_expect_eq(k_bitcast_convert_count(ET_U32, ET_F16, 3), -1);
  uint8_t byte = 0x9c; /* -> s4[2]: low nibble 0xc = -4, high 0x9 = -7 */
  int8_t s4[2];
  cr_assert(k_bitcast_convert(ET_S4, s4, ET_U8, &byte, 1, &err));
  cr_expect(s4[0] == -4 && s4[1] == -7);
  uint8_t again;
  cr_assert(k_bitcast_convert(ET_U8, &again, ET_S4, s4, 2, &err));
  cr_expect_eq(again, 0x9c);
  int8_t m1 = -1;
  uint8_t u4;
  cr_assert(k_bitcast_convert(ET_U4, &u4, ET_S4, &m1, 1, &err));
  cr_expect_eq(u4, 15);
  uint8_t f4;
  cr_assert(k_bitcast_convert(ET_F4E2M1FN, &f4, ET_S4, &m1, 1, &err));
  cr_expect_eq(f4, 0xf);
  uint8_t pr;
  uint8_t two = 2;
  cr_assert(k_bitcast_convert(ET_PRED, &pr, ET_U8, &two, 1, &err));
  cr_expect_eq(pr, 1);
  uint16_t hh = 0xabcd; /* -> u4[4]: d, c, b, a */
  uint8_t nib[4];
  cr_assert(k_bitcast_convert(ET_U4, nib, ET_U16, &hh, 1, &err));
  cr_expect(nib[0] == 0xd && nib[1] == 0xc && nib[2] == 0xb && nib[3] == 0xa);
  cr_expect_eq(k_bitcast_convert_count(ET_F6E2M3FN, ET_U8, 1), -1);
}

Test(k_convert, reduce_precision) {
  Error err;
  /* to bf16 precision: e8m7 */
  float x[] = {1.00390625f /* 1 + 2^-8: tie -> 1 */, 1.01171875f /* 1 + 3*2^-8: tie -> 1 + 2^-6 */,
               NAN, 0x1p-130f /* one mantissa bit: survives */};
  float r[4];
  cr_assert(k_reduce_precision(ET_F32, r, x, 4, 8, 7, &err));
  cr_expect_eq(r[0], 1.0f);
  cr_expect_eq(r[1], 1.015625f);
  cr_expect(isnan(r[2]));
  cr_expect_eq(r[3], 0x1p-130f);
  /* to f16 range: e5m10. 65520 overflows to inf, 2^-15 (f16 subnormal) flushes to 0 */
  float y[] = {65504.0f, 65520.0f, -1e6f, 0x1p-15f, -0x1p-15f, 0x1p-14f};
  float r2[6];
  cr_assert(k_reduce_precision(ET_F32, r2, y, 6, 5, 10, &err));
  cr_expect_eq(r2[0], 65504.0f);
  cr_expect(isinf(r2[1]) && r2[1] > 0);
  cr_expect(isinf(r2[2]) && r2[2] < 0);
  cr_expect(r2[3] == 0 && !signbit(r2[3]));
  cr_expect(r2[4] == 0 && signbit(r2[4]));
  cr_expect_eq(r2[5], 0x1p-14f);
  /* mantissa_bits = 0 turns NaN into +inf */
  /* with no mantissa bits the tie goes to the even exponent: 3 = 1.1b*2^1
   * (biased exponent 128, even) -> 2; 6 = 1.1b*2^2 (129, odd) -> 8 */
  float z[] = {NAN, 3.0f, 6.0f};
  float rz[3];
  cr_assert(k_reduce_precision(ET_F32, rz, z, 3, 8, 0, &err));
  cr_expect(isinf(rz[0]) && rz[0] > 0);
  cr_expect_eq(rz[1], 2.0f);
  cr_expect_eq(rz[2], 8.0f);
  cr_expect(!k_reduce_precision(ET_F32, r, z, 2, 0, 3, &err));
  cr_expect(!k_reduce_precision(ET_S32, r, z, 2, 8, 3, &err));
  double d[] = {1.0 + 0x1p-30};
  double rd[1];
  cr_assert(k_reduce_precision(ET_F64, rd, d, 1, 8, 23, &err));
  cr_expect_eq(rd[0], 1.0);
}

Test(k_convert, convert_validates) {
  Error err;
  float f = 2.5f;
  int32_t i;
  cr_assert(k_convert(ET_S32, &i, ET_F32, &f, 1, &err));
  cr_expect_eq(i, 2);
  cr_expect(!k_convert(ET_TOKEN, &i, ET_F32, &f, 1, &err));
}

Test(k_names, lookup) {
  KUnaryOp u;
  KBinaryOp b;
  KCmpDir d;
  KCmpType t;
  cr_expect(k_unary_lookup("count-leading-zeros", &u) && u == KU_CLZ);
  cr_expect(k_binary_lookup("shift-right-logical", &b) && b == KB_SHR_LOGICAL);
  cr_expect(!k_binary_lookup("frobnicate", &b));
  cr_expect(k_cmp_dir_lookup("GE", &d) && d == KCMP_GE);
  cr_expect(k_cmp_type_lookup("TOTALORDER", &t) && t == KCMP_TOTALORDER);
  cr_expect_str_eq(k_unary_name(KU_EXPM1), "exponential-minus-one");
}
