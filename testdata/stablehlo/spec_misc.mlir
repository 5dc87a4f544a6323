// reduce_precision and get_dimension_size from the StableHLO specification
// (docs/spec.md) and composite from stablehlo/tests/interpret/composite.mlir
// (the spec's composite has no values), each in the generic and the pretty
// form, with the results they state:
//   reduce_precision to e5m2: [-inf, inf, nan, 0, 1024, inf]
//   get_dimension_size of a 2x3 tensor, dimension 1: 3
//   composite "stablehlo.add_n" of 1 (its decomposition adds 2): 3
module @spec_misc {
  func.func private @add_n.impl(%arg0: tensor<i64>) -> tensor<i64> {
    %0 = stablehlo.constant dense<2> : tensor<i64>
    %1 = stablehlo.add %arg0, %0 : tensor<i64>
    func.return %1 : tensor<i64>
  }
  func.func public @main() -> (tensor<6xf32>, tensor<6xf32>, tensor<i32>, tensor<i32>, tensor<i64>, tensor<i64>) {
    %operand = stablehlo.constant dense<[0xFF800000, 0x7F800000, 0x7FFFFFFF, 0.0, 1000.0, 1000000.0]> : tensor<6xf32>
    %output = "stablehlo.reduce_precision"(%operand) {
      exponent_bits = 5 : i32,
      mantissa_bits = 2 : i32
    } : (tensor<6xf32>) -> tensor<6xf32>
    %pretty = stablehlo.reduce_precision %operand, format = e5m2 : tensor<6xf32>
    %x = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
    %size = "stablehlo.get_dimension_size"(%x) {
      dimension = 1 : i64
    } : (tensor<2x3xi64>) -> tensor<i32>
    %size2 = stablehlo.get_dimension_size %x, dim = 1 : (tensor<2x3xi64>) -> tensor<i32>
    %one = stablehlo.constant dense<1> : tensor<i64>
    %c = stablehlo.composite "stablehlo.add_n" %one {
      composite_attributes = { n = 2 : i64 },
      decomposition = @add_n.impl
    } : (tensor<i64>) -> tensor<i64>
    %cg = "stablehlo.composite"(%one) <{composite_attributes = {n = 2 : i64}, decomposition = @add_n.impl, name = "stablehlo.add_n", version = 1 : i32}> : (tensor<i64>) -> tensor<i64>
    return %output, %pretty, %size, %size2, %c, %cg : tensor<6xf32>, tensor<6xf32>, tensor<i32>, tensor<i32>, tensor<i64>, tensor<i64>
  }
}
