// chlo.next_after (pretty) and chlo.broadcast_next_after on f32 bits, exact
// (rtol 0, atol 0) against numpy.nextafter (scripts/gen-stablehlo-chlo.py):
// from 0 the smallest subnormal of y's sign, x == y gives y (also -0 vs 0),
// nan in gives nan, and one step toward y otherwise.
module @chlo_next_after {
  func.func public @main(%x: tensor<7xf32> loc("x"), %y: tensor<7xf32> loc("y")) -> (tensor<7xf32>, tensor<7xf32>) {
    %0 = chlo.next_after %x, %y : tensor<7xf32>, tensor<7xf32> -> tensor<7xf32>
    %inf = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %1 = chlo.broadcast_next_after %x, %inf : (tensor<7xf32>, tensor<f32>) -> tensor<7xf32>
    return %0, %1 : tensor<7xf32>, tensor<7xf32>
  }
}
