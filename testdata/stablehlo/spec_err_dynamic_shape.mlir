// dynamic_reshape: a constant shape operand agrees with the result type
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %sh = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
    %r = stablehlo.dynamic_reshape %v, %sh : (tensor<4xf32>, tensor<2xi64>) -> tensor<2x2xf32>
    return %v : tensor<4xf32>
  }
}
