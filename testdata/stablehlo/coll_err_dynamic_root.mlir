// collective_broadcast with has_dynamic_root (its root an operand) is not
// converted yet: a positioned refusal naming it.
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func public @main(%x: tensor<1x2xi64>, %root: tensor<1xi32>) -> tensor<1x2xi64> {
    %0 = "stablehlo.collective_broadcast"(%x, %root) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>,
      has_dynamic_root
    } : (tensor<1x2xi64>, tensor<1xi32>) -> tensor<1x2xi64>
    return %0 : tensor<1x2xi64>
  }
}
