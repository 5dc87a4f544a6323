#loc1 = loc("x")
module @jit_g {
  func.func public @main(%arg0: tensor<f32> loc("x")) -> tensor<f32> {
    return %arg0 : tensor<f32>
  }
}
