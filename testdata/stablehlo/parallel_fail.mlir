// interpreter.run_parallel (StableHLO's interpreter tests): @f on 3 processes,
// each with its own operands; by hand: process i gives (a+b, a*b) of its
// pair: [1,2]+[3,4] = [4,6], [1,2]*[3,4] = [3,8]; [5,6],[7,8] -> [12,14], [35,48];
// [10,20],[1,2] -> [11,22], [10,40].  Each check runs on its own device.
module @par {
  func.func @f(%a : tensor<2xi64>, %b : tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>) {
    %0 = stablehlo.add %a, %b : tensor<2xi64>
    %1 = stablehlo.multiply %a, %b : tensor<2xi64>
    return %0, %1 : tensor<2xi64>, tensor<2xi64>
  }
  func.func @main() {
    %a0 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %b0 = stablehlo.constant dense<[3, 4]> : tensor<2xi64>
    %a1 = stablehlo.constant dense<[5, 6]> : tensor<2xi64>
    %b1 = stablehlo.constant dense<[7, 8]> : tensor<2xi64>
    %a2 = stablehlo.constant dense<[10, 20]> : tensor<2xi64>
    %b2 = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %r:6 = "interpreter.run_parallel"(%a0, %b0, %a1, %b1, %a2, %b2) {
      programs=[[@f], [@f], [@f]]
    } : (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>)
    check.expect_eq_const %r#0, dense<[4, 6]> : tensor<2xi64>
    check.expect_eq_const %r#1, dense<[3, 8]> : tensor<2xi64>
    check.expect_eq_const %r#2, dense<[12, 14]> : tensor<2xi64>
    check.expect_eq_const %r#3, dense<[35, 49]> : tensor<2xi64>
    check.expect_eq_const %r#4, dense<[11, 22]> : tensor<2xi64>
    check.expect_eq_const %r#5, dense<[10, 40]> : tensor<2xi64>
    func.return
  }
}
