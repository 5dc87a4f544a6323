/* The memory timeline (interp/mem_track.h): bucketing keeps the true peak
 * and its moment, live ranges in events, interned shapes with their
 * padding cause.  Expected values are derived by hand in the comments. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "interp/mem_track.h"
#include "parser/parser.h"

static MemSystem mem;

static void setup(void) {
  mem_init(&mem);
  Error err;
  cr_assert(mem_add_space(&mem, 0, "HBM", 1 << 20, 1e9, &err));
}

TestSuite(mem_track, .init = setup);

/* 10000 steps, each allocating 10 bytes and releasing them; step 7777
 * holds an extra 5000 bytes for one step.  10000 steps need a width of 8
 * (2048 points cover 16384 steps at 8, only 8192 at 4). */
Test(mem_track, buckets_keep_the_peak) {
  MemTrack *t = memtrack_new(NULL, true);
  cr_assert_not_null(t);
  int slot = memtrack_slot(t, &mem, 0);
  cr_assert_eq(slot, 0);
  int64_t peak_event = -1;
  for (int s = 0; s < 10000; s++) {
    memtrack_step(t, NULL);
    int64_t r = memtrack_alloc_raw(t, slot, -1, NULL, 10);
    if (s == 7777) {
      int64_t big = memtrack_alloc_raw(t, slot, -1, NULL, 5000);
      peak_event = t->event;
      memtrack_release_raw(t, slot, big, 5000);
    }
    memtrack_release_raw(t, slot, r, 10);
  }
  cr_assert_eq(t->width, 8);
  cr_assert_eq(t->npoints, 1250); /* ceil(10000 / 8) */
  const MemTrackSlot *s = &t->slots[0];
  cr_assert_eq(s->peak, 5010);
  cr_assert_eq(s->peak_step, 7777);
  cr_assert_eq(s->peak_event, peak_event);
  /* The point of step 7777 (7777 / 8 = 972) keeps 5010 at that event;
   * every other point's highest is 10. */
  for (int b = 0; b < t->npoints; b++) {
    if (b == 972) {
      cr_assert_eq(s->max[b], 5010);
      cr_assert_eq(s->event[b], peak_event);
    } else {
      cr_assert_eq(s->max[b], 10, "point %d: %lld", b, (long long)s->max[b]);
    }
  }
  cr_assert_eq(t->nrecs, 10001);
  cr_assert_eq(s->live, 0);
  memtrack_free(t);
}

/* A buffer is live from its allocation event to (not including) its
 * release event; a release without a record (-1) only counts bytes. */
Test(mem_track, live_ranges_in_events) {
  MemTrack *t = memtrack_new(NULL, true);
  int slot = memtrack_slot(t, &mem, 0);
  memtrack_step(t, NULL);
  int64_t a = memtrack_alloc_raw(t, slot, -1, NULL, 100); /* event 1 */
  memtrack_step(t, NULL);
  int64_t b = memtrack_alloc_raw(t, slot, -1, NULL, 50);  /* event 2 */
  memtrack_release_raw(t, slot, a, 100);                  /* event 3 */
  cr_assert_eq(t->recs[a].born, 1);
  cr_assert_eq(t->recs[a].died, 3);
  cr_assert_eq(t->recs[a].died_step, 1);
  cr_assert_eq(t->recs[b].born, 2);
  cr_assert_eq(t->recs[b].died, -1);
  cr_assert_eq(t->slots[0].peak, 150);
  cr_assert_eq(t->slots[0].peak_event, 2);
  cr_assert_eq(t->slots[0].live, 50);
  memtrack_free(t);
}

/* f32[3,100]{1,0:T(8,128)}: 8 x 128 x 4 = 4096 bytes padded, 1200
 * logical; the first cause is dim0, 3 -> 8, from the tile T(8,128). */
Test(mem_track, shapes_interned_with_cause) {
  MemTrack *t = memtrack_new(NULL, false);
  Error err;
  Arena *arena = arena_new();
  static const char text[] = "f32[3,100]{1,0:T(8,128)}";
  Shape shape;
  cr_assert(parse_shape_text(text, sizeof text - 1, arena, &shape, &err), "%s", err.msg);
  const Shape *s = &shape;
  int i = memtrack_shape(t, s, s, NULL);
  cr_assert_eq(i, 0);
  cr_assert_eq(memtrack_shape(t, s, s, NULL), 0); /* same key, same entry */
  cr_assert_str_eq(t->shapes[0].text, "f32[3,100]{1,0:T(8,128)}");
  cr_assert_eq(t->shapes[0].physical, 4096);
  cr_assert_eq(t->shapes[0].logical, 1200);
  cr_assert_str_eq(t->shapes[0].cause, "dim0 3 -> 8 (tile T(8,128))");
  memtrack_free(t);
  arena_free(arena);
}
