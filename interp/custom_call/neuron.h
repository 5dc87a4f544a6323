/* AWS Neuron (torch-neuronx) custom-call targets: GELU and its tanh
 * approximation and derivative, softmax and its gradient; see interp/custom_call/neuron.c. */
#ifndef HLO_INTERP_CUSTOM_CALL_NEURON_H
#define HLO_INTERP_CUSTOM_CALL_NEURON_H

#include "interp/eval_internal.h"

/* Whether target is one of them. */
bool eval_neuron_known(const char *target);
bool eval_neuron_custom_call(EvalCtx *ctx, Frame *f, const Instr *in, const char *target,
                             const Shape *rs, Value **out, Error *err);

#endif
