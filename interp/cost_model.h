/* A per-instruction roofline cost model (docs/cost-model.md): the flops of
 * one execution of an instruction counted as XLA's HloCostAnalysis counts
 * them, and an estimated device time from flops, bytes per memory space
 * and the device's peaks:
 *
 *   time = max(flops / peak(type), transcendentals / peak(type),
 *              bytes(space) / bandwidth(space) for each space)
 *
 * The bytes are what the interpreter really moved (InstrStats.space_bytes);
 * the flops come from the IR alone. */
#ifndef HLO_INTERP_COST_MODEL_H
#define HLO_INTERP_COST_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/io/config.h"
#include "interp/memspace.h"
#include "parser/ir.h"

typedef struct CostFlops {
  double flops;           /* multiply-adds count 2 */
  double transcendentals; /* exp, log, tanh, ...: counted apart, as XLA does */
} CostFlops;

/* The flops of one execution of in.  Control flow (while, call,
 * conditional, async) counts none of its own: the instructions of the
 * computations it runs are executed, and counted, one by one.  A fusion
 * counts its body; reduce, map, scatter and the other ops that apply a
 * computation count it as many times as XLA says. */
CostFlops cost_flops(const Instr *in);

/* The PEAK_* class whose peak rate times in: the operands' element type for
 * dot and convolution (an s8 dot runs at the int8 rate whatever it
 * accumulates in), the type of the instruction doing most flops for a
 * fusion, the result's (first array leaf's) type otherwise. */
int cost_peak_class(const Instr *in);

/* The peak of a class on a device; a class the device states none for
 * uses its f32 figure (0 when that is missing too). */
double cost_peak(const double peak_flops[PEAK_NTYPES], int cls);

typedef enum { COST_BOUND_NONE, COST_BOUND_COMPUTE, COST_BOUND_MEMORY } CostBound;

typedef struct CostEstimate {
  double compute_s, memory_s, time_s; /* time_s = max of the two */
  CostBound bound;
  int64_t bound_space; /* COST_BOUND_MEMORY: the S(n) that took longest */
} CostEstimate;

/* The estimate of `count` executions doing `f` in total with the per-space
 * traffic space_bytes (InstrStats layout, indexed as mem->spaces; NULL:
 * none).  A space without a bandwidth costs no time. */
CostEstimate cost_estimate(CostFlops f, double peak, const int64_t *space_bytes,
                           const MemSystem *mem);

const char *cost_bound_name(CostBound b); /* "none", "compute", "memory" */

#endif
