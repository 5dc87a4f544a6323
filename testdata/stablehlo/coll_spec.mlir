// Collectives of the StableHLO specification (openxla/stablehlo docs/spec.md),
// each with the spec's per-process inputs (coll_spec.npz: r0_NAME on replica 0,
// r1_NAME on replica 1; scripts/gen-stablehlo-coll.py) and its stated results:
//   all_gather (dim 1):      both [[1, 2, 5, 6], [3, 4, 7, 8]]
//   all_reduce (add):        both [6, 8, 10, 12]
//   all_to_all (split 1, concat 0):
//                            r0 [[1, 2], [5, 6], [9, 10], [13, 14]]
//                            r1 [[3, 4], [7, 8], [11, 12], [15, 16]]
//   collective_permute 0->1: r0 [[0, 0], [0, 0]], r1 [[1, 2], [3, 4]]
//   reduce_scatter (dim 1):  r0 [[10, 12], [18, 20]], r1 [[14, 16], [22, 24]]
// and a variadic all_reduce as JAX prints it (channel 1, use_global_device_ids,
// properties in <{...}>): both (ar + ar, sum of ag[0][0]) = ([12, 16, 20, 24], 6);
// and a variadic all_gather of (ag, rs) along dimension 1 (channel 2):
//   both ([[1, 2, 5, 6], [3, 4, 7, 8]],
//         [[1, 2, 3, 4, 9, 10, 11, 12], [5, 6, 7, 8, 13, 14, 15, 16]]).
module @coll_spec attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%ag: tensor<2x2xf32> loc("ag"), %ar: tensor<4xf32> loc("ar"),
                         %a2a: tensor<2x4xf32> loc("a2a"), %cp: tensor<2x2xf32> loc("cp"),
                         %rs: tensor<2x4xi64> loc("rs"))
      -> (tensor<2x4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<4xf32>, tensor<f32>,
          tensor<2x4xf32>, tensor<2x8xi64>) {
    %result = "stablehlo.all_gather"(%ag) {
      all_gather_dim = 1 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      // channel_id = 0
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
      // use_global_device_ids = false
    } : (tensor<2x2xf32>) -> tensor<2x4xf32>
    %result1 = "stablehlo.all_reduce"(%ar) ({
      ^bb0(%arg0: tensor<f32>, %arg1: tensor<f32>):
        %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%0) : (tensor<f32>) -> ()
    }) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<4xf32>) -> tensor<4xf32>
    %result2 = "stablehlo.all_to_all"(%a2a) {
      split_dimension = 1 : i64,
      concat_dimension = 0 : i64,
      split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<2x4xf32>) -> tensor<4x2xf32>
    %result3 = "stablehlo.collective_permute"(%cp) {
      source_target_pairs = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %result4 = "stablehlo.reduce_scatter"(%rs) ({
      ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = "stablehlo.add"(%arg0, %arg1) : (tensor<i64>, tensor<i64>) -> tensor<i64>
      "stablehlo.return"(%0) : (tensor<i64>) -> ()
    }) {
      scatter_dimension = 1 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      channel_handle = #stablehlo.channel_handle<handle = 0, type = 0>
    } : (tensor<2x4xi64>) -> tensor<2x2xi64>
    %c = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %first = stablehlo.slice %ag [0:1, 0:1] : (tensor<2x2xf32>) -> tensor<1x1xf32>
    %s = stablehlo.reshape %first : (tensor<1x1xf32>) -> tensor<f32>
    %twice = stablehlo.add %ar, %ar : tensor<4xf32>
    %5:2 = "stablehlo.all_reduce"(%twice, %s) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %sum = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %sum : tensor<f32>
    }) : (tensor<4xf32>, tensor<f32>) -> (tensor<4xf32>, tensor<f32>)
    %6:2 = "stablehlo.all_gather"(%ag, %rs) <{all_gather_dim = 1 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x2xf32>, tensor<2x4xi64>) -> (tensor<2x4xf32>, tensor<2x8xi64>)
    return %result, %result1, %result2, %result3, %result4, %5#0, %5#1, %6#0, %6#1 : tensor<2x4xf32>, tensor<4xf32>, tensor<4x2xf32>, tensor<2x2xf32>, tensor<2x2xi64>, tensor<4xf32>, tensor<f32>, tensor<2x4xf32>, tensor<2x8xi64>
  }
}
