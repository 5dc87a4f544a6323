// select_and_scatter from the StableHLO specification (docs/spec.md): the
// spec's generic form (select and scatter regions, dense window attributes)
// and the same op with array<i64> attributes, the spelling newer printers
// use (the op has no pretty form).  The spec's result, twice:
//   [[0, 0], [0, 0], [5, 14], [7, 0]]
module @spec_select_and_scatter {
  func.func public @main() -> (tensor<4x2xi32>, tensor<4x2xi32>) {
    %operand = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi32>
    %source = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
    %init_value = stablehlo.constant dense<0> : tensor<i32>
    %result = "stablehlo.select_and_scatter"(%operand, %source, %init_value) ({
      ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
        %0 = "stablehlo.compare"(%arg0, %arg1) {
          comparison_direction = #stablehlo<comparison_direction GE>
        } : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%0) : (tensor<i1>) -> ()
    }, {
      ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
        %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%0) : (tensor<i32>) -> ()
    }) {
      window_dimensions = dense<[3, 1]> : tensor<2xi64>,
      window_strides = dense<[2, 1]> : tensor<2xi64>,
      padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>
    } : (tensor<4x2xi32>, tensor<2x2xi32>, tensor<i32>) -> tensor<4x2xi32>
    %r2 = "stablehlo.select_and_scatter"(%operand, %source, %init_value) <{padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>, window_dimensions = array<i64: 3, 1>, window_strides = array<i64: 2, 1>}> ({
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.compare  GE, %a, %b : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %0 : tensor<i1>
    }, {
    ^bb0(%a: tensor<i32>, %b: tensor<i32>):
      %0 = stablehlo.add %a, %b : tensor<i32>
      stablehlo.return %0 : tensor<i32>
    }) : (tensor<4x2xi32>, tensor<2x2xi32>, tensor<i32>) -> tensor<4x2xi32>
    return %result, %r2 : tensor<4x2xi32>, tensor<4x2xi32>
  }
}
