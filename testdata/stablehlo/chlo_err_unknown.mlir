// A chlo op that does not exist
module {
  func.func public @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %m: tensor<2x3xf32>) -> tensor<4xf32> {
    %0 = chlo.frobnicate %x : tensor<4xf32> -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
