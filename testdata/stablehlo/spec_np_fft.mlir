// fft of every type (FFT over two dimensions, IFFT, RFFT, IRFFT of the RFFT's
// result), pretty and generic forms.
// The expected values are numpy's, from scripts/gen-spec-goldens.py.
module @spec_np_fft {
  func.func public @main() -> (tensor<2x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<2x4xf32>) {
    %c = stablehlo.constant dense<[[(1.0, 0.0), (2.0, -3.0), (-1.0, 2.5), (0.5, 1.0)], [(0.0, 1.0), (-3.0, 2.0), (2.5, -1.0), (1.0, 0.5)]]> : tensor<2x4xcomplex<f32>>
    %x = stablehlo.constant dense<[[1.0, 2.0, -1.0, 0.5], [0.0, -3.0, 2.5, 1.0]]> : tensor<2x4xf32>
    %f = stablehlo.fft %c, type = FFT, length = [2, 4] : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %i = "stablehlo.fft"(%c) {fft_type = #stablehlo<fft_type IFFT>, fft_length = array<i64: 4>} : (tensor<2x4xcomplex<f32>>) -> tensor<2x4xcomplex<f32>>
    %r = stablehlo.fft %x, type = RFFT, length = [4] : (tensor<2x4xf32>) -> tensor<2x3xcomplex<f32>>
    %ir = "stablehlo.fft"(%r) {fft_type = #stablehlo<fft_type IRFFT>, fft_length = dense<4> : tensor<1xi64>} : (tensor<2x3xcomplex<f32>>) -> tensor<2x4xf32>
    return %f, %i, %r, %ir : tensor<2x4xcomplex<f32>>, tensor<2x4xcomplex<f32>>, tensor<2x3xcomplex<f32>>, tensor<2x4xf32>
  }
}
