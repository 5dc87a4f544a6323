// cholesky: lower is true or false
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = stablehlo.cholesky %k, lower = yes : tensor<3x3x1x1xf32>
    return %v : tensor<4xf32>
  }
}
