/* AWS Neuron (torch-neuronx) custom-call targets: GELU and its tanh
 * approximation and derivative, softmax and its gradient; see interp/custom_call/neuron.c. */
#ifndef HLO_INTERP_CUSTOM_CALL_NEURON_H
#define HLO_INTERP_CUSTOM_CALL_NEURON_H

#include "interp/eval_internal.h"

/* Runs `in` when target is one of these (*handled = true, returns success);
 * otherwise *handled = false. */
bool eval_neuron_custom_call(EvalCtx *ctx, Frame *f, const Instr *in, const char *target,
                             const Shape *rs, Value **out, bool *handled, Error *err);

#endif
