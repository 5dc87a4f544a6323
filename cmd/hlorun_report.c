/* hlorun's reports after a run: --stats and --report (cmd/hlorun_report.h). */
#include "cmd/hlorun_report.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/report.h"

int hlorun_write_stats(const char *prog, const HlorunRunArgs *a, const RunResult *res) {
  int status = 0;
  StrBuf sb;
  sb_init(&sb);
  /* One report per device, each after its "replica R:" line (text), as
   * one YAML document each, or a JSON array of the reports; under mpirun
   * JSON is {"devices": [...], "ranks": [...]}. */
  bool json = a->stats_format == RUN_FMT_JSON, ranks = res->nranks > 0;
  bool json_array = json && (res->ndevices > 1 || ranks);
  if (json && ranks) sb_puts(&sb, "{\"devices\": ");
  if (json_array) sb_puts(&sb, "[\n");
  for (int d = 0; d < res->ndevices; d++) {
    const RunResult *r = run_result_device(res, d);
    if (json_array && d) sb_puts(&sb, ",\n");
    if (res->ndevices > 1 && a->stats_format == RUN_FMT_YAML) sb_puts(&sb, "---\n");
    if (res->ndevices > 1 && a->stats_format == RUN_FMT_TEXT) {
      if (r->npartitions > 1)
        sb_printf(&sb, "replica %" PRId64 ", partition %" PRId64 ":\n", r->replica_id,
                  r->partition_id);
      else
        sb_printf(&sb, "replica %" PRId64 ":\n", r->replica_id);
    }
    if (!run_format_stats(r, a->stats_format, &sb)) {
      fprintf(stderr, "%s: error: out of memory writing the --stats report\n", prog);
      sb_free(&sb);
      return 1;
    }
  }
  if (json_array) sb_puts(&sb, json && ranks ? "],\n\"ranks\": " : "]\n");
  /* Under mpirun: the ranks (in JSON, the "ranks" of the object). */
  StrBuf rk;
  sb_init(&rk);
  bool rank_ok = run_format_rank_stats(res, a->stats_format, &rk);
  if (json && ranks && rank_ok) { /* {"ranks": [...]}\n -> [...] */
    const char *open = rk.data ? strchr(rk.data, '[') : NULL;
    const char *close = rk.data ? strrchr(rk.data, ']') : NULL;
    if (open && close) sb_printf(&sb, "%.*s}\n", (int)(close - open + 1), open);
    else rank_ok = false;
  } else if (rank_ok) {
    sb_append(&sb, rk.data ? rk.data : "", rk.len);
  }
  sb_free(&rk);
  if (!rank_ok) {
    fprintf(stderr, "%s: error: out of memory writing the --stats report\n", prog);
    sb_free(&sb);
    return 1;
  }
  FILE *f = stderr;
  if (a->stats_file && !(f = fopen(a->stats_file, "w"))) {
    fprintf(stderr, "%s: error: cannot write %s: %s\n", prog, a->stats_file, strerror(errno));
    status = 1;
  } else {
    bool written = fwrite(sb.data ? sb.data : "", 1, sb.len, f) == sb.len;
    if (f != stderr) written = fclose(f) == 0 && written;
    else written = fflush(f) == 0 && written;
    if (!written) {
      fprintf(stderr, "%s: error: cannot write the --stats report to %s\n", prog,
              a->stats_file ? a->stats_file : "stderr");
      status = 1;
    }
  }
  sb_free(&sb);
  return status;
}

void hlorun_tracks_free(MemTrack **tracks) {
  for (int d = 0; d < RUN_MAX_DEVICES; d++) {
    memtrack_free(tracks[d]);
    tracks[d] = NULL;
  }
}

int hlorun_report_page(const char *prog, const Module *m, const HlorunRunArgs *a,
                       const char *device, MemTrack **tracks, const RunResult *res,
                       const char *error) {
  ReportDevice devs[RUN_MAX_DEVICES];
  int n = 0;
  for (int d = 0; d < RUN_MAX_DEVICES; d++) {
    if (!tracks[d]) continue;
    devs[n].track = tracks[d];
    snprintf(devs[n].name, sizeof devs[n].name, "device %d", d);
    if (res && d < res->ndevices) {
      const RunResult *r = run_result_device(res, d);
      snprintf(devs[n].name, sizeof devs[n].name, "replica %" PRId64 ", partition %" PRId64,
               r->replica_id, r->partition_id);
    }
    n++;
  }
  ReportCost *cost = NULL;
  int ncost = 0;
  int status = 0;
  Error err = {0};
  if (res && !report_costs_of_run(res, &cost, &ncost)) {
    fprintf(stderr, "%s: error: out of memory writing the --report page\n", prog);
    status = 1;
  }
  ReportInput in = {m, "run", device, error, n, devs, ncost, cost};
  if (!status && !report_write(a->report, &in, &err)) {
    fprintf(stderr, "%s: error: %s\n", prog, err.msg);
    status = 1;
  }
  free(cost);
  hlorun_tracks_free(tracks);
  return status;
}
