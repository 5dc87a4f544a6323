func.func @types_differ() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  check.expect_eq %a, %b : tensor<2xf32>
  func.return
}
