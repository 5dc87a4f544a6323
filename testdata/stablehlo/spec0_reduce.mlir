// The examples of the StableHLO specification (openxla/stablehlo docs/spec.md,
// each op's "Examples" section) for the ops with a computation over several
// elements, one module per op, in the spec's own generic form; inputs the spec
// gives in comments are constants here. Every expected value is the spec's,
// exact, re-derived by hand in the comments. The equivalent HLO is
// spec0_reduce.hlo.

func.func @reduce() {
  %input = stablehlo.constant dense<[[0, 1, 2, 3, 4, 5]]> : tensor<1x6xi32>
  %init_value = stablehlo.constant dense<0> : tensor<i32>
  %result = "stablehlo.reduce"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%0) : (tensor<i32>) -> ()
  }) {
    dimensions = dense<1> : tensor<1xi64>
  } : (tensor<1x6xi32>, tensor<i32>) -> tensor<1xi32>
  check.expect_eq_const %result, dense<[15]> : tensor<1xi32>
  func.return
}

// -----

// Rows dilated by 2 and padded (2 low, 1 high): [0, 0, 1, _, 3, _, 5, 0]
// (_ the init 0); windows of 2 rows 3 apart, every 4 rows: rows {0, 3} and
// {4, 7}: [0 + 0, 0 + 0] and [3 + 0, 4 + 0].
func.func @reduce_window() {
  %input = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %init_value = stablehlo.constant dense<0> : tensor<i32>
  %result = "stablehlo.reduce_window"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%0) : (tensor<i32>) -> ()
  }) {
    window_dimensions = dense<[2, 1]> : tensor<2xi64>,
    window_strides = dense<[4, 1]> : tensor<2xi64>,
    base_dilations = dense<[2, 1]> : tensor<2xi64>,
    window_dilations = dense<[3, 1]> : tensor<2xi64>,
    padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<3x2xi32>, tensor<i32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[0, 0], [3, 4]]> : tensor<2x2xi32>
  func.return
}

// -----

// A batch of two products with the identity: the lhs itself.
func.func @dot_general() {
  %lhs = stablehlo.constant dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi32>
  %rhs = stablehlo.constant dense<[[[1, 0], [0, 1]], [[1, 0], [0, 1]]]> : tensor<2x2x2xi32>
  %result = "stablehlo.dot_general"(%lhs, %rhs) {
    dot_dimension_numbers = #stablehlo.dot<
      lhs_batching_dimensions = [0],
      rhs_batching_dimensions = [0],
      lhs_contracting_dimensions = [2],
      rhs_contracting_dimensions = [1]
    >,
    precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]
  } : (tensor<2x2x2xi32>, tensor<2x2x2xi32>) -> tensor<2x2x2xi32>
  check.expect_eq_const %result, dense<[[[1, 2], [3, 4]], [[5, 6], [7, 8]]]> : tensor<2x2x2xi32>
  func.return
}

// -----

// The spec's map region is in the pretty form.
func.func @map() {
  %input0 = stablehlo.constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>
  %input1 = stablehlo.constant dense<[[4, 5], [6, 7]]> : tensor<2x2xi64>
  %result = "stablehlo.map"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.multiply %arg0, %arg1 : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    dimensions = dense<[0, 1]> : tensor<2xi64>
  } : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[0, 5], [12, 21]]> : tensor<2x2xi64>
  func.return
}

// -----

// Columns sorted by input0 with GT (descending), input1 carried along:
// column 0 (1, 3) with (3, 1) swaps, column 1 (2, 2) is a tie and stays
// (is_stable), column 2 (3, 1) is already in order.
func.func @sort() {
  %input0 = stablehlo.constant dense<[[1, 2, 3], [3, 2, 1]]> : tensor<2x3xi64>
  %input1 = stablehlo.constant dense<[[3, 2, 1], [1, 2, 3]]> : tensor<2x3xi64>
  %result0, %result1 = "stablehlo.sort"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<i64>, %arg3: tensor<i64>):
      %predicate = "stablehlo.compare"(%arg0, %arg1) {
        comparison_direction = #stablehlo<comparison_direction GT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      "stablehlo.return"(%predicate) : (tensor<i1>) -> ()
  }) {
    dimension = 0 : i64,
    is_stable = true
  } : (tensor<2x3xi64>, tensor<2x3xi64>) -> (tensor<2x3xi64>, tensor<2x3xi64>)
  check.expect_eq_const %result0, dense<[[3, 2, 3], [1, 2, 1]]> : tensor<2x3xi64>
  check.expect_eq_const %result1, dense<[[1, 2, 1], [3, 2, 3]]> : tensor<2x3xi64>
  func.return
}
