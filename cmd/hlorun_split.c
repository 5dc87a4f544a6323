/* hlorun --split-input-file (cmd/hlorun_split.h): the way mlir-opt and
 * stablehlo-translate --interpret read StableHLO's test files. */
#include "cmd/hlorun_split.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/common/cli.h"

static const char MARKER[] = "// -----";

/* The end of the part starting at `from`: the start of the next marker
 * line, or len. */
static size_t part_end(const char *text, size_t len, size_t from, size_t *next) {
  size_t i = from;
  while (i < len) {
    if (len - i >= sizeof MARKER - 1 && memcmp(text + i, MARKER, sizeof MARKER - 1) == 0) {
      const char *nl = memchr(text + i, '\n', len - i);
      *next = nl ? (size_t)(nl - text) + 1 : len;
      return i;
    }
    const char *nl = memchr(text + i, '\n', len - i);
    if (!nl) break;
    i = (size_t)(nl - text) + 1;
  }
  *next = len;
  return len;
}

/* Whether text[from, end) holds more than blanks and // comments. */
static bool has_code(const char *text, size_t from, size_t end) {
  for (size_t i = from; i < end; i++) {
    if (strchr(" \t\r\n", text[i])) continue;
    if (text[i] != '/' || i + 1 >= end || text[i + 1] != '/') return true;
    while (i < end && text[i] != '\n') i++; /* the comment */
  }
  return false;
}

int hlorun_split_each(const char *prog, const char *path, HlorunEachFn each, void *ctx) {
  ModuleSource whole;
  StrBuf report;
  sb_init(&report);
  ErrorKind kind = ERR_NONE;
  if (!module_source_read(path, &whole, &report, &kind)) {
    fprintf(stderr, "%s: error: %s", prog, report.data ? report.data : "\n");
    sb_free(&report);
    module_source_free(&whole);
    return kind == ERR_USAGE ? EXIT_USAGE : EXIT_RUNTIME;
  }
  sb_free(&report);
  int status = EXIT_OK, ran = 0;
  size_t from = 0, next;
  for (; from < whole.len; from = next) {
    size_t end = part_end(whole.text, whole.len, from, &next);
    if (!has_code(whole.text, from, end)) { /* a trailing marker, or parts commented out */
      if (next >= whole.len) break;
      continue;
    }
    ModuleSource src = {0};
    src.display = whole.display;
    src.len = whole.len;
    if (!(src.text = malloc(whole.len + 1))) {
      cli_error(prog, "out of memory");
      status = status ? status : EXIT_RUNTIME;
      break;
    }
    for (size_t i = 0; i < whole.len; i++) {
      char c = whole.text[i];
      src.text[i] = (i >= from && i < end) || c == '\n' ? c : ' ';
    }
    src.text[whole.len] = '\0';
    if (ran++) {
      fputs("// -----\n", stdout);
      fflush(stdout);
    }
    int s = each(&src, ctx);
    module_source_free(&src);
    if (s && !status) status = s;
    if (next >= whole.len) break;
  }
  module_source_free(&whole);
  return status;
}
