// CHLO's implicitly broadcasting binary ops on static shapes, and top_k,
// constant, constant_like, conj; all values small integers derived by hand:
//   a = [[1, 2, 3], [4, 5, 6]] (2x3), r = [10, 20, 30] (3), c = [[100], [200]]
//   (2x1), s = 3 (scalar)
//   broadcast_add a, r (numpy: r along the last dimension)
//                                 = [[11, 22, 33], [14, 25, 36]]
//   broadcast_multiply a, c       = [[100, 200, 300], [800, 1000, 1200]]
//   broadcast_subtract c, r (2x1 against 3: both grow)
//                                 = [[90, 80, 70], [190, 180, 170]]
//   broadcast_maximum a, [2, 5] with broadcast_dimensions = [0] (rows)
//                                 = [[2, 2, 3], [5, 5, 6]]
//   broadcast_compare a GT s (s = 3) = [[0, 0, 0], [1, 1, 1]]
//   broadcast_select (a > 3), a, s = [[3, 3, 3], [4, 5, 6]]
//   top_k([3, 1, 4, 1, 5, 9, 2, 6], k = 3) = values [9, 6, 5], indices [5, 7, 4]
//     and of [[1, 3, 2], [6, 5, 4]] with k = 2: [[3, 2], [6, 5]], [[1, 2], [0, 1]]
//   constant [1.5, -2], constant_like(7) of a 2x2 f32 = [[7, 7], [7, 7]]
//   conj [(1, 2), (3, -4)] = [(1, -2), (3, 4)]
module @chlo_broadcast {
  func.func public @main() -> (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>,
                               tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>, tensor<2x2xf32>, tensor<2x2xi32>,
                               tensor<2xf32>, tensor<2x2xf32>, tensor<2xcomplex<f32>>) {
    %a = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi32>
    %r = stablehlo.constant dense<[10, 20, 30]> : tensor<3xi32>
    %c = stablehlo.constant dense<[[100], [200]]> : tensor<2x1xi32>
    %s = stablehlo.constant dense<3> : tensor<i32>
    %rows = stablehlo.constant dense<[2, 5]> : tensor<2xi32>
    %0 = chlo.broadcast_add %a, %r : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %1 = chlo.broadcast_multiply %a, %c : (tensor<2x3xi32>, tensor<2x1xi32>) -> tensor<2x3xi32>
    %2 = "chlo.broadcast_subtract"(%c, %r) : (tensor<2x1xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %3 = chlo.broadcast_maximum %a, %rows {broadcast_dimensions = array<i64: 0>} : (tensor<2x3xi32>, tensor<2xi32>) -> tensor<2x3xi32>
    %4 = chlo.broadcast_compare %a, %s {comparison_direction = #chlo<comparison_direction GT>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi1>
    %5 = chlo.broadcast_select %4, %a, %s : (tensor<2x3xi1>, tensor<2x3xi32>, tensor<i32>) -> tensor<2x3xi32>
    %v = stablehlo.constant dense<[3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0]> : tensor<8xf32>
    %6:2 = chlo.top_k(%v, k = 3) : tensor<8xf32> -> (tensor<3xf32>, tensor<3xi32>)
    %m = stablehlo.constant dense<[[1.0, 3.0, 2.0], [6.0, 5.0, 4.0]]> : tensor<2x3xf32>
    %7:2 = "chlo.top_k"(%m) <{k = 2 : i64}> : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi32>)
    %8 = chlo.constant dense<[1.5, -2.0]> : tensor<2xf32>
    %z = stablehlo.constant dense<0.0> : tensor<2x2xf32>
    %9 = "chlo.constant_like"(%z) <{value = 7.000000e+00 : f32}> : (tensor<2x2xf32>) -> tensor<2x2xf32>
    %cx = stablehlo.constant dense<[(1.0, 2.0), (3.0, -4.0)]> : tensor<2xcomplex<f32>>
    %10 = chlo.conj %cx : tensor<2xcomplex<f32>> -> tensor<2xcomplex<f32>>
    return %0, %1, %2, %3, %4, %5, %6#0, %6#1, %7#0, %7#1, %8, %9, %10 : tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi32>, tensor<3xf32>, tensor<3xi32>, tensor<2x2xf32>, tensor<2x2xi32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2xcomplex<f32>>
  }
}
