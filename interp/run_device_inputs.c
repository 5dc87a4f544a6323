/* Per-device .npz entries (docs/cli.md, "Several devices"): in a run of
 * more than one device, an entry named r{R}_NAME binds NAME on every
 * partition of replica R only, r{R}p{P}_NAME on device (R, P) only; an
 * unprefixed entry binds on every device unless a prefixed one for the
 * device gives the same name (the most specific wins).  Entries for other
 * devices are left out, so a device (and a rank of an mpirun job) touches
 * only its own entries' data. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "interp/run_internal.h"

/* How specific an entry name is: 0 none, 1 r{R}_, 2 r{R}p{P}_; *rest the
 * name after the prefix. */
static int device_prefix(const char *name, int64_t *r, int64_t *p, const char **rest) {
  const char *s = name;
  if (*s++ != 'r' || *s < '0' || *s > '9') return 0;
  char *end;
  *r = strtoll(s, &end, 10);
  int level = 1;
  if (*end == 'p' && end[1] >= '0' && end[1] <= '9') {
    *p = strtoll(end + 1, &end, 10);
    level = 2;
  }
  if (*end != '_' || end[1] == '\0') return 0;
  *rest = end + 1;
  return level;
}

bool run_device_inputs(const EvalCtx *ctx, const RunInput *inputs, int n, RunInput **out,
                       int *nout, Error *err) {
  *out = NULL;
  *nout = n;
  int64_t devices = ctx->num_replicas * ctx->num_partitions;
  if (devices <= 1 || n == 0) return true; /* one device: names are names */
  RunInput *kept = calloc((size_t)n, sizeof *kept);
  int *level = calloc((size_t)n, sizeof *level);
  if (!kept || !level) {
    free(kept);
    free(level);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  int k = 0;
  bool ok = true;
  for (int i = 0; ok && i < n; i++) {
    int64_t r = -1, p = -1;
    const char *rest = NULL;
    int lv = inputs[i].name ? device_prefix(inputs[i].name, &r, &p, &rest) : 0;
    if (lv == 0) {
      kept[k] = inputs[i];
      level[k++] = 0;
      continue;
    }
    if (r >= ctx->num_replicas || (lv == 2 && p >= ctx->num_partitions)) {
      ok = error_set(err, ERR_RUNTIME, -1,
                     "%s: the entry names device %.*s, but the run has %" PRId64
                     " replica%s x %" PRId64 " partition%s",
                     inputs[i].source, (int)(rest - inputs[i].name - 1), inputs[i].name,
                     ctx->num_replicas,
                     ctx->num_replicas == 1 ? "" : "s", ctx->num_partitions,
                     ctx->num_partitions == 1 ? "" : "s");
      break;
    }
    if (r != ctx->replica_id || (lv == 2 && p != ctx->partition_id)) continue; /* another device's */
    kept[k] = inputs[i];
    kept[k].name = rest;
    level[k++] = lv;
  }
  /* The most specific entry of each name stays. */
  int m = 0;
  for (int i = 0; ok && i < k; i++) {
    bool beaten = false;
    for (int j = 0; j < k && !beaten; j++)
      beaten = j != i && kept[i].name && kept[j].name && level[j] > level[i] &&
               strcmp(kept[i].name, kept[j].name) == 0;
    if (!beaten) kept[m++] = kept[i];
  }
  free(level);
  if (!ok) {
    free(kept);
    return false;
  }
  *out = kept;
  *nout = m;
  return true;
}
