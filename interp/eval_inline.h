/* Flattening of scalar computations (fusions/calls inlined, tuples
 * resolved) so they can run over whole vectors; see eval_inline.c. */
#ifndef HLO_INTERP_EVAL_INLINE_H
#define HLO_INTERP_EVAL_INLINE_H

#include "base/arena.h"
#include "parser/ir.h"

/* The flat form of c, built in arena, when c is scalar-only and contains
 * fusions, calls, get-tuple-elements or inner tuples that can all be
 * inlined or resolved; NULL when c needs no flattening or cannot be
 * flattened (it is then used as written).  Its index is c's: the caller
 * gives it its own. */
Computation *eval_flatten_scalar(Arena *arena, const Computation *c);

#endif
