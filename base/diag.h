/* Source diagnostics: "FILE:LINE:COL: error: message", the source line and a
 * caret.  Line and column are computed from the byte offset only when a
 * diagnostic is rendered. */
#ifndef HLO_BASE_DIAG_H
#define HLO_BASE_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/strbuf.h"

enum { DIAG_REPEATS_KEPT = 5 };

typedef struct Diag {
  int64_t offset; /* byte offset into the source, -1 if none */
  char *msg;      /* malloc'd */
  /* The same message added again (e.g. the same error on every instruction
   * of a kind): counted here instead of stored and printed again, with the
   * offsets of the first few repeats. */
  int repeats;
  int64_t repeat_offsets[DIAG_REPEATS_KEPT];
  /* A line printed after it ("f.py:3:4: note: from here"), malloc'd, or
   * NULL: set with diag_set_note. */
  char *note;
} Diag;

/* A list of errors; parsers that recover append several.  A message equal
 * to one already in the list is folded into it (Diag.repeats). */
typedef struct Diags {
  Diag *items;
  int count, cap;
  int dropped; /* errors not kept once DIAGS_MAX were stored */
} Diags;

enum { DIAGS_MAX = 50 };

void diags_add(Diags *d, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void diags_free(Diags *d);
/* Gives diagnostic i of d a note line (without its newline), replacing any. */
void diag_set_note(Diags *d, int i, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* 1-based line and column of a byte offset (column counts bytes). */
void diag_line_col(const char *src, size_t len, int64_t offset, int64_t *line, int64_t *col);

/* Renders one diagnostic as text (malloc'd, caller frees):
 *   file:line:col: error: msg\n
 *   <source line, cut to a window around the column if very long>\n
 *   <spaces>^\n
 * With offset < 0 only "file: error: msg\n". */
char *diag_render(const char *filename, const char *src, size_t len, int64_t offset,
                  const char *msg);
/* The same with another severity word ("warning", "note") in place of "error". */
char *diag_render_as(const char *filename, const char *src, size_t len, int64_t offset,
                     const char *severity, const char *msg);

/* Appends every diagnostic of d rendered as above, each followed by its note
 * line if it has one, a repeated one by "FILE: note: the error above is repeated N more times (lines 7, 9, ...)",
 * then "FILE: N more errors not shown" when some were dropped. */
void diags_render_all(StrBuf *out, const char *filename, const char *src, size_t len,
                      const Diags *d);

#endif
