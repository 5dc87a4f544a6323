/* Runs one golden case.  A case is a YAML manifest (read with libyaml):
 *
 *   command: hlorun            # program in the build dir (hlorun, hlolayout)
 *   args: [--check, bad.hlo]   # run with the manifest's directory as cwd;
 *                              #   @LIBDIR@ in an arg is BINDIR/../lib
 *   stdin: input.txt           # optional file fed to standard input
 *   exit: 3                    # expected exit status (default 0)
 *   stdout: bad.out            # optional: stdout must equal this file
 *   stderr: bad.err            # optional: stderr must equal this file
 *   stderr_contains: "text"    # optional: stderr must contain this
 *   stdout_contains: "text"    # optional
 *   stderr_contains_all: [a, b]  # optional: stderr must contain each of these
 *   timeout: 60                # seconds (default 120)
 *   env: {HLO_X: "1"}          # optional: extra environment variables
 *   files:                     # optional: files the program must write,
 *     out/x.npy: x.expected.npy   #   each byte-identical to the expected one
 *   absent: [out/y.npy]        # optional: files that must not exist afterwards
 *   exists: [trace.txt]        # optional: files that must exist afterwards
 *                              #   (any content: timings, say)
 *
 * Paths in files/absent/exists are relative to the manifest's directory; they are
 * removed before the run (so a stale file cannot pass) and after it.
 * Usage: golden_runner BINDIR MANIFEST [--update]
 * --update rewrites the stdout/stderr files named in the manifest with what
 * the program printed (review the diff like code). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

enum { MAX_ARGS = 64, MAX_PAIRS = 32 };

typedef struct {
  char *command;
  char *args[MAX_ARGS];
  int nargs;
  char *stdin_file, *stdout_file, *stderr_file;
  char *stdout_contains, *stderr_contains;
  int exit_status;
  int timeout;
  char *env_key[MAX_PAIRS], *env_val[MAX_PAIRS];
  int nenv;
  char *file_got[MAX_PAIRS], *file_want[MAX_PAIRS];
  int nfiles;
  char *absent[MAX_PAIRS];
  int nabsent;
  char *exists[MAX_PAIRS];
  int nexists;
  char *err_all[MAX_PAIRS];
  int nerr_all;
} Manifest;

static void free_manifest(Manifest *m) {
  free(m->command);
  for (int i = 0; i < m->nargs; i++) free(m->args[i]);
  free(m->stdin_file);
  free(m->stdout_file);
  free(m->stderr_file);
  free(m->stdout_contains);
  free(m->stderr_contains);
  for (int i = 0; i < m->nenv; i++) free(m->env_key[i]), free(m->env_val[i]);
  for (int i = 0; i < m->nfiles; i++) free(m->file_got[i]), free(m->file_want[i]);
  for (int i = 0; i < m->nabsent; i++) free(m->absent[i]);
  for (int i = 0; i < m->nexists; i++) free(m->exists[i]);
  for (int i = 0; i < m->nerr_all; i++) free(m->err_all[i]);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  for (;;) {
    if (n + 4096 > cap) {
      cap *= 2;
      buf = realloc(buf, cap);
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    if (r == 0) break;
    n += r;
  }
  fclose(f);
  buf[n] = '\0';
  if (len) *len = n;
  return buf;
}

static bool write_file(const char *path, const char *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return false;
  bool ok = fwrite(data, 1, len, f) == len;
  return fclose(f) == 0 && ok;
}

static bool parse_manifest(const char *path, Manifest *m) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "golden: cannot open %s: %s\n", path, strerror(errno));
    return false;
  }
  yaml_parser_t p;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_file(&p, f);
  m->timeout = 120;
  char *key = NULL;
  bool in_args = false, in_absent = false, in_exists = false, in_err_all = false, ok = true,
       done = false;
  int depth = 0;
  /* inside "env:" or "files:" (a mapping of pairs): which, and the pending key */
  const char *in_map = NULL;
  char *map_key = NULL;
  while (!done) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&p, &ev)) {
      fprintf(stderr, "%s:%zu:%zu: error: %s\n", path, p.problem_mark.line + 1,
              p.problem_mark.column + 1, p.problem ? p.problem : "bad YAML");
      ok = false;
      break;
    }
    switch (ev.type) {
      case YAML_MAPPING_START_EVENT:
        depth++;
        if (depth == 2 && key && (!strcmp(key, "env") || !strcmp(key, "files")))
          in_map = !strcmp(key, "env") ? "env" : "files";
        break;
      case YAML_MAPPING_END_EVENT:
        depth--;
        if (in_map && depth == 1) {
          in_map = NULL;
          free(key);
          key = NULL;
        }
        break;
      case YAML_SEQUENCE_START_EVENT:
        in_args = key && strcmp(key, "args") == 0;
        in_absent = key && strcmp(key, "absent") == 0;
        in_exists = key && strcmp(key, "exists") == 0;
        in_err_all = key && strcmp(key, "stderr_contains_all") == 0;
        break;
      case YAML_SEQUENCE_END_EVENT:
        in_args = in_absent = in_exists = in_err_all = false;
        free(key);
        key = NULL;
        break;
      case YAML_SCALAR_EVENT: {
        const char *v = (const char *)ev.data.scalar.value;
        if (in_args) {
          if (m->nargs < MAX_ARGS) m->args[m->nargs++] = strdup(v);
        } else if (in_absent) {
          if (m->nabsent < MAX_PAIRS) m->absent[m->nabsent++] = strdup(v);
        } else if (in_exists) {
          if (m->nexists < MAX_PAIRS) m->exists[m->nexists++] = strdup(v);
        } else if (in_err_all) {
          if (m->nerr_all < MAX_PAIRS) m->err_all[m->nerr_all++] = strdup(v);
        } else if (in_map && !map_key) {
          map_key = strdup(v);
        } else if (in_map) {
          bool env = in_map[0] == 'e';
          int *n = env ? &m->nenv : &m->nfiles;
          if (*n < MAX_PAIRS) {
            (env ? m->env_key : m->file_got)[*n] = map_key;
            (env ? m->env_val : m->file_want)[*n] = strdup(v);
            ++*n;
          } else {
            free(map_key);
          }
          map_key = NULL;
        } else if (!key) {
          key = strdup(v);
        } else {
          if (!strcmp(key, "command")) m->command = strdup(v);
          else if (!strcmp(key, "stdin")) m->stdin_file = strdup(v);
          else if (!strcmp(key, "stdout")) m->stdout_file = strdup(v);
          else if (!strcmp(key, "stderr")) m->stderr_file = strdup(v);
          else if (!strcmp(key, "stdout_contains")) m->stdout_contains = strdup(v);
          else if (!strcmp(key, "stderr_contains")) m->stderr_contains = strdup(v);
          else if (!strcmp(key, "exit")) m->exit_status = atoi(v);
          else if (!strcmp(key, "timeout")) m->timeout = atoi(v);
          else if (!strcmp(key, "description")) {
          } else {
            fprintf(stderr, "%s:%zu: error: unknown key '%s'\n", path, ev.start_mark.line + 1, key);
            ok = false;
          }
          free(key);
          key = NULL;
        }
        break;
      }
      case YAML_STREAM_END_EVENT: done = true; break;
      default: break;
    }
    yaml_event_delete(&ev);
  }
  free(key);
  free(map_key);
  yaml_parser_delete(&p);
  fclose(f);
  if (ok && !m->command) {
    fprintf(stderr, "%s: error: no 'command'\n", path);
    ok = false;
  }
  return ok;
}

