// compare_type as the spec gives it (run with --split-input-file; values by hand).

// WEAKORDER: every NaN equals every NaN and lies above +inf; -0 equals +0.
// lhs: -NaN, +NaN, -0.0, +inf, 1.0, -inf
// rhs: +NaN, 2.0,  +0.0, -NaN, 1.0, -NaN
// EQ:  NaN~NaN true; NaN vs 2 false; -0 == +0 true; inf vs NaN false; 1 == 1 true; -inf vs NaN false
// LT:  false; false (NaN above 2); false; true (+inf below NaN); false; true
func.func @weakorder() {
  %lhs = stablehlo.constant dense<[0xFFC00000, 0x7FC00000, 0x80000000, 0x7F800000, 1.0, 0xFF800000]> : tensor<6xf32>
  %rhs = stablehlo.constant dense<[0x7FC00000, 2.0, 0x00000000, 0xFFC00000, 1.0, 0xFFC00000]> : tensor<6xf32>
  %eq = stablehlo.compare EQ, %lhs, %rhs, WEAKORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  check.expect_eq_const %eq, dense<[true, false, true, false, true, false]> : tensor<6xi1>
  %lt = stablehlo.compare LT, %lhs, %rhs, WEAKORDER : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
  check.expect_eq_const %lt, dense<[false, false, false, true, false, true]> : tensor<6xi1>
  func.return
}

// -----

// TOTALORDER keeps -0 below +0 and -NaN below -inf; FLOAT has NaN unordered.
// lhs: -0.0, -NaN, NaN;  rhs: +0.0, -inf, NaN
// TOTALORDER LT: true, true, false.  FLOAT LT: false, false, false.  FLOAT NE: false, true, true
func.func @totalorder_and_float() {
  %lhs = stablehlo.constant dense<[0x80000000, 0xFFC00000, 0x7FC00000]> : tensor<3xf32>
  %rhs = stablehlo.constant dense<[0x00000000, 0xFF800000, 0x7FC00000]> : tensor<3xf32>
  %t = stablehlo.compare LT, %lhs, %rhs, TOTALORDER : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  check.expect_eq_const %t, dense<[true, true, false]> : tensor<3xi1>
  %f = stablehlo.compare LT, %lhs, %rhs, FLOAT : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  check.expect_eq_const %f, dense<[false, false, false]> : tensor<3xi1>
  %n = stablehlo.compare NE, %lhs, %rhs : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
  check.expect_eq_const %n, dense<[false, true, true]> : tensor<3xi1>
  func.return
}

// -----

// UNSIGNED on ui8: 200 > 100; SIGNED on i8: -56 < 100.
func.func @integers() {
  %a = stablehlo.constant dense<[200, 7]> : tensor<2xui8>
  %b = stablehlo.constant dense<[100, 7]> : tensor<2xui8>
  %u = stablehlo.compare GT, %a, %b, UNSIGNED : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  check.expect_eq_const %u, dense<[true, false]> : tensor<2xi1>
  %c = stablehlo.constant dense<[-56, 7]> : tensor<2xi8>
  %d = stablehlo.constant dense<[100, 7]> : tensor<2xi8>
  %s = stablehlo.compare GT, %c, %d, SIGNED : (tensor<2xi8>, tensor<2xi8>) -> tensor<2xi1>
  check.expect_eq_const %s, dense<[false, false]> : tensor<2xi1>
  func.return
}
