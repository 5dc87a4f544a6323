/* hlolayout --module --report (cmd/hlolayout_report.h). */
#include "cmd/hlolayout_report.h"

#include <stdio.h>
#include <stdlib.h>

#include "cmd/common/cli.h"
#include "interp/io/config.h"
#include "interp/report.h"

/* --module --report: the page of the entry computation in program order. */
int module_report(const Module *m, const Options *o) {
  Error err = {0};
  MemConfig cfg;
  if (o->device) {
    if (!config_preset(o->device, &cfg, &err)) {
      cli_usage_error("hlolayout", "%s", err.msg);
      return EXIT_USAGE;
    }
  } else {
    config_default(&cfg);
  }
  MemTrack *t = NULL;
  ReportCost *cost = NULL;
  int ncost = 0;
  if (!report_plan(m, &cfg, &t, &cost, &ncost, &err)) {
    cli_error("hlolayout", "%s", err.msg);
    return EXIT_RUNTIME;
  }
  ReportDevice dev = {.track = t};
  snprintf(dev.name, sizeof dev.name, "program order");
  ReportInput in = {m, "plan", cfg.device, NULL, 1, &dev, ncost, cost};
  bool ok = report_write(o->report, &in, &err);
  if (!ok) cli_error("hlolayout", "%s", err.msg);
  free(cost);
  memtrack_free(t);
  return ok ? EXIT_OK : EXIT_RUNTIME;
}

