// top_k with k past the last dimension
module {
  func.func public @main(%x: tensor<4xf32>, %i: tensor<4xi32>, %m: tensor<2x3xf32>) -> tensor<5xf32> {
    %0:2 = chlo.top_k(%x, k = 5) : tensor<4xf32> -> (tensor<5xf32>, tensor<5xi32>)
    return %0#0 : tensor<5xf32>
  }
}
