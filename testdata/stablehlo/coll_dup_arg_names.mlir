// Three entry arguments, two named "x" by loc: the second falls back to
// arg1, the third keeps its "y" (found by the MLIR fuzzer: the duplicate
// check went on comparing with the name it had just dropped).
module {
  func.func public @main(%a: tensor<f32> loc("x"), %b: tensor<f32> loc("x"), %c: tensor<f32> loc("y")) -> tensor<f32> {
    %0 = stablehlo.add %a, %b : tensor<f32>
    %1 = stablehlo.add %0, %c : tensor<f32>
    return %1 : tensor<f32>
  }
}
