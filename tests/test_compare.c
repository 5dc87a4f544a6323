/* interp/compare.c: units in the last place across zero and through the
 * subnormals, the NaN/infinity rules, isclose's boundary, whole-array
 * statistics and the dtype/shape verdicts.  Every expected number is
 * worked out by hand in the comment beside it. */
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/compare.h"

static float f32_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

static uint64_t ulp32(uint32_t a, uint32_t b) { return compare_ulp_distance(ET_F32, &a, &b); }
static uint64_t ulp64(uint64_t a, uint64_t b) { return compare_ulp_distance(ET_F64, &a, &b); }
static uint64_t ulp16(EType t, uint16_t a, uint16_t b) { return compare_ulp_distance(t, &a, &b); }
static uint64_t ulp8(EType t, uint8_t a, uint8_t b) { return compare_ulp_distance(t, &a, &b); }

Test(compare_ulp, f32_across_zero) {
  cr_expect_eq(ulp32(0x00000000, 0x80000000), 0);  /* +0, -0: the same step */
  cr_expect_eq(ulp32(0x00000001, 0x80000001), 2);  /* +min subnormal .. -min subnormal */
  cr_expect_eq(ulp32(0x80000000, 0x00000001), 1);  /* -0 .. +min subnormal */
  cr_expect_eq(ulp32(0x3f800000, 0xbf800000), 2 * (uint64_t)0x3f800000); /* 1 .. -1 */
}

Test(compare_ulp, f32_subnormals_and_normals) {
  cr_expect_eq(ulp32(0x00000001, 0x007fffff), 0x7ffffe); /* within the subnormals */
  cr_expect_eq(ulp32(0x007fffff, 0x00800000), 1);        /* largest subnormal .. min normal */
  cr_expect_eq(ulp32(0x3f800000, 0x3f800001), 1);        /* 1 .. next float */
  cr_expect_eq(ulp32(0x3f800001, 0x3f800000), 1);        /* symmetric */
  cr_expect_eq(ulp32(0x7f7fffff, 0x7f800000), 1);        /* FLT_MAX .. inf */
}

Test(compare_ulp, f64) {
  cr_expect_eq(ulp64(UINT64_C(0x8000000000000000), 1), 1); /* -0 .. min subnormal */
  cr_expect_eq(ulp64(1, UINT64_C(0x8000000000000001)), 2);
  /* 1 .. -1: twice the magnitude bits, beyond INT64_MAX as one number */
  cr_expect_eq(ulp64(UINT64_C(0x3ff0000000000000), UINT64_C(0xbff0000000000000)),
               UINT64_C(0x7fe0000000000000));
  /* largest magnitudes of both signs: 2 * 0x7fefffffffffffff fits in 64 bits */
  cr_expect_eq(ulp64(UINT64_C(0x7fefffffffffffff), UINT64_C(0xffefffffffffffff)),
               UINT64_C(0xffdffffffffffffe));
}

Test(compare_ulp, narrow_types) {
  cr_expect_eq(ulp16(ET_BF16, 0x0001, 0x8001), 2);  /* bf16 subnormals across 0 */
  cr_expect_eq(ulp16(ET_BF16, 0x3f80, 0x3f81), 1);  /* 1 .. 1 + 2^-7 */
  cr_expect_eq(ulp16(ET_F16, 0x0000, 0x8000), 0);
  cr_expect_eq(ulp16(ET_F16, 0x03ff, 0x0400), 1);   /* largest subnormal .. min normal */
  cr_expect_eq(ulp8(ET_F8E4M3FN, 0x01, 0x81), 2);   /* 2^-9 .. -2^-9 */
  cr_expect_eq(ulp8(ET_F8E4M3FN, 0x7e, 0x7d), 1);   /* 448 .. 416 */
  cr_expect_eq(ulp8(ET_F4E2M1FN, 0x1, 0x9), 2);     /* 0.5 .. -0.5 (sign bit 0x8) */
  cr_expect_eq(ulp8(ET_F4E2M1FN, 0x0, 0x8), 0);     /* +0, -0 */
  cr_expect_eq(ulp8(ET_F8E8M0FNU, 0x7f, 0x80), 1);  /* unsigned: 1 .. 2 */
  cr_expect_eq(ulp8(ET_F8E5M2FNUZ, 0x01, 0x81), 2); /* fnuz: 0x81 is -min subnormal */
}

static const CompareTolerance zero_tol = {0, 0};

static bool close32(float g, float w, CompareTolerance tol) {
  return compare_element_matches(ET_F32, &g, &w, tol);
}

