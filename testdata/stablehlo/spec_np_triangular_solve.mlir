// triangular_solve on complex matrices: left side, left side with the
// adjoint (stablehlo/tests/interpret/triangular_solve.mlir's matrix), right
// side with the transpose.
// The expected values are numpy's, from scripts/gen-spec-goldens.py.
module @spec_np_triangular_solve {
  func.func public @main() -> (tensor<3x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<1x3xcomplex<f32>>) {
    %a = stablehlo.constant dense<[[(1.0, 1.0), (0.0, 0.0), (0.0, 0.0)], [(2.0, -2.0), (3.0, 4.0), (0.0, 0.0)], [(4.0, -3.0), (5.0, 5.0), (6.0, -8.0)]]> : tensor<3x3xcomplex<f32>>
    %b = stablehlo.constant dense<[[(7.0, -2.0), (1.0, 1.0)], [(8.0, 4.0), (-0.0, -2.0)], [(9.0, -5.0), (3.0, 0.0)]]> : tensor<3x2xcomplex<f32>>
    %br = stablehlo.constant dense<[[(7.0, -2.0), (8.0, 4.0), (9.0, -5.0)]]> : tensor<1x3xcomplex<f32>>
    %l = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<3x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
    %h = "stablehlo.triangular_solve"(%a, %b) <{left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose ADJOINT>}> : (tensor<3x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
    %r = "stablehlo.triangular_solve"(%a, %br) {left_side = false, lower = true, transpose_a = #stablehlo<transpose TRANSPOSE>} : (tensor<3x3xcomplex<f32>>, tensor<1x3xcomplex<f32>>) -> tensor<1x3xcomplex<f32>>
    return %l, %h, %r : tensor<3x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<1x3xcomplex<f32>>
  }
}
