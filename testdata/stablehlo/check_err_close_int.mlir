func.func @close_on_integers() {
  %a = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  check.expect_close %a, %a, max_ulp_difference = 3 : tensor<2xi32>, tensor<2xi32>
  func.return
}
