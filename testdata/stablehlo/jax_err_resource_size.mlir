module @jit_f {
  func.func public @main() -> tensor<2xf32> {
    %cst = stablehlo.constant dense_resource<blob0> : tensor<2xf32>
    return %cst : tensor<2xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      blob0: "0x040000000000803F"
    }
  }
#-}
