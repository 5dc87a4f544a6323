/* The direct convolution's register tile for one instruction set, included
 * by k_conv_direct.c once per set with these defined:
 *   ISA          name suffix              TARGET   function attribute
 *   VT           vector type              VL       floats per vector
 *   PIX          output pixels per tile   NVMAX    vectors per feature block
 *   VZERO() VLOAD(p) VSET1(x) VFMA(a, b, c) = a * b + c, one rounding
 *   VSTORE(p, v) VSTORE_N(p, v, n) VLOAD_N(p, n)   (n < VL floats)
 * No include guard: it is meant to be included more than once. */

#define DIRECT_CAT_(a, b) a##b
#define DIRECT_CAT(a, b) DIRECT_CAT_(a, b)
#define DIRECT_FN(name) DIRECT_CAT(name, ISA)

/* One tile: PIX output pixels x nv vectors of one feature block, input
 * features [c0, c0 + cn) of every tap.
 *   tp: [KSP][PIX] input pointers (a pixel's input features at a tap; the
 *       zero row for taps in padding or past the last pixel),
 *   w:  the block's packed weights [KSP][IC][nv * VL],
 *   op: PIX output pointers (NULL past the last pixel), nf valid features;
 *       the first feature range starts from zero, later ones add to op.
 * Each output sums, per range, its taps in order and per tap its input
 * features in order, one fused multiply-add each: the same bytes whatever
 * the tiling. */
TARGET static inline __attribute__((always_inline)) void DIRECT_FN(tile_)(const int nv, const float *const *tp,
                                                                          int64_t KSP, int64_t IC, int64_t c0,
                                                                          int64_t cn, const float *w,
                                                                          float *const *op, int64_t nf) {
  VT acc[PIX][NVMAX];
#pragma GCC unroll 8
  for (int p = 0; p < PIX; p++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) {
      int64_t n = nf - v * VL;
      acc[p][v] = !c0 || !op[p] ? VZERO() : n >= VL ? VLOAD(op[p] + v * VL) : VLOAD_N(op[p] + v * VL, n);
    }
  int64_t wstep = nv * VL;
  w += c0 * wstep;
  for (int64_t t = 0; t < KSP; t++, tp += PIX, w += IC * wstep) {
    const float *x[PIX];
#pragma GCC unroll 8
    for (int p = 0; p < PIX; p++) x[p] = tp[p] + c0;
    const float *wc = w;
#pragma GCC unroll 2
    for (int64_t c = 0; c < cn; c++, wc += wstep) {
      VT wv[NVMAX];
#pragma GCC unroll 4
      for (int v = 0; v < nv; v++) wv[v] = VLOAD(wc + v * VL);
#pragma GCC unroll 8
      for (int p = 0; p < PIX; p++) {
        VT b = VSET1(x[p][c]);
#pragma GCC unroll 4
        for (int v = 0; v < nv; v++) acc[p][v] = VFMA(b, wv[v], acc[p][v]);
      }
    }
  }
#pragma GCC unroll 8
  for (int p = 0; p < PIX; p++) {
    if (!op[p]) continue;
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) {
      int64_t n = nf - v * VL;
      if (n >= VL) VSTORE(op[p] + v * VL, acc[p][v]);
      else VSTORE_N(op[p] + v * VL, acc[p][v], n);
    }
  }
}

/* nt tiles (pointer tables tab, output pointers optr) through every
 * feature block and, within it, every range of ICB input features in
 * turn: a range's weights stay in cache while all the chunk's tiles use them. */
TARGET static void DIRECT_FN(tiles_)(const DirectJob *j, const float *const *tab, float *const *optr, int64_t nt) {
  int64_t KSP = j->KSP, IC = j->IC;
  for (int64_t blk = 0; blk < j->nblk; blk++) {
    const float *w = j->W + blk * KSP * IC * j->FB;
    int64_t nf = j->OF - blk * j->FB < j->FB ? j->OF - blk * j->FB : j->FB;
    int nv = (int)((nf + VL - 1) / VL);
    for (int64_t c0 = 0; c0 < IC; c0 += j->ICB) {
      int64_t cn = IC - c0 < j->ICB ? IC - c0 : j->ICB;
      for (int64_t ti = 0; ti < nt; ti++) {
        const float *const *tp = tab + ti * KSP * PIX;
        float *const *op = optr + ti * PIX;
        float *const *ob = op;
        float *shifted[PIX];
        if (blk) {
          for (int p = 0; p < PIX; p++) shifted[p] = op[p] ? op[p] + blk * j->FB : NULL;
          ob = shifted;
        }
        switch (nv) {
#if NVMAX >= 4
        case 4: DIRECT_FN(tile_)(4, tp, KSP, IC, c0, cn, w, ob, nf); break;
#endif
#if NVMAX >= 3
        case 3: DIRECT_FN(tile_)(3, tp, KSP, IC, c0, cn, w, ob, nf); break;
#endif
        case 2: DIRECT_FN(tile_)(2, tp, KSP, IC, c0, cn, w, ob, nf); break;
        default: DIRECT_FN(tile_)(1, tp, KSP, IC, c0, cn, w, ob, nf); break;
        }
      }
    }
  }
}

#undef DIRECT_FN
#undef DIRECT_CAT
#undef DIRECT_CAT_
