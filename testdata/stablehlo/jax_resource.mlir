// Constants as JAX and torch-mlir write large ones: dense_resource blobs in the
// {-# dialect_resources #-} section (4 bytes of alignment, then the raw
// little-endian elements; i1 and i4 one byte each), and a hex dense<"0x...">
// of an f8 type.  Written by scripts/gen-stablehlo-jax.py; expected values in
// jax_resource.expected.npz (numpy).
module @jax_resource attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<4xbf16>, tensor<3xf16>, tensor<5xi1>, tensor<2xcomplex<f32>>, tensor<4xf8E4M3FN>, tensor<3xi8>, tensor<2xui16>, tensor<4xi4>, tensor<4xf8E5M2>, tensor<2x3xf32>) {
    %c0 = stablehlo.constant dense_resource<r_f32> : tensor<2x3xf32>
    %c1 = stablehlo.constant dense_resource<r_bf16> : tensor<4xbf16>
    %c2 = stablehlo.constant dense_resource<r_f16> : tensor<3xf16>
    %c3 = stablehlo.constant dense_resource<r_i1> : tensor<5xi1>
    %c4 = stablehlo.constant dense_resource<r_c64> : tensor<2xcomplex<f32>>
    %c5 = stablehlo.constant dense_resource<r_e4m3> : tensor<4xf8E4M3FN>
    %c6 = stablehlo.constant dense_resource<r_i8> : tensor<3xi8>
    %c7 = stablehlo.constant dense_resource<r_u16> : tensor<2xui16>
    %c8 = stablehlo.constant dense_resource<r_s4> : tensor<4xi4>
    %c9 = stablehlo.constant dense<"0x3C3EC434"> : tensor<4xf8E5M2>
    %g = "stablehlo.constant"() <{value = dense_resource<r_f32> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>
    %sum = stablehlo.add %g, %arg0 : tensor<2x3xf32>
    return %c0, %c1, %c2, %c3, %c4, %c5, %c6, %c7, %c8, %c9, %sum : tensor<2x3xf32>, tensor<4xbf16>, tensor<3xf16>, tensor<5xi1>, tensor<2xcomplex<f32>>, tensor<4xf8E4M3FN>, tensor<3xi8>, tensor<2xui16>, tensor<4xi4>, tensor<4xf8E5M2>, tensor<2x3xf32>
  }
}

{-#
  dialect_resources: {
    builtin: {
      r_f32: "0x040000000000C03F000000C000005040000000006F12833A0000E0C0",
      r_bf16: "0x04000000803F20C0203EC043",
      r_f16: "0x040000000038FFFB0004",
      r_i1: "0x040000000100000101",
      r_c64: "0x040000000000803F00000040000000BF000080C0",
      r_e4m3: "0x0400000038C0307E",
      r_i8: "0x0400000080007F",
      r_u16: "0x040000000000FFFF",
      r_s4: "0x04000000080F0007"
    }
  }
#-}
