// The examples of the StableHLO specification (openxla/stablehlo docs/spec.md,
// each op's "Examples" section) for the ops that move elements, one module per
// op, in the spec's own generic form and attribute spelling; inputs the spec
// gives in comments are constants here. Every expected value is the spec's,
// all exact (each re-derived by hand in the comments or by numpy in
// scripts/gen-spec0-goldens.py), but for gather_batched and scatter_batched:
// the batched forms of the current spec's examples, derived with numpy. The
// equivalent HLO is spec0_shape.hlo.

// result[i, j, k] = operand[0, j] (dimension 0 has size 1, dimension 1 goes to 1).
func.func @broadcast_in_dim() {
  %operand = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
  %result = "stablehlo.broadcast_in_dim"(%operand) {
    broadcast_dimensions = dense<[2, 1]>: tensor<2xi64>
  } : (tensor<1x3xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %result, dense<[[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]> : tensor<2x3x2xi32>
  // The pretty form JAX prints, stretching the size-1 dimension 0 in place.
  %rows = stablehlo.broadcast_in_dim %operand, dims = [0, 1] : (tensor<1x3xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %rows, dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
  func.return
}

// -----

func.func @concatenate() {
  %input0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %input1 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %result = "stablehlo.concatenate"(%input0, %input1) {
    dimension = 0 : i64
  } : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi64>
  func.return
}

// -----

func.func @constant() {
  %output = "stablehlo.constant"() {
    value = dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  } : () -> tensor<2x2xf32>
  check.expect_eq_const %output, dense<[[0.0, 1.0], [2.0, 3.0]]> : tensor<2x2xf32>
  func.return
}

// -----

// The start (-1, 3) is clamped into [0, 4 - 2]: (0, 2).
func.func @dynamic_slice() {
  %operand = stablehlo.constant dense<[[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]]> : tensor<4x4xi32>
  %start_indices0 = stablehlo.constant dense<-1> : tensor<i64>
  %start_indices1 = stablehlo.constant dense<3> : tensor<i64>
  %result = "stablehlo.dynamic_slice"(%operand, %start_indices0, %start_indices1) {
    slice_sizes = dense<[2, 2]> : tensor<2xi64>
  } : (tensor<4x4xi32>, tensor<i64>, tensor<i64>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[1, 1], [1, 1]]> : tensor<2x2xi32>
  func.return
}

// -----

// The start (-1, 3) is clamped into [0, 4 - 2]: (0, 2), the block of zeros.
func.func @dynamic_update_slice() {
  %operand = stablehlo.constant dense<[[1, 1, 0, 0], [1, 1, 0, 0], [1, 1, 1, 1], [1, 1, 1, 1]]> : tensor<4x4xi32>
  %update = stablehlo.constant dense<[[1, 1], [1, 1]]> : tensor<2x2xi32>
  %start_indices0 = stablehlo.constant dense<-1> : tensor<i64>
  %start_indices1 = stablehlo.constant dense<3> : tensor<i64>
  %result = "stablehlo.dynamic_update_slice"(%operand, %update, %start_indices0, %start_indices1)
    : (tensor<4x4xi32>, tensor<2x2xi32>, tensor<i64>, tensor<i64>) -> tensor<4x4xi32>
  check.expect_eq_const %result, dense<1> : tensor<4x4xi32>
  func.return
}

// -----

// Index (a, b) starts the 1x2x2 slice at operand[b, a, 0] (start_index_map
// = [1, 0]); dimension 0 is collapsed: result[i, j] = operand[b, a:a+2, :].
func.func @gather() {
  %operand = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6], [7, 8]],
                                       [[9, 10], [11, 12], [13, 14], [15, 16]],
                                       [[17, 18], [19, 20], [21, 22], [23, 24]]]> : tensor<3x4x2xi32>
  %start_indices = stablehlo.constant dense<[[[0, 0], [1, 0], [2, 1]],
                                             [[0, 1], [1, 1], [0, 2]]]> : tensor<2x3x2xi64>
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [2, 3],
      collapsed_slice_dims = [0],
      start_index_map = [1, 0],
      index_vector_dim = 2>,
    slice_sizes = dense<[1, 2, 2]> : tensor<3xi64>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi32>
  check.expect_eq_const %result, dense<[[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
                                        [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]]]> : tensor<2x3x2x2xi32>
  func.return
}

