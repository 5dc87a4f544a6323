/* The order a run executes each computation's instructions in.
 *
 * A module's text order is a valid order, but not always a frugal one: the
 * values alive at the same time, and so the memory a run touches, depend on
 * it (a torch-xla mobilenet_v2 training step: 7.3 GB at its peak in text
 * order, 4.9 GB in a depth-first order).  Before running, XLA schedules
 * every computation to lower its peak (HloMemoryScheduler: a list, a
 * depth-first and a post-order scheduler, keeping the best); hlotools does
 * the same for modules that are not already scheduled: it simulates the
 * peak of the text order and of two depth-first orders, and takes a
 * depth-first one only when it saves at least 1/16 of the peak and 16 MiB
 * (so small programs, and traces of them, keep their text order).
 *
 * Order-sensitive instructions (side effects, collectives, custom calls,
 * rng, control flow around them) keep their relative text order, and
 * control-predecessors are respected; everything else may move, as in XLA.
 * docs/interpreter.md, "Execution order". */
#ifndef HLO_INTERP_SCHEDULE_H
#define HLO_INTERP_SCHEDULE_H

#include <stdint.h>

#include "parser/ir.h"

typedef struct ScheduleStats {
  int reordered;            /* computations whose order changed */
  int64_t text_peak_bytes;  /* the entry's simulated peak in text order */
  int64_t peak_bytes;       /* ... in the order chosen */
} ScheduleStats;

/* Reorders the instructions of m's computations (instrs and index) where a
 * depth-first order lowers the simulated peak enough; modules marked
 * is_scheduled are left as they are.  Out of memory leaves a computation in
 * its text order (an order is an optimisation, never needed): nothing fails. */
ScheduleStats schedule_module(Module *m);
/* The same with another least saving in bytes (>= 1; the fuzzer and tests
 * reorder small programs with it). */
ScheduleStats schedule_module_min(Module *m, int64_t min_saving_bytes);

#endif
