// convolution: strides are positive (C4)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = "stablehlo.convolution"(%x, %k) {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, window_strides = dense<0> : tensor<2xi64>} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x2x2x1xf32>
    return %v : tensor<4xf32>
  }
}
