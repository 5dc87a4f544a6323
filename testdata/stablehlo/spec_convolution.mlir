// convolution from the StableHLO specification (docs/spec.md, "convolution"):
// the spec's generic form (dense splat attributes, #stablehlo.conv<[...]x[...]->[...]>),
// the pretty form stablehlo-opt prints, the generic form with the raw dimension
// numbers and array<i64> attributes, and dynamic_conv with a constant padding
// operand (stablehlo/tests/interpret/dynamic_conv.mlir, same inputs), pretty
// and generic.  The spec's result, five times:
//   [[[[10], [26]], [[46], [62]]]]
module @spec_convolution {
  func.func public @main() -> (tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>) {
    %lhs = stablehlo.constant dense<[[
             [[1], [2], [5], [6]],
             [[3], [4], [7], [8]],
             [[10], [11], [14], [15]],
             [[12], [13], [16], [17]]
           ]]> : tensor<1x4x4x1xi32>
    %rhs = stablehlo.constant dense<1> : tensor<3x3x1x1xi32>
    %result = "stablehlo.convolution"(%lhs, %rhs) {
      window_strides = dense<4> : tensor<2xi64>,
      padding = dense<0> : tensor<2x2xi64>,
      lhs_dilation = dense<2> : tensor<2xi64>,
      rhs_dilation = dense<1> : tensor<2xi64>,
      window_reversal = dense<false> : tensor<2xi1>,
      dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>,
      feature_group_count = 1 : i64,
      batch_group_count = 1 : i64,
      precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]
    } : (tensor<1x4x4x1xi32>, tensor<3x3x1x1xi32>) -> tensor<1x2x2x1xi32>
    %pretty = stablehlo.convolution(%lhs, %rhs) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [4, 4], pad = [[0, 0], [0, 0]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x4x4x1xi32>, tensor<3x3x1x1xi32>) -> tensor<1x2x2x1xi32>
    %raw = "stablehlo.convolution"(%lhs, %rhs) <{batch_group_count = 1 : i64, dimension_numbers = #stablehlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 3, input_spatial_dimensions = [1, 2], kernel_input_feature_dimension = 2, kernel_output_feature_dimension = 3, kernel_spatial_dimensions = [0, 1], output_batch_dimension = 0, output_feature_dimension = 3, output_spatial_dimensions = [1, 2]>, feature_group_count = 1 : i64, lhs_dilation = array<i64: 2, 2>, window_reversal = array<i1: false, false>, window_strides = array<i64: 4, 4>}> : (tensor<1x4x4x1xi32>, tensor<3x3x1x1xi32>) -> tensor<1x2x2x1xi32>
    %d_padding = stablehlo.constant dense<0> : tensor<2x2xi64>
    %dyn = stablehlo.dynamic_conv(%lhs, %rhs, %d_padding)
      dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f],
      window = {
        stride = [4, 4],
        lhs_dilate = [2, 2]
      } {
        batch_group_count = 1 : i64,
        feature_group_count = 1 : i64,
        precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]
      }
    : (tensor<1x4x4x1xi32>, tensor<3x3x1x1xi32>, tensor<2x2xi64>) -> tensor<1x2x2x1xi32>
    %dyn_generic = "stablehlo.dynamic_conv"(%lhs, %rhs, %d_padding) <{dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, lhs_dilation = array<i64: 2, 2>, window_strides = array<i64: 4, 4>, feature_group_count = 1 : i64, batch_group_count = 1 : i64}> : (tensor<1x4x4x1xi32>, tensor<3x3x1x1xi32>, tensor<2x2xi64>) -> tensor<1x2x2x1xi32>
    return %result, %pretty, %raw, %dyn, %dyn_generic : tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>
  }
}
