// fft from the StableHLO specification (docs/spec.md; generic form): the FFT
// of a unit impulse is all ones.  Then, in the pretty form, examples of
// stablehlo/tests/interpret/fft.mlir with the results it states: a 2-d FFT,
//   [[(1, 2), (3, -4)], [(-5, 6), (-7, -8)]] -> [[(-8, -4), (0, 20)], [(16, 0), (-4, -8)]]
// an RFFT, [1, 2, 3, 4] -> [(10, 0), (-2, 2), (-2, 0)], and the IRFFT back.
module @spec_fft {
  func.func public @main() -> (tensor<4xcomplex<f32>>, tensor<2x2xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<4xf64>) {
    %operand = stablehlo.constant dense<[(1.0, 0.0), (0.0, 0.0), (0.0, 0.0), (0.0, 0.0)]> : tensor<4xcomplex<f32>>
    %result = "stablehlo.fft"(%operand) {
      fft_type = #stablehlo<fft_type FFT>,
      fft_length = dense<4> : tensor<1xi64>
    } : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
    %c = stablehlo.constant dense<[[(1.0, 2.0), (3.0, -4.0)], [(-5.0, 6.0), (-7.0, -8.0)]]> : tensor<2x2xcomplex<f64>>
    %f2 = stablehlo.fft %c, type = FFT, length = [2, 2] : (tensor<2x2xcomplex<f64>>) -> tensor<2x2xcomplex<f64>>
    %x = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf64>
    %r = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<4xf64>) -> tensor<3xcomplex<f64>>
    %ir = stablehlo.fft %r, type = IRFFT, length = [4] : (tensor<3xcomplex<f64>>) -> tensor<4xf64>
    return %result, %f2, %r, %ir : tensor<4xcomplex<f32>>, tensor<2x2xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<4xf64>
  }
}
