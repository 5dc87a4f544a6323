// Names as JAX prints them: jax.arg_info / loc names bind .npz inputs, and
// jax.result_info names the outputs (--output FILE.npz entries, --expect).
// w = [1, 2, 3], x = [10, 20, 30]: diff = x - w = [9, 18, 27], prod = [10, 40, 90].
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32> {jax.arg_info = "params['w']", mhlo.layout_mode = "default", mhlo.sharding = "{replicated}"} loc("params['w']"), %arg1: tensor<3xf32> {jax.arg_info = "x_info"} loc("x")) -> (tensor<3xf32> {jax.result_info = "['diff']", mhlo.layout_mode = "default"}, tensor<3xf32> {jax.result_info = "['prod']"}) {
    %0 = stablehlo.subtract %arg1, %arg0 : tensor<3xf32>
    %1 = stablehlo.multiply %arg0, %arg1 : tensor<3xf32>
    return %0, %1 : tensor<3xf32>, tensor<3xf32>
  }
}
