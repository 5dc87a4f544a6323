/* hlorun's reports after a run: --stats (text, YAML, JSON) and the
 * --report page (docs/report.md). */
#ifndef HLO_CMD_HLORUN_REPORT_H
#define HLO_CMD_HLORUN_REPORT_H

#include "cmd/hlorun_run.h"
#include "interp/mem_track.h"
#include "interp/run.h"

/* Writes the --stats report of every device; 0 or 1 (printed). */
int hlorun_write_stats(const char *prog, const HlorunRunArgs *a, const RunResult *res);

/* Writes the --report page from the devices' timelines (tracks, indexed by
 * global device id) and frees them; res (NULL after a failed run) gives the
 * cost rows and device names, error the run's failure.  0 or 1 (printed). */
int hlorun_report_page(const char *prog, const Module *m, const HlorunRunArgs *a,
                       const char *device, MemTrack **tracks, const RunResult *res,
                       const char *error);
void hlorun_tracks_free(MemTrack **tracks);

#endif
