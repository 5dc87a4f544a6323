// A special function of an integer tensor
module {
  func.func public @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %m: tensor<2x3xf32>) -> tensor<4xi32> {
    %0 = chlo.erf_inv %i : tensor<4xi32> -> tensor<4xi32>
    return %0 : tensor<4xi32>
  }
}
