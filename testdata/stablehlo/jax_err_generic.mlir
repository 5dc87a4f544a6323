"builtin.module"() ({
  "func.func"() <{function_type = (tensor<2xf32>) -> tensor<2xf32>, sym_name = "main"}> ({
  ^bb0(%a: tensor<3xf32>):
    "func.return"(%a) : (tensor<3xf32>) -> ()
  }) : () -> ()
}) : () -> ()
