// Several result names: "%a, %b = ..." and a group "%c, %d:2 = ..." (results
// c, d#0, d#1).  x = [1, 2], y = [10, 20]: a + b = [11, 22];
// c - d#0 = [1 - 10, 2 - 20] = [-9, -18]; d#1 * 2 = [2, 4] (by hand).
func.func public @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a, %b = stablehlo.optimization_barrier %x, %y : tensor<2xf32>, tensor<2xf32>
  %c, %d:2 = "stablehlo.optimization_barrier"(%x, %y, %x) : (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.subtract %c, %d#0 : tensor<2xf32>
  %2 = stablehlo.add %d#1, %d#1 : tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