Test(compare_rules, nan_and_inf_f32) {
  CompareTolerance huge = {1e30, 1e30};
  float nan_pos = f32_bits(0x7fc00000), nan_neg_payload = f32_bits(0xffc00123);
  cr_expect(close32(nan_pos, nan_neg_payload, zero_tol)); /* any NaN matches any NaN */
  cr_expect(!close32(nan_pos, 1.0f, huge));
  cr_expect(!close32(1.0f, nan_pos, huge));
  cr_expect(close32(INFINITY, INFINITY, zero_tol));
  cr_expect(close32(-INFINITY, -INFINITY, zero_tol));
  cr_expect(!close32(INFINITY, -INFINITY, huge));
  cr_expect(!close32(INFINITY, FLT_MAX, huge)); /* |inf - max| is inf: never close */
  cr_expect(!close32(FLT_MAX, INFINITY, huge)); /* atol + rtol * inf would let it pass */
  cr_expect(close32(0.0f, -0.0f, zero_tol));
}

Test(compare_rules, nan_in_narrow_types) {
  uint16_t a = 0x7fc1, b = 0xffc0; /* bf16 NaNs, other sign and payload */
  cr_expect(compare_element_matches(ET_BF16, &a, &b, zero_tol));
  uint8_t p = 0x7f, q = 0xff; /* f8e4m3fn's two NaNs */
  cr_expect(compare_element_matches(ET_F8E4M3FN, &p, &q, zero_tol));
  uint8_t r = 0x7e; /* 448, the largest finite */
  cr_expect(!compare_element_matches(ET_F8E4M3FN, &p, &r, (CompareTolerance){10, 10}));
}

Test(compare_rules, complex) {
  CompareTolerance tol = {0, 0.5};
  float a[2] = {NAN, 0}, b[2] = {NAN, 0}, c[2] = {0, NAN};
  cr_expect(compare_element_matches(ET_C64, a, b, tol));
  cr_expect(!compare_element_matches(ET_C64, a, c, tol)); /* part by part */
  float i1[2] = {INFINITY, 1}, i2[2] = {INFINITY, 1.25f};
  cr_expect(compare_element_matches(ET_C64, i1, i1, tol));
  cr_expect(!compare_element_matches(ET_C64, i1, i2, tol)); /* exact beside an infinity */
  /* the magnitude of the difference against atol 0.5: |0.375 + 0.5i| =
   * 0.625 fails, |0.25 + 0.375i| = sqrt(0.203125) = 0.4507 passes (each part
   * alone would pass both) */
  float g1[2] = {0.375f, 0.5f}, g2[2] = {0.25f, 0.375f}, z[2] = {0, 0};
  cr_expect(!compare_element_matches(ET_C64, g1, z, tol));
  cr_expect(compare_element_matches(ET_C64, g2, z, tol));
}

Test(compare_rules, isclose_boundary) {
  /* want 1, rtol 0.5, atol 0.25: the limit is 0.75 away, both ways */
  CompareTolerance tol = {0.5, 0.25};
  cr_expect(close32(1.75f, 1.0f, tol));
  cr_expect(!close32(nextafterf(1.75f, 2.0f), 1.0f, tol));
  cr_expect(close32(0.25f, 1.0f, tol));
  cr_expect(!close32(nextafterf(0.25f, 0.0f), 1.0f, tol));
  double g = 1.75, w = 1.0, g_out = nextafter(1.75, 2.0);
  cr_expect(compare_element_matches(ET_F64, &g, &w, tol));
  cr_expect(!compare_element_matches(ET_F64, &g_out, &w, tol));
  /* rtol scales |want|, not |got|: want 0 allows only atol */
  cr_expect(close32(0.25f, 0.0f, tol));
  cr_expect(!close32(0.0f, 0.25f + 0x1p-20f, (CompareTolerance){0, 0.25f}));
}

Test(compare_rules, integers_exact) {
  CompareTolerance huge = {1e30, 1e30};
  int32_t a = 5, b = 6;
  cr_expect(!compare_element_matches(ET_S32, &a, &b, huge));
  cr_expect(compare_element_matches(ET_S32, &a, &a, zero_tol));
  uint64_t m = UINT64_MAX, m1 = UINT64_MAX - 1;
  cr_expect(!compare_element_matches(ET_U64, &m, &m1, huge));
  uint8_t t = 1, f = 0;
  cr_expect(!compare_element_matches(ET_PRED, &t, &f, huge));
}

