// send and recv between devices (is_host_transfer = false) on 2 replicas, as
// the StableHLO specification's newer examples write them: channel handle 0
// (pairs name replicas) and source_target_pairs [[0, 1], [1, 0]], so the
// replicas swap x = [10r + 1, 10r + 2]:
//   replica 0 receives [11, 12], replica 1 receives [1, 2].
module @coll_send_recv attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main() -> tensor<2xi64> {
    %id = stablehlo.replica_id : tensor<ui32>
    %r = stablehlo.convert %id : (tensor<ui32>) -> tensor<i64>
    %c10 = stablehlo.constant dense<10> : tensor<i64>
    %r10 = stablehlo.multiply %r, %c10 : tensor<i64>
    %rb = stablehlo.broadcast_in_dim %r10, dims = [] : (tensor<i64>) -> tensor<2xi64>
    %base = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %x = stablehlo.add %rb, %base : tensor<2xi64>
    %token = stablehlo.after_all : !stablehlo.token
    %sent = "stablehlo.send"(%x, %token) {
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>,
      is_host_transfer = false,
      source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>
    } : (tensor<2xi64>, !stablehlo.token) -> !stablehlo.token
    %got:2 = "stablehlo.recv"(%sent) <{channel_handle = #stablehlo.channel_handle<handle = 0, type = 1>, is_host_transfer = false, source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (!stablehlo.token) -> (tensor<2xi64>, !stablehlo.token)
    return %got#0 : tensor<2xi64>
  }
}
