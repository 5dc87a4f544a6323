func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a, %b = stablehlo.abs %x : tensor<2xf32>
  return %a : tensor<2xf32>
}
