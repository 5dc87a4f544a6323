// custom_call in the pretty form JAX prints: converted to an HLO custom-call.
module @jit_f {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.custom_call @my_target(%arg0) {api_version = 2 : i32, backend_config = "cfg", has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
