// while (pretty form, as JAX prints a fori_loop), case with values captured
// from outside the branches, sort with two operands (generic form).
module @jit_h attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i32> loc("k")) -> (tensor<i32>, tensor<f32>, tensor<3xf32>, tensor<3xi32>, tensor<f32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.500000e+00> : tensor<f32>
    %0:2 = stablehlo.while(%iterArg = %c, %iterArg_2 = %cst) : tensor<i32>, tensor<f32>
     cond {
      %5 = stablehlo.compare  LT, %iterArg, %c_0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %5 : tensor<i1>
    } do {
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg, %c_3 : tensor<i32>
      %6 = stablehlo.multiply %iterArg_2, %cst_1 : tensor<f32>
      stablehlo.return %5, %6 : tensor<i32>, tensor<f32>
    }
    %v = stablehlo.constant dense<[3.0, 1.0, 2.0]> : tensor<3xf32>
    %i = stablehlo.iota dim = 0 : tensor<3xi32>
    %1:2 = "stablehlo.sort"(%v, %i) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>, %x: tensor<i32>, %y: tensor<i32>):
      %7 = stablehlo.compare  LT, %a, %b,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    }) : (tensor<3xf32>, tensor<3xi32>) -> (tensor<3xf32>, tensor<3xi32>)
    %2 = "stablehlo.case"(%arg0) ({
      %8 = stablehlo.negate %cst_1 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }, {
      %8 = stablehlo.add %cst_1, %0#1 : tensor<f32>
      stablehlo.return %8 : tensor<f32>
    }) : (tensor<i32>) -> tensor<f32>
    return %0#0, %0#1, %1#0, %1#1, %2 : tensor<i32>, tensor<f32>, tensor<3xf32>, tensor<3xi32>, tensor<f32>
  }
}
