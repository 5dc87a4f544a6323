// A typed-FFI custom call as JAX prints it (api_version = 4, a dictionary
// backend_config), run with --custom-call axpy=libhlo_test_ffi.so:hlo_test_axpy:
// y + alpha * x = {{10,20,30},{40,50,60}} + 2 * {{1,2,3},{4,5,6}}
//               = {{12,24,36},{48,60,72}} (by hand).  @twice is a called
// computation: carried as called_computations={...} (the handler ignores it).
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func private @twice(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
  func.func public @main() -> (tensor<2x3xf32> {jax.result_info = ""}) {
    %x = stablehlo.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
    %y = stablehlo.constant dense<[[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]> : tensor<2x3xf32>
    %0 = stablehlo.custom_call @axpy(%x, %y) {api_version = 4 : i32, backend_config = {alpha = 2.000000e+00 : f32},
        called_computations = [@twice], operand_layouts = [dense<[1, 0]> : tensor<2xindex>, dense<[1, 0]> : tensor<2xindex>],
        result_layouts = [dense<[1, 0]> : tensor<2xindex>]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    return %0 : tensor<2x3xf32>
  }
}
