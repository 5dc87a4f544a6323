// select_and_scatter: the select region returns a tensor<i1> (C10)
module {
  func.func @main(%x: tensor<1x4x4x1xf32>, %k: tensor<3x3x1x1xf32>, %v: tensor<4xf32>, %i: tensor<2xi64>) -> tensor<4xf32> {
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %r = "stablehlo.select_and_scatter"(%v, %v, %z) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        "stablehlo.return"(%a) : (tensor<f32>) -> ()
    }, {
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        "stablehlo.return"(%a) : (tensor<f32>) -> ()
    }) {window_dimensions = array<i64: 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %v : tensor<4xf32>
  }
}
