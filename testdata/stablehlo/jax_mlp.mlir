#loc1 = loc("x")
#loc2 = loc("w1")
#loc3 = loc("b1")
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4xf32> {mhlo.layout_mode = "default"} loc("x"), %arg1: tensor<4x8xf32> {mhlo.layout_mode = "default"} loc("w1"), %arg2: tensor<8xf32> {mhlo.layout_mode = "default"} loc("b1")) -> (tensor<2x3xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense_resource<__w2> : tensor<8x3xf32> loc(#loc)
    %cst_0 = stablehlo.constant dense<"0x0000A0BF000080BF000000C0"> : tensor<3xf32> loc(#loc)
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc(#loc11)
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<2x8xf32> loc(#loc12)
    %2 = stablehlo.add %0, %1 : tensor<2x8xf32> loc(#loc12)
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8xf32> loc(#loc13)
    %4 = stablehlo.maximum %2, %3 : tensor<2x8xf32> loc(#loc13)
    %5 = stablehlo.dot_general %4, %cst, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32> loc(#loc14)
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32> loc(#loc15)
    %7 = stablehlo.add %5, %6 : tensor<2x3xf32> loc(#loc15)
    %8 = stablehlo.tanh %7 : tensor<2x3xf32> loc(#loc16)
    return %8 : tensor<2x3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc4 = loc("/home/user/mlp.py":9:10)
#loc5 = loc("/home/user/mlp.py":10:8)
#loc6 = loc("/home/user/mlp.py":11:10)
#loc7 = loc("/home/user/mlp.py":11:9)
#loc8 = loc("/home/user/mlp.py":12:9)
#loc9 = loc("/home/user/mlp.py":15:0)
#loc10 = loc(callsite(#loc4 at #loc9))
#loc11 = loc("jit(mlp)/jit(main)/dot_general"(#loc10))
#loc12 = loc("jit(mlp)/jit(main)/add"(#loc10))
#loc13 = loc("jit(mlp)/jit(main)/max"(#loc5))
#loc14 = loc("jit(mlp)/jit(main)/dot_general"(#loc6))
#loc15 = loc("jit(mlp)/jit(main)/add"(#loc7))
#loc16 = loc("jit(mlp)/jit(main)/tanh"(#loc8))

{-#
  dialect_resources: {
    builtin: {
      __w2: "0x04000000000080BD0000803E0000E03E0000A03E0000A03E000000BE0000003F0000803D000080BD000080BE0000E0BE0000A03E0000E0BE000080BE0000E0BE0000403E0000A03E0000E0BE000080BE000080BE0000A03E000000BE0000003E0000C0BE"
    }
  }
#-}
