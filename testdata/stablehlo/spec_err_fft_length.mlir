// fft: fft_length has 1 to 3 values (C3)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %r = stablehlo.fft %v, type = RFFT, length = [] : (tensor<4xf32>) -> tensor<3xcomplex<f32>>
    return %v : tensor<4xf32>
  }
}
