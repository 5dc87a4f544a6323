/* hlorun's output files: their paths checked up front, then --output,
 * --output-dir and --outfeed-dir written (cmd/hlorun_outputs.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/hlorun_outputs.h"

#include <stdlib.h>

#include "interp/io/npy.h"

/* The directory part of path ("." when there is none). */
static void dir_of(const char *path, char *dir, size_t cap) {
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, cap, ".");
  else if (slash == path) snprintf(dir, cap, "/");
  else snprintf(dir, cap, "%.*s", (int)(slash - path), path);
}

/* dir exists, is a directory and files can be created in it. */
static bool writable_dir(const char *opt, const char *dir, char *msg, size_t cap) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    snprintf(msg, cap, "%s: directory %s: %s", opt, dir, strerror(errno));
    return false;
  }
  if (!S_ISDIR(st.st_mode)) {
    snprintf(msg, cap, "%s: %s is not a directory", opt, dir);
    return false;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    snprintf(msg, cap, "%s: cannot write in directory %s: %s", opt, dir, strerror(errno));
    return false;
  }
  return true;
}

/* A file the run will create or replace: its directory is writable and the
 * name is not an existing directory. */
static bool writable_file(const char *opt, const char *path, char *msg, size_t cap) {
  char dir[4096];
  dir_of(path, dir, sizeof dir);
  if (!writable_dir(opt, dir, msg, cap)) return false;
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(msg, cap, "%s: %s is a directory, not a file", opt, path);
    return false;
  }
  return true;
}

bool hlorun_check_outputs(const Module *m, const HlorunRunArgs *a, int64_t devices, char *msg,
                          size_t cap) {
  char opt[64];
  if (a->output) {
    snprintf(opt, sizeof opt, "--output %s", a->output);
    if (!writable_file("--output", a->output, msg, cap)) return false;
    size_t n = strlen(a->output);
    bool npy = n >= 4 && !strcmp(a->output + n - 4, ".npy");
    if (npy && devices > 1) {
      snprintf(msg, cap,
               "%s: the run has %" PRId64 " devices, each with its own result; write them "
               "as .npz (entries r{R}_out{i})",
               opt, devices);
      return false;
    }
    const Shape *rs = m->entry && m->entry->root ? &m->entry->root->shape : NULL;
    if (rs && npy && (shape_is_tuple(rs) || run_count_leaves(rs) != 1)) {
      int leaves = run_count_leaves(rs);
      snprintf(msg, cap,
               "%s: the result is a tuple of %d array%s; write it as .npz (entries out0, "
               "out1, ...)",
               opt, leaves, leaves == 1 ? "" : "s");
      return false;
    }
  }
  if (a->outfeed_dir && !writable_dir("--outfeed-dir", a->outfeed_dir, msg, cap)) return false;
  if (a->output_dir && !writable_dir("--output-dir", a->output_dir, msg, cap)) return false;
  if (a->stats_file && !writable_file("--stats", a->stats_file, msg, cap)) return false;
  if (a->trace_file && !writable_file("--trace", a->trace_file, msg, cap)) return false;
  if (a->report && !writable_file("--report", a->report, msg, cap)) return false;
  return true;
}

void hlorun_device_prefix(const RunResult *r, char *buf, size_t size) {
  if (r->ndevices <= 1 && r->nreplicas <= 1 && r->npartitions <= 1) snprintf(buf, size, "%s", "");
  else if (r->npartitions > 1)
    snprintf(buf, size, "r%" PRId64 "p%" PRId64 "_", r->replica_id, r->partition_id);
  else snprintf(buf, size, "r%" PRId64 "_", r->replica_id);
}

void hlorun_leaf_name(const RunResult *r, int i, const char *prefix, char *buf, size_t size) {
  const Module *m = r->module;
  if (m && m->result_names && m->nresult_names == r->nleaves && i < m->nresult_names)
    snprintf(buf, size, "%s%s", prefix, m->result_names[i]);
  else snprintf(buf, size, "%sout%d", prefix, i);
}

