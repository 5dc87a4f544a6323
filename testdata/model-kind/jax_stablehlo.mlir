module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {mhlo.layout_mode = "default"}) -> (tensor<3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.negate %arg0 : tensor<3xf32>
    return %0 : tensor<3xf32>
  }
}
