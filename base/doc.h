/* The one writer of structured output: a small document tree (maps,
 * sequences, scalars) that a report fills once and writes as JSON or YAML,
 * so that both formats always carry the same keys -- hlolayout's output,
 * hlorun's --stats report and its --trace lines.  Nodes live in an Arena.
 *
 * Each JSON and YAML style below is the exact layout of one of those
 * outputs, which scripts read: a new report picks the style of the output
 * it resembles rather than a new one. */
#ifndef HLO_BASE_DOC_H
#define HLO_BASE_DOC_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "base/arena.h"
#include "base/strbuf.h"

typedef struct Doc Doc;

/* Nodes; NULL when out of memory.  The functions below take NULL and give
 * NULL back, and a container that lost a child is marked, so a report is
 * built without checks and fails once: its writer returns false. */
Doc *doc_map(Arena *a);
Doc *doc_seq(Arena *a);
Doc *doc_int(Arena *a, int64_t v);
Doc *doc_num(Arena *a, double v, int decimals); /* fixed decimals ("%.*f") */
Doc *doc_str(Arena *a, const char *s);          /* copied */
Doc *doc_bool(Arena *a, bool v);
Doc *doc_null(Arena *a);
Doc *doc_ints(Arena *a, const int64_t *v, int n); /* sequence of ints */

/* Appends to a map (key copied) or a sequence; returns val. */
Doc *doc_put(Arena *a, Doc *map, const char *key, Doc *val);
Doc *doc_push(Doc *seq, Doc *val);

/* Layout marks; both return d.  doc_flow: this map or sequence is written
 * on one line (YAML flow style; one line in indented JSON).  doc_newline:
 * in a one-line JSON container, this entry starts a new line, indented by
 * one space per level of nesting (the --stats layout). */
Doc *doc_flow(Doc *d);
Doc *doc_newline(Doc *d);

typedef enum {
  /* Two-space indented, one entry a line, lists of short scalars on one line
   * ("index": [2, 3]); a newline in a string is \n.  hlolayout. */
  DOC_JSON_INDENTED,
  /* Every container on one line but for entries marked doc_newline; every
   * control character in a string is \u00XX.  hlorun --stats, and --trace's
   * JSON Lines. */
  DOC_JSON_COMPACT,
} DocJsonStyle;

/* JSON, keys in insertion order, with a trailing newline; false (nothing
 * written) when the tree lost a node to out of memory. */
bool doc_json(const Doc *d, DocJsonStyle style, StrBuf *out);

typedef enum {
  /* A string that a YAML reader would take for another type ("true", "12",
   * "null", "") is double-quoted; UTF-8 is written as it is.  hlolayout. */
  DOC_YAML_TYPED,
  /* Strings go out in the style libyaml picks (quoted only where YAML's
   * syntax needs it, so "true" stays plain); non-ASCII characters are
   * escaped.  hlorun --stats and --trace. */
  DOC_YAML_PLAIN,
} DocYamlStyle;

/* One YAML document, block style but for doc_flow containers and short
 * scalar lists; false if the tree lost a node to out of memory or
 * libyaml's emitter failed. */
bool doc_yaml(const Doc *d, DocYamlStyle style, StrBuf *out);

/* A YAML document that is one block sequence, written to a file item by
 * item as they come (hlorun --trace): open, an item per call, close.
 * doc_yaml_seq_open gives NULL when the emitter cannot start;
 * doc_yaml_seq_close ends the document, flushes and frees. */
typedef struct DocYamlSeq DocYamlSeq;
DocYamlSeq *doc_yaml_seq_open(FILE *f, DocYamlStyle style);
bool doc_yaml_seq_item(DocYamlSeq *s, const Doc *item);
bool doc_yaml_seq_close(DocYamlSeq *s);

#endif
