/* The direct convolution's register tile for one instruction set, included
 * by k_conv_direct.c once per set with these defined:
 *   ISA          name suffix              TARGET   function attribute
 *   PIX          output pixels per tile   NVMAX    vectors per feature block
 *   and the vector operations of kernels/k_vec_f32.h (VT, VL, VFMA, ...).
 * No include guard: it is meant to be included more than once; it undefines
 * all of the above at its end. */

#define DIRECT_CAT_(a, b) a##b
#define DIRECT_CAT(a, b) DIRECT_CAT_(a, b)
#define DIRECT_FN(name) DIRECT_CAT(name, ISA)

/* One tile, one segment of its sums: PIX output pixels x nv vectors of one
 * feature block, taps [t0, t0 + nt) and input features [c0, c0 + cn).
 *   tp: [KSP][PIX] input pointers (a pixel's input features at a tap; the
 *       zero row for taps in padding or past the last pixel), read at
 *       feature xo + c0 on (xo: the group's first input feature),
 *   w:  the block's packed weights [KSP][IC][nv * VL],
 *   op: PIX output pointers (NULL past the last pixel), nf valid features.
 * The segment sums its taps in order and per tap its features in order,
 * one fused multiply-add each, from zero; the first segment is stored, the
 * later ones added to the output (blocked summation: closer to the exact
 * sum than one long chain, as BLAS's blocking of K is). */
TARGET static inline __attribute__((always_inline)) void DIRECT_FN(tile_)(const int nv, const float *const *tp,
                                                                          int64_t t0, int64_t nt, int64_t IC,
                                                                          int64_t xo, int64_t c0, int64_t cn, const float *w,
                                                                          float *const *op, int64_t nf, bool first) {
  VT acc[PIX][NVMAX];
#pragma GCC unroll 8
  for (int p = 0; p < PIX; p++)
#pragma GCC unroll 4
    for (int v = 0; v < nv; v++) acc[p][v] = VZERO();
  int64_t wstep = nv * VL;
  w += (t0 * IC + c0) * wstep;
  tp += t0 * PIX;
  for (int64_t t = 0; t < nt; t++, tp += PIX, w += IC * wstep) {
    const float *x[PIX];
#pragma GCC unroll 8
    for (int p = 0; p < PIX; p++) x[p] = tp[p] + xo + c0;
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
      float *o = op[p] + v * VL;
      if (n >= VL) VSTORE(o, first ? acc[p][v] : VADD(VLOAD(o), acc[p][v]));
      else VSTORE_N(o, first ? acc[p][v] : VADD(VLOAD_N(o, n), acc[p][v]), n);
    }
  }
}

/* nt tiles (pointer tables tab, output pointers optr) through every
 * group, feature block, range of ICB input features and row of taps (the
 * innermost kernel dim) in turn, each a segment of the sums: a segment's
 * weights stay in cache (L1 for 3x3 and 64 features) while all the
 * chunk's tiles use them.  Group g reads input features from g * IC and
 * writes output features from g * OF; the pointer tables are shared. */
TARGET static void DIRECT_FN(tiles_)(const DirectJob *j, const float *const *tab, float *const *optr, int64_t nt) {
  int64_t KSP = j->KSP, IC = j->IC, kl = j->ks[j->ns - 1];
  for (int64_t g = 0; g < j->G; g++)
    for (int64_t blk = 0; blk < j->nblk; blk++) {
      const float *w = j->W + (g * j->nblk + blk) * KSP * IC * j->FB;
      int64_t nf = j->OF - blk * j->FB < j->FB ? j->OF - blk * j->FB : j->FB, xo = g * IC, fo = g * j->OF + blk * j->FB;
      int nv = (int)((nf + VL - 1) / VL);
      for (int64_t c0 = 0; c0 < IC; c0 += j->ICB) {
        int64_t cn = IC - c0 < j->ICB ? IC - c0 : j->ICB;
        for (int64_t t0 = 0; t0 < KSP; t0 += kl) {
          bool first = c0 == 0 && t0 == 0;
          for (int64_t ti = 0; ti < nt; ti++) {
            const float *const *tp = tab + ti * KSP * PIX;
            float *const *op = optr + ti * PIX;
            float *const *ob = op;
            float *shifted[PIX];
            if (fo) {
              for (int p = 0; p < PIX; p++) shifted[p] = op[p] ? op[p] + fo : NULL;
              ob = shifted;
            }
            switch (nv) {
#if NVMAX >= 4
            case 4: DIRECT_FN(tile_)(4, tp, t0, kl, IC, xo, c0, cn, w, ob, nf, first); break;
#endif
#if NVMAX >= 3
            case 3: DIRECT_FN(tile_)(3, tp, t0, kl, IC, xo, c0, cn, w, ob, nf, first); break;
#endif
            case 2: DIRECT_FN(tile_)(2, tp, t0, kl, IC, xo, c0, cn, w, ob, nf, first); break;
            default: DIRECT_FN(tile_)(1, tp, t0, kl, IC, xo, c0, cn, w, ob, nf, first); break;
            }
          }
        }
      }
    }
}

#undef DIRECT_FN
#undef DIRECT_CAT
#undef DIRECT_CAT_
/* The parameters too: the next instruction set defines its own. */
#undef ISA
#undef TARGET
#undef PIX
#undef NVMAX
#include "kernels/k_vec_f32_undef.h"
