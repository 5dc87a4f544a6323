// gather and scatter in the generic form JAX prints (x[idx] and
// x.at[idx].add(u)).  x = [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9, 10, 11]],
// idx = [[2], [0]]:
//   gather:  rows 2 and 0           = [[6, 7, 8], [0, 1, 2]]
//   scatter: x + 10 on rows 2 and 0 = [[10, 11, 12], [3, 4, 5], [16, 17, 18], [9, 10, 11]]
module @jit_f {
  func.func public @main() -> (tensor<2x3xi32>, tensor<4x3xi32>) {
    %0 = stablehlo.iota dim = 0 : tensor<12xi32>
    %x = stablehlo.reshape %0 : (tensor<12xi32>) -> tensor<4x3xi32>
    %idx = stablehlo.constant dense<[[2], [0]]> : tensor<2x1xi32>
    %g = "stablehlo.gather"(%x, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<4x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
    %u = stablehlo.constant dense<10> : tensor<2x3xi32>
    %s = "stablehlo.scatter"(%x, %idx, %u) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %1 = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %1 : tensor<i32>
    }) : (tensor<4x3xi32>, tensor<2x1xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>
    return %g, %s : tensor<2x3xi32>, tensor<4x3xi32>
  }
}