/* One device's file under --output-dir. */
static bool write_device(const HlorunRunArgs *a, const RunResult *r, Error *err) {
  char prefix[40], path[4200];
  hlorun_device_prefix(r, prefix, sizeof prefix);
  size_t n = strlen(prefix);
  if (n) snprintf(path, sizeof path, "%s/%.*s.npz", a->output_dir, (int)(n - 1), prefix);
  else snprintf(path, sizeof path, "%s/out.npz", a->output_dir);
  NpzMember *m = calloc((size_t)(r->nleaves ? r->nleaves : 1), sizeof *m);
  char (*names)[320] = calloc((size_t)(r->nleaves ? r->nleaves : 1), sizeof *names);
  if (!m || !names) {
    free(m);
    free(names);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  for (int i = 0; i < r->nleaves; i++) {
    hlorun_leaf_name(r, i, prefix, names[i], sizeof names[i]);
    const RunLeaf *l = &r->leaves[i];
    m[i] = (NpzMember){names[i], l->shape->etype, l->shape->rank, l->dims, l->data};
  }
  bool ok = npz_write_file(path, m, r->nleaves, a->output_raw, err);
  free(m);
  free(names);
  return ok;
}

bool hlorun_write_output_dir(const HlorunRunArgs *a, const RunResult *res, Error *err) {
  for (int d = 0; d < res->ndevices; d++) {
    const RunResult *r = run_result_device(res, d);
    if (r->remote) continue; /* its own rank writes it */
    if (!write_device(a, r, err)) return false;
  }
  return true;
}

/* The result as hlorun_check_outputs allowed before the run: .npy for the
 * one array of one device, .npz otherwise. */
bool hlorun_write_output(const HlorunRunArgs *a, const RunResult *res, Error *err) {
  size_t n = strlen(a->output);
  bool npy = !strcmp(a->output + n - 4, ".npy");
  if (npy && (res->ndevices > 1 || shape_is_tuple(res->shape) || res->nleaves != 1))
    return error_set(err, ERR_RUNTIME, -1, "--output %s: not one array (checked before the run)",
                     a->output);
  if (res->ndevices > 1) {
    int total = 0;
    for (int d = 0; d < res->ndevices; d++) total += run_result_device(res, d)->nleaves;
    NpzMember *m = calloc((size_t)(total ? total : 1), sizeof *m);
    char (*names)[320] = calloc((size_t)(total ? total : 1), sizeof *names);
    if (!m || !names) {
      free(m);
      free(names);
      return error_set(err, ERR_RUNTIME, -1, "out of memory");
    }
    int k = 0;
    for (int d = 0; d < res->ndevices; d++) {
      const RunResult *r = run_result_device(res, d);
      char prefix[40];
      hlorun_device_prefix(r, prefix, sizeof prefix);
      for (int i = 0; i < r->nleaves; i++, k++) {
        hlorun_leaf_name(r, i, prefix, names[k], sizeof names[k]);
        const RunLeaf *l = &r->leaves[i];
        m[k] = (NpzMember){names[k], l->shape->etype, l->shape->rank, l->dims, l->data};
      }
    }
    bool ok = npz_write_file(a->output, m, total, a->output_raw, err);
    free(m);
    free(names);
    return ok;
  }
  const RunResult *r = res;
  if (npy) {
    const RunLeaf *l = &r->leaves[0];
    return npy_write_file(a->output, l->shape->etype, l->shape->rank, l->dims, l->data,
                          a->output_raw, err);
  }
  NpzMember *m = calloc((size_t)(r->nleaves ? r->nleaves : 1), sizeof *m);
  char (*names)[320] = calloc((size_t)(r->nleaves ? r->nleaves : 1), sizeof *names);
  if (!m || !names) {
    free(m);
    free(names);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  for (int i = 0; i < r->nleaves; i++) {
    hlorun_leaf_name(r, i, "", names[i], sizeof names[i]);
    const RunLeaf *l = &r->leaves[i];
    m[i] = (NpzMember){names[i], l->shape->etype, l->shape->rank, l->dims, l->data};
  }
  bool ok = npz_write_file(a->output, m, r->nleaves, a->output_raw, err);
  free(m);
  free(names);
  return ok;
}

/* --outfeed-dir DIR: DIR/outfeed0.npy, outfeed1.npy, ... (DIR must exist);
 * with several devices DIR/r{R}_outfeed0.npy (r{R}p{P}_ with partitions). */
bool hlorun_write_outfeed(const HlorunRunArgs *a, const RunResult *res, Error *err) {
  for (int d = 0; d < res->ndevices; d++) {
    const RunResult *r = run_result_device(res, d);
    char prefix[40] = "";
    if (res->ndevices > 1) hlorun_device_prefix(r, prefix, sizeof prefix);
    for (int i = 0; i < r->noutfeed; i++) {
      char path[4096];
      int len = snprintf(path, sizeof path, "%s/%soutfeed%d.npy", a->outfeed_dir, prefix, i);
      if (len < 0 || (size_t)len >= sizeof path) /* never a truncated name */
        return error_set(err, ERR_RUNTIME, -1, "--outfeed-dir %s: the path of outfeed %d is too long",
                         a->outfeed_dir, i);
      const RunLeaf *l = &r->outfeed[i];
      if (!npy_write_file(path, l->shape->etype, l->shape->rank, l->dims, l->data,
                          a->output_raw, err))
        return false;
    }
  }
  return true;
}
