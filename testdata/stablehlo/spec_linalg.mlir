// cholesky and triangular_solve from the StableHLO specification
// (docs/spec.md), in the spec's generic form and, for cholesky, the pretty
// form; one more triangular_solve (right side, upper) from
// stablehlo/tests/interpret/triangular_solve.mlir.  The results they state:
//   cholesky:          [[1, 0, 0], [2, 4, 0], [3, 5, 6]]
//   triangular_solve:  [[2, 0, 0], [0, 2, 0], [0, 0, 2]] and [[7, -2, -1.5]]
module @spec_linalg {
  func.func public @main() -> (tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<1x3xf32>) {
    %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]]> : tensor<3x3xf32>
    %result = "stablehlo.cholesky"(%a) {
      lower = true
    } : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %pretty = stablehlo.cholesky %a, lower = true : tensor<3x3xf32>
    %ta = stablehlo.constant dense<[[1.0, 0.0, 0.0], [2.0, 4.0, 0.0], [3.0, 5.0, 6.0]]> : tensor<3x3xf32>
    %tb = stablehlo.constant dense<[[2.0, 0.0, 0.0], [4.0, 8.0, 0.0], [6.0, 10.0, 12.0]]> : tensor<3x3xf32>
    %x = "stablehlo.triangular_solve"(%ta, %tb) {
      left_side = true,
      lower = true,
      unit_diagonal = false,
      transpose_a = #stablehlo<transpose NO_TRANSPOSE>
    } : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    %ua = stablehlo.constant dense<[[1.0, 2.0, 4.0], [0.0, 3.0, 5.0], [0.0, 0.0, 6.0]]> : tensor<3x3xf32>
    %ub = stablehlo.constant dense<[[7.0, 8.0, 9.0]]> : tensor<1x3xf32>
    %y = "stablehlo.triangular_solve"(%ua, %ub) <{left_side = false, lower = false, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}> : (tensor<3x3xf32>, tensor<1x3xf32>) -> tensor<1x3xf32>
    return %result, %pretty, %x, %y : tensor<3x3xf32>, tensor<3x3xf32>, tensor<3x3xf32>, tensor<1x3xf32>
  }
}
