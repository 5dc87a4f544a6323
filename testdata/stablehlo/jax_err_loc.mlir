#loc1 = loc("/home/u/f.py":12:8)
#loc2 = loc("/home/u/train.py":40:2)
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> loc("x")) -> (tensor<5xf32> {jax.result_info = ""}) {
    %0 = stablehlo.exponential %arg0 : tensor<4xf32> loc(#loc4)
    %1 = stablehlo.add %0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32> loc(#loc5)
    return %1 : tensor<5xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc3 = loc(callsite(#loc1 at #loc2))
#loc4 = loc("jit(f)/jit(main)/exp"(#loc3))
#loc5 = loc("jit(f)/jit(main)/add"(#loc3))
