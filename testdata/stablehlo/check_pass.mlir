// The check dialect and check.* custom calls of StableHLO's test files, every
// case passing (run with --split-input-file). Why each passes is derived by
// hand in the comments; check_fail_*.mlir are the cases that must fail.

// Integers compare exactly; remainder's sign follows the dividend (spec).
func.func @expect_eq_const_int() {
  %lhs = stablehlo.constant dense<[17, -17, 17, -17]> : tensor<4xi64>
  %rhs = stablehlo.constant dense<[3, 3, -3, -3]> : tensor<4xi64>
  %result = stablehlo.remainder %lhs, %rhs : tensor<4xi64>
  check.expect_eq_const %result, dense<[2, -2, 2, -2]> : tensor<4xi64>
  func.return
}

// -----

// IEEE ==: -0 equals +0; 4-bit integers and unsigned types compare exactly.
func.func @expect_eq_zero_signs() {
  %a = stablehlo.constant dense<[0.0, -0.0, 1.5]> : tensor<3xf32>
  %b = stablehlo.constant dense<[-0.0, 0.0, 1.5]> : tensor<3xf32>
  check.expect_eq %a, %b : tensor<3xf32>
  %c = stablehlo.constant dense<[-8, 7, 0]> : tensor<3xi4>
  check.expect_eq_const %c, dense<[-8, 7, 0]> : tensor<3xi4>
  %d = stablehlo.constant dense<[255, 0]> : tensor<2xui8>
  check.expect_eq_const %d, dense<[255, 0]> : tensor<2xui8>
  func.return
}

// -----

// almost_eq: |a - b| <= 0.0001 by default (0.00005 apart here); NaN matches NaN.
func.func @expect_almost_eq_default() {
  %a = stablehlo.constant dense<[1.0, 0x7FF8000000000000, 100.0]> : tensor<3xf64>
  check.expect_almost_eq_const %a, dense<[1.00005, 0x7FF8000000000000, 100.0]> : tensor<3xf64>
  func.return
}

// -----

// An explicit tolerance of 0.5: 2.0 and 2.4 agree; complex numbers part by part.
func.func @expect_almost_eq_tolerance() {
  %a = stablehlo.constant dense<[2.0, -3.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[2.4, -3.25]> : tensor<2xf32>
  check.expect_almost_eq %a, %b, tolerance = 5.000000e-01 : tensor<2xf32>
  %c = stablehlo.constant dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>
  check.expect_almost_eq_const %c, dense<[(1.00001, 1.99999)]> : tensor<1xcomplex<f32>>
  func.return
}

// -----

// expect_close: 1.0 is 0x3F800000; 0x3F800003 is 3 ULP above it (max 3 passes).
// The smallest f32 subnormal 0x00000001 counts as zero (it is nearer zero than
// the smallest normal), so it is 0 ULP from 0.0.
func.func @expect_close_ulps() {
  %a = stablehlo.constant dense<[0x3F800000, 0x00000001]> : tensor<2xf32>
  %b = stablehlo.constant dense<[0x3F800003, 0x00000000]> : tensor<2xf32>
  check.expect_close %a, %b, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
  func.return
}

// -----

// bf16 1.0 is 0x3F80; 0x3F81 is 1 ULP away, within [1, 2]; NaN matches NaN.
func.func @expect_close_min() {
  %a = stablehlo.constant dense<[0x3F80, 0x7FC0]> : tensor<2xbf16>
  %b = stablehlo.constant dense<[0x3F81, 0xFFC1]> : tensor<2xbf16>
  check.expect_close %a, %b, max_ulp_difference = 2, min_ulp_difference = 0 : tensor<2xbf16>, tensor<2xbf16>
  func.return
}

// -----

// The custom-call forms JAX's test data uses: expect_close (at most 3 ULP),
// expect_almost_eq (tolerance 0.001: 0.0005 apart here), and expect_eq.
module @jit_testcase attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<2xf16> {jax.result_info = ""}) {
    %0 = call @inputs() : () -> tensor<2xf16>
    %1 = call @expected() : () -> tensor<2xf16>
    stablehlo.custom_call @check.expect_close(%0, %1) {has_side_effect = true} : (tensor<2xf16>, tensor<2xf16>) -> ()
    %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %d = stablehlo.constant dense<[1.0005, 2.0]> : tensor<2xf32>
    stablehlo.custom_call @check.expect_almost_eq(%c, %d) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
    %e = stablehlo.constant dense<[true, false]> : tensor<2xi1>
    "stablehlo.custom_call"(%e, %e) <{call_target_name = "check.expect_eq", has_side_effect = true}> : (tensor<2xi1>, tensor<2xi1>) -> ()
    return %0 : tensor<2xf16>
  }
  func.func private @inputs() -> tensor<2xf16> {
    %cst = stablehlo.constant dense<[-2.333980e+00, 0x3C00]> : tensor<2xf16>
    return %cst : tensor<2xf16>
  }
  func.func private @expected() -> tensor<2xf16> {
    %cst = stablehlo.constant dense<[-2.333980e+00, 1.0]> : tensor<2xf16>
    return %cst : tensor<2xf16>
  }
}

// -----

// check.eq returns true when the operands agree: integers exactly, floats
// within 0.0001 (0.00002 apart here).
module @jit_testcase {
  func.func public @main() -> tensor<i1> {
    %0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
    %1 = stablehlo.constant dense<[1.00002, 2.0]> : tensor<2xf32>
    %2 = stablehlo.custom_call @check.eq(%0, %1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<i1>
    return %2 : tensor<i1>
  }
}
