// composite: the decomposition is a function of the module
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = stablehlo.composite "my.op" %v {decomposition = @missing} : (tensor<4xf32>) -> tensor<4xf32>
    return %v : tensor<4xf32>
  }
}
