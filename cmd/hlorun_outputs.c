/* Checking hlorun's output paths up front (cmd/hlorun_outputs.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/hlorun_outputs.h"

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
  if (a->stats_file && !writable_file("--stats", a->stats_file, msg, cap)) return false;
  if (a->trace_file && !writable_file("--trace", a->trace_file, msg, cap)) return false;
  if (a->report && !writable_file("--report", a->report, msg, cap)) return false;
  return true;
}
