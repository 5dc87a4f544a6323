#include "interp/mem_track.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/value.h"
#include "layout/layout_explain.h"

MemTrack *memtrack_new(const Module *m, bool record) {
  MemTrack *t = calloc(1, sizeof *t);
  if (!t) return NULL;
  t->module = m;
  t->record = record;
  t->width = 1;
  return t;
}

void memtrack_free(MemTrack *t) {
  if (!t) return;
  for (int i = 0; i < t->nslots; i++) {
    free(t->slots[i].max);
    free(t->slots[i].event);
    free(t->slots[i].instr);
  }
  for (int i = 0; i < t->nshapes; i++) {
    free(t->shapes[i].text);
    free(t->shapes[i].cause);
  }
  free(t->shapes);
  free(t->shape_hash);
  free(t->recs);
  free(t);
}

/* The point the current step falls in (steps before the first instruction,
 * parameters bound by the run, go with it). */
static int64_t cur_point(const MemTrack *t) {
  int64_t s = t->step > 0 ? t->step - 1 : 0;
  return s / t->width;
}

/* Point b of slot s reaches the slot's live bytes if higher than before. */
static void touch(MemTrack *t, MemTrackSlot *s, int64_t b) {
  if (!s->max || s->live <= s->max[b]) return;
  s->max[b] = s->live;
  s->event[b] = t->event;
  s->instr[b] = t->cur;
}

/* Halves the number of points: each pair keeps its higher one (the first
 * on a tie), so the highest live bytes and their moment survive. */
static void merge_points(MemTrack *t) {
  for (int k = 0; k < t->nslots; k++) {
    MemTrackSlot *s = &t->slots[k];
    if (!s->max) continue;
    for (int b = 0; b < MEMTRACK_POINTS / 2; b++) {
      int w = s->max[2 * b + 1] > s->max[2 * b] ? 2 * b + 1 : 2 * b;
      s->max[b] = s->max[w];
      s->event[b] = s->event[w];
      s->instr[b] = s->instr[w];
    }
    for (int b = MEMTRACK_POINTS / 2; b < MEMTRACK_POINTS; b++) s->max[b] = -1;
  }
  t->npoints = (t->npoints + 1) / 2;
  t->width *= 2;
}

void memtrack_step(MemTrack *t, const Instr *in) {
  t->cur = in;
  t->step++;
  if (!t->record) return;
  int64_t b = cur_point(t);
  if (b >= MEMTRACK_POINTS) {
    merge_points(t);
    b = cur_point(t);
  }
  if (b + 1 > t->npoints) t->npoints = (int)b + 1;
  for (int k = 0; k < t->nslots; k++) touch(t, &t->slots[k], b);
}

int memtrack_slot(MemTrack *t, const MemSystem *mem, int64_t id) {
  for (int k = 0; k < t->nslots; k++)
    if (t->slots[k].id == id) return k;
  if (t->nslots >= MEM_MAX_SPACES) return -1;
  MemTrackSlot *s = &t->slots[t->nslots];
  memset(s, 0, sizeof *s);
  s->id = id;
  s->capacity = MEM_UNLIMITED;
  s->peak_event = s->peak_step = -1;
  snprintf(s->name, sizeof s->name, "S(%" PRId64 ")", id);
  const MemSpace *ms = mem ? mem_find((MemSystem *)mem, id) : NULL;
  if (ms) {
    snprintf(s->name, sizeof s->name, "%s", ms->name);
    s->capacity = ms->capacity;
  }
  if (t->record) {
    s->max = malloc(MEMTRACK_POINTS * sizeof *s->max);
    s->event = malloc(MEMTRACK_POINTS * sizeof *s->event);
    s->instr = malloc(MEMTRACK_POINTS * sizeof *s->instr);
    if (!s->max || !s->event || !s->instr) {
      free(s->max);
      free(s->event);
      free(s->instr);
      return -1;
    }
    /* Points before the space was first used had nothing in it. */
    for (int b = 0; b < MEMTRACK_POINTS; b++) {
      s->max[b] = b < t->npoints ? 0 : -1;
      s->event[b] = 0;
      s->instr[b] = NULL;
    }
  }
  return t->nslots++;
}

