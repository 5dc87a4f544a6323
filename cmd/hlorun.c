/* hlorun: parse, check, print and (later) run an HLO module.
 * Exit status (docs/cli.md): 0 ok, 1 runtime failure, 2 usage, 3 the model
 * does not parse or verify. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "parser/parser.h"
#include "parser/print.h"
#include "parser/verify.h"

enum { EXIT_OK = 0, EXIT_RUNTIME = 1, EXIT_USAGE = 2, EXIT_INVALID = 3 };

static void usage(FILE *f) {
  fputs("usage: hlorun MODEL.hlo [--check | --print-module]\n"
        "  MODEL.hlo       HLO text module; '-' reads standard input\n"
        "  --check         parse and verify only; exit 0 if the module is valid\n"
        "  --print-module  print the module back as canonical HLO text\n",
        f);
}

/* Reads a whole file (or stdin) and NUL-terminates it: the lexer's sentinel. */
static char *read_all(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  for (;;) {
    if (cap - n < 2) {
      if (cap > SIZE_MAX / 2) {
        free(buf);
        return NULL;
      }
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

/* --print-module: the canonical text (docs/hlo-print.md) on stdout. */
static int print_to_stdout(const Module *m) {
  StrBuf sb;
  sb_init(&sb);
  print_module(&sb, m);
  bool ok = !sb.oom && fwrite(sb.data, 1, sb.len, stdout) == sb.len && fflush(stdout) == 0;
  sb_free(&sb);
  if (ok) return EXIT_OK;
  fprintf(stderr, "hlorun: cannot write the printed module\n");
  return EXIT_RUNTIME;
}

int main(int argc, char **argv) {
  const char *path = NULL;
  bool check = false, print = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--check") == 0) {
      check = true;
    } else if (strcmp(a, "--print-module") == 0) {
      print = true;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return EXIT_OK;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "hlorun: unknown option %s\n", a);
      usage(stderr);
      return EXIT_USAGE;
    } else if (path) {
      fprintf(stderr, "hlorun: more than one model given (%s, %s)\n", path, a);
      usage(stderr);
      return EXIT_USAGE;
    } else {
      path = a;
    }
  }
  if (!path) {
    fprintf(stderr, "hlorun: no model given\n");
    usage(stderr);
    return EXIT_USAGE;
  }

  bool from_stdin = strcmp(path, "-") == 0;
  FILE *f = from_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "hlorun: cannot open %s: %s\n", path, strerror(errno));
    return EXIT_RUNTIME;
  }
  size_t len = 0;
  char *text = read_all(f, &len);
  if (!from_stdin) fclose(f);
  if (!text) {
    fprintf(stderr, "hlorun: cannot read %s\n", path);
    return EXIT_RUNTIME;
  }

  const char *display = from_stdin ? "<stdin>" : path;
  Diags diags = {0};
  Module *m = parse_module(display, text, len, &diags);
  int status = EXIT_OK;
  bool valid = m && verify_module(m, &diags);
  if (!valid) {
    for (int i = 0; i < diags.count; i++) {
      char *r = diag_render(display, text, len, diags.items[i].offset, diags.items[i].msg);
      if (r) fputs(r, stderr);
      free(r);
    }
    if (diags.dropped) fprintf(stderr, "%s: %d more errors not shown\n", display, diags.dropped);
    status = EXIT_INVALID;
  } else if (print) {
    status = print_to_stdout(m);
  } else if (!check) {
    fprintf(stderr, "hlorun: running modules is not implemented yet (use --check)\n");
    status = EXIT_RUNTIME;
  }
  module_free(m);
  diags_free(&diags);
  free(text);
  return status;
}
