module @m {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<3xf32>) -> tensor<2xf32> {
    %0 = stablehlo.add %arg0, %arg1 : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
