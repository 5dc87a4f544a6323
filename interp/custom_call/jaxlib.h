/* Custom calls of jaxlib's GPU libraries (interp/custom_call/jaxlib.c):
 *   cu_threefry2x32, cu_threefry2x32_ffi, hip_threefry2x32,
 *   hip_threefry2x32_ffi -- jax.random's threefry2x32 on GPU;
 *   cu_lu_pivots_to_permutation, hip_lu_pivots_to_permutation -- LU
 *   pivots (row transpositions) to the row permutation. */
#ifndef HLO_INTERP_CUSTOM_CALL_JAXLIB_H
#define HLO_INTERP_CUSTOM_CALL_JAXLIB_H

#include "interp/eval_internal.h"

/* Whether target is one of the targets above. */
bool eval_jaxlib_known(const char *target);

bool eval_jaxlib(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target, const Shape *rs,
                 Value **out, Error *err);

#endif
