// Elementwise ops, compare/select, convert, constants (splat, nested, hex)
// in the form JAX prints them.
#loc1 = loc("x")
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<4xf32> {jax.result_info = ""}, tensor<4xi32>) {
    %cst = stablehlo.constant dense<[1.000000e+00, -2.000000e+00, 3.000000e+00, -4.000000e+00]> : tensor<4xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
    %c = stablehlo.constant dense<"0x01000000020000000300000004000000"> : tensor<4xi32>
    %0 = stablehlo.multiply %cst, %cst_0 : tensor<4xf32> loc(#loc1)
    %1 = stablehlo.abs %0 : tensor<4xf32>
    %2 = stablehlo.compare  GT, %cst, %cst_0,  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %3 = stablehlo.negate %1 : tensor<4xf32>
    %4 = stablehlo.select %2, %3, %1 : tensor<4xi1>, tensor<4xf32>
    %5 = stablehlo.convert %cst : (tensor<4xf32>) -> tensor<4xi32>
    %6 = stablehlo.add %5, %c : tensor<4xi32>
    return %4, %6 : tensor<4xf32>, tensor<4xi32>
  }
}
