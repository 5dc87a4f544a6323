// dynamic_iota: a shape known only at run time cannot become HLO's static iota
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = stablehlo.dynamic_iota %i, dim = 0 : (tensor<2xi64>) -> tensor<2x2xf32>
    return %v : tensor<4xf32>
  }
}
