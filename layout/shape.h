/* Shapes and layouts as data (hlo-text.md section 4, layout.md).  Pure data
 * plus small helpers; the index math lives in layout/layout.h. */
#ifndef HLO_LAYOUT_SHAPE_H
#define HLO_LAYOUT_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/strbuf.h"
#include "layout/etype.h"

/* '?' dimension (unbounded dynamic), stored as XLA does. */
#define SHAPE_DIM_UNBOUNDED INT64_MIN
/* '*' tile entry: combine this dimension with the next more minor one. */
#define TILE_DIM_COMBINE INT64_MIN
/* Largest rank we accept anywhere (XLA has no fixed limit; real modules stay
 * far below).  Bigger ranks are a diagnostic, never a crash. */
#define SHAPE_MAX_RANK 64

typedef struct Tile {
  int rank;
  int64_t *dims; /* positive sizes or TILE_DIM_COMBINE */
} Tile;

typedef struct SplitConfig {
  int64_t dimension; /* physical position, counted from the major end */
  int nindices;
  int64_t *indices;
} SplitConfig;

/* Memory space ids with names (layout.md section 3). */
enum { MEMSPACE_DEFAULT = 0, MEMSPACE_ALTERNATE = 1, MEMSPACE_HOST = 5 };

typedef struct Shape Shape;

typedef struct Layout {
  int rank;                        /* == shape rank */
  int64_t *minor_to_major;         /* permutation of 0..rank-1 */
  int ntiles;
  Tile *tiles;                     /* T(..)(..) */
  int64_t tail_padding_alignment;  /* L(n); 1 = default */
  EType index_type;                /* #(t); ET_INVALID = absent */
  EType pointer_type;              /* *(t); ET_INVALID = absent */
  int64_t element_size_bits;       /* E(n); 0 = natural storage */
  int64_t memory_space;            /* S(n); 0 = default */
  int nsplits;
  SplitConfig *splits;             /* SC(..) */
  Shape *physical_shape;           /* P(..), sparse only */
  int64_t dynamic_metadata_bytes;  /* M(n) */
} Layout;

struct Shape {
  EType etype;   /* element type, or ET_TUPLE / ET_BUFFER */
  int rank;
  int64_t *dims; /* sizes; upper bound for "<=N"; SHAPE_DIM_UNBOUNDED for "?" */
  bool *dynamic; /* per dim: written "<=N" or "?"; NULL when none is dynamic */
  /* Arrays always have a layout (the default one when none was written). */
  Layout layout;
  int ntuple;    /* ET_TUPLE: element count; ET_BUFFER: 1 */
  Shape *tuple;  /* the elements */
};

static inline bool shape_is_tuple(const Shape *s) { return s->etype == ET_TUPLE; }
static inline bool shape_is_array(const Shape *s) { return etype_is_array(s->etype); }

/* Sets the default descending layout {rank-1,...,0}.  False on out of memory. */
bool shape_set_default_layout(Arena *arena, Shape *s);
/* Deep copy into arena.  NULL on out of memory. */
Shape *shape_clone(Arena *arena, const Shape *s);
bool shape_copy_into(Arena *arena, Shape *dst, const Shape *src);

/* Same element types, dims and dynamic flags, recursively; layouts ignored. */
bool shape_compatible(const Shape *a, const Shape *b);
/* Compatible and identical layouts. */
bool shape_equal(const Shape *a, const Shape *b);
bool layout_equal(const Layout *a, const Layout *b);
/* True if the layout is the default one with no suffixes. */
bool layout_is_default(const Layout *l);

/* Product of dims (bounds for dynamic dims); false on overflow or '?'. */
bool shape_element_count(const Shape *s, int64_t *out);

/* Canonical HLO text, as XLA prints it: "f32[3,5]{1,0:T(2,2)S(1)}",
 * "(f32[2]{0}, s32[])", "token[]".  Arrays of rank >= 1 always print their
 * layout; scalars print "{:...}" only when a suffix is set. */
void shape_print(StrBuf *sb, const Shape *s);
void layout_print(StrBuf *sb, const Layout *l, int rank);
/* The same without any layout ("f32[3,5]"), as XLA's messages print shapes. */
void shape_print_without_layout(StrBuf *sb, const Shape *s);
/* Convenience: malloc'd string. */
char *shape_to_string(const Shape *s);

#endif