// -----

// The current spec's gather example adds batching dimensions (and writes
// slice_sizes as array<i64: ...>): batch b of the indices reads batch b of
// the operand; index (a, b') starts the 1x1x2x2 slice at operand[b, b', a, 0],
// clamped into range ((0, 9) reads from (0, 2)); values derived with numpy in
// scripts/gen-spec0-goldens.py.
func.func @gather_batched() {
  %operand = stablehlo.constant dense<[[[[1, 2], [3, 4], [5, 6], [7, 8]],
                                        [[9, 10], [11, 12], [13, 14], [15, 16]],
                                        [[17, 18], [19, 20], [21, 22], [23, 24]]],
                                       [[[25, 26], [27, 28], [29, 30], [31, 32]],
                                        [[33, 34], [35, 36], [37, 38], [39, 40]],
                                        [[41, 42], [43, 44], [45, 46], [47, 48]]]]> : tensor<2x3x4x2xi64>
  %start_indices = stablehlo.constant dense<[[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                                             [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]> : tensor<2x2x3x2xi64>
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [3, 4],
      collapsed_slice_dims = [1],
      operand_batching_dims = [0],
      start_indices_batching_dims = [1],
      start_index_map = [2, 1],
      index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64>
  check.expect_eq_const %result, dense<[[[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
                                         [[[33, 34], [35, 36]], [[35, 36], [37, 38]], [[41, 42], [43, 44]]]],
                                        [[[[1, 2], [3, 4]], [[13, 14], [15, 16]], [[21, 22], [23, 24]]],
                                         [[[43, 44], [45, 46]], [[33, 34], [35, 36]], [[27, 28], [29, 30]]]]]> : tensor<2x2x3x2x2xi64>
  func.return
}

// -----

// Both of the spec's examples.
func.func @iota() {
  %output = "stablehlo.iota"() {
    iota_dimension = 0 : i64
  } : () -> tensor<4x5xi32>
  check.expect_eq_const %output, dense<[[0, 0, 0, 0, 0], [1, 1, 1, 1, 1], [2, 2, 2, 2, 2], [3, 3, 3, 3, 3]]> : tensor<4x5xi32>
  %output1 = "stablehlo.iota"() {
    iota_dimension = 1 : i64
  } : () -> tensor<4x5xi32>
  check.expect_eq_const %output1, dense<[[0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]> : tensor<4x5xi32>
  func.return
}

// -----

// Rows: 2 + 1 interior + 0 low + 2 high = 5; columns: 3 + 2*2 + 1 + 1 = 9;
// operand[j0, j1] lands at [0 + 2*j0, 1 + 3*j1].
func.func @pad() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %padding_value = stablehlo.constant dense<0> : tensor<i32>
  %result = "stablehlo.pad"(%operand, %padding_value) {
    edge_padding_low = dense<[0, 1]> : tensor<2xi64>,
    edge_padding_high = dense<[2, 1]> : tensor<2xi64>,
    interior_padding = dense<[1, 2]> : tensor<2xi64>
  } : (tensor<2x3xi32>, tensor<i32>) -> tensor<5x9xi32>
  check.expect_eq_const %result, dense<[[0, 1, 0, 0, 2, 0, 0, 3, 0],
                                        [0, 0, 0, 0, 0, 0, 0, 0, 0],
                                        [0, 4, 0, 0, 5, 0, 0, 6, 0],
                                        [0, 0, 0, 0, 0, 0, 0, 0, 0],
                                        [0, 0, 0, 0, 0, 0, 0, 0, 0]]> : tensor<5x9xi32>
  func.return
}

// -----

// (The spec's operand comment has a stray bracket: `[[1, 2, 3], [4, 5, 6]]]`.)
func.func @reshape() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
  %result = "stablehlo.reshape"(%operand) : (tensor<2x3xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  func.return
}

// -----

func.func @reverse() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %result = "stablehlo.reverse"(%operand) {
    dimensions = dense<1> : tensor<1xi64>
  } : (tensor<3x2xi32>) -> tensor<3x2xi32>
  check.expect_eq_const %result, dense<[[2, 1], [4, 3], [6, 5]]> : tensor<3x2xi32>
  func.return
}

// -----

// Index (a, b) adds the 2x2 window of ones at input[b, a:a+2, :]
// (scatter_dims_to_operand_dims = [1, 0], dimension 0 inserted): rows 1-2 of
// input[0] twice ((1, 0) twice), rows 2-3 of input[0] ((2, 0)), rows 2-3
// ((2, 1)) and 0-1 ((0, 1)) of input[1], rows 0-1 of input[2] ((0, 2)).
func.func @scatter() {
  %input = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6], [7, 8]],
                                     [[9, 10], [11, 12], [13, 14], [15, 16]],
                                     [[17, 18], [19, 20], [21, 22], [23, 24]]]> : tensor<3x4x2xi32>
  %scatter_indices = stablehlo.constant dense<[[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [2, 0]]]> : tensor<2x3x2xi64>
  %update = stablehlo.constant dense<1> : tensor<2x3x2x2xi32>
  %result = "stablehlo.scatter"(%input, %scatter_indices, %update) ({
    ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
      "stablehlo.return"(%0) : (tensor<i32>) -> ()
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [2,3],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [1, 0],
      index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2x2xi32>) -> tensor<3x4x2xi32>
  check.expect_eq_const %result, dense<[[[1, 2], [5, 6], [8, 9], [8, 9]],
                                        [[10, 11], [12, 13], [14, 15], [16, 17]],
                                        [[18, 19], [20, 21], [21, 22], [23, 24]]]> : tensor<3x4x2xi32>
  func.return
}

