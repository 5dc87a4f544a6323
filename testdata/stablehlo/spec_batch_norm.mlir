// batch_norm_training, batch_norm_inference and batch_norm_grad from the
// StableHLO specification (docs/spec.md), in its generic form (the ops have
// no pretty form), with the results it states:
//   training:  output [[[0, 0], [2, 2]], [[2, 2], [0, 0]]], mean [2, 3], var [1, 1]
//   inference: [[[0, 0], [2, 2]], [[2, 2], [0, 0]]]
//   grad:      operand all 0, scale [0, 0], offset [0.4, 0.4]
module @spec_batch_norm {
  func.func public @main() -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) {
    %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf32>
    %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
    %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
    %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf32>
    %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf32>
    %grad_output = stablehlo.constant dense<[[[0.1, 0.1], [0.1, 0.1]], [[0.1, 0.1], [0.1, 0.1]]]> : tensor<2x2x2xf32>
    %t:3 = "stablehlo.batch_norm_training"(%operand, %scale, %offset) {
      epsilon = 0.0 : f32,
      feature_index = 2 : i64
    } : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
    %result = "stablehlo.batch_norm_inference"(%operand, %scale, %offset, %mean, %variance) {
      epsilon = 0.0 : f32,
      feature_index = 2 : i64
    } : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<2x2x2xf32>
    %g:3 = "stablehlo.batch_norm_grad"(%operand, %scale, %mean, %variance, %grad_output) {
      epsilon = 0.0 : f32,
      feature_index = 2 : i64
    } : (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>,
         tensor<2x2x2xf32>) -> (tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>)
    return %t#0, %t#1, %t#2, %result, %g#0, %g#1, %g#2 : tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2x2x2xf32>, tensor<2x2x2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}
