// The dynamic ops with static result types, their shape operands constants:
// each as in stablehlo/tests/interpret/ (dynamic_broadcast_in_dim,
// dynamic_reshape, dynamic_iota, dynamic_gather) or, for dynamic_pad and
// real_dynamic_slice, with the inputs of the specification's pad and slice
// examples; pretty and generic forms.  First broadcast_in_dim's own spec
// example, which expands a size-1 dimension as dynamic_broadcast_in_dim does.
// The results stated there:
//   broadcast_in_dim, dynamic_broadcast_in_dim: [[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]
//   dynamic_reshape: [1, 2, 3, 4, 5, 6]
//   dynamic_iota:    [[0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]]
//   dynamic_gather:  [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
//                     [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]]]
//   dynamic_pad:     [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0],
//                     [0, 4, 0, 0, 5, 0, 0, 6, 0], [0, ...], [0, ...]]
//   real_dynamic_slice: [[1, 1], [1, 1]]
module @spec_dynamic {
  func.func public @main() -> (tensor<2x3x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2xi64>, tensor<6xi64>, tensor<6xi64>, tensor<3x4xi64>, tensor<3x4xi64>, tensor<2x3x2x2xi64>, tensor<5x9xi64>, tensor<5x9xi64>, tensor<2x2xi64>, tensor<2x2xi64>) {
    %b_operand = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi32>
    %b = "stablehlo.broadcast_in_dim"(%b_operand) {
      broadcast_dimensions = dense<[2, 1]>: tensor<2xi64>
    } : (tensor<1x3xi32>) -> tensor<2x3x2xi32>
    %operand = stablehlo.constant dense<[[1, 2, 3]]> : tensor<1x3xi64>
    %output_dimensions = stablehlo.constant dense<[2, 3, 2]> : tensor<3xi64>
    %db = "stablehlo.dynamic_broadcast_in_dim"(%operand, %output_dimensions) {
      broadcast_dimensions = array<i64: 2, 1>,
      known_expanding_dimensions = array<i64: 0>,
      known_non_expanding_dimensions = array<i64: 1>
    } : (tensor<1x3xi64>, tensor<3xi64>) -> tensor<2x3x2xi64>
    %db2 = stablehlo.dynamic_broadcast_in_dim %operand, %output_dimensions, dims = [2, 1] : (tensor<1x3xi64>, tensor<3xi64>) -> tensor<2x3x2xi64>
    %r_operand = stablehlo.constant dense<[[1,2,3,4,5,6]]> : tensor<1x6xi64>
    %shape = stablehlo.constant dense<[6]> : tensor<1xi64>
    %r = stablehlo.dynamic_reshape %r_operand, %shape : (tensor<1x6xi64>, tensor<1xi64>) -> tensor<6xi64>
    %r2 = "stablehlo.dynamic_reshape"(%r_operand, %shape) : (tensor<1x6xi64>, tensor<1xi64>) -> tensor<6xi64>
    %output_shape = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %i = stablehlo.dynamic_iota %output_shape, dim = 0 : (tensor<2xi64>) -> tensor<3x4xi64>
    %i2 = "stablehlo.dynamic_iota"(%output_shape) {iota_dimension = 0 : i64} : (tensor<2xi64>) -> tensor<3x4xi64>
    %g_operand = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6], [7, 8]],
                                           [[9, 10], [11, 12], [13, 14], [15, 16]],
                                           [[17, 18], [19, 20], [21, 22], [23, 24]]]> : tensor<3x4x2xi64>
    %start_indices = stablehlo.constant dense<[[[0, 0], [1, 0], [2, 1]],
                                               [[0, 1], [1, 1], [0, 9]]]> : tensor<2x3x2xi64>
    %slice_sizes = stablehlo.constant dense<[1, 2, 2]> : tensor<3xi32>
    %g = "stablehlo.dynamic_gather"(%g_operand, %start_indices, %slice_sizes) {
      dimension_numbers = #stablehlo.gather<
        offset_dims = [2, 3],
        collapsed_slice_dims = [0],
        start_index_map = [1, 0],
        index_vector_dim = 2>,
      indices_are_sorted = false
    } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>, tensor<3xi32>) -> tensor<2x3x2x2xi64>
    %p_operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
    %padding_value = stablehlo.constant dense<0> : tensor<i64>
    %low = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
    %high = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
    %interior = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %p = stablehlo.dynamic_pad %p_operand, %padding_value, %low, %high, %interior : (tensor<2x3xi64>, tensor<i64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x9xi64>
    %p2 = "stablehlo.dynamic_pad"(%p_operand, %padding_value, %low, %high, %interior) : (tensor<2x3xi64>, tensor<i64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x9xi64>
    %s_operand = stablehlo.constant dense<[[0, 0, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]]> : tensor<3x4xi64>
    %start = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %limit = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %strides = stablehlo.constant dense<1> : tensor<2xi64>
    %s = stablehlo.real_dynamic_slice %s_operand, %start, %limit, %strides : (tensor<3x4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xi64>
    %s2 = "stablehlo.real_dynamic_slice"(%s_operand, %start, %limit, %strides) : (tensor<3x4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xi64>
    return %b, %db, %db2, %r, %r2, %i, %i2, %g, %p, %p2, %s, %s2 : tensor<2x3x2xi32>, tensor<2x3x2xi64>, tensor<2x3x2xi64>, tensor<6xi64>, tensor<6xi64>, tensor<3x4xi64>, tensor<3x4xi64>, tensor<2x3x2x2xi64>, tensor<5x9xi64>, tensor<5x9xi64>, tensor<2x2xi64>, tensor<2x2xi64>
  }
}
