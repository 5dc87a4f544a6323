func.func @probe() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_serialized_eq %a, probe_id = "probe0" : tensor<2xi32>
  func.return
}
