/* XLA:GPU's CUB radix sort custom call __cub$DeviceRadixSort
 * (interp/custom_call/cub_sort.c). */
#ifndef HLO_INTERP_CUSTOM_CALL_CUB_SORT_H
#define HLO_INTERP_CUSTOM_CALL_CUB_SORT_H

#include "interp/eval_internal.h"

bool eval_cub_sort(EvalCtx *ctx, Frame *fr, const Instr *in, const Shape *rs, Value **out,
                   Error *err);

#endif
