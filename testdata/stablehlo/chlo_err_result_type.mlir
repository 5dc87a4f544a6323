// A unary CHLO op whose result type differs from its operand's
module {
  func.func public @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %m: tensor<2x3xf32>) -> tensor<4xf64> {
    %0 = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf64>
    return %0 : tensor<4xf64>
  }
}
