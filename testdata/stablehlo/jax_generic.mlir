// The whole module in MLIR's generic form (mlir-opt --mlir-print-op-generic):
// "builtin.module", "func.func" with function_type, sym_visibility,
// arg_attrs / res_attrs, block arguments with loc names, a private callee.
// x = [1, 2, 3]: sum(x * x) = 1 + 4 + 9 = 14, and x + 1 = [2, 3, 4] (by hand).
"builtin.module"() <{sym_name = "jit_f"}> ({
  "func.func"() <{function_type = (tensor<3xf32>) -> tensor<3xf32>, sym_name = "inc", sym_visibility = "private"}> ({
  ^bb0(%arg0: tensor<3xf32>):
    %0 = "stablehlo.constant"() <{value = dense<1.000000e+00> : tensor<3xf32>}> : () -> tensor<3xf32>
    %1 = "stablehlo.add"(%arg0, %0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%1) : (tensor<3xf32>) -> ()
  }) : () -> ()
  "func.func"() <{arg_attrs = [{jax.arg_info = "x", mhlo.layout_mode = "default"}], function_type = (tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>), res_attrs = [{jax.result_info = "[0]"}, {jax.result_info = "[1]"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<3xf32> loc("x")):
    %0 = "stablehlo.multiply"(%arg0, %arg0) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    %1 = "stablehlo.constant"() <{value = dense<0.000000e+00> : tensor<f32>}> : () -> tensor<f32>
    %2 = "stablehlo.reduce"(%0, %1) <{dimensions = array<i64: 0>}> ({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = "stablehlo.add"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
      "stablehlo.return"(%s) : (tensor<f32>) -> ()
    }) : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %3 = "func.call"(%arg0) <{callee = @inc}> : (tensor<3xf32>) -> tensor<3xf32>
    "func.return"(%2, %3) : (tensor<f32>, tensor<3xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