int64_t memtrack_alloc_raw(MemTrack *t, int slot, int shape, const Instr *def, int64_t nbytes) {
  MemTrackSlot *s = &t->slots[slot];
  t->event++;
  s->live += nbytes;
  t->nallocs++;
  t->alloc_physical += nbytes;
  t->alloc_logical += shape >= 0 ? t->shapes[shape].logical : nbytes;
  if (s->live > s->peak) {
    s->peak = s->live;
    s->peak_event = t->event;
    s->peak_step = t->step > 0 ? t->step - 1 : 0;
    s->peak_instr = t->cur;
  }
  if (!t->record) return -1;
  int64_t b = cur_point(t);
  if (b + 1 > t->npoints) t->npoints = (int)b + 1;
  touch(t, s, b);
  if (t->nrecs >= MEMTRACK_MAX_RECORDS) {
    t->truncated = true;
    return -1;
  }
  if (t->nrecs == t->recs_cap) {
    int64_t cap = t->recs_cap ? t->recs_cap * 2 : 1024;
    MemTrackRec *r = realloc(t->recs, (size_t)cap * sizeof *r);
    if (!r) {
      t->truncated = true;
      return -1;
    }
    t->recs = r;
    t->recs_cap = cap;
  }
  MemTrackRec *r = &t->recs[t->nrecs];
  r->def = def;
  r->shape = shape;
  r->slot = slot;
  r->born = t->event;
  r->died = -1;
  r->born_step = t->step > 0 ? t->step - 1 : 0;
  r->died_step = -1;
  return t->nrecs++;
}

void memtrack_release_raw(MemTrack *t, int slot, int64_t rec, int64_t nbytes) {
  t->event++;
  t->slots[slot].live -= nbytes;
  if (rec >= 0 && rec < t->nrecs) {
    t->recs[rec].died = t->event;
    t->recs[rec].died_step = t->step > 0 ? t->step - 1 : 0;
  }
}

/* "dim1 5 -> 128 (T(8,128))": the first dim a tile (or L(n)) pads. */
static char *pad_cause(const Shape *s, const LayoutPlan *p) {
  LayoutPadCause c[1];
  if (layout_padding_causes(p, c, 1) < 1) return NULL;
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s %" PRId64 " -> %" PRId64, c[0].what, c[0].size, c[0].padded);
  if (c[0].level > 0 && c[0].level <= s->layout.ntiles) {
    const Tile *tl = &s->layout.tiles[c[0].level - 1];
    sb_puts(&sb, " (tile T(");
    for (int i = 0; i < tl->rank; i++)
      if (tl->dims[i] == TILE_DIM_COMBINE) sb_printf(&sb, "%s*", i ? "," : "");
      else sb_printf(&sb, "%s%" PRId64, i ? "," : "", tl->dims[i]);
    sb_puts(&sb, "))");
  }
  if (sb.oom) {
    sb_free(&sb);
    return NULL;
  }
  return sb_take(&sb);
}

static uint32_t key_hash(const void *k) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (uint32_t)x;
}

static bool shape_rehash(MemTrack *t, int cap) {
  int32_t *h = calloc((size_t)cap, sizeof *h);
  if (!h) return false;
  for (int i = 0; i < t->nshapes; i++) {
    uint32_t j = key_hash(t->shapes[i].key) & (uint32_t)(cap - 1);
    while (h[j]) j = (j + 1) & (uint32_t)(cap - 1);
    h[j] = i + 1;
  }
  free(t->shape_hash);
  t->shape_hash = h;
  t->shape_hcap = cap;
  return true;
}

int memtrack_shape(MemTrack *t, const void *key, const Shape *s, const LayoutPlan *p) {
  if (t->shape_hcap) {
    uint32_t j = key_hash(key) & (uint32_t)(t->shape_hcap - 1);
    while (t->shape_hash[j]) {
      if (t->shapes[t->shape_hash[j] - 1].key == key) return t->shape_hash[j] - 1;
      j = (j + 1) & (uint32_t)(t->shape_hcap - 1);
    }
  }
  if (2 * (t->nshapes + 1) > t->shape_hcap &&
      !shape_rehash(t, t->shape_hcap ? 2 * t->shape_hcap : 256))
    return -1;
  if (t->nshapes == t->shapes_cap) {
    int cap = t->shapes_cap ? 2 * t->shapes_cap : 64;
    MemTrackShape *n = realloc(t->shapes, (size_t)cap * sizeof *n);
    if (!n) return -1;
    t->shapes = n;
    t->shapes_cap = cap;
  }
  MemTrackShape *e = &t->shapes[t->nshapes];
  memset(e, 0, sizeof *e);
  e->key = key;
  StrBuf sb;
  sb_init(&sb);
  shape_print(&sb, s);
  if (sb.oom) {
    sb_free(&sb);
    return -1;
  }
  e->text = sb_take(&sb);
  LayoutPlan own;
  bool planned = false;
  if (!p) {
    Error err;
    planned = layout_plan_init(&own, s, &err);
    if (planned) p = &own;
  }
  if (p) {
    e->logical = p->logical_bytes;
    e->physical = p->physical_bytes;
    e->cause = pad_cause(s, p);
  }
  if (planned) layout_plan_free(&own);
  int idx = t->nshapes++;
  uint32_t j = key_hash(key) & (uint32_t)(t->shape_hcap - 1);
  while (t->shape_hash[j]) j = (j + 1) & (uint32_t)(t->shape_hcap - 1);
  t->shape_hash[j] = idx + 1;
  return idx;
}

