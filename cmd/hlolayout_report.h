/* hlolayout --module --report: the memory report page (docs/report.md) of
 * a module's entry computation in program order, without a run. */
#ifndef HLO_CMD_HLOLAYOUT_REPORT_H
#define HLO_CMD_HLOLAYOUT_REPORT_H

#include "cmd/hlolayout_args.h"
#include "parser/ir.h"

/* Writes o->report for m; returns the exit status (the error printed). */
int module_report(const Module *m, const Options *o);

#endif
