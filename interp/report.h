/* The HTML memory report (hlorun --report, hlolayout --module --report;
 * docs/report.md): one self-contained page, its data one embedded JSON
 * document, built from memory timelines (interp/mem_track.h) and the cost
 * model's rows (interp/cost_model.h).  The page itself (HTML, CSS, JS) is
 * interp/report_page.html, compiled into the library as a string. */
#ifndef HLO_INTERP_REPORT_H
#define HLO_INTERP_REPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "interp/io/config.h"
#include "interp/mem_track.h"
#include "interp/run.h"
#include "parser/ir.h"

typedef struct ReportDevice {
  char name[96];          /* "replica 0, partition 1" */
  const MemTrack *track;
} ReportDevice;

/* One instruction's cost-model row (totals over its executions). */
typedef struct ReportCost {
  const Instr *instr;
  int64_t count;
  double flops, transcendentals;
  int64_t bytes;          /* read + written, every space */
  double compute_s, memory_s, estimate_s;
  int bound;              /* CostBound */
  int64_t bound_space;    /* S(n) when memory bound, else -1 */
} ReportCost;

typedef struct ReportInput {
  const Module *module;
  const char *mode;       /* "run" or "plan" */
  const char *device;     /* preset or configuration name */
  const char *error;      /* the run's failure, or NULL */
  int ndevices;
  const ReportDevice *devices;
  int ncost;
  const ReportCost *cost;
} ReportInput;

/* The page, appended to out; false when out of memory. */
bool report_html(const ReportInput *in, StrBuf *out);
/* Writes the page to path through a temporary file renamed into place
 * (ERR_RUNTIME "PATH: cannot ...", nothing left behind on failure). */
bool report_write(const char *path, const ReportInput *in, Error *err);

/* The cost rows of a run's costed instructions (malloc'd, *n of them);
 * false when out of memory. */
bool report_costs_of_run(const RunResult *res, ReportCost **out, int *n);

/* hlolayout's report: the entry computation's buffers in program order,
 * each live from its instruction to its last use (through get-tuple-element,
 * tuple, bitcast and the other ops that own no buffer, to the last real
 * reader; the root's stay to the end), into a new recording tracker, and
 * cost rows estimated from the IR (flops) and the buffers' padded sizes
 * (bytes: operands read, result written) on cfg's device. */
bool report_plan(const Module *m, const MemConfig *cfg, MemTrack **track, ReportCost **cost,
                 int *ncost, Error *err);

#endif
