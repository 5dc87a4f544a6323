// Several result names (`%a, %b = ...`, as the StableHLO specification writes
// them), each possibly a group (`%a:2`): the first part uses a group and a
// name (sort gives three results: %s#0, %s#1 and %t) and passes; the others
// are errors, at the op: a missing name after the comma, and more names than
// the op gives.
func.func @groups() {
  %k = stablehlo.constant dense<[3, 1, 2]> : tensor<3xi32>
  %v = stablehlo.constant dense<[30, 10, 20]> : tensor<3xi32>
  %w = stablehlo.constant dense<[300, 100, 200]> : tensor<3xi32>
  %s:2, %t = "stablehlo.sort"(%k, %v, %w) ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>, %c: tensor<i32>, %d: tensor<i32>, %e: tensor<i32>, %f: tensor<i32>):
      %lt = stablehlo.compare LT, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
  }) {dimension = 0 : i64} : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>)
  check.expect_eq_const %s#0, dense<[1, 2, 3]> : tensor<3xi32>
  check.expect_eq_const %s#1, dense<[10, 20, 30]> : tensor<3xi32>
  check.expect_eq_const %t, dense<[100, 200, 300]> : tensor<3xi32>
  func.return
}

// -----

func.func @missing_name() {
  %x = stablehlo.constant dense<1> : tensor<i32>
  %a, = "stablehlo.optimization_barrier"(%x) : (tensor<i32>) -> tensor<i32>
  func.return
}

// -----

func.func @too_many_names() {
  %x = stablehlo.constant dense<1> : tensor<i32>
  %a, %b = "stablehlo.add"(%x, %x) : (tensor<i32>, tensor<i32>) -> tensor<i32>
  func.return
}
