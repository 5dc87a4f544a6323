// replica_id of a type other than tensor<ui32>
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<i32> {
    %0 = stablehlo.replica_id : tensor<i32>
    return %0 : tensor<i32>
  }
}
