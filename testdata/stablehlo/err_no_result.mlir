module {
  func.func @main(%a: tensor<f32>) -> tensor<f32> {
    "stablehlo.abs"(%a) : (tensor<f32>) -> ()
    return %a : tensor<f32>
  }
}
