// The other CHLO special functions, against references computed in double by
// scripts/gen-stablehlo-chlo.py (mpmath): polygamma(n, x) (n = 0 is
// digamma; n not a natural number: nan), zeta(x, q) (x = 1: +inf, x < 1:
// nan), bessel_i1e, a bf16 erf_inv (computed in f32 and rounded, as XLA
// upcasts; jax.random.normal in bf16 uses it) and broadcast_polygamma with a
// scalar n.  hlorun's default tolerances (f32: rtol 1e-5, atol 1e-8; bf16:
// rtol 2^-6).
module @chlo_more {
  func.func public @main(%n: tensor<7xf32> loc("n"), %x: tensor<7xf32> loc("x"), %s: tensor<6xf32> loc("s"),
                         %q: tensor<6xf32> loc("q"), %b: tensor<7xf32> loc("b"), %h: tensor<4xbf16> loc("h"))
      -> (tensor<7xf32>, tensor<6xf32>, tensor<7xf32>, tensor<4xbf16>, tensor<7xf32>) {
    %0 = chlo.polygamma %n, %x : tensor<7xf32>, tensor<7xf32> -> tensor<7xf32>
    %1 = "chlo.zeta"(%s, %q) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
    %2 = chlo.bessel_i1e %b : tensor<7xf32> -> tensor<7xf32>
    %3 = chlo.erf_inv %h : tensor<4xbf16> -> tensor<4xbf16>
    %one = stablehlo.constant dense<1.0> : tensor<f32>
    %4 = chlo.broadcast_polygamma %one, %x : (tensor<f32>, tensor<7xf32>) -> tensor<7xf32>
    return %0, %1, %2, %3, %4 : tensor<7xf32>, tensor<6xf32>, tensor<7xf32>, tensor<4xbf16>, tensor<7xf32>
  }
}
