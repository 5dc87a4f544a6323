// replica_id and partition_id (pretty and generic forms) on 2 replicas x 2
// partitions, and a cross-partition all_to_all over the partitions (channel
// 1, split and concat dimension 0: partition p receives element p of each
// partition's [10r + 2p, 10r + 2p + 1]):
//   device (r, p): (r, p, [10r + p, 10r + 2 + p])
module @coll_ids attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main() -> (tensor<ui32>, tensor<ui32>, tensor<2xi32>) {
    %0 = stablehlo.replica_id : tensor<ui32>
    %1 = "stablehlo.partition_id"() : () -> tensor<ui32>
    %r = stablehlo.convert %0 : (tensor<ui32>) -> tensor<i32>
    %p = stablehlo.convert %1 : (tensor<ui32>) -> tensor<i32>
    %c10 = stablehlo.constant dense<10> : tensor<i32>
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %a = stablehlo.multiply %r, %c10 : tensor<i32>
    %b = stablehlo.multiply %p, %c2 : tensor<i32>
    %base = stablehlo.add %a, %b : tensor<i32>
    %bb = stablehlo.broadcast_in_dim %base, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %io = stablehlo.iota dim = 0 : tensor<2xi32>
    %x = stablehlo.add %bb, %io : tensor<2xi32>
    %y = "stablehlo.all_to_all"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 0 : i64}> : (tensor<2xi32>) -> tensor<2xi32>
    return %0, %1, %y : tensor<ui32>, tensor<ui32>, tensor<2xi32>
  }
}
