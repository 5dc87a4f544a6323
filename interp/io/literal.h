/* Printing values in XLA's literal text format (LiteralBase::ToString):
 *   f32[] 1.5
 *   s32[3] {1, 2, 3}
 *   f32[2,3] {
 *     { 1, 2, 3 },
 *     { 4, 5, 6 }
 *   }
 * rank >= 4 adds "/ *i0=0* /" markers (without the spaces) after inner opening braces, pred
 * elements print as 0/1 in arrays and true/false as scalars, tuples print as
 * "(\n" + elements joined by ",\n" + "\n)".  Shapes print without layout.
 * A dynamic array prints its shape with "<=" bounds, then its sizes, then
 * only the elements below them: "s32[<=4](2) {1, 2}".
 *
 * Summarised printing (LiteralPrintOptions.summarise, numpy's threshold=1000,
 * edgeitems=3): an array leaf with more than LITERAL_SUMMARY_THRESHOLD
 * elements prints, in every dimension longer than 2 * LITERAL_EDGE_ITEMS,
 * only the first and last LITERAL_EDGE_ITEMS entries with "..." in place of
 * the others: "f32[2000] {0, 1, 2, ..., 1997, 1998, 1999}"; elided rows or
 * blocks become one "..." item on its own line, indented as the rows it
 * stands for ("  ...,").  Rank >= 4 markers keep the real indices.  The
 * shape prefix is always the full shape. */
#ifndef HLO_INTERP_IO_LITERAL_H
#define HLO_INTERP_IO_LITERAL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "layout/etype.h"

/* A value to print: a dense row-major array, a token, or a tuple of nodes. */
typedef struct LiteralNode {
  EType etype; /* ET_TUPLE for tuples, ET_TOKEN for tokens */
  int rank;
  const int64_t *dims;
  const void *data; /* natural storage, row-major */
  int count;        /* tuples: number of elements */
  const struct LiteralNode *elems;
  /* Dynamic arrays: the shape's bounds and dynamic flags (dims are then the
   * runtime sizes); NULL for static arrays. */
  const int64_t *bounds;
  const bool *dynamic;
} LiteralNode;

enum { LITERAL_SUMMARY_THRESHOLD = 1000, LITERAL_EDGE_ITEMS = 3 };

typedef struct LiteralPrintOptions {
  bool print_shape; /* the "f32[2,3] " prefix */
  bool summarise;   /* elide the middle of arrays over LITERAL_SUMMARY_THRESHOLD */
  /* Optional: called whenever the buffer holds more than about 1 MiB, to
   * write it out and empty it (sb->len = 0), so that printing millions of
   * elements does not hold all the text in memory. */
  void (*flush)(void *ctx, StrBuf *sb);
  void *flush_ctx;
} LiteralPrintOptions;

/* Prints a literal tree with the given options. */
void literal_print_with(StrBuf *sb, const LiteralNode *node, const LiteralPrintOptions *opt);

/* Every element (no summary): */
/* Prints one dense array; with print_shape the "f32[2,3] " prefix. */
void literal_print_array(StrBuf *sb, EType t, int rank, const int64_t *dims, const void *data,
                         bool print_shape);
void literal_print(StrBuf *sb, const LiteralNode *node, bool print_shape);
/* Shape without layout: "f32[2,3]", "pred[]". */
void literal_print_shape(StrBuf *sb, EType t, int rank, const int64_t *dims);

#endif
