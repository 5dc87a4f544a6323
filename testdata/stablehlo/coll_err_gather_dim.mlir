// An all_gather_dim outside the operand's rank (spec C1)
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<8xf32> {
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 1 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
}
