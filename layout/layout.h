/* The layout engine: where each element of an array lives (layout.md).
 *
 * A LayoutPlan is a Layout compiled for one array Shape: the minor_to_major
 * permutation and every tiling level worked out into plain dimension lists,
 * so that index <-> offset is a few divisions per level.  Offsets are
 * *element* offsets (slots); bytes follow from the element size or E(n).
 *
 * Model (layout.md section 5): physical dims = reverse of minor_to_major;
 * each tile in turn is applied to the most-minor dims of the shape produced
 * by the level before (leading 1s added when the tile is longer, '*' dims
 * merged first); the offset is the row-major index in the final shape; the
 * slot count is the product of the final shape rounded up to L(n).
 *
 * All arithmetic is int64_t; anything that would overflow is an Error. */
#ifndef HLO_LAYOUT_LAYOUT_H
#define HLO_LAYOUT_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "layout/shape.h"

/* Limits on what a plan can hold; beyond them is an Error, never a crash. */
#define LAYOUT_MAX_LEVELS 8
#define LAYOUT_MAX_DIMS 128 /* rank of any intermediate shape */

/* One tiling level T(...): in_dims --(leading 1s)--> ext_dims --('*')-->
 * merged_dims --(tile)--> out_dims = major | grid | tile. */
typedef struct LayoutLevel {
  int tile_rank;                   /* entries as written, '*' included */
  int64_t written[LAYOUT_MAX_DIMS];/* the tile as written (TILE_DIM_COMBINE = '*') */
  int in_rank;
  int64_t in_dims[LAYOUT_MAX_DIMS];
  int ext;                         /* leading size-1 dims added */
  int ext_rank;                    /* in_rank + ext */
  int64_t ext_dims[LAYOUT_MAX_DIMS];
  int merged_rank;
  int64_t merged_dims[LAYOUT_MAX_DIMS];
  int merge_first[LAYOUT_MAX_DIMS]; /* merged dim m = ext dims [first, last] */
  int merge_last[LAYOUT_MAX_DIMS];
  int ntile;                       /* non-'*' entries: tile the last ntile merged dims */
  int64_t tile[LAYOUT_MAX_DIMS];
  int nmajor;                      /* merged_rank - ntile: dims left alone */
  int out_rank;                    /* nmajor + 2*ntile */
  int64_t out_dims[LAYOUT_MAX_DIMS];
  bool has_combine;
} LayoutLevel;

typedef struct LayoutPlan {
  EType etype;
  int rank;
  int64_t dims[SHAPE_MAX_RANK];           /* logical sizes (bounds of <=N dims) */
  int64_t minor_to_major[SHAPE_MAX_RANK];
  int phys_to_logical[SHAPE_MAX_RANK];    /* physical position (major first) -> dim */
  int64_t phys_dims[SHAPE_MAX_RANK];
  int nlevels;
  LayoutLevel *levels;                    /* nlevels entries, malloc'd */
  int final_rank;
  int64_t final_dims[LAYOUT_MAX_DIMS];
  int64_t final_strides[LAYOUT_MAX_DIMS]; /* row-major strides of final_dims */
  int64_t elements;        /* logical element count */
  int64_t raw_slots;       /* product of final_dims (tile padding included) */
  int64_t slots;           /* raw_slots rounded up to L(n) */
  int64_t tail_alignment;  /* L(n), 1 by default */
  int64_t element_bits;    /* E(n) as written, 0 = natural storage */
  int storage_bytes;       /* natural bytes per element (sub-byte types: 1) */
  int packed_bits;         /* 1, 2 or 4 when E(n) packs several per byte, else 0 */
  int64_t logical_bytes;   /* ShapeUtil::ByteSizeOf: elements, no tiling */
  int64_t physical_bytes;  /* slots * element size, or ceil(slots*E/8) */
  int64_t memory_space;    /* S(n) */
  int64_t metadata_bytes;  /* M(n) */
  bool any_combine;        /* some tile uses '*' */
  /* XLA's ShapeUtil::ArraySize (first tile only, split configs), or -1 when
   * it is not defined for this layout ('*' in the first tile). */
  int64_t xla_array_slots;
  int64_t xla_array_bytes;
} LayoutPlan;

