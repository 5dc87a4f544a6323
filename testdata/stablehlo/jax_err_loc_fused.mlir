func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.frobnicate %arg0 : tensor<4xf32> loc(fused["jit(f)/frob", "/home/u/g.py":7:3])
  return %0 : tensor<4xf32>
}
