module @m {
  func.func public @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.abs %arg0 : tensor<2xf32>
