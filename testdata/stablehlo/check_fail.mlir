// Checks that must fail, each part on its own (run with --split-input-file):
// every part reports its first differing elements and the run exits 4.

// IEEE ==: NaN never equals NaN.
func.func @eq_nan() {
  %a = stablehlo.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  check.expect_eq %a, %a : tensor<2xf32>
  func.return
}

// -----

// 1.0 and 1.0002 are 0.0002 apart: over the default 0.0001.
func.func @almost_eq_over() {
  %a = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf64>
  check.expect_almost_eq_const %a, dense<[1.0002, 3.0]> : tensor<2xf64>
  func.return
}

// -----

// Signs differ: 0.0 and -1e-9 are 1e-9 apart, but almost_eq wants one sign.
func.func @almost_eq_sign() {
  %a = stablehlo.constant dense<0.0> : tensor<f64>
  %b = stablehlo.constant dense<-1.0e-09> : tensor<f64>
  check.expect_almost_eq %a, %b : tensor<f64>
  func.return
}

// -----

// 0x3F800004 is 4 ULP above 1.0 (0x3F800000): over 3. -1.0 (0xBF800000) is
// 0x3F800000 - 0x7FFFFF from zero on each side: 2 * 0x3F000001 = 2113929218 ULP.
// +inf and -inf differ bitwise.
func.func @close_over() {
  %a = stablehlo.constant dense<[0x3F800000, 0x3F800000, 0x7F800000]> : tensor<3xf32>
  %b = stablehlo.constant dense<[0x3F800004, 0xBF800000, 0xFF800000]> : tensor<3xf32>
  check.expect_close %a, %b, max_ulp_difference = 3 : tensor<3xf32>, tensor<3xf32>
  func.return
}

// -----

// At least 1 ULP apart is required: equal values fail.
func.func @close_under_min() {
  %a = stablehlo.constant dense<2.0> : tensor<f32>
  check.expect_close %a, %a, max_ulp_difference = 5, min_ulp_difference = 1 : tensor<f32>, tensor<f32>
  func.return
}

// -----

// check.eq on integers is exact; the failure stops the run.
module @jit_testcase {
  func.func public @main() -> tensor<i1> {
    %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
    %1 = stablehlo.constant dense<[[1, 2], [3, 5]]> : tensor<2x2xi32>
    %2 = stablehlo.custom_call @check.eq(%0, %1) : (tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<i1>
    return %2 : tensor<i1>
  }
}
