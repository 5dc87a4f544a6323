/* reduce-window and select-and-scatter (operation semantics "ReduceWindow",
 * "SelectAndScatter"), defined in k_window.c; the window description they
 * share with convolution.  Reducers and summation order as k_reduce.h
 * says for reduce. */
#ifndef HLO_KERNELS_K_WINDOW_H
#define HLO_KERNELS_K_WINDOW_H

#include "kernels/k_types.h"

/* Window description shared by reduce-window, select-and-scatter and
 * convolution.  Any pointer may be NULL for its default (stride 1, padding 0,
 * dilation 1, no reversal).  Padding may be negative. */
typedef struct KWindow {
  int rank;
  const int64_t *size;
  const int64_t *stride;
  const int64_t *pad_lo, *pad_hi;
  const int64_t *base_dilation;
  const int64_t *window_dilation;
  const bool *reversal; /* convolution only */
} KWindow;

/* Result size of one windowed dimension (0 when the window does not fit);
 * false on invalid parameters or overflow. */
bool k_window_out_size(int64_t in, int64_t size, int64_t stride, int64_t lo, int64_t hi,
                       int64_t base_dil, int64_t win_dil, int64_t *out, Error *err);

/* Variadic reduce-window.  Padding and base-dilation holes take no part in the
 * reduction (the accumulator starts at init, as XLA's evaluator). */
bool k_reduce_window(int nvals, const KArray *operands, const void *const *inits,
                     const KWindow *w, const KReducer *r, KArray *outs, Error *err);

/* select(a, b) == true keeps a (the earlier element in the window). */
typedef enum { K_SEL_NONE = 0, K_SEL_GE, K_SEL_GT, K_SEL_LE, K_SEL_LT } KSelectOp;
/* out[j] = select(a[j], b[j]) for n pairs (element type of the operand). */
typedef bool (*KSelectFn)(void *ctx, const void *a, const void *b, uint8_t *out, int64_t n,
                          Error *err);
typedef struct KSelect {
  KSelectOp op; /* known comparison, or K_SEL_NONE to use fn */
  KSelectFn fn;
  void *ctx;
} KSelect;

/* For every window position: pick an element of operand (row-major window
 * order, first candidate kept while select(kept, next) is true; padding never
 * selected), then out[picked] = scatter(out[picked], source[position]).  out
 * starts as init everywhere.  Windows have no dilation (XLA's op has none). */
bool k_select_and_scatter(const KArray *operand, const KSelect *sel, const KArray *source,
                          const void *init, const KWindow *w, const KReducer *scatter,
                          KArray *out, Error *err);

#endif
