// rng_bit_generator: THREE_FRY takes a state of two values (C2)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xui64>
    %o:2 = stablehlo.rng_bit_generator %c, algorithm = THREE_FRY : (tensor<3xui64>) -> (tensor<3xui64>, tensor<2x2xui64>)
    return %v : tensor<4xf32>
  }
}