// -----

// The current spec's scatter example, batched the same way: batch b of the
// indices updates batch b of the input; the window of index (0, 9) is out of
// range and skipped (implementation-defined; XLA skips it, as StableHLO's
// interpreter). Values derived with numpy in scripts/gen-spec0-goldens.py.
func.func @scatter_batched() {
  %input = stablehlo.constant dense<[[[[1, 2], [3, 4], [5, 6], [7, 8]],
                                      [[9, 10], [11, 12], [13, 14], [15, 16]],
                                      [[17, 18], [19, 20], [21, 22], [23, 24]]],
                                     [[[25, 26], [27, 28], [29, 30], [31, 32]],
                                      [[33, 34], [35, 36], [37, 38], [39, 40]],
                                      [[41, 42], [43, 44], [45, 46], [47, 48]]]]> : tensor<2x3x4x2xi64>
  %scatter_indices = stablehlo.constant dense<[[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                                               [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]> : tensor<2x2x3x2xi64>
  %update = stablehlo.constant dense<1> : tensor<2x2x3x2x2xi64>
  %result = "stablehlo.scatter"(%input, %scatter_indices, %update) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [3, 4],
      inserted_window_dims = [1],
      input_batching_dims = [0],
      scatter_indices_batching_dims = [1],
      scatter_dims_to_operand_dims = [2, 1],
      index_vector_dim = 3>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>, tensor<2x2x3x2x2xi64>) -> tensor<2x3x4x2xi64>
  check.expect_eq_const %result, dense<[[[[3, 4], [6, 7], [6, 7], [7, 8]],
                                         [[9, 10], [11, 12], [15, 16], [17, 18]],
                                         [[17, 18], [19, 20], [22, 23], [24, 25]]],
                                        [[[25, 26], [28, 29], [30, 31], [31, 32]],
                                         [[35, 36], [38, 39], [38, 39], [39, 40]],
                                         [[41, 42], [44, 45], [46, 47], [47, 48]]]]> : tensor<2x3x4x2xi64>
  func.return
}

// -----

func.func @slice() {
  %operand = stablehlo.constant dense<[[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]> : tensor<3x4xi64>
  %result = "stablehlo.slice"(%operand) {
    start_indices = dense<[1, 2]> : tensor<2xi64>,
    limit_indices = dense<[3, 4]> : tensor<2xi64>,
    strides = dense<1> : tensor<2xi64>
  } : (tensor<3x4xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>
  func.return
}

// -----

// result[i, j, k] = operand[k, j, i].
func.func @transpose() {
  %operand = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]> : tensor<2x3x2xi32>
  %result = "stablehlo.transpose"(%operand) {
    permutation = dense<[2, 1, 0]> : tensor<3xi64>
  } : (tensor<2x3x2xi32>) -> tensor<2x3x2xi32>
  check.expect_eq_const %result, dense<[[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]]> : tensor<2x3x2xi32>
  func.return
}
