// get_dimension_size: the dimension is one of the operand's (C1)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = stablehlo.get_dimension_size %v, dim = 1 : (tensor<4xf32>) -> tensor<i32>
    return %v : tensor<4xf32>
  }
}
