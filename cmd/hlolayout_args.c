/* hlolayout's command line (cmd/hlolayout_args.h). */
#include "cmd/hlolayout_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/cli.h"

void hlolayout_help(FILE *f) {
  fputs(
      "usage: hlolayout 'SHAPE' [--index I,J,...] [--offset N] [--map] [--format text|yaml|json]\n"
      "       hlolayout --module MODEL.hlo [--top N] [--format text|yaml|json]\n"
      "       hlolayout --module MODEL.hlo --report FILE.html [--device NAME]\n"
      "Explains where the elements of an XLA array live in memory (docs/hlolayout.md,\n"
      "docs/layout.md).\n"
      "\n"
      "SHAPE is an HLO shape with an optional layout, quoted for the shell:\n"
      "  TYPE[D0,D1,...]{MINOR_TO_MAJOR:T(tile)(tile)...E(bits)S(space)}\n"
      "  f32[3,5]{1,0:T(2,2)}                      3x5 floats, rows minor, 2x2 tiles\n"
      "  bf16[8,1280,16384]{2,0,1:T(8,128)(2,1)S(1)} tiled twice, in memory space 1\n"
      "  s4[1024]{0:T(1024)E(4)}                  4-bit elements, packed\n"
      "Without a layout the default (row-major, untiled) one is meant.\n"
      "\n"
      "  (no flag)          a summary: dims in memory order, tiling levels, tile grid,\n"
      "                     logical vs padded elements and bytes, padding and its causes,\n"
      "                     memory space\n"
      "  --index I,J,...    how the logical index becomes an element and byte offset,\n"
      "                     step by step\n"
      "  --offset N         which logical index lives at element offset N (or padding)\n"
      "  --map              the array as a grid of linear indices and memory order as a\n"
      "                     strip with padding marked (small shapes)\n"
      "  --module MODEL.hlo every buffer of the module (instructions and parameters) with\n"
      "                     layout, memory space, logical and padded bytes, largest\n"
      "                     first, and per-space totals; '-' reads standard input\n"
      "  --top N            with --module: only the N largest buffers\n"
      "  --report FILE.html with --module: the memory report page of the entry\n"
      "                     computation in program order, without a run (docs/report.md)\n"
      "  --device NAME      with --report: the device preset for capacities, bandwidths\n"
      "                     and peak flops (hlorun's --device; default cpu)\n"
      "  --format text|yaml|json\n"
      "                     output form (json and yaml keys: docs/hlolayout.md)\n"
      "  -h, --help         this help\n"
      "  --version          the version and git revision\n"
      "\n"
      "exit status:\n"
      "  0  success\n"
      "  1  runtime failure (a file that cannot be read or written)\n"
      "  2  usage error\n"
      "  3  the shape, layout, index or module does not parse or verify\n",
      f);
}

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return cli_usage_error("hlolayout", "%s", msg);
}

static int set_mode(Options *o, Mode m, const char *flag) {
  if (o->mode != MODE_SUMMARY && o->mode != m)
    return usage_error("%s cannot be combined with --index, --offset or --map", flag);
  o->mode = m;
  return EXIT_OK;
}

int hlolayout_parse_args(int argc, char **argv, Options *o, bool *help, bool *version) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = NULL;
    const char *names[] = {"--index", "--offset", "--format", "--module", "--top", "--report",
                           "--device"};
    const char *name = NULL;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
      size_t n = strlen(names[k]);
      if (strncmp(a, names[k], n) == 0 && (a[n] == '\0' || a[n] == '=')) {
        name = names[k];
        if (a[n] == '=') {
          val = a + n + 1;
        } else {
          if (i + 1 >= argc) return usage_error("%s needs a value", name);
          val = argv[++i];
        }
      }
    }
    int rc = EXIT_OK;
    if (name && strcmp(name, "--index") == 0) {
      o->index = val;
      rc = set_mode(o, MODE_INDEX, name);
    } else if (name && strcmp(name, "--offset") == 0) {
      o->offset = val;
      rc = set_mode(o, MODE_OFFSET, name);
    } else if (name && strcmp(name, "--module") == 0) {
      o->module = val;
    } else if (name && strcmp(name, "--report") == 0) {
      if (!*val) return usage_error("--report needs a file");
      o->report = val;
    } else if (name && strcmp(name, "--device") == 0) {
      o->device = val;
    } else if (name && strcmp(name, "--top") == 0) {
      char *end;
      errno = 0;
      long long n = strtoll(val, &end, 10);
      if (errno || end == val || *end || n < 1)
        return usage_error("--top needs a positive number of rows, not '%s'", val);
      o->top = n;
    } else if (name) {
      if (strcmp(val, "text") == 0)
        o->format = FMT_TEXT;
      else if (strcmp(val, "yaml") == 0)
        o->format = FMT_YAML;
      else if (strcmp(val, "json") == 0)
        o->format = FMT_JSON;
      else
        return usage_error("--format must be text, yaml or json, not '%s'", val);
    } else if (strcmp(a, "--map") == 0) {
      rc = set_mode(o, MODE_MAP, a);
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      *help = true;
    } else if (cli_is_version(a)) {
      *version = true;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("unknown option '%s'", a);
    } else if (o->shape) {
      return usage_error("only one SHAPE can be given ('%s' and '%s')", o->shape, a);
    } else {
      o->shape = a;
    }
    if (rc != EXIT_OK) return rc;
  }
  if (*help || *version) return EXIT_OK;
  if (o->module && o->shape) return usage_error("give either SHAPE or --module, not both");
  if (o->module && o->mode != MODE_SUMMARY)
    return usage_error("--index, --offset and --map need a SHAPE, not --module");
  if (o->top && !o->module) return usage_error("--top needs --module");
  if (o->report && !o->module) return usage_error("--report needs --module");
  if (o->device && !o->report) return usage_error("--device needs --report");
  if (!o->module && !o->shape) return usage_error("missing SHAPE, e.g. 'f32[3,5]{1,0:T(2,2)}'");
  return EXIT_OK;
}
