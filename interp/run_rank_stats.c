/* The per-rank part of --stats for runs under mpirun (interp/run.h):
 * each rank's devices, time, memory, and the bytes each collective moved
 * between ranks (docs/mpi.md, "Statistics"). */
#include <inttypes.h>

#include "base/doc.h"
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

/* The ranks as one document: {ranks: [{rank, first_device, devices, wall_ns,
 * device_peak_bytes, exchange_peak_bytes, collectives: [...]}, ...]}, the
 * same keys in YAML and JSON. */
static Doc *ranks_doc(Arena *a, const RunResult *res) {
  Doc *d = doc_map(a), *ranks = doc_put(a, d, "ranks", doc_seq(a));
  for (int k = 0; k < res->nranks; k++) {
    const RunRankStat *s = &res->ranks[k];
    Doc *m = doc_newline(doc_push(ranks, doc_map(a)));
    doc_put(a, m, "rank", doc_int(a, s->rank));
    doc_put(a, m, "first_device", doc_int(a, s->first_device));
    doc_put(a, m, "devices", doc_int(a, s->ndevices));
    doc_put(a, m, "wall_ns", doc_int(a, s->wall_ns));
    doc_put(a, m, "device_peak_bytes", doc_int(a, s->device_peak));
    doc_put(a, m, "exchange_peak_bytes", doc_int(a, s->exchange_peak));
    Doc *coll = doc_put(a, m, "collectives", doc_seq(a));
    for (int i = 0; i < s->ntraffic; i++) {
      const RunTraffic *t = &s->traffic[i];
      Doc *c = doc_flow(doc_newline(doc_push(coll, doc_map(a))));
      doc_put(a, c, "instruction", doc_str(a, t->instr));
      doc_put(a, c, "count", doc_int(a, t->count));
      doc_put(a, c, "bytes_sent", doc_int(a, t->bytes_sent));
      doc_put(a, c, "bytes_received", doc_int(a, t->bytes_received));
    }
  }
  return d;
}

bool run_format_rank_stats(const RunResult *res, RunFormat fmt, StrBuf *out) {
  if (res->nranks <= 0) return true;
  if (fmt == RUN_FMT_TEXT) {
    text(res, out);
    return !out->oom;
  }
  Arena *a = arena_new();
  Doc *d = a ? ranks_doc(a, res) : NULL;
  if (fmt == RUN_FMT_YAML) sb_puts(out, "---\n"); /* a document of its own */
  bool ok = d && (fmt == RUN_FMT_YAML ? doc_yaml(d, DOC_YAML_PLAIN, out)
                                      : doc_json(d, DOC_JSON_COMPACT, out));
  arena_free(a);
  return ok && !out->oom;
}
