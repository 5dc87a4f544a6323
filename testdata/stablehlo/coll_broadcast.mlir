// collective_broadcast of the StableHLO specification: 4 replicas holding
// [[1, 2]], [[3, 4]], [[5, 6]], [[7, 8]] (coll_broadcast.npz); the first
// member of each group is its source.  The spec's group [2, 1] alone leaves
// replicas 0 and 3 in no group (zeros, says the spec; an error in XLA and
// hlorun), so the group [0, 3] is added:
//   r0 [[1, 2]], r1 [[5, 6]], r2 [[5, 6]], r3 [[1, 2]]
module @coll_broadcast attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 4 : i32} {
  func.func public @main(%operand: tensor<1x2xi64> loc("operand")) -> tensor<1x2xi64> {
    %result = "stablehlo.collective_broadcast"(%operand) {
      replica_groups = dense<[[2, 1], [0, 3]]> : tensor<2x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<1x2xi64>) -> tensor<1x2xi64>
    return %result : tensor<1x2xi64>
  }
}