Test(compare_tolerance, defaults) {
  CompareTolerance t = compare_default_tolerance(ET_F32);
  cr_expect(t.rtol == 1e-5 && t.atol == 1e-8);
  t = compare_default_tolerance(ET_F64);
  cr_expect(t.rtol == 1e-5 && t.atol == 1e-8);
  t = compare_default_tolerance(ET_BF16); /* 7 mantissa bits: 2^-6 */
  cr_expect(t.rtol == 0.015625 && t.atol == 1e-8, "%g %g", t.rtol, t.atol);
  t = compare_default_tolerance(ET_F16); /* 2^-9; smallest subnormal 2^-24 > 1e-8 */
  cr_expect(t.rtol == 0x1p-9 && t.atol == 0x1p-24, "%g %g", t.rtol, t.atol);
  t = compare_default_tolerance(ET_F8E4M3FN); /* 2^-2; smallest 2^-9 */
  cr_expect(t.rtol == 0.25 && t.atol == 0x1p-9, "%g %g", t.rtol, t.atol);
  t = compare_default_tolerance(ET_F8E8M0FNU); /* no mantissa: 2; smallest 2^-127 */
  cr_expect(t.rtol == 2 && t.atol == 1e-8, "%g %g", t.rtol, t.atol);
  t = compare_default_tolerance(ET_S32);
  cr_expect(t.rtol == 0 && t.atol == 0);
}

/* ---- whole arrays ---- */

static NpyArray ref_array(EType t, int raw_bytes, int rank, const int64_t *dims, void *data) {
  NpyArray a;
  memset(&a, 0, sizeof a);
  a.etype = t;
  a.raw_bytes = raw_bytes;
  a.rank = rank;
  a.count = 1;
  for (int d = 0; d < rank; d++) a.dims[d] = dims[d], a.count *= dims[d];
  a.data = data;
  return a;
}

Test(compare_array, statistics_and_first_mismatch) {
  int64_t dims[2] = {2, 3};
  float got[6] = {0, 1, 2, 3, 4, 5};
  float want[6] = {0, 1, 2.5f, 3, 4, -5};
  NpyArray ref = ref_array(ET_F32, 0, 2, dims, want);
  CompareReport c;
  Error err = {0};
  cr_assert(compare_array(ET_F32, 2, dims, got, &ref, compare_default_tolerance(ET_F32), &c, &err));
  cr_expect_eq(c.verdict, COMPARE_VALUES_DIFFER);
  cr_expect_eq(c.total, 6);
  cr_expect_eq(c.mismatches, 2);
  cr_expect_eq(c.first_linear, 2);
  cr_expect(c.first_index[0] == 0 && c.first_index[1] == 2);
  float g, w;
  memcpy(&g, c.got, 4);
  memcpy(&w, c.want, 4);
  cr_expect(g == 2.0f && w == 2.5f);
  cr_expect(c.max_abs == 10.0);  /* 5 - (-5) */
  cr_expect(c.max_rel == 2.0);   /* 10 / 5 (0.5 / 2.5 = 0.2 is less) */
  /* 5 and -5 across zero: 2 * 0x40a00000; 2 .. 2.5 is 0x200000 */
  cr_expect_eq(c.max_ulp, 2 * (uint64_t)0x40a00000);
}

