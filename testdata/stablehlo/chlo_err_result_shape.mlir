// A broadcast result type that is not the broadcast shape
module {
  func.func public @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %m: tensor<2x3xf32>) -> tensor<3x2xf32> {
    %0 = chlo.broadcast_add %m, %m : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
    return %0 : tensor<3x2xf32>
  }
}
