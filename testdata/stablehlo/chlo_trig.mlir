// CHLO trigonometric and hyperbolic ops and the infinity tests on f32, as XLA
// decomposes them (tan is HLO's tan), against references computed in double
// by scripts/gen-stablehlo-chlo.py: sinh, cosh, tan, atan, asinh of t
// (including 1e-4, where sinh keeps its first-order term, and values that
// overflow); asin, acos, atanh of u (+-1, and 1.5 outside the domain: nan);
// acosh of v (below 1: nan; near the largest float); is_inf, is_pos_inf,
// is_neg_inf of w; sinh and cosh of complex z (XLA's half-exponential form
// alone).  Tolerances (chlo_trig.yaml): rtol 1e-5, atol 1e-6.
module @chlo_trig {
  func.func public @main(%t: tensor<8xf32> loc("t"), %u: tensor<8xf32> loc("u"), %v: tensor<7xf32> loc("v"),
                         %w: tensor<5xf32> loc("w"), %z: tensor<2xcomplex<f32>> loc("z"))
      -> (tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
          tensor<8xf32>, tensor<7xf32>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<2xcomplex<f32>>,
          tensor<2xcomplex<f32>>) {
    %0 = chlo.sinh %t : tensor<8xf32> -> tensor<8xf32>
    %1 = chlo.cosh %t : tensor<8xf32> -> tensor<8xf32>
    %2 = chlo.tan %t : tensor<8xf32> -> tensor<8xf32>
    %3 = chlo.atan %t : tensor<8xf32> -> tensor<8xf32>
    %4 = chlo.asinh %t : tensor<8xf32> -> tensor<8xf32>
    %5 = chlo.asin %u : tensor<8xf32> -> tensor<8xf32>
    %6 = "chlo.acos"(%u) : (tensor<8xf32>) -> tensor<8xf32>
    %7 = chlo.atanh %u : tensor<8xf32> -> tensor<8xf32>
    %8 = chlo.acosh %v : tensor<7xf32> -> tensor<7xf32>
    %9 = chlo.is_inf %w : tensor<5xf32> -> tensor<5xi1>
    %10 = chlo.is_pos_inf %w : tensor<5xf32> -> tensor<5xi1>
    %11 = "chlo.is_neg_inf"(%w) : (tensor<5xf32>) -> tensor<5xi1>
    %12 = chlo.sinh %z : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
    %13 = "chlo.cosh"(%z) : (tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13 : tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<7xf32>, tensor<5xi1>, tensor<5xi1>, tensor<5xi1>, tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>
  }
}
