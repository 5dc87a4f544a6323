func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.custom_call @t(%a) {backend_config = {alpha = 1.0 : f32}} : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
