// CHLO special functions on f64 (the generic form), against
// references computed in double by scripts/gen-stablehlo-chlo.py (mpmath,
// python's math) with the edge values: erf_inv at 0, +-1 (+-inf), beyond 1
// (nan) and near 1; erf/erfc across both branches (|x| < 1, [1, 2), >= 2),
// past underflow and at +-inf and nan; lgamma at its poles 0, -1, -2 (+inf),
// at 1 and 2 (zeros), +-inf; digamma at its poles 0, -1 (nan); and
// bessel_i1e, whose f64 series are longer than the f32 ones (chlo_more.mlir).
// Tolerances (chlo_special_f64.yaml): rtol 1e-12 with atol 1e-13 (XLA's f64
// decompositions: Cephes' double erfc, Giles' double erf_inv, Lanczos).
module @chlo_special_f64 {
  func.func public @main(%a: tensor<12xf64> loc("a"), %b: tensor<14xf64> loc("b"), %c: tensor<14xf64> loc("c"),
                         %d: tensor<7xf64> loc("d"))
      -> (tensor<12xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<7xf64>) {
    %0 = "chlo.erf_inv"(%a) : (tensor<12xf64>) -> tensor<12xf64>
    %1 = "chlo.erf"(%b) : (tensor<14xf64>) -> tensor<14xf64>
    %2 = "chlo.erfc"(%b) : (tensor<14xf64>) -> tensor<14xf64>
    %3 = "chlo.lgamma"(%c) : (tensor<14xf64>) -> tensor<14xf64>
    %4 = "chlo.digamma"(%c) : (tensor<14xf64>) -> tensor<14xf64>
    %5 = "chlo.bessel_i1e"(%d) : (tensor<7xf64>) -> tensor<7xf64>
    return %0, %1, %2, %3, %4, %5 : tensor<12xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<14xf64>, tensor<7xf64>
  }
}