Test(compare_array, non_finite_pairs_stay_out_of_statistics) {
  int64_t dims[1] = {4};
  float got[4] = {NAN, INFINITY, -INFINITY, 1};
  float want[4] = {-NAN, INFINITY, -INFINITY, 1.5f};
  NpyArray ref = ref_array(ET_F32, 0, 1, dims, want);
  CompareReport c;
  Error err = {0};
  cr_assert(compare_array(ET_F32, 1, dims, got, &ref, (CompareTolerance){0, 1}, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_OK);
  cr_expect(c.max_abs == 0.5 && c.max_rel == 0.5 / 1.5);
  cr_expect_eq(c.max_ulp, 0x400000); /* 1 .. 1.5: half the mantissa range */
}

Test(compare_array, shape_and_dtype_verdicts) {
  int64_t dims[2] = {2, 3}, other[2] = {3, 2};
  float data[6] = {0};
  int32_t idata[6] = {0};
  CompareReport c;
  Error err = {0};
  NpyArray ref = ref_array(ET_F32, 0, 2, other, data);
  cr_assert(compare_array(ET_F32, 2, dims, data, &ref, zero_tol, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_SHAPE_DIFFERS);
  cr_expect_str_eq(c.reason, "shape differs: the reference holds float32[3,2]");
  ref = ref_array(ET_F32, 0, 1, (int64_t[]){6}, data); /* same count, other rank */
  cr_assert(compare_array(ET_F32, 2, dims, data, &ref, zero_tol, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_SHAPE_DIFFERS);
  ref = ref_array(ET_S32, 0, 2, dims, idata);
  cr_assert(compare_array(ET_F32, 2, dims, data, &ref, zero_tol, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_DTYPE_DIFFERS);
  cr_expect(strstr(c.reason, "dtype differs") && strstr(c.reason, "int32[2,3]"), "%s", c.reason);
  /* float64 does not stand for f32 either (no silent narrowing) */
  double ddata[6] = {0};
  ref = ref_array(ET_F64, 0, 2, dims, ddata);
  cr_assert(compare_array(ET_F32, 2, dims, data, &ref, zero_tol, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_DTYPE_DIFFERS);
}

Test(compare_array, bf16_compared_in_bf16) {
  int64_t dims[1] = {3};
  uint16_t got[3] = {0x3f80, 0x4040, 0x3f81}; /* 1, 3, 1 + 2^-7 */
  /* float32 reference: 1 + 2^-8 rounds to even (1.0), so even a zero
   * tolerance passes: the comparison is in bf16 */
  float wantf[3] = {1.0f + 0x1p-8f, 3.0f, 1.0f + 0x1p-7f};
  NpyArray ref = ref_array(ET_F32, 0, 1, dims, wantf);
  CompareReport c;
  Error err = {0};
  cr_assert(compare_array(ET_BF16, 1, dims, got, &ref, zero_tol, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_OK);
  cr_expect_eq(c.max_ulp, 0);
  /* raw bits ('<V2'), one bf16 step off in the last element */
  uint16_t raw[3] = {0x3f80, 0x4040, 0x3f82};
  ref = ref_array(ET_INVALID, 2, 1, dims, raw);
  cr_assert(compare_array(ET_BF16, 1, dims, got, &ref, zero_tol, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_VALUES_DIFFER);
  cr_expect_eq(c.max_ulp, 1);
  cr_expect(c.max_abs == 0x1p-7); /* (1 + 2^-6) - (1 + 2^-7) */
  cr_assert(compare_array(ET_BF16, 1, dims, got, &ref, compare_default_tolerance(ET_BF16), &c, &err));
  cr_expect_eq(c.verdict, COMPARE_OK); /* within rtol 2^-6 */
}

Test(compare_array, integers_pred_and_complex) {
  int64_t dims[1] = {3};
  int32_t got[3] = {-7, 5, 2147483647}, want[3] = {-7, 6, 2147483647};
  NpyArray ref = ref_array(ET_S32, 0, 1, dims, want);
  CompareReport c;
  Error err = {0};
  cr_assert(compare_array(ET_S32, 1, dims, got, &ref, (CompareTolerance){1, 1}, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_VALUES_DIFFER);
  cr_expect(c.mismatches == 1 && c.first_linear == 1 && c.max_abs == 1 && c.max_ulp == 0);
  uint8_t pg[3] = {1, 0, 1}, pw[3] = {1, 0, 1};
  ref = ref_array(ET_PRED, 0, 1, dims, pw);
  cr_assert(compare_array(ET_PRED, 1, dims, pg, &ref, zero_tol, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_OK);
  /* s4 from an int8 reference */
  int8_t s4g[3] = {-8, 7, 0}, s4w[3] = {-8, 7, 1};
  ref = ref_array(ET_S8, 0, 1, dims, s4w);
  cr_assert(compare_array(ET_S4, 1, dims, s4g, &ref, zero_tol, &c, &err));
  cr_expect(c.verdict == COMPARE_VALUES_DIFFER && c.first_linear == 2);
  /* complex: (3, 4) against 0 is 5 away; want 0 leaves rel out */
  float cg[2] = {3, 4}, cw[2] = {0, 0};
  ref = ref_array(ET_C64, 0, 0, NULL, cw);
  cr_assert(compare_array(ET_C64, 0, NULL, cg, &ref, (CompareTolerance){0, 5}, &c, &err));
  cr_expect_eq(c.verdict, COMPARE_OK);
  cr_expect(c.max_abs == 5 && c.max_rel == 0 && c.total == 1);
}

Test(compare_array, empty_and_scalar) {
  int64_t dims[2] = {0, 3};
  float none[1] = {0};
  NpyArray ref = ref_array(ET_F32, 0, 2, dims, none);
  CompareReport c;
  Error err = {0};
  cr_assert(compare_array(ET_F32, 2, dims, none, &ref, zero_tol, &c, &err));
  cr_expect(c.verdict == COMPARE_OK && c.total == 0 && c.mismatches == 0);
  float g = 1, w = 2;
  ref = ref_array(ET_F32, 0, 0, NULL, &w);
  cr_assert(compare_array(ET_F32, 0, NULL, &g, &ref, zero_tol, &c, &err));
  cr_expect(c.verdict == COMPARE_VALUES_DIFFER && c.total == 1 && c.first_linear == 0 && c.rank == 0);
}
