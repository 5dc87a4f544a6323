/* hlorun's debugging options: --find-nonfinite, --dump-values, the progress
 * line (docs/cli.md "Debugging"; the work is in interp/run_debug.c). */
#include "cmd/hlorun_debug.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/diag.h"
#include "cmd/common/cli.h"

enum { DUMP_LIMIT_DEFAULT = 1000 };

void hlorun_debug_usage(FILE *f) {
  fputs("debugging:\n"
        "  --find-nonfinite          stop at the first instruction that makes a NaN or Inf\n"
        "                            from finite operands; report it and exit 1\n"
        "  --dump-values DIR         write instructions' results to DIR/COMP.INSTR.npy\n"
        "                            (.iterK in while loops, .N per tuple leaf; DIR is\n"
        "                            created if missing)\n"
        "  --dump-filter REGEX       only instructions whose name matches (POSIX ERE)\n"
        "  --dump-limit N            write at most N files (default 1000)\n"
        "  --progress                a progress line on stderr for runs over 1 s, even\n"
        "                            when stderr is not a terminal (the default draws it\n"
        "                            only on a terminal)\n"
        "  --no-progress             never draw the progress line\n",
        f);
}

static const char *opt_value(int argc, char **argv, int *i, const char *opt) {
  const char *a = argv[*i];
  size_t n = strlen(opt);
  if (a[n] == '=') return a + n + 1;
  if (*i + 1 >= argc) return NULL;
  return argv[++*i];
}

static bool is_opt(const char *arg, const char *opt) {
  size_t n = strlen(opt);
  return strncmp(arg, opt, n) == 0 && (arg[n] == 0 || arg[n] == '=');
}

/* Compiles a --dump-filter; false with the regerror text in msg. */
static bool compile_filter(const char *text, regex_t *re, char *msg, size_t size) {
  int rc = regcomp(re, text, REG_EXTENDED | REG_NOSUB);
  if (rc == 0) return true;
  regerror(rc, re, msg, size);
  regfree(re);
  return false;
}

int hlorun_debug_option(int argc, char **argv, int *i, HlorunRunArgs *a) {
  const char *arg = argv[*i];
  const char *v;
  if (!strcmp(arg, "--find-nonfinite")) return a->find_nonfinite = true, 1;
  if (!strcmp(arg, "--progress")) return a->progress = 1, 1;
  if (!strcmp(arg, "--no-progress")) return a->progress = -1, 1;
  if (is_opt(arg, "--dump-values")) {
    if (!(v = opt_value(argc, argv, i, "--dump-values")) || !*v) {
      cli_error("hlorun", "--dump-values needs a directory");
      return -1;
    }
    a->dump_dir = v;
    return 1;
  }
  if (is_opt(arg, "--dump-filter")) {
    if (!(v = opt_value(argc, argv, i, "--dump-filter"))) {
      cli_error("hlorun", "--dump-filter needs a regular expression");
      return -1;
    }
    regex_t re;
    char msg[256];
    if (!compile_filter(v, &re, msg, sizeof msg)) {
      cli_error("hlorun", "--dump-filter '%s': %s", v, msg);
      return -1;
    }
    regfree(&re);
    a->dump_filter = v;
    return 1;
  }
  if (is_opt(arg, "--dump-limit")) {
    char *end;
    if (!(v = opt_value(argc, argv, i, "--dump-limit"))) {
      cli_error("hlorun", "--dump-limit needs a number");
      return -1;
    }
    errno = 0;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || errno || n < 1) {
      cli_error("hlorun", "--dump-limit needs a number of files from 1 up, got '%s'", v);
      return -1;
    }
    a->dump_limit = n;
    return 1;
  }
  return 0;
}

/* HLORUN_PROGRESS_DELAY_MS: how long a run goes before the progress line
 * shows (default 1000; the tests use 0). */
static int64_t progress_delay_ns(void) {
  const char *s = getenv("HLORUN_PROGRESS_DELAY_MS");
  if (!s || !*s) return 1000000000;
  char *end;
  long long ms = strtoll(s, &end, 10);
  return *end || ms < 0 ? 1000000000 : (int64_t)ms * 1000000;
}

int hlorun_debug_prepare(const char *prog, const HlorunRunArgs *a, RunDebug *d, regex_t *re,
                         bool *re_used) {
  *re_used = false;
  if (a->dump_filter && !a->dump_dir)
    return cli_usage_error(prog, "--dump-filter needs --dump-values DIR");
  if (a->dump_limit && !a->dump_dir)
    return cli_usage_error(prog, "--dump-limit needs --dump-values DIR");
  d->find_nonfinite = a->find_nonfinite;
  if (a->dump_dir) {
    struct stat st;
    if (stat(a->dump_dir, &st) != 0) {
      if (errno != ENOENT || mkdir(a->dump_dir, 0777) != 0) {
        cli_error(prog, "--dump-values %s: cannot create the directory: %s", a->dump_dir,
                  strerror(errno));
        return EXIT_RUNTIME;
      }
    } else if (!S_ISDIR(st.st_mode)) {
      cli_error(prog, "--dump-values %s: not a directory", a->dump_dir);
      return EXIT_RUNTIME;
    }
    d->dump_dir = a->dump_dir;
    d->dump_limit = a->dump_limit ? a->dump_limit : DUMP_LIMIT_DEFAULT;
    if (a->dump_filter) {
      char msg[256];
      if (!compile_filter(a->dump_filter, re, msg, sizeof msg))
        return cli_usage_error(prog, "--dump-filter '%s': %s", a->dump_filter, msg);
      d->dump_filter = re;
      *re_used = true;
    }
  }
  /* The line is for a person watching a terminal: never in a pipe or a
   * file unless asked for, and not into a trace written to stderr. */
  bool show = a->progress > 0 ||
              (a->progress == 0 && isatty(STDERR_FILENO) && !(a->trace && !a->trace_file));
  if (show) {
    d->progress = stderr;
    d->progress_label = prog;
    d->progress_delay_ns = progress_delay_ns();
  }
  return EXIT_OK;
}

bool hlorun_debug_report_failure(const Module *m, const RunDebug *d) {
  const NonfiniteReport *r = &d->nonfinite;
  if (!r->found) return false;
  char head[1024];
  nonfinite_headline(r, head, sizeof head);
  SourcePlace at = module_source_place(m, r->instr->offset);
  char *s = diag_render(m->filename, at.text, at.len, at.offset, head);
  StrBuf sb;
  sb_init(&sb);
  nonfinite_details(r, &sb);
  if (s) fputs(s, stderr);
  fwrite(sb.data ? sb.data : "", 1, sb.len, stderr);
  free(s);
  sb_free(&sb);
  return true;
}

void hlorun_debug_summary(const char *prog, const HlorunRunArgs *a, const RunDebug *d) {
  if (!d->dump_dir) return;
  fprintf(stderr, "%s: --dump-values: %" PRId64 " file%s (%" PRId64 " bytes of data) written to %s",
          prog, d->dump_files, d->dump_files == 1 ? "" : "s", d->dump_bytes, a->dump_dir);
  if (d->dump_over_limit)
    fprintf(stderr, "; %" PRId64 " more not written (--dump-limit %" PRId64 ")",
            d->dump_over_limit, d->dump_limit);
  fputc('\n', stderr);
}