/* arg with "@LIBDIR@" replaced by BINDIR/../lib, where the build puts the
 * custom-call libraries the cases load (cmake/ffi_tests.cmake). */
static char *with_libdir(char *arg, const char *bindir) {
  const char *at = strstr(arg, "@LIBDIR@");
  if (!at) return arg;
  size_t n = strlen(arg) + strlen(bindir) + 16;
  char *out = malloc(n);
  if (!out) return arg;
  snprintf(out, n, "%.*s%s/../lib%s", (int)(at - arg), arg, bindir, at + strlen("@LIBDIR@"));
  return out;
}

/* Runs the command with cwd = dir; captures output through temp files so a
 * chatty program cannot deadlock on a full pipe. */
static int run(const char *bindir, const char *dir, const Manifest *m, char **out, size_t *out_len,
               char **err, size_t *err_len, bool *timed_out) {
  char out_path[] = "/tmp/golden-out-XXXXXX", err_path[] = "/tmp/golden-err-XXXXXX";
  int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
  if (out_fd < 0 || err_fd < 0) return -1;
  char prog[4096];
  snprintf(prog, sizeof prog, "%s/%s", bindir, m->command);
  pid_t pid = fork();
  if (pid == 0) {
    if (chdir(dir) != 0) _exit(127);
    int in_fd = m->stdin_file ? open(m->stdin_file, O_RDONLY) : open("/dev/null", O_RDONLY);
    if (in_fd < 0) _exit(127);
    dup2(in_fd, 0);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    for (int i = 0; i < m->nenv; i++) setenv(m->env_key[i], m->env_val[i], 1);
    char *argv[MAX_ARGS + 2];
    argv[0] = prog;
    for (int i = 0; i < m->nargs; i++) argv[i + 1] = with_libdir(m->args[i], bindir);
    argv[m->nargs + 1] = NULL;
    execv(prog, argv);
    _exit(127);
  }
  int status = 0;
  *timed_out = false;
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec > m->timeout) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      *timed_out = true;
      break;
    }
    usleep(2000);
  }
  close(out_fd);
  close(err_fd);
  *out = read_file(out_path, out_len);
  *err = read_file(err_path, err_len);
  unlink(out_path);
  unlink(err_path);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WEXITSTATUS(status);
}

