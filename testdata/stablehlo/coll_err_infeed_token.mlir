// An infeed whose last result is not its token
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %t = stablehlo.after_all : !stablehlo.token
    %0:2 = "stablehlo.infeed"(%t) <{infeed_config = ""}> : (!stablehlo.token) -> (!stablehlo.token, tensor<4xf32>)
    return %0#1 : tensor<4xf32>
  }
}
