/* Values of a run: an array (shape + a buffer whose bytes are arranged in
 * physical order by the layout engine, padding zeroed, living in the memory
 * space its layout's S(n) names), a tuple of values, or a token.
 *
 * Ownership: Values and Buffers are reference counted.  value_unref on the
 * last reference frees a tuple's elements and releases the buffer, which
 * gives the bytes back to its memory space.  Several Values may share one
 * Buffer (bitcast, get-tuple-element, identity ops), so memory is counted
 * once.  Shapes are not owned: they live in the module's arena or the run's.
 *
 * Kernels want dense row-major data in natural storage (layout/etype.h).
 * For a default layout the buffer IS that view (zero copy); otherwise the
 * helpers below convert with the layout engine. */
#ifndef HLO_INTERP_VALUE_H
#define HLO_INTERP_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/error.h"
#include "interp/memspace.h"
#include "layout/layout.h"
#include "layout/shape.h"

/* An array shape compiled once per run: its layout plan and sizes. */
typedef struct ArrayInfo {
  const Shape *shape;
  LayoutPlan plan;
  EType etype;
  int rank;
  const int64_t *dims;
  int64_t elements;
  int esize;             /* natural storage bytes per element */
  int64_t dense_bytes;   /* elements * esize */
  int64_t phys_bytes;    /* bytes of the buffer (tiles, L, E included) */
  int64_t space;         /* S(n) */
  /* Physical bytes == dense row-major natural storage (default layout up to
   * size-1 dims, no tile/E/L effect): the buffer is its own dense view. */
  bool identity;
  bool packed;           /* E(1|2|4) packing */
  /* For non-identity layouts: the same dims with the default layout. */
  LayoutPlan *dense_plan;
  /* Padding slots as (offset, count) runs, computed on first need. */
  bool pad_runs_ready;
  int npad_runs;
  int64_t *pad_runs;
  int64_t nallocs;       /* buffers allocated with this shape (stats) */
} ArrayInfo;

typedef struct Buffer {
  int refs;
  int64_t space;
  int64_t nbytes;
  bool counted;  /* accounted in its memory space */
  bool borrowed; /* data belongs to someone else (kernel callbacks) */
  void *data;
  /* Memory tracking (interp/mem_track.h), set while tracked: the defining
   * instruction, interned shape and space slot, the record, and the links
   * of the tracker's list of live buffers. */
  bool tracked;
  int32_t tshape, tslot;
  const struct Instr *tdef;
  int64_t trec;
  struct Buffer *tprev, *tnext;
} Buffer;

typedef struct Value {
  int refs;
  const Shape *shape;
  const ArrayInfo *info; /* arrays */
  Buffer *buf;           /* arrays (NULL for tokens) */
  int ntuple;
  struct Value **elems;  /* tuples */
  /* Arrays with dynamic dimensions ("<=N"): the runtime size of every
   * dimension (malloc'd, owned by this Value; Values sharing a buffer keep
   * their own), set only while some size is below its bound.  NULL: every
   * size is the bound.  The buffer stays allocated at the bound and element
   * (i, j, ...) sits where the bounded shape puts it, as in XLA's literals;
   * slots past a size are padding nobody reads (docs/interpreter.md). */
  int64_t *dyn;
} Value;

/* An array that has data (tokens and opaque values are "arrays" to
 * shape_is_array but hold nothing). */
static inline bool value_shape_has_data(const Shape *s) {
  return shape_is_array(s) && s->etype != ET_TOKEN && s->etype != ET_OPAQUE;
}

typedef struct ValueCtx {
  MemSystem *mem;
  Arena *arena;          /* the run's: synthesized shapes, infos */
  /* Shape* -> ArrayInfo* (open addressing). */
  int cap, count;
  const Shape **keys;
  ArrayInfo **vals;
  /* When > 0 new buffers are scratch (not accounted in memory spaces): the
   * insides of a fusion. */
  int uncounted;
  int64_t conversions;      /* layout conversions done (stats) */
  int64_t conversion_bytes;
  int64_t nbuffers, alloc_logical_bytes, alloc_physical_bytes; /* accounted buffers */
  /* Follows every accounted buffer (interp/mem_track.h), or NULL. */
  struct MemTrack *track;
} ValueCtx;

bool value_ctx_init(ValueCtx *vc, MemSystem *mem, Arena *arena);
void value_ctx_free(ValueCtx *vc);

/* The compiled info of an array shape (cached by pointer). */
const ArrayInfo *value_array_info(ValueCtx *vc, const Shape *s, Error *err);
/* A default-layout array shape with these dims, in the run arena. */
Shape *value_dense_shape(ValueCtx *vc, EType t, int rank, const int64_t *dims, int64_t space);

/* New array value with an uninitialised buffer (padding and the rounding
 * tail zeroed only when zero is set; identity layouts have no padding).
 * who names the instruction/parameter for memory errors. */
bool value_new_array(ValueCtx *vc, const Shape *s, bool zero, const char *who, Value **out,
                     Error *err);