/* Validates s (an array shape with its layout) and compiles its plan into
 * *plan (call layout_plan_free after).  Errors (ERR_INVALID, offset -1):
 * minor_to_major not a permutation or of the wrong length, tile entry 0 or
 * negative, '*' misuse, ranks above the limits, E(n) not sensible for the
 * type, '?' dims, sizes overflowing int64. */
bool layout_plan_init(LayoutPlan *plan, const Shape *s, Error *err);
void layout_plan_free(LayoutPlan *plan);

/* Checks E(n) for an element type: 0, or a width holding the type that is
 * either 1/2/4 bits (packed) or the natural storage width. */
bool layout_element_bits_ok(EType t, int64_t bits, Error *err);

/* Logical index (rank entries) -> element offset.  Error if out of range. */
bool layout_offset_of(const LayoutPlan *p, const int64_t *index, int64_t *offset, Error *err);
/* Unchecked fast form for indices known to be in range. */
int64_t layout_offset_unchecked(const LayoutPlan *p, const int64_t *index);
/* Element offset -> logical index.  *is_padding set (and index untouched)
 * when the slot holds no element.  Error if offset is outside [0, slots). */
bool layout_index_of(const LayoutPlan *p, int64_t offset, int64_t *index, bool *is_padding,
                     Error *err);

/* Byte (and bit, for packed E(n)) position of an element offset.  With
 * packing, elements fill each byte from the low-order bits up (XLA PackIntN). */
void layout_byte_position(const LayoutPlan *p, int64_t offset, int64_t *byte, int *bit);

/* What XLA's LayoutUtil::LinearIndex returns (first tile only; rank 1 returns
 * the index itself).  False when XLA cannot compute it ('*' in the tile). */
bool layout_xla_linear_index(const LayoutPlan *p, const int64_t *index, int64_t *out);

/* One tiling level: in (lv->in_rank entries) -> out (lv->out_rank), and
 * back; backward returns false when out is a padding position. */
void layout_level_forward(const LayoutLevel *lv, const int64_t *in, int64_t *out);
bool layout_level_backward(const LayoutLevel *lv, const int64_t *out, int64_t *in);

/* Row-major linear position of idx in dims (the "linear()" of layout.md). */
int64_t layout_row_major(const int64_t *idx, const int64_t *dims, int rank);

/* --- iteration in physical (memory) order --- */
typedef struct LayoutIter {
  const LayoutPlan *plan;
  int64_t offset;                 /* current slot */
  bool padding;                   /* current slot holds no element */
  int64_t index[SHAPE_MAX_RANK];  /* logical index when !padding */
} LayoutIter;
/* Positions it before slot 0; each layout_iter_next moves to the next slot
 * and returns false past the end. */
void layout_iter_init(LayoutIter *it, const LayoutPlan *p);
bool layout_iter_next(LayoutIter *it);

/* --- conversion between layouts --- */
/* Copies the array in src_buf (laid out per src) into dst_buf (per dst).
 * Both plans must describe the same element type and dims.  Padding slots of
 * dst (and the unused bits of a final packed byte) are written as zero.
 * Buffers hold physical_bytes bytes and must not overlap. */
bool layout_convert(const LayoutPlan *dst, void *dst_buf, const LayoutPlan *src,
                    const void *src_buf, Error *err);

/* Sub-byte packing (E(1|2|4)): n elements in natural storage (one per byte,
 * sN sign-extended) <-> packed bytes, low-order bits first, final partial
 * byte zero-filled. */
void layout_pack_bits(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, int bits);
void layout_unpack_bits(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, int bits,
                        bool sign_extend);

/* Memory space name (layout.md 3): "HBM (default device memory)", "VMEM
 * (alternate fast memory)", "host memory", else "memory space N
 * (device-specific)" written into buf (>= 64 bytes), which is returned. */
const char *layout_memory_space_name(int64_t space, char *buf, size_t bufsize);
/* One word for tables: "HBM", "VMEM", "host", else "device". */
const char *layout_memory_space_short(int64_t space);

#endif
