/* Loading a module the way every command does: read the file, parse it,
 * verify it, and render the diagnostics (hlorun --check, hlolayout --module). */
#ifndef HLO_PARSER_LOAD_H
#define HLO_PARSER_LOAD_H

#include <stddef.h>

#include "base/error.h"
#include "base/strbuf.h"
#include "parser/ir.h"

/* The source text a module points into: keep it until module_free. */
typedef struct ModuleSource {
  char *text; /* malloc'd, NUL at text[len] */
  size_t len;
  const char *display; /* the path, or "<stdin>" for "-" */
  char *converted;     /* StableHLO input: the HLO text it became (malloc'd), or NULL */
  int64_t *converted_line_off; /* and the MLIR offset of each of its lines (malloc'd) */
} ModuleSource;

/* Reads path ("-" = standard input), parses and verifies it.  On success
 * returns the module (src holds its text).  On failure returns NULL with
 * *kind = ERR_RUNTIME (the file cannot be read; report gets one line without
 * a program prefix), ERR_USAGE (path is a directory; one line, no prefix) or
 * ERR_INVALID (report gets every diagnostic as "FILE:LINE:COL: error: msg"
 * with the source line and a caret; "FILE: error: this is a numpy
 * array ..." for a file that is not a model at all, parser/model_kind.h).
 * StableHLO (MLIR text, detected by content) is converted to HLO first
 * (parser/mlir.h); its diagnostics point into the MLIR text. */
Module *parse_load_module(const char *path, ModuleSource *src, StrBuf *report, ErrorKind *kind);
/* The same without the verifier: what XLA's parser accepts, for printing
 * and parse-only checks (hlorun --no-verify); never to be run. */
Module *parse_load_module_unverified(const char *path, ModuleSource *src, StrBuf *report,
                                     ErrorKind *kind);
/* The two halves of parse_load_module: reading the file (false with *kind
 * and one line in report as above), then parsing and verifying src->text
 * (which may be any text the caller put there, with src->display naming
 * it). */
bool module_source_read(const char *path, ModuleSource *src, StrBuf *report, ErrorKind *kind);
Module *parse_load_source(ModuleSource *src, StrBuf *report, ErrorKind *kind, bool verify);
void module_source_free(ModuleSource *src);

#endif
