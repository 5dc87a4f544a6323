/* The direct filter gradient's register tile for one instruction set,
 * included by k_conv_wgrad_direct.c once per set with these defined:
 *   ISA     name suffix               TARGET  function attribute
 *   PIXMAX  result rows per tile, at most (6; or 12, and then 8 and 12 rows are
 *           there too for tiles of 1 or 2 vectors)
 *   NVMAX   vectors per feature block
 *   and the vector operations of kernels/k_vec_f32.h (VT, VL, VFMA, ...).
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

/* Each (nv, rows, masked, contig) tile as a function of its own: inlined
 * all into one dispatcher, the 40 bodies made a function that clang's
 * sanitizer build took minutes to compile. */
#define WGD_PARAMS                                                                                              \
  const float *x, const float *d, const WgRun *runs, int64_t nruns, int64_t xstep, int64_t dstep,             \
      const int64_t *boff, float *c, int64_t cstride, int nb, int64_t nf, bool first
#define WGD_ARGS x, d, runs, nruns, xstep, dstep, boff, c, cstride, nb, nf, first
#define WGD_VN(n, r, mk) WGD_FN(WGD_CAT(WGD_CAT(WGD_CAT(wgv, n), WGD_CAT(_, r)), WGD_CAT(_, mk)))
#define WGD_DEF(n, r, mk, mm, kk)                                                                               \
  TARGET static __attribute__((noinline)) void WGD_VN(n, r, mk)(WGD_PARAMS) {                                  \
    WGD_FN(wg_tile_)(n, r, mm, kk, WGD_ARGS);                                                                  \
  }
#define WGD_DEF4(n, r) WGD_DEF(n, r, 00, false, false) WGD_DEF(n, r, 01, false, true)                          \
    WGD_DEF(n, r, 10, true, false) WGD_DEF(n, r, 11, true, true)
#if NVMAX >= 4
WGD_DEF4(4, 6)
WGD_DEF4(3, 6)
#endif
WGD_DEF4(2, 6)
WGD_DEF4(1, 6)
#if PIXMAX >= 12
WGD_DEF4(2, 8)
WGD_DEF4(1, 8)
WGD_DEF4(2, 12)
WGD_DEF4(1, 12)
#endif

/* The tile for nv vectors (1 .. NVMAX) of `rows` rows (6; 8 or 12 when
 * PIXMAX allows and nv <= 2): rows at consecutive elements (constant
 * offsets) when boff is 0, 1, 2, ..., the last vector masked when the
 * block ends inside it. */
TARGET static void WGD_FN(wg_tile_any_)(int nv, int rows, WGD_PARAMS) {
  int mk = (nf % VL != 0) * 2 + (boff[rows - 1] == rows - 1);
#define WGD_PICK(n, r)                                                                                          \
  {                                                                                                             \
    WgVariant const t_[4] = {WGD_VN(n, r, 00), WGD_VN(n, r, 01), WGD_VN(n, r, 10), WGD_VN(n, r, 11)};          \
    t_[mk](WGD_ARGS);                                                                                           \
    return;                                                                                                     \
  }
#if PIXMAX >= 12
  if (rows == 12) {
    if (nv == 2) WGD_PICK(2, 12)
    WGD_PICK(1, 12)
  }
  if (rows == 8) {
    if (nv == 2) WGD_PICK(2, 8)
    WGD_PICK(1, 8)
  }
#endif
  switch (nv) {
#if NVMAX >= 4
  case 4: WGD_PICK(4, 6)
  case 3: WGD_PICK(3, 6)
#endif
  case 2: WGD_PICK(2, 6)
  default: WGD_PICK(1, 6)
  }
#undef WGD_PICK
}

#undef WGD_PARAMS
#undef WGD_ARGS
#undef WGD_VN
#undef WGD_DEF
#undef WGD_DEF4
#undef WGD_FN
#undef WGD_CAT
#undef WGD_CAT_
/* The parameters too: the next instruction set defines its own. */
#undef ISA
#undef TARGET
#undef PIXMAX
#undef NVMAX
#include "kernels/k_vec_f32_undef.h"
