// The examples of the StableHLO specification (openxla/stablehlo docs/spec.md,
// each op's "Examples" section) for the ops with branches, loops, tuples and
// tokens, one module per op, in the spec's own generic form; inputs the spec
// gives in comments are constants here. Every expected value is the spec's.
// The equivalent HLO is spec0_control.hlo.

// An index out of [0, N-1) runs the last branch: -1 gives branch 1's values.
func.func @case() {
  %index = stablehlo.constant dense<-1> : tensor<i32>
  %result_branch0 = stablehlo.constant dense<[0, 0]> : tensor<2xi64>
  %result_branch1 = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result0, %result1 = "stablehlo.case"(%index) ({
    "stablehlo.return"(%result_branch0, %result_branch0) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }, {
    "stablehlo.return"(%result_branch1, %result_branch1) : (tensor<2xi64>, tensor<2xi64>) -> ()
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %result0, dense<[1, 1]> : tensor<2xi64>
  check.expect_eq_const %result1, dense<[1, 1]> : tensor<2xi64>
  func.return
}

// -----

func.func @if() {
  %result_true_branch = stablehlo.constant dense<10> : tensor<i32>
  %result_false_branch = stablehlo.constant dense<11> : tensor<i32>
  %pred = stablehlo.constant dense<true> : tensor<i1>
  %result = "stablehlo.if"(%pred) ({
    "stablehlo.return"(%result_true_branch) : (tensor<i32>) -> ()
  }, {
    "stablehlo.return"(%result_false_branch) : (tensor<i32>) -> ()
  }) : (tensor<i1>) -> tensor<i32>
  check.expect_eq_const %result, dense<10> : tensor<i32>
  func.return
}

// -----

// Nine rounds (i = 1 .. 9) each add one to the sum: i ends at 10, the sum at 9.
// The spec says %results1: 10, which is wrong (its body adds %one nine times
// to 0); followed here: 9.
func.func @while() {
  %init_i = stablehlo.constant dense<1> : tensor<i64>
  %init_sum = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %results0, %results1 = "stablehlo.while"(%init_i, %init_sum) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %cond = "stablehlo.compare"(%arg0, %ten) {
        comparison_direction = #stablehlo<comparison_direction LT>
      } : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %cond : tensor<i1>
    }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %new_sum = stablehlo.add %arg1, %one : tensor<i64>
      %new_i = stablehlo.add %arg0, %one : tensor<i64>
      stablehlo.return %new_i, %new_sum : tensor<i64>, tensor<i64>
  }) : (tensor<i64>, tensor<i64>) -> (tensor<i64>, tensor<i64>)
  check.expect_eq_const %results0, dense<10> : tensor<i64>
  check.expect_eq_const %results1, dense<9> : tensor<i64>
  // The example of an earlier version of the spec (2023): counts %input0 up
  // to %input1 with an outer %constant0; results 10 and 10.
  %constant0 = stablehlo.constant dense<1> : tensor<i32>
  %input0 = stablehlo.constant dense<0> : tensor<i32>
  %input1 = stablehlo.constant dense<10> : tensor<i32>
  %old0, %old1 = "stablehlo.while"(%input0, %input1) ({
  ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
    %0 = "stablehlo.compare"(%arg0, %arg1) {
      comparison_direction = #stablehlo<comparison_direction LT>
    } : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%0) : (tensor<i1>) -> ()
  }, {
  ^bb0(%arg0: tensor<i32>, %arg1: tensor<i32>):
    %0 = "stablehlo.add"(%arg0, %constant0) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "stablehlo.return"(%0, %arg1) : (tensor<i32>, tensor<i32>) -> ()
  }) : (tensor<i32>, tensor<i32>) -> (tensor<i32>, tensor<i32>)
  check.expect_eq_const %old0, dense<10> : tensor<i32>
  check.expect_eq_const %old1, dense<10> : tensor<i32>
  func.return
}

// -----

func.func @optimization_barrier() {
  %operand0 = stablehlo.constant dense<0.0> : tensor<f32>
  %operand1 = stablehlo.constant dense<1.0> : tensor<f32>
  %result0, %result1 = "stablehlo.optimization_barrier"(%operand0, %operand1) : (tensor<f32>, tensor<f32>) -> (tensor<f32>, tensor<f32>)
  check.expect_eq_const %result0, dense<0.0> : tensor<f32>
  check.expect_eq_const %result1, dense<1.0> : tensor<f32>
  func.return
}

// -----

// The spec's example has no values: two tokens (themselves made by after_all
// without operands) give a token, returned (printed as `token`).
func.func @after_all() -> !stablehlo.token {
  %input0 = "stablehlo.after_all"() : () -> !stablehlo.token
  %input1 = "stablehlo.after_all"() : () -> !stablehlo.token
  %result = "stablehlo.after_all"(%input0, %input1) : (!stablehlo.token, !stablehlo.token) -> !stablehlo.token
  func.return %result : !stablehlo.token
}

// -----

// ([1.0, 2.0], (3)): each part taken back out with get_tuple_element.
func.func @tuple() {
  %val0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %three = stablehlo.constant dense<3> : tensor<i32>
  %val1 = "stablehlo.tuple"(%three) : (tensor<i32>) -> tuple<tensor<i32>>
  %result = "stablehlo.tuple"(%val0, %val1) : (tensor<2xf32>, tuple<tensor<i32>>) -> tuple<tensor<2xf32>, tuple<tensor<i32>>>
  %part0 = "stablehlo.get_tuple_element"(%result) {index = 0 : i32} : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tensor<2xf32>
  %part1 = "stablehlo.get_tuple_element"(%result) {index = 1 : i32} : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tuple<tensor<i32>>
  %part10 = "stablehlo.get_tuple_element"(%part1) {index = 0 : i32} : (tuple<tensor<i32>>) -> tensor<i32>
  check.expect_eq_const %part0, dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const %part10, dense<3> : tensor<i32>
  func.return
}

// -----

func.func @get_tuple_element() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<3> : tensor<i32>
  %inner = "stablehlo.tuple"(%b) : (tensor<i32>) -> tuple<tensor<i32>>
  %operand = "stablehlo.tuple"(%a, %inner) : (tensor<2xf32>, tuple<tensor<i32>>) -> tuple<tensor<2xf32>, tuple<tensor<i32>>>
  %result = "stablehlo.get_tuple_element"(%operand) {
    index = 0 : i32
  } : (tuple<tensor<2xf32>, tuple<tensor<i32>>>) -> tensor<2xf32>
  check.expect_eq_const %result, dense<[1.0, 2.0]> : tensor<2xf32>
  func.return
}