/* New array value sharing buf (takes a reference to it). */
Value *value_wrap_buffer(const Shape *s, const ArrayInfo *info, Buffer *buf);
/* Array value over memory the caller owns (not accounted, never freed). */
Value *value_wrap_external(const Shape *s, const ArrayInfo *info, void *data);
/* New tuple; takes over the references in elems[0..n). */
Value *value_new_tuple(const Shape *s, int n, Value **elems);
Value *value_new_token(const Shape *s);

/* A value of shape s built leaf by leaf: tuples and tokens here, each array
 * leaf by fn (desc names it: "desc element {1} element {0}" for nested
 * leaves).  On failure nothing built is left behind. */
typedef bool (*ValueLeafFn)(void *ud, const Shape *leaf, const char *desc, Value **out,
                            Error *err);
bool value_build(ValueCtx *vc, const Shape *s, const char *desc, ValueLeafFn fn, void *ud,
                 Value **out, Error *err);

static inline Value *value_ref(Value *v) {
  if (v) v->refs++;
  return v;
}
void value_unref(ValueCtx *vc, Value *v);
/* Frees the Value/Buffer structs this thread keeps for reuse (each thread
 * that evaluated calls it when done: eval_free does). */
void value_pool_drain(void);
void buffer_unref(ValueCtx *vc, Buffer *b);

/* Moves a scratch buffer into accounting (space of its value).  False when
 * the space cannot hold it. */
bool value_adopt(ValueCtx *vc, Value *v, const char *who, Error *err);

/* --- dense views --- */
/* A dense copy made for a layout conversion (p NULL when none was needed).
 * Big ones are base/hostmem blocks, so it goes back through value_tmp_free,
 * never free() (a struct, so that free(tmp) does not compile). */
typedef struct DenseTmp {
  void *p;
} DenseTmp;
void value_tmp_free(DenseTmp *t);
/* Dense row-major natural-storage bytes of an array value.  *tmp receives
 * the copy the caller gives back when a conversion was needed. */
bool value_dense_read(ValueCtx *vc, const Value *v, const void **data, DenseTmp *tmp, Error *err);
/* v's elements laid out as `like` (same dims and element size, neither
 * packed): for elementwise ops computed in their result's layout. */
bool value_read_as(ValueCtx *vc, const Value *v, const ArrayInfo *like, const void **data, DenseTmp *tmp,
                   Error *err);
/* The dense bytes of array v handed over to the caller, who frees them
 * with mem_free_detached, when they can be had without a copy: v is the
 * only holder of its buffer, the layout is the dense one and every size is
 * its bound.  Its buffer is left empty (v can then only be released).
 * NULL when not: copy with value_dense_read instead. */
void *value_take_dense(ValueCtx *vc, Value *v);
/* Where to write a dense result for v: the buffer itself (identity layouts)
 * or a temporary; then value_dense_commit stores it in v's layout (and gives
 * the temporary back). */
bool value_dense_target(ValueCtx *vc, Value *v, void **data, DenseTmp *tmp, Error *err);
bool value_dense_commit(ValueCtx *vc, Value *v, DenseTmp *tmp, Error *err);
/* New array value of shape s filled from dense data. */
bool value_from_dense(ValueCtx *vc, const Shape *s, const void *dense, const char *who,
                      Value **out, Error *err);

/* Zeroes the padding slots of v's buffer (after a kernel wrote all slots). */
bool value_zero_padding(ValueCtx *vc, Value *v, Error *err);

/* v as a value of shape s (same dims and element types, recursively): v
 * itself (a new reference) when layouts and spaces agree, a shared buffer
 * when only nothing physical differs, else a converted copy. */
bool value_coerce(ValueCtx *vc, Value *v, const Shape *s, const char *who, Value **out,
                  Error *err);
/* Whether value_coerce(v, s) is v itself (nothing to allocate or copy). */
bool value_coerce_is_identity(const Value *v, const Shape *s);

/* Iterates the compiled shapes: *pos starts at 0; NULL at the end. */
const ArrayInfo *value_ctx_next_info(const ValueCtx *vc, int *pos);

/* --- dynamic sizes --- */
/* Runtime size of dimension d of array v (its bound unless v->dyn says less). */
static inline int64_t value_dim_size(const Value *v, int d) {
  return v->dyn ? v->dyn[d] : v->info->dims[d];
}
/* Sets v's sizes (rank entries; NULL = the bounds).  Sizes equal to the
 * bounds store nothing.  False on out of memory. */
bool value_set_dyn(Value *v, const int64_t *sizes);
/* Copies the valid elements of array v (indices below its sizes) from its
 * dense bounded view `dense` to `out`, dense row-major with the sizes as
 * dims. */
void value_dense_valid(const Value *v, const void *dense, void *out);
/* Whether v, or any leaf of a tuple v, has a size below its bound. */
bool value_has_dyn(const Value *v);

/* Total physical bytes of all array leaves. */
int64_t value_phys_bytes(const Value *v);

#endif
