module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<f32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {
      %m = stablehlo.maximum %a, %b : tensor<f32>
    }
    return %0 : tensor<f32>
  }
}
