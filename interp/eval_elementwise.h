/* What the elementwise evaluator (eval_elementwise.c) shares with its fused
 * groups (eval_fused.c): the kind of each elementwise op and one kernel call
 * over n slots. */
#ifndef HLO_INTERP_EVAL_ELEMENTWISE_H
#define HLO_INTERP_EVAL_ELEMENTWISE_H

#include "interp/eval_internal.h"
#include "kernels/kernels.h"

typedef enum { EW_NONE, EW_UNARY, EW_BINARY, EW_COMPARE, EW_SELECT, EW_CLAMP, EW_CONVERT,
               EW_BITCAST_CONVERT, EW_REDUCE_PRECISION, EW_BROADCAST,
               EW_SKIP /* a constant inside a group's span */ } EwKind;

/* One elementwise kernel call, over n slots (a whole array or a block). */
typedef struct EwCall {
  const Instr *in;
  EwKind kind;
  KUnaryOp uop;
  KBinaryOp bop;
  KCmpDir dir;
  KCmpType ct;
  EType t0, rt;
  const bool *scalar;
} EwCall;

/* op's kind; true (and the kernel id) for a plain unary or binary op. */
bool ew_lookup(Opcode op, EwKind *kind, KUnaryOp *u, KBinaryOp *b);
/* compare's direction and type attributes. */
bool ew_parse_cmp(const Instr *in, KCmpDir *dir, KCmpType *ct, Error *err);
/* One kernel call over n slots (a whole array or a block). */
bool ew_kernel(const EwCall *c, void *dst, const void *const *src, int64_t n, Error *err);

#endif
