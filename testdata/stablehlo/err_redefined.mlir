module {
  func.func @main(%a: tensor<f32>) -> tensor<f32> {
    %0 = stablehlo.abs %a : tensor<f32>
    %0 = stablehlo.abs %a : tensor<f32>
    return %0 : tensor<f32>
  }
}
