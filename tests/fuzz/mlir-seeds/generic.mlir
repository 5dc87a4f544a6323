"func.func"() <{function_type = () -> (), sym_name = "main"}> ({
  "func.return"() : () -> ()
}) : () -> ()
module {
  func.func @main(%arg0: tensor<2x2xf32>, %arg1: tensor<i32>) -> (tensor<2x2xf32>, tensor<i1>) {
    %0 = "stablehlo.add"(%arg0, %arg0) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %1 = "stablehlo.compare"(%arg1, %arg1) <{comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = "stablehlo.reduce"(%0, %arg0) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2xf32>
    %c = stablehlo.constant dense<[[1.0, 2.0], [0x7F800000, -0.0]]> : tensor<2x2xf32>
    %t = stablehlo.tuple %c, %1 : tuple<tensor<2x2xf32>, tensor<i1>>
    %g = stablehlo.get_tuple_element %t[1] : (tuple<tensor<2x2xf32>, tensor<i1>>) -> tensor<i1>
    return %c, %g : tensor<2x2xf32>, tensor<i1>
  }
}
