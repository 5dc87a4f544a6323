// An all_to_all split_count that does not divide the dimension (spec C2)
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "stablehlo.all_to_all"(%x) <{concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 3 : i64, split_dimension = 0 : i64}> : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
