// reduce_precision: exponent_bits >= 1 (C2)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = "stablehlo.reduce_precision"(%v) {exponent_bits = 0 : i32, mantissa_bits = 2 : i32} : (tensor<4xf32>) -> tensor<4xf32>
    return %v : tensor<4xf32>
  }
}
