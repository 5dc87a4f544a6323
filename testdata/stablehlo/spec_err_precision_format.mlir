// reduce_precision: the pretty format is eNmM
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = stablehlo.reduce_precision %v, format = bf16 : tensor<4xf32>
    return %v : tensor<4xf32>
  }
}