void memtrack_buffer_alloc(MemTrack *t, const MemSystem *mem, Buffer *b, const ArrayInfo *ai) {
  int slot = memtrack_slot(t, mem, b->space);
  if (slot < 0) return; /* the space table is full: untracked */
  int shape = ai ? memtrack_shape(t, ai, ai->shape, &ai->plan) : -1;
  b->tracked = true;
  b->tslot = slot;
  b->tshape = shape;
  b->tdef = t->cur;
  b->trec = memtrack_alloc_raw(t, slot, shape, t->cur, b->nbytes);
  b->tprev = NULL;
  b->tnext = t->live;
  if (t->live) t->live->tprev = b;
  t->live = b;
  t->nlive++;
}

void memtrack_buffer_release(MemTrack *t, Buffer *b) {
  memtrack_release_raw(t, b->tslot, b->trec, b->nbytes);
  if (b->tprev) b->tprev->tnext = b->tnext;
  else t->live = b->tnext;
  if (b->tnext) b->tnext->tprev = b->tprev;
  b->tprev = b->tnext = NULL;
  b->tracked = false;
  t->nlive--;
}

int64_t memtrack_line(const Module *m, int64_t offset) {
  if (!m || !m->source || offset < 0 || (size_t)offset > m->source_len) return 0;
  SourcePlace at = module_source_place(m, offset); /* the .mlir line for StableHLO */
  if (at.offset < 0 || (size_t)at.offset > at.len) return 0;
  int64_t line = 1;
  const char *p = at.text, *end = at.text + at.offset;
  while ((p = memchr(p, '\n', (size_t)(end - p)))) {
    line++;
    p++;
  }
  return line;
}

/* Largest first; equal sizes in source order of their definitions (the
 * message must not depend on qsort's order of ties). */
static int cmp_size_desc(const void *a, const void *b) {
  const Buffer *p = *(Buffer *const *)a, *q = *(Buffer *const *)b;
  if (p->nbytes != q->nbytes) return p->nbytes < q->nbytes ? 1 : -1;
  int64_t x = p->tdef ? p->tdef->offset : -1, y = q->tdef ? q->tdef->offset : -1;
  return x < y ? -1 : x > y ? 1 : 0;
}

void memtrack_oom_text(const MemTrack *t, int64_t id, int top, StrBuf *out) {
  int slot = -1;
  for (int k = 0; k < t->nslots; k++)
    if (t->slots[k].id == id) slot = k;
  if (top <= 0) return;
  int64_t n = 0, phys = 0, logical = 0;
  for (const Buffer *b = t->live; b; b = b->tnext)
    if (b->tslot == slot) n++;
  if (n == 0) return; /* nothing live there: the request alone is too big */
  Buffer **list = malloc((size_t)n * sizeof *list);
  if (!list) return;
  int64_t k = 0;
  for (Buffer *b = t->live; b; b = b->tnext)
    if (b->tslot == slot) {
      list[k++] = b;
      phys += b->nbytes;
      /* A buffer of unknown shape counts as unpadded. */
      logical += b->tshape >= 0 ? t->shapes[b->tshape].logical : b->nbytes;
    }
  qsort(list, (size_t)n, sizeof *list, cmp_size_desc);
  char a[48], l[48];
  mem_format_bytes(phys, a, sizeof a);
  mem_format_bytes(phys - logical, l, sizeof l);
  sb_printf(out, "\n%" PRId64 " buffers live in S(%" PRId64 ") use %s, %s of it (%.1f%%) padding",
            n, id, a, l, phys ? 100.0 * (double)(phys - logical) / (double)phys : 0.0);
  sb_printf(out, "; the largest:");
  for (int64_t i = 0; i < n && i < top; i++) {
    const Buffer *b = list[i];
    const MemTrackShape *s = b->tshape >= 0 ? &t->shapes[b->tshape] : NULL;
    mem_format_bytes(b->nbytes, a, sizeof a);
    mem_format_bytes(s ? s->logical : b->nbytes, l, sizeof l);
    sb_printf(out, "\n  %" PRId64 ". %s %s: %s padded, %s unpadded", i + 1,
              b->tdef ? b->tdef->name : "(input)", s ? s->text : "?", a, l);
    if (s && s->logical > 0 && s->physical != s->logical)
      sb_printf(out, " (x%.2f: %s)", (double)s->physical / (double)s->logical,
                s->cause ? s->cause : "padding");
    if (b->tdef) {
      int64_t line = memtrack_line(t->module, b->tdef->offset);
      if (line > 0) sb_printf(out, ", line %" PRId64, line);
    } else {
      sb_puts(out, ", an entry parameter");
    }
  }
  free(list);
}
