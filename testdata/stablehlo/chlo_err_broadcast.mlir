// Operands whose shapes do not broadcast (a dimension of 3 against 4)
module {
  func.func public @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %m: tensor<2x3xf32>) -> tensor<2x4xf32> {
    %0 = chlo.broadcast_add %x, %m : (tensor<4xf32>, tensor<2x3xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
