/* Well-known custom-call targets:
 *   TopK           -- XLA's top-k custom call (eval_sort.c);
 *   AllocateBuffer -- an uninitialised buffer of the result shape (zeros);
 *   PadToStatic    -- (data, size of each dimension): values carry no
 *                     dynamic sizes here, so every size is the bound. */
#include "interp/eval_custom_call.h"

#include <string.h>

#include "interp/eval_vecfn.h"
#include "interp/eval_views.h"
#include "interp/eval_sort.h"
#include "layout/etype_convert.h"

static bool pad_to_static(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs,
                          Value **out, Error *err) {
  const Value *src = frame_operand(fr, in, 0);
  if (in->noperands != 1 || !src->info || !shape_is_tuple(rs) ||
      rs->ntuple != 1 + src->info->rank)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "instruction %s: PadToStatic takes one array and returns (data, sizes...)",
                     in->name);
  EvalViews vs = {0};
  EvalOuts o = {0};
  bool ok = eval_view(ctx, &vs, src, in, err) && eval_outs_new(ctx, in, rs, &o, err);
  if (ok) memcpy(o.a[0].data, vs.a[0].data, (size_t)src->info->dense_bytes);
  for (int i = 1; ok && i < o.n; i++) {
    if (o.a[i].rank != 0 || !etype_is_int(o.a[i].etype)) {
      ok = error_set(err, ERR_RUNTIME, in->offset, "instruction %s: sizes must be integer scalars",
                     in->name);
      break;
    }
    etype_store_int(o.a[i].etype, src->info->dims[i - 1], o.a[i].data);
  }
  eval_views_free(&vs);
  return eval_outs_close(ctx, rs, &o, ok, out, err);
}

bool eval_custom_call_known(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                            const Shape *rs, Value **out, bool *handled, Error *err) {
  *handled = true;
  if (!strcmp(target, "TopK")) return eval_topk_custom_call(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "PadToStatic")) return pad_to_static(ctx, fr, in, rs, out, err);
  if (!strcmp(target, "AllocateBuffer") && shape_is_array(rs)) {
    char who[300];
    eval_who(in, who, sizeof who);
    return value_new_array(&ctx->vc, rs, true, who, out, err);
  }
  *handled = false;
  return false;
}
