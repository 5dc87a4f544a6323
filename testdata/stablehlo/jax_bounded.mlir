// Bounded dynamic dimensions: tensor<?x3xf32, #stablehlo.bounds<4, ?>> is HLO's
// f32[<=4,3]; the older #mhlo.type_extensions<bounds = [...]> spelling too.
func.func public @main(%arg0: tensor<?x3xf32, #stablehlo.bounds<4, ?>>, %arg1: tensor<?x3xf32, #mhlo.type_extensions<bounds = [4, ?]>>) -> tensor<?x3xf32, #stablehlo.bounds<4, ?>> {
  %0 = stablehlo.add %arg0, %arg1 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
  return %0 : tensor<?x3xf32, #stablehlo.bounds<4, ?>>
}
