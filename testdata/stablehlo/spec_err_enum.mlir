// triangular_solve: transpose_a is NO_TRANSPOSE, TRANSPOSE or ADJOINT
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = "stablehlo.triangular_solve"(%k, %k) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose CONJ>} : (tensor<3x3x1x1xf32>, tensor<3x3x1x1xf32>) -> tensor<3x3x1x1xf32>
    return %v : tensor<4xf32>
  }
}
