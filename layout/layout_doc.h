/* A tiny document tree (maps, sequences, scalars) that hlolayout fills once
 * and writes as JSON or YAML, so both formats always carry the same keys.
 * Nodes live in an Arena. */
#ifndef HLO_LAYOUT_LAYOUT_DOC_H
#define HLO_LAYOUT_LAYOUT_DOC_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strbuf.h"

typedef struct LayoutDoc LayoutDoc;

LayoutDoc *layout_doc_map(Arena *a);
LayoutDoc *layout_doc_seq(Arena *a);
LayoutDoc *layout_doc_int(Arena *a, int64_t v);
LayoutDoc *layout_doc_num(Arena *a, double v, int decimals); /* fixed decimals */
LayoutDoc *layout_doc_str(Arena *a, const char *s);
LayoutDoc *layout_doc_bool(Arena *a, bool v);
LayoutDoc *layout_doc_null(Arena *a);
LayoutDoc *layout_doc_ints(Arena *a, const int64_t *v, int n); /* sequence of ints */

/* Appends to a map (key copied) or a sequence; returns val. */
LayoutDoc *layout_doc_put(Arena *a, LayoutDoc *map, const char *key, LayoutDoc *val);
LayoutDoc *layout_doc_push(LayoutDoc *seq, LayoutDoc *val);

/* JSON, two-space indented, keys in insertion order, trailing newline. */
void layout_doc_json(const LayoutDoc *d, StrBuf *out);
/* YAML block style (short scalar lists in flow style) via libyaml's
 * emitter; false if the emitter failed. */
bool layout_doc_yaml(const LayoutDoc *d, StrBuf *out);

#endif
