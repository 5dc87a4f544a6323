// A result of run_parallel lives on its process's device: computing with it
// in main (which every device runs) would use the wrong device's value.
module @par {
  func.func @f(%a : tensor<2xi64>) -> tensor<2xi64> {
    return %a : tensor<2xi64>
  }
  func.func @main() -> tensor<2xi64> {
    %a0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %a1 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
    %r:2 = "interpreter.run_parallel"(%a0, %a1) {programs=[[@f], [@f]]} : (tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>)
    %s = stablehlo.add %r#0, %r#1 : tensor<2xi64>
    return %s : tensor<2xi64>
  }
}
