/* The per-rank part of --stats for runs under mpirun (interp/run.h):
 * each rank's devices, time, memory, and the bytes each collective moved
 * between ranks (docs/mpi.md, "Statistics"). */
#include <inttypes.h>

#include "interp/memspace.h"
#include "interp/run.h"

static void text(const RunResult *res, StrBuf *out) {
  char a[48], b[48], c[48];
  sb_printf(out, "== ranks ==\n");
  for (int k = 0; k < res->nranks; k++) {
    const RunRankStat *s = &res->ranks[k];
    mem_format_bytes(s->device_peak, a, sizeof a);
    mem_format_bytes(s->exchange_peak, b, sizeof b);
    sb_printf(out,
              "rank %d: devices %d-%d, run time %.3f ms, device memory peak %s (sum), "
              "exchange buffers peak %s\n",
              s->rank, s->first_device, s->first_device + s->ndevices - 1,
              (double)s->wall_ns / 1e6, a, b);
    for (int i = 0; i < s->ntraffic; i++) {
      const RunTraffic *t = &s->traffic[i];
      mem_format_bytes(t->bytes_sent, a, sizeof a);
      mem_format_bytes(t->bytes_received, c, sizeof c);
      sb_printf(out, "  %-28s x%-4" PRId64 " sent %-10s received %s\n", t->instr, t->count, a,
                c);
    }
  }
}

static void yaml(const RunResult *res, StrBuf *out) {
  sb_printf(out, "---\nranks:\n");
  for (int k = 0; k < res->nranks; k++) {
    const RunRankStat *s = &res->ranks[k];
    sb_printf(out,
              "  - rank: %d\n    first_device: %d\n    devices: %d\n    wall_ns: %" PRId64
              "\n    device_peak_bytes: %" PRId64 "\n    exchange_peak_bytes: %" PRId64
              "\n    collectives:\n",
              s->rank, s->first_device, s->ndevices, s->wall_ns, s->device_peak,
              s->exchange_peak);
    if (!s->ntraffic) sb_printf(out, "      []\n");
    for (int i = 0; i < s->ntraffic; i++) {
      const RunTraffic *t = &s->traffic[i];
      sb_printf(out,
                "      - {instruction: '%s', count: %" PRId64 ", bytes_sent: %" PRId64
                ", bytes_received: %" PRId64 "}\n",
                t->instr, t->count, t->bytes_sent, t->bytes_received);
    }
  }
}

bool run_format_rank_stats(const RunResult *res, RunFormat fmt, StrBuf *out) {
  if (res->nranks <= 0) return true;
  if (fmt == RUN_FMT_YAML) yaml(res, out);
  else text(res, out);
  return !out->oom;
}
