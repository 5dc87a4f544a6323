// rng: a constant shape operand is the result's shape (C3)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %a = stablehlo.constant dense<0.0> : tensor<f32>
    %sh = stablehlo.constant dense<[3, 3]> : tensor<2xi64>
    %r = stablehlo.rng %a, %a, %sh, distribution = UNIFORM : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<3x4xf32>
    return %v : tensor<4xf32>
  }
}