static bool compare_file(const char *dir, const char *name, const char *what, const char *got,
                         size_t got_len, bool update) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (update) {
    if (!write_file(path, got, got_len)) {
      fprintf(stderr, "golden: cannot write %s\n", path);
      return false;
    }
    return true;
  }
  size_t want_len;
  char *want = read_file(path, &want_len);
  if (!want) {
    fprintf(stderr, "golden: missing expected %s file %s\n", what, path);
    return false;
  }
  bool same = want_len == got_len && memcmp(want, got, got_len) == 0;
  if (!same) {
    fprintf(stderr, "FAIL: %s differs from %s\n--- expected ---\n%.*s\n--- got ---\n%.*s\n", what,
            path, (int)(want_len > 4000 ? 4000 : want_len), want,
            (int)(got_len > 4000 ? 4000 : got_len), got);
  }
  free(want);
  return same;
}

static void remove_listed(const char *dir, const Manifest *m) {
  char path[4096];
  for (int i = 0; i < m->nfiles; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, m->file_got[i]);
    unlink(path);
  }
  for (int i = 0; i < m->nabsent; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, m->absent[i]);
    unlink(path);
  }
  for (int i = 0; i < m->nexists; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, m->exists[i]);
    unlink(path);
  }
}

/* files: each produced file byte-identical to its expected file (--update
 * copies it over); absent: none of these exists; exists: each of these does. */
static bool check_files(const char *dir, const Manifest *m, bool update) {
  bool ok = true;
  char path[4096];
  for (int i = 0; i < m->nfiles; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, m->file_got[i]);
    size_t len;
    char *got = read_file(path, &len);
    if (!got) {
      fprintf(stderr, "FAIL: %s was not written\n", m->file_got[i]);
      ok = false;
      continue;
    }
    if (!compare_file(dir, m->file_want[i], m->file_got[i], got, len, update)) ok = false;
    free(got);
  }
  for (int i = 0; i < m->nabsent; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, m->absent[i]);
    if (access(path, F_OK) == 0) {
      fprintf(stderr, "FAIL: %s exists but should not\n", m->absent[i]);
      ok = false;
    }
  }
  for (int i = 0; i < m->nexists; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, m->exists[i]);
    if (access(path, F_OK) != 0) {
      fprintf(stderr, "FAIL: %s was not written\n", m->exists[i]);
      ok = false;
    }
  }
  return ok;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: golden_runner BINDIR MANIFEST [--update]\n");
    return 2;
  }
  bool update = argc > 3 && strcmp(argv[3], "--update") == 0;
  Manifest m = {0};
  if (!parse_manifest(argv[2], &m)) {
    free_manifest(&m);
    return 1;
  }
  char *mdup = strdup(argv[2]);
  const char *dir = dirname(mdup);
  char *out = NULL, *err = NULL;
  size_t out_len = 0, err_len = 0;
  bool timed_out = false;
  remove_listed(dir, &m);
  int status = run(argv[1], dir, &m, &out, &out_len, &err, &err_len, &timed_out);
  if (!out) out = calloc(1, 1);
  if (!err) err = calloc(1, 1);
  bool ok = true;
  if (timed_out) {
    fprintf(stderr, "FAIL: timed out after %d s\n", m.timeout);
    ok = false;
  } else if (status != m.exit_status) {
    fprintf(stderr, "FAIL: exit status %d, expected %d\n", status, m.exit_status);
    ok = false;
  }
  if (status >= 128 && !timed_out) fprintf(stderr, "FAIL: killed by signal %d\n", status - 128);
  if (m.stdout_file && !compare_file(dir, m.stdout_file, "stdout", out, out_len, update)) ok = false;
  if (m.stderr_file && !compare_file(dir, m.stderr_file, "stderr", err, err_len, update)) ok = false;
  if (!check_files(dir, &m, update)) ok = false;
  remove_listed(dir, &m);
  if (m.stdout_contains && !strstr(out, m.stdout_contains)) {
    fprintf(stderr, "FAIL: stdout lacks \"%s\"\n", m.stdout_contains);
    ok = false;
  }
  if (m.stderr_contains && !strstr(err, m.stderr_contains)) {
    fprintf(stderr, "FAIL: stderr lacks \"%s\"\n", m.stderr_contains);
    ok = false;
  }
  for (int i = 0; i < m.nerr_all; i++)
    if (!strstr(err, m.err_all[i])) {
      fprintf(stderr, "FAIL: stderr lacks \"%s\"\n", m.err_all[i]);
      ok = false;
    }
  if (!ok) {
    fprintf(stderr, "--- stdout (%zu bytes) ---\n%.*s\n--- stderr (%zu bytes) ---\n%.*s\n", out_len,
            (int)(out_len > 3000 ? 3000 : out_len), out, err_len,
            (int)(err_len > 3000 ? 3000 : err_len), err);
  }
  free(out);
  free(err);
  free(mdup);
  free_manifest(&m);
  return ok ? 0 : 1;
}
