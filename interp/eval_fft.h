/* fft (eval_fft.c), reached through eval_of[] (opcodes.def). */
#ifndef HLO_INTERP_EVAL_FFT_H
#define HLO_INTERP_EVAL_FFT_H

#include "interp/eval_internal.h"

bool eval_fft(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out, Error *err);

#endif
