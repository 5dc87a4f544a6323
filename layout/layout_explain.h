/* Human-readable explanations of a LayoutPlan for hlolayout: each tiling
 * level, the dims that cause padding, and the step-by-step path of one index
 * or offset with the numbers filled in.  Produces text lines; never prints. */
#ifndef HLO_LAYOUT_LAYOUT_EXPLAIN_H
#define HLO_LAYOUT_LAYOUT_EXPLAIN_H

#include "base/strbuf.h"
#include "layout/layout.h"

typedef struct LayoutLines {
  char **items; /* malloc'd strings */
  int count, cap;
} LayoutLines;

void layout_lines_add(LayoutLines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void layout_lines_free(LayoutLines *l);

/* "(1,1,0,1)" / "[2,3,2,2]". */
void layout_fmt_tuple(StrBuf *sb, const int64_t *v, int n, char open, char close);

/* One line per tiling level: "T(2,2) on [3,5] -> tile grid [2,3] of 2x2 tiles -> [2,3,2,2]". */
void layout_explain_levels(const LayoutPlan *p, LayoutLines *out);

/* A dim that a tile (or L) pads, e.g. level 1, "dim0", 3 -> 4. level 0 = L(n). */
typedef struct LayoutPadCause {
  int level;
  char what[96];
  int64_t size, padded;
} LayoutPadCause;
/* Fills up to max causes, returns how many exist. */
int layout_padding_causes(const LayoutPlan *p, LayoutPadCause *out, int max);

/* Where XLA's own size helpers disagree with the plan (layout.md 2.4). */
void layout_explain_size_notes(const LayoutPlan *p, LayoutLines *notes);

/* Index (in range) -> steps ending in the element and byte offset; notes get
 * the XLA LinearIndex discrepancy if any. */
void layout_explain_index(const LayoutPlan *p, const int64_t *index, LayoutLines *steps,
                          LayoutLines *notes);
/* Offset (in [0, slots)) -> steps back to the logical index or padding. */
void layout_explain_offset(const LayoutPlan *p, int64_t offset, LayoutLines *steps);

#endif
