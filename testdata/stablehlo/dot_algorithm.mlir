// dot_general's pretty form with an algorithm (precision hints, read and
// not needed on a CPU): [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]].
func.func @dot_algorithm() {
  %lhs = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %rhs = stablehlo.constant dense<[[5.0, 6.0], [7.0, 8.0]]> : tensor<2x2xf32>
  %result = stablehlo.dot_general %lhs, %rhs,
    contracting_dims = [1] x [0],
    precision = [DEFAULT, DEFAULT],
    algorithm = <lhs_precision_type = f32, rhs_precision_type = f32, accumulation_type = f32, lhs_component_count = 1, rhs_component_count = 1, num_primitive_operations = 1, allow_imprecise_accumulation = false>
    : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  check.expect_eq_const %result, dense<[[19.0, 22.0], [43.0, 50.0]]> : tensor<2x2xf32>
  func.return
}
