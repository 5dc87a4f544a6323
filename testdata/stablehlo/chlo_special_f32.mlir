// CHLO special functions on f32 (pretty forms, as JAX prints them), against
// references computed in double by scripts/gen-stablehlo-chlo.py (mpmath,
// python's math) with the edge values: erf_inv at 0, +-1 (+-inf), beyond 1
// (nan) and near 1; erf/erfc across both branches (|x| < 1, [1, 2), >= 2),
// past underflow and at +-inf and nan; lgamma at its poles 0, -1, -2 (+inf),
// at 1 and 2 (zeros), +-inf; digamma at its poles 0, -1 (nan).
// Tolerances (chlo_special_f32.yaml): rtol 1e-5 with atol 4e-6 (XLA's
// approximations give lgamma(1) = 5e-7, not 0).
module @chlo_special_f32 {
  func.func public @main(%a: tensor<12xf32> loc("a"), %b: tensor<14xf32> loc("b"), %c: tensor<14xf32> loc("c"))
      -> (tensor<12xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>) {
    %0 = chlo.erf_inv %a : tensor<12xf32> -> tensor<12xf32>
    %1 = chlo.erf %b : tensor<14xf32> -> tensor<14xf32>
    %2 = chlo.erfc %b : tensor<14xf32> -> tensor<14xf32>
    %3 = chlo.lgamma %c : tensor<14xf32> -> tensor<14xf32>
    %4 = chlo.digamma %c : tensor<14xf32> -> tensor<14xf32>
    return %0, %1, %2, %3, %4 : tensor<12xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>, tensor<14xf32>
  }
}
