/* Dense operand views and fresh results for the ops whose math lives in
 * kernels/ (eval_compute.c, eval_conv.c, eval_linalg.c, eval_fft.c): the
 * kernels take dense row-major KArrays, values may have any layout. */
#ifndef HLO_INTERP_EVAL_VIEWS_H
#define HLO_INTERP_EVAL_VIEWS_H

#include "interp/eval_internal.h"
#include "kernels/k_window.h"
#include "kernels/k_types.h"

/* Sort permutes up to 64 operands together (XLA sets no limit; its tests
 * sort 20), so views and results go that high. */
enum { EVAL_MAX_VIEWS = 64, EVAL_MAX_OUTS = 64 };

/* Dense views of operands, released together by eval_views_free. */
typedef struct EvalViews {
  int n;
  KArray a[EVAL_MAX_VIEWS];
  DenseTmp tmp[EVAL_MAX_VIEWS];
} EvalViews;

bool eval_view(EvalCtx *ctx, EvalViews *vs, const Value *v, const Instr *in, Error *err);
void eval_views_free(EvalViews *vs);
/* Views of operands 0..n-1 of `in`, appended to vs. */
bool eval_view_operands(EvalCtx *ctx, Frame *f, const Instr *in, int n, EvalViews *vs,
                        Error *err);

/* Results: one fresh array value per leaf of rs, each with a dense target. */
typedef struct EvalOuts {
  int n;
  Value *v[EVAL_MAX_OUTS];
  DenseTmp tmp[EVAL_MAX_OUTS];
  KArray a[EVAL_MAX_OUTS];
} EvalOuts;

bool eval_outs_new(EvalCtx *ctx, const Instr *in, const Shape *rs, EvalOuts *o, Error *err);
void eval_outs_drop(EvalCtx *ctx, EvalOuts *o);
/* Commits every dense target and sets *out (a tuple when rs is one). */
bool eval_outs_finish(EvalCtx *ctx, const Shape *rs, EvalOuts *o, Value **out, Error *err);
/* eval_outs_finish when ok, else eval_outs_drop and false. */
bool eval_outs_close(EvalCtx *ctx, const Shape *rs, EvalOuts *o, bool ok, Value **out,
                     Error *err);

/* A kernel call over nin dense operands and the dense results. */
typedef bool (*EvalKernelFn)(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                             int nouts, Error *err);

/* Views of operands 0..nin-1, fresh results for rs, fn, commit: the whole
 * life of an op that is one kernel call. */
bool eval_kernel_op(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, int nin,
                    EvalKernelFn fn, const void *arg, Value **out, Error *err);

/* Typed attribute lookups (NULL / the default when absent or of another kind). */
const Computation *eval_attr_comp(const Instr *in, AttrKey key);
const IntList *eval_attr_ints(const Instr *in, AttrKey key);
int64_t eval_attr_int(const Instr *in, AttrKey key, int64_t dflt);
bool eval_attr_bool(const Instr *in, AttrKey key, bool dflt);
/* AV_ENUM text, or dflt. */
const char *eval_attr_enum(const Instr *in, AttrKey key, const char *dflt);

/* The window={...} attribute as a KWindow of `rank` dimensions (defaults
 * where the attribute is absent: size 1, stride 1, no padding, no
 * dilation, no reversal).  A window of another rank is an error. */
typedef struct EvalWindow {
  int64_t size[SHAPE_MAX_RANK], stride[SHAPE_MAX_RANK], lo[SHAPE_MAX_RANK], hi[SHAPE_MAX_RANK];
  int64_t base_dil[SHAPE_MAX_RANK], win_dil[SHAPE_MAX_RANK];
  bool reversal[SHAPE_MAX_RANK];
  KWindow k;
} EvalWindow;

bool eval_window(const Instr *in, int rank, EvalWindow *w, Error *err);

#endif
