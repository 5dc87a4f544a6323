/* The memory timeline of a run (hlorun --report, docs/report.md) and the
 * buffers live when a memory space runs out (the out-of-memory report).
 *
 * A MemTrack follows every buffer accounted in a memory space: who defined
 * it (the instruction running when it was allocated), its shape with layout,
 * logical and padded bytes.  It always keeps the set of live buffers (cheap:
 * an intrusive list through Buffer), which the out-of-memory message lists;
 * when `record` is set it also keeps
 *   - the live bytes of each space over program order (one step per
 *     executed instruction), bucketed to at most MEMTRACK_POINTS points:
 *     each point keeps the highest live bytes of its steps and the moment
 *     it was reached, so the true peak is never lost;
 *   - every buffer's live range in "events" (allocations and releases,
 *     numbered), which tells exactly which buffers were live at a point's
 *     highest moment.
 * hlolayout --report drives the same tracker from the plan's liveness
 * instead of a run (memtrack_alloc_raw / memtrack_release_raw). */
#ifndef HLO_INTERP_MEM_TRACK_H
#define HLO_INTERP_MEM_TRACK_H

#include <stdbool.h>
#include <stdint.h>

#include "base/strbuf.h"
#include "interp/memspace.h"
#include "layout/layout.h"
#include "parser/ir.h"

enum { MEMTRACK_POINTS = 2048, MEMTRACK_MAX_RECORDS = 4000000 };

/* An interned shape: text, sizes and the first padding cause. */
typedef struct MemTrackShape {
  const void *key;
  char *text;     /* "f32[3,5]{1,0:T(8,128)}" */
  char *cause;    /* "dim1 5 -> 128 (tile T(8,128))", or NULL: no padding */
  int64_t logical, physical;
} MemTrackShape;

typedef struct MemTrackRec {
  const Instr *def;       /* NULL: bound before the first instruction */
  int32_t shape, slot;    /* MemTrack.shapes / .slots index */
  int64_t born, died;     /* event numbers; died = -1 while live */
  int64_t born_step, died_step;
} MemTrackRec;

typedef struct MemTrackSlot {
  int64_t id;               /* S(n) */
  char name[MEM_NAME_MAX];
  int64_t capacity;
  int64_t live, peak;
  int64_t peak_event, peak_step;
  const Instr *peak_instr;
  /* Per point: highest live bytes, the event and instruction it was at. */
  int64_t *max, *event;
  const Instr **instr;
} MemTrackSlot;

typedef struct MemTrack {
  const Module *module;      /* for source lines */
  bool record;
  bool truncated;            /* more than MEMTRACK_MAX_RECORDS buffers */
  const Instr *cur;          /* the instruction running */
  int64_t step, event;       /* steps begun, allocations + releases */
  int64_t width;             /* steps per point (a power of two) */
  int npoints;               /* points in use */
  int nslots;
  MemTrackSlot slots[MEM_MAX_SPACES];
  int nshapes, shapes_cap;
  MemTrackShape *shapes;
  int shape_hcap;            /* open addressing: key -> shape index + 1 */
  int32_t *shape_hash;
  int64_t nrecs, recs_cap;
  MemTrackRec *recs;
  int64_t nlive;             /* buffers live (OOM listing) */
  /* Every buffer allocated: count, logical and padded bytes (the page's
   * total padding overhead). */
  int64_t nallocs, alloc_logical, alloc_physical;
  struct Buffer *live;       /* intrusive list of live tracked buffers */
  /* What stopped the run, when it stopped on a full space: the space and
   * the size asked for (the report marks it). */
  bool oom;
  int64_t oom_space, oom_bytes;
  const Instr *oom_instr;
} MemTrack;

MemTrack *memtrack_new(const Module *m, bool record);
void memtrack_free(MemTrack *t);

/* A buffer accounted in its space (interp/value.c calls these for every
 * counted buffer): b->info says its shape; the instruction running defines it. */
struct Buffer;
struct ArrayInfo;
void memtrack_buffer_alloc(MemTrack *t, const MemSystem *mem, struct Buffer *b,
                           const struct ArrayInfo *ai);
void memtrack_buffer_release(MemTrack *t, struct Buffer *b);

/* Starts the step of instruction in (before it runs). */
void memtrack_step(MemTrack *t, const Instr *in);

/* The space slot of id (made from mem's space on first use); -1 when full. */
int memtrack_slot(MemTrack *t, const MemSystem *mem, int64_t id);

/* Raw form: one buffer of `nbytes` in space slot `slot` with interned shape
 * `shape` defined by def; returns its record (-1 when not recorded). */
int64_t memtrack_alloc_raw(MemTrack *t, int slot, int shape, const Instr *def, int64_t nbytes);
void memtrack_release_raw(MemTrack *t, int slot, int64_t rec, int64_t nbytes);
/* The interned shape of key (s with plan p, or p NULL: planned here);
 * -1 when out of memory. */
int memtrack_shape(MemTrack *t, const void *key, const Shape *s, const LayoutPlan *p);

/* Appends the out-of-memory listing for space id: the largest live buffers
 * (at most `top`), each with shape, padded and logical size, defining
 * instruction and its line, and the padding share of the space; nothing
 * when no buffer is live there. */
void memtrack_oom_text(const MemTrack *t, int64_t id, int top, StrBuf *out);

/* Line (1-based) of a byte offset of m's source; 0 when unknown.  Counts
 * newlines up to it: for a few messages (a report builds its own index). */
int64_t memtrack_line(const Module *m, int64_t offset);

#endif
