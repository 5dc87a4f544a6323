// convolution: the result type is the one the op computes (C26), found by the HLO verifier
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = stablehlo.convolution(%x, %k) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1]} : (tensor<1x4x4x1xf32>, tensor<3x3x1x1xf32>) -> tensor<1x3x2x1xf32>
    return %v : tensor<4xf32>
  }
}
