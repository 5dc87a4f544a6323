// rng and rng_bit_generator from the StableHLO specification (docs/spec.md).
// rng's numbers are implementation-defined, so the spec's example (uniform
// integers in [0, 2), shape [3, 3]) is checked by what it promises: every
// value is in [0, 2); a NORMAL rng in the pretty form gives finite numbers.
// rng_bit_generator with THREE_FRY from state [1, 2] (generic and pretty
// forms) gives the spec's state [1, 6] and output
//   [[9236835810183407956, 16087790271692313299],
//    [18212823393184779219, 2658481902456610144]]
module @spec_rng {
  func.func public @main() -> (tensor<i1>, tensor<i1>, tensor<2xui64>, tensor<2x2xui64>, tensor<2xui64>, tensor<2x2xui64>) {
    %a = stablehlo.constant dense<0> : tensor<i32>
    %b = stablehlo.constant dense<2> : tensor<i32>
    %shape = stablehlo.constant dense<[3, 3]> : tensor<2xi64>
    %result = "stablehlo.rng"(%a, %b, %shape) {
      rng_distribution = #stablehlo<rng_distribution UNIFORM>
    } : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>
    %zeros = stablehlo.constant dense<0> : tensor<3x3xi32>
    %twos = stablehlo.constant dense<2> : tensor<3x3xi32>
    %ge = stablehlo.compare  GE, %result, %zeros : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
    %lt = stablehlo.compare  LT, %result, %twos : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
    %in = stablehlo.and %ge, %lt : tensor<3x3xi1>
    %true = stablehlo.constant dense<true> : tensor<i1>
    %uniform_ok = stablehlo.reduce(%in init: %true) applies stablehlo.and across dimensions = [0, 1] : (tensor<3x3xi1>, tensor<i1>) -> tensor<i1>
    %mu = stablehlo.constant dense<0.0> : tensor<f32>
    %sigma = stablehlo.constant dense<1.0> : tensor<f32>
    %nshape = stablehlo.constant dense<[2, 3, 5]> : tensor<3xi64>
    %n = stablehlo.rng %mu, %sigma, %nshape, distribution = NORMAL : (tensor<f32>, tensor<f32>, tensor<3xi64>) -> tensor<2x3x5xf32>
    %finite = stablehlo.is_finite %n : (tensor<2x3x5xf32>) -> tensor<2x3x5xi1>
    %normal_ok = stablehlo.reduce(%finite init: %true) applies stablehlo.and across dimensions = [0, 1, 2] : (tensor<2x3x5xi1>, tensor<i1>) -> tensor<i1>
    %initial_state = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
    %g:2 = "stablehlo.rng_bit_generator"(%initial_state) {
      rng_algorithm = #stablehlo<rng_algorithm THREE_FRY>
    } : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
    %p:2 = stablehlo.rng_bit_generator %initial_state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
    return %uniform_ok, %normal_ok, %g#0, %g#1, %p#0, %p#1 : tensor<i1>, tensor<i1>, tensor<2xui64>, tensor<2x2xui64>, tensor<2xui64>, tensor<2x2xui64>
  }
}
