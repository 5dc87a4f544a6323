// Parts holding only comments (tests commented out) are skipped, as
// mlir-opt's empty modules are; so is an empty part after a trailing marker.

// -----

// func.func @disabled() {
//   func.return
// }

// -----

func.func @only_this_runs() {
  %a = stablehlo.constant dense<2> : tensor<i32>
  %b = stablehlo.multiply %a, %a : tensor<i32>
  check.expect_eq_const %b, dense<4> : tensor<i32>
  func.return
}

// -----
