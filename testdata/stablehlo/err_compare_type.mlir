// UNSIGNED does not fit signed elements (the spec's compare constraint).
func.func @main(%a: tensor<2xi32>, %b: tensor<2xi32>) -> tensor<2xi1> {
  %0 = stablehlo.compare LT, %a, %b, UNSIGNED : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}
