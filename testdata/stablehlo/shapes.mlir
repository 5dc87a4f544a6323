// Shape ops, dot_general, reduce (both forms), func.call and the generic form.
module @jit_g {
  func.func public @main(%arg0: tensor<2x3xf32> loc("x")) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<2xi32>) {
    %0 = stablehlo.iota dim = 0 : tensor<6xf32>
    %1 = stablehlo.reshape %0 : (tensor<6xf32>) -> tensor<2x3xf32>
    %2 = stablehlo.add %1, %arg0 : tensor<2x3xf32>
    %3 = stablehlo.transpose %2, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%2 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %5 = stablehlo.dot_general %2, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
    %6 = stablehlo.reduce(%2 init: %cst) across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
     reducer(%a: tensor<f32>, %b: tensor<f32>)  {
      %m = stablehlo.maximum %a, %b : tensor<f32>
      stablehlo.return %m : tensor<f32>
    }
    %7 = "stablehlo.slice"(%6) <{limit_indices = array<i64: 3>, start_indices = array<i64: 1>, strides = array<i64: 1>}> : (tensor<3xf32>) -> tensor<2xf32>
    %8 = stablehlo.slice %6 [0:3:2] : (tensor<3xf32>) -> tensor<2xf32>
    %9 = stablehlo.concatenate %7, %8, dim = 0 : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
    %10 = call @helper(%9) : (tensor<4xf32>) -> tensor<2xi32>
    %11 = "stablehlo.broadcast_in_dim"(%cst) <{broadcast_dimensions = array<i64>}> : (tensor<f32>) -> tensor<3xf32>
    %12 = stablehlo.subtract %6, %11 : tensor<3xf32>
    return %3, %4, %5, %12, %10 : tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<3xf32>, tensor<2xi32>
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<2xi32> {
    %c = stablehlo.constant dense<0.0> : tensor<f32>
    %0 = stablehlo.pad %arg0, %c, low = [1], high = [1], interior = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<6xf32>
    %i = stablehlo.constant dense<2> : tensor<i32>
    %1 = stablehlo.dynamic_slice %0, %i, sizes = [2] : (tensor<6xf32>, tensor<i32>) -> tensor<2xf32>
    %2 = stablehlo.convert %1 : (tensor<2xf32>) -> tensor<2xi32>
    %3:2 = stablehlo.optimization_barrier %2, %1 : tensor<2xi32>, tensor<2xf32>
    return %3#0 : tensor<2xi32>
  }
}
