// rng: NORMAL needs floating-point types (C2)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %a = stablehlo.constant dense<0> : tensor<i32>
    %r = stablehlo.rng %a, %a, %i, distribution = NORMAL : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x4xi32>
    return %v : tensor<4xf32>
  }
}
