/* interp/value_scan.c: NaN/Inf counts, ranges and the first non-finite
 * element (--find-nonfinite) over every floating-point type, complex
 * parts, rank 0, empty arrays, tiled layouts and tuples. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "interp/value_scan.h"
#include "tests/value_fixture.h"

TestSuite(value_scan, .init = value_setup, .fini = value_teardown);

static Value *val(const char *shape, const void *data) {
  Value *v;
  Error err;
  cr_assert(value_from_dense(&vc, sh(shape), data, "t", &v, &err), "%s", err.msg);
  return v;
}

static ValueScan scan(Value *v) {
  ValueScan s;
  Error err = {0};
  cr_assert(value_scan_float(&vc, v, &s, &err), "%s", err.msg);
  bool found;
  cr_assert(value_find_nonfinite(&vc, v, &found, &err), "%s", err.msg);
  cr_assert_eq(found, s.nan + s.inf > 0, "the quick check agrees with the scan");
  value_unref(&vc, v);
  return s;
}

Test(value_scan, f32_counts_range_and_first_nan) {
  const float x[6] = {1, 2, INFINITY, NAN, -5, 6};
  ValueScan s = scan(val("f32[2,3]", x));
  cr_assert_eq(s.elements, 6);
  cr_assert_eq(s.nan, 1);
  cr_assert_eq(s.inf, 1);
  cr_assert_eq(s.first, 3, "the NaN, though the Inf comes first");
  cr_assert_eq(s.min, -5);
  cr_assert(isinf(s.max) && s.max > 0, "Inf is a number of the range");
}

Test(value_scan, first_inf_when_no_nan) {
  const float x[3] = {1, -INFINITY, 3};
  ValueScan s = scan(val("f32[3]", x));
  cr_assert_eq(s.nan, 0);
  cr_assert_eq(s.inf, 1);
  cr_assert_eq(s.first, 1);
}

Test(value_scan, all_finite_and_negative_zero) {
  const double x[3] = {-0.0, 1e300, -1e300};
  ValueScan s = scan(val("f64[3]", x));
  cr_assert_eq(s.nan + s.inf, 0);
  cr_assert_eq(s.first, -1);
  cr_assert_eq(s.min, -1e300);
  cr_assert_eq(s.max, 1e300);
}

Test(value_scan, bf16_and_f16_bits) {
  const uint16_t b[3] = {0x3F80 /* 1 */, 0x7F80 /* inf */, 0x7FC0 /* nan */};
  ValueScan s = scan(val("bf16[3]", b));
  cr_assert_eq(s.nan, 1);
  cr_assert_eq(s.inf, 1);
  cr_assert_eq(s.first, 2);
  cr_assert_eq(s.min, 1);
  const uint16_t h[3] = {0x3C00 /* 1 */, 0xFC00 /* -inf */, 0x4000 /* 2 */};
  s = scan(val("f16[3]", h));
  cr_assert_eq(s.nan, 0);
  cr_assert_eq(s.inf, 1);
  cr_assert_eq(s.first, 1);
  cr_assert_eq(s.max, 2);
}

Test(value_scan, f8_types) {
  /* e4m3fn has no Inf: 0x7F is NaN; 0x38 is 1 */
  const uint8_t a[2] = {0x38, 0x7F};
  ValueScan s = scan(val("f8e4m3fn[2]", a));
  cr_assert_eq(s.nan, 1);
  cr_assert_eq(s.first, 1);
  cr_assert_eq(s.max, 1);
  /* e5m2: 0x3C is 1, 0x7C is +inf */
  const uint8_t b[2] = {0x7C, 0x3C};
  s = scan(val("f8e5m2[2]", b));
  cr_assert_eq(s.inf, 1);
  cr_assert_eq(s.first, 0);
}

Test(value_scan, complex_parts) {
  const float c[4] = {1, 2, 3, NAN}; /* 1+2i, 3+NaN i */
  ValueScan s = scan(val("c64[2]", c));
  cr_assert_eq(s.elements, 2);
  cr_assert_eq(s.nan, 1);
  cr_assert_eq(s.first, 1);
  cr_assert_eq(s.min, 1);
  cr_assert_eq(s.max, 3);
  const double z[2] = {INFINITY, 0}; /* inf + 0i */
  s = scan(val("c128[1]", z));
  cr_assert_eq(s.inf, 1);
}

Test(value_scan, rank0_and_empty) {
  const double x = NAN;
  ValueScan s = scan(val("f64[]", &x));
  cr_assert_eq(s.rank, 0);
  cr_assert_eq(s.elements, 1);
  cr_assert_eq(s.first, 0);
  cr_assert(isnan(s.min), "no number");
  float none[1] = {0};
  s = scan(val("f32[0,3]", none));
  cr_assert_eq(s.elements, 0);
  cr_assert_eq(s.first, -1);
}

Test(value_scan, tiled_layout_reads_logical_order) {
  float x[15];
  for (int i = 0; i < 15; i++) x[i] = (float)i;
  x[14] = NAN; /* [2,4]: in the padded tiles far from slot 14 */
  ValueScan s = scan(val("f32[3,5]{1,0:T(2,2)}", x));
  cr_assert_eq(s.elements, 15);
  cr_assert_eq(s.nan, 1);
  cr_assert_eq(s.first, 14);
  cr_assert_eq(s.max, 13);
}

Test(value_scan, tuples_and_non_float_leaves) {
  const int32_t i[2] = {1, 2};
  const float f[2] = {1, NAN};
  Value *elems[2] = {val("s32[2]", i), val("f32[2]", f)};
  Value *t = value_new_tuple(sh("(s32[2], f32[2])"), 2, elems);
  cr_assert(t);
  bool found;
  Error err = {0};
  cr_assert(value_find_nonfinite(&vc, t, &found, &err));
  cr_assert(found, "the second leaf");
  cr_assert(value_find_nonfinite(&vc, t->elems[0], &found, &err));
  cr_assert(!found, "integers are never non-finite");
  value_unref(&vc, t);
}
