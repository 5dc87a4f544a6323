func.func public @main(%a: tensor<2xf32> loc("x"), %b: tensor<2xf32> loc("y"), %c: tensor<2xf32> loc("x")) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %c : tensor<2xf32>
  return %0 : tensor<2xf32>
}
