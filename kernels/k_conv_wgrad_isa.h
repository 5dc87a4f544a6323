/* The direct filter gradient's register tile for one instruction set,
 * included by k_conv_wgrad_direct.c once per set with these defined:
 *   ISA     name suffix               TARGET  function attribute
 *   VT      vector type               VL      floats per vector
 *   PIXMAX  result rows per tile, at most (6; or 12, and then 8 and 12 rows are
 *           there too for tiles of 1 or 2 vectors)
 *   NVMAX   vectors per feature block
 *   VZERO() VLOAD(p) VSET1(x) VFMA(a, b, c) = a * b + c, one rounding, VADD(a, b)
 *   VSTORE(p, v) VSTORE_N(p, v, n) VLOAD_N(p, n)   (n < VL floats)
 * No include guard: it is meant to be included more than once; it undefines
 * all of the above at its end. */

#define WGD_CAT_(a, b) a##b
#define WGD_CAT(a, b) WGD_CAT_(a, b)
#define WGD_FN(name) WGD_CAT(name, ISA)

/* One tile, one unit of its sums: `rows` result rows b (lhs batch
 * elements at x + boff[p], or x + p when contig) x nv vectors of result
 * features (rhs output features from d), at one window position.  For
 * every run in order and every step of a run in order: one fused
 * multiply-add per element, from zero; the first unit stores, later ones
 * add to the result (a blocked sum).
 *   x + runs[r].x, d + runs[r].d: a run's first lhs and rhs elements; the
 *   steps advance them by xstep and dstep elements.
 *   c: the tile's first result element; rows of cstride; nb rows and nf
 *   features valid (the rest are neither stored nor, in d, read: the last
 *   vector is masked when nf ends inside it). */
TARGET static inline __attribute__((always_inline)) void
WGD_FN(wg_tile_)(const int nv, const int rows, const bool masked, const bool contig, const float *x, const float *d,
                 const WgRun *runs, int64_t nruns, int64_t xstep, int64_t dstep, const int64_t *boff, float *c,
                 int64_t cstride, int nb, int64_t nf, bool first) {
  VT acc[PIXMAX][NVMAX];
#pragma GCC unroll 12
  for (int p = 0; p < rows; p++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) acc[p][v] = VZERO();
  int64_t bo[PIXMAX];
#pragma GCC unroll 12
  for (int p = 0; p < rows; p++) bo[p] = contig ? p : boff[p];
  int tail = (int)(nf - (nv - 1) * VL); /* floats in the last vector */
  for (int64_t r = 0; r < nruns; r++) {
    const float *xs = x + runs[r].x, *ds = d + runs[r].d;
    for (int64_t s = runs[r].n; s > 0; s--, xs += xstep, ds += dstep) {
      VT wv[NVMAX];
#pragma GCC unroll 4
      for (int v = 0; v < nv - 1; v++) wv[v] = VLOAD(ds + v * VL);
      wv[nv - 1] = masked ? VLOAD_N(ds + (nv - 1) * VL, tail) : VLOAD(ds + (nv - 1) * VL);
      /* One broadcast at a time: 24 accumulators, 4 vectors of D and a
       * broadcast fill the 32 registers (all six at once spill). */
#pragma GCC unroll 12
      for (int p = 0; p < rows; p++) {
        VT b = VSET1(xs[bo[p]]);
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) acc[p][v] = VFMA(b, wv[v], acc[p][v]);
      }
    }
  }
#pragma GCC unroll 12
  for (int p = 0; p < rows; p++) {
    if (p >= nb) break;
    float *o = c + p * cstride;
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) {
      int64_t n = nf - v * VL;
      if (n >= VL) VSTORE(o + v * VL, first ? acc[p][v] : VADD(VLOAD(o + v * VL), acc[p][v]));
      else VSTORE_N(o + v * VL, first ? acc[p][v] : VADD(VLOAD_N(o + v * VL, n), acc[p][v]), n);
    }
  }
}

/* The tile for nv vectors (1 .. NVMAX) of `rows` rows (6; 8 or 12 when
 * PIXMAX allows and nv <= 2), chosen per call: rows at consecutive elements when boff is
 * 0, 1, 2, ... (constant offsets), the last vector masked when the block
 * ends inside it. */
TARGET static void WGD_FN(wg_tile_any_)(int nv, int rows, const float *x, const float *d, const WgRun *runs,
                                        int64_t nruns, int64_t xstep, int64_t dstep, const int64_t *boff, float *c,
                                        int64_t cstride, int nb, int64_t nf, bool first) {
  bool m = nf % VL != 0, k = boff[rows - 1] == rows - 1;
#define WGD_CALL(n, r, mm, kk) WGD_FN(wg_tile_)(n, r, mm, kk, x, d, runs, nruns, xstep, dstep, boff, c, cstride, nb, nf, first)
#define WGD_CASE(n, r)                                                                                          \
  if (m) {                                                                                                      \
    if (k) WGD_CALL(n, r, true, true);                                                                          \
    else WGD_CALL(n, r, true, false);                                                                           \
  } else {                                                                                                      \
    if (k) WGD_CALL(n, r, false, true);                                                                         \
    else WGD_CALL(n, r, false, false);                                                                          \
  }                                                                                                             \
  return;
#if PIXMAX >= 12
  if (rows == 12) {
    if (nv == 2) { WGD_CASE(2, 12) }
    WGD_CASE(1, 12)
  }
  if (rows == 8) {
    if (nv == 2) { WGD_CASE(2, 8) }
    WGD_CASE(1, 8)
  }
#endif
  switch (nv) {
#if NVMAX >= 4
  case 4: WGD_CASE(4, 6)
  case 3: WGD_CASE(3, 6)
#endif
  case 2: WGD_CASE(2, 6)
  default: WGD_CASE(1, 6)
  }
#undef WGD_CASE
#undef WGD_CALL
}

#undef WGD_FN
#undef WGD_CAT
#undef WGD_CAT_
/* The parameters too: the next instruction set defines its own. */
#undef ISA
#undef TARGET
#undef VT
#undef VL
#undef PIXMAX
#undef NVMAX
#undef VZERO
#undef VLOAD
#undef VSET1
#undef VFMA
#undef VADD
#undef VSTORE
#undef VSTORE_N
#undef VLOAD_N
