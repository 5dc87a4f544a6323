#include "interp/report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/cost_model.h"
#include "interp/io/atomic_file.h"
#include "parser/opcode_flags.h"

/* The page template (interp/report_page.html, embedded by CMake). */
extern const unsigned char report_page_html[];
extern const size_t report_page_html_len;

/* A JSON string.  <, > and & are escaped too: a name holding "</script>"
 * cannot end the data's script element. */
static void jstr(StrBuf *o, const char *s) {
  if (!s) {
    sb_puts(o, "null");
    return;
  }
  sb_putc(o, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      sb_putc(o, '\\');
      sb_putc(o, (char)*p);
    } else if (*p < 0x20 || *p == '<' || *p == '>' || *p == '&') {
      sb_printf(o, "\\u%04x", *p);
    } else {
      sb_putc(o, (char)*p);
    }
  }
  sb_putc(o, '"');
}

static void jnum(StrBuf *o, double v) {
  if (v != v || v > 1e300 || v < -1e300) sb_puts(o, "null");
  else sb_printf(o, "%.9g", v);
}

/* Line index of the module's source: offsets of line starts. */
typedef struct Lines {
  int64_t *start;
  int64_t n;
} Lines;

static bool lines_init(Lines *l, const Module *m) {
  l->n = 0;
  l->start = NULL;
  if (!m->source) return true;
  int64_t cap = 1024;
  l->start = malloc((size_t)cap * sizeof *l->start);
  if (!l->start) return false;
  l->start[l->n++] = 0;
  for (size_t i = 0; i < m->source_len; i++)
    if (m->source[i] == '\n') {
      if (l->n == cap) {
        int64_t *s = realloc(l->start, (size_t)(cap *= 2) * sizeof *s);
        if (!s) return false;
        l->start = s;
      }
      l->start[l->n++] = (int64_t)i + 1;
    }
  return true;
}

static int64_t line_of(const Lines *l, int64_t off) {
  if (!l->n || off < 0) return 0;
  int64_t lo = 0, hi = l->n - 1;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) / 2;
    if (l->start[mid] <= off) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/* Instructions the data names, numbered in first-use order: the page's
 * "instrs" table (name, opcode, computation, line). */
typedef struct InstrIds {
  const Instr **list;
  int n, cap;
  int hcap;
  int32_t *hash; /* pointer -> index + 1 */
} InstrIds;

static uint32_t ptr_hash(const void *k) {
  uint64_t x = (uint64_t)(uintptr_t)k;
  x ^= x >> 31;
  x *= 0x9e3779b97f4a7c15ull;
  return (uint32_t)(x >> 32);
}

/* The id of in (-1 for NULL, -2 when out of memory). */
static int instr_id(InstrIds *ids, const Instr *in) {
  if (!in) return -1;
  if (2 * (ids->n + 1) > ids->hcap) {
    int cap = ids->hcap ? 2 * ids->hcap : 1024;
    int32_t *h = calloc((size_t)cap, sizeof *h);
    if (!h) return -2;
    for (int i = 0; i < ids->n; i++) {
      uint32_t j = ptr_hash(ids->list[i]) & (uint32_t)(cap - 1);
      while (h[j]) j = (j + 1) & (uint32_t)(cap - 1);
      h[j] = i + 1;
    }
    free(ids->hash);
    ids->hash = h;
    ids->hcap = cap;
  }
  uint32_t j = ptr_hash(in) & (uint32_t)(ids->hcap - 1);
  while (ids->hash[j]) {
    if (ids->list[ids->hash[j] - 1] == in) return ids->hash[j] - 1;
    j = (j + 1) & (uint32_t)(ids->hcap - 1);
  }
  if (ids->n == ids->cap) {
    int cap = ids->cap ? 2 * ids->cap : 1024;
    const Instr **l = realloc(ids->list, (size_t)cap * sizeof *l);
    if (!l) return -2;
    ids->list = l;
    ids->cap = cap;
  }
  ids->list[ids->n] = in;
  ids->hash[j] = ids->n + 1;
  return ids->n++;
}

/* Whether record r was live at event e of its slot. */
static bool live_at(const MemTrackRec *r, int64_t e) {
  return r->born <= e && (r->died < 0 || e < r->died);
}

/* Whether r is live at one of its slot's point moments or at the peak:
 * only those buffers can appear in the page's table. */
static bool shown(const MemTrack *t, const MemTrackRec *r) {
  const MemTrackSlot *s = &t->slots[r->slot];
  if (live_at(r, s->peak_event)) return true;
  /* The points' events ascend: if r is live at any of them, it is live at
   * the first one at or after its birth. */
  int lo = 0, hi = t->npoints;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (s->event[mid] < r->born) lo = mid + 1;
    else hi = mid;
  }
  return lo < t->npoints && s->max[lo] >= 0 && live_at(r, s->event[lo]);
}

static bool device_json(StrBuf *o, const ReportDevice *d, InstrIds *ids) {
  const MemTrack *t = d->track;
  sb_puts(o, "{\"name\":");
  jstr(o, d->name);
  sb_printf(o, ",\"steps\":%" PRId64 ",\"width\":%" PRId64 ",\"truncated\":%s", t->step, t->width,
            t->truncated ? "true" : "false");
  sb_printf(o, ",\"allocs\":%" PRId64 ",\"allocLogical\":%" PRId64 ",\"allocPhysical\":%" PRId64,
            t->nallocs, t->alloc_logical, t->alloc_physical);
  if (t->oom) {
    int id = instr_id(ids, t->oom_instr);
    if (id < -1) return false;
    sb_printf(o, ",\"oom\":{\"space\":%" PRId64 ",\"bytes\":%" PRId64 ",\"instr\":%d}", t->oom_space,
              t->oom_bytes, id);
  }
  sb_puts(o, ",\"spaces\":[");
  for (int k = 0; k < t->nslots; k++) {
    const MemTrackSlot *s = &t->slots[k];
    int pid = instr_id(ids, s->peak_instr);
    if (pid < -1) return false;
    sb_printf(o, "%s{\"id\":%" PRId64 ",\"name\":", k ? "," : "", s->id);
    jstr(o, s->name);
    if (s->capacity == MEM_UNLIMITED) sb_puts(o, ",\"capacity\":null");
    else sb_printf(o, ",\"capacity\":%" PRId64, s->capacity);
    sb_printf(o, ",\"peak\":%" PRId64 ",\"peakEvent\":%" PRId64 ",\"peakStep\":%" PRId64
                 ",\"peakInstr\":%d,\"points\":[",
              s->peak, s->peak_event, s->peak_step, pid);
    /* [step, live bytes, event, instr] per point that has data. */
    bool first = true;
    for (int b = 0; b < t->npoints; b++) {
      if (s->max[b] < 0) continue;
      int id = instr_id(ids, s->instr[b]);
      if (id < -1) return false;
      sb_printf(o, "%s[%" PRId64 ",%" PRId64 ",%" PRId64 ",%d]", first ? "" : ",", (int64_t)b * t->width,
                s->max[b], s->event[b], id);
      first = false;
    }
    sb_puts(o, "]}");
  }
  /* [instr, shape, slot, born, died, born step, died step, bytes] */
  sb_puts(o, "],\"buffers\":[");
  bool first = true;
  for (int64_t i = 0; i < t->nrecs; i++) {
    const MemTrackRec *r = &t->recs[i];
    if (!shown(t, r)) continue;
    int id = instr_id(ids, r->def);
    if (id < -1) return false;
    int64_t bytes = r->shape >= 0 ? t->shapes[r->shape].physical : 0;
    sb_printf(o, "%s[%d,%d,%d,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "]",
              first ? "" : ",", id, r->shape, r->slot, r->born, r->died, r->born_step, r->died_step,
              bytes);
    first = false;
  }
  /* [text, logical, physical, padding cause] */
  sb_puts(o, "],\"shapes\":[");
  for (int i = 0; i < t->nshapes; i++) {
    const MemTrackShape *s = &t->shapes[i];
    sb_puts(o, i ? ",[" : "[");
    jstr(o, s->text);
    sb_printf(o, ",%" PRId64 ",%" PRId64 ",", s->logical, s->physical);
    jstr(o, s->cause);
    sb_putc(o, ']');
  }
  sb_puts(o, "]}");
  return !o->oom;
}

static bool data_json(const ReportInput *in, StrBuf *o) {
  InstrIds ids = {0};
  Lines lines;
  bool ok = lines_init(&lines, in->module);
  sb_puts(o, "{\"module\":");
  jstr(o, in->module->name);
  sb_puts(o, ",\"file\":");
  jstr(o, in->module->filename);
  sb_puts(o, ",\"mode\":");
  jstr(o, in->mode);
  sb_puts(o, ",\"device\":");
  jstr(o, in->device);
  sb_puts(o, ",\"error\":");
  jstr(o, in->error);
  sb_puts(o, ",\"devices\":[");
  for (int d = 0; ok && d < in->ndevices; d++) {
    if (d) sb_putc(o, ',');
    ok = device_json(o, &in->devices[d], &ids);
  }
  /* [instr, executions, flops, transcendentals, bytes, compute s, memory s,
   * estimate s, bound, bound space] */
  sb_puts(o, "],\"cost\":[");
  for (int i = 0; ok && i < in->ncost; i++) {
    const ReportCost *c = &in->cost[i];
    int id = instr_id(&ids, c->instr);
    if (id < -1) ok = false;
    sb_printf(o, "%s[%d,%" PRId64 ",", i ? "," : "", id, c->count);
    jnum(o, c->flops);
    sb_putc(o, ',');
    jnum(o, c->transcendentals);
    sb_printf(o, ",%" PRId64 ",", c->bytes);
    jnum(o, c->compute_s);
    sb_putc(o, ',');
    jnum(o, c->memory_s);
    sb_putc(o, ',');
    jnum(o, c->estimate_s);
    sb_putc(o, ',');
    jstr(o, cost_bound_name((CostBound)c->bound));
    sb_printf(o, ",%" PRId64 "]", c->bound_space);
  }
  /* [name, opcode, computation, line] */
  sb_puts(o, "],\"instrs\":[");
  for (int i = 0; ok && i < ids.n; i++) {
    const Instr *x = ids.list[i];
    sb_puts(o, i ? ",[" : "[");
    jstr(o, x->name);
    sb_putc(o, ',');
    jstr(o, opcode_name(x->op));
    sb_putc(o, ',');
    jstr(o, x->parent ? x->parent->name : NULL);
    sb_printf(o, ",%" PRId64 "]", line_of(&lines, x->offset));
  }
  sb_puts(o, "]}");
  free(lines.start);
  free(ids.list);
  free(ids.hash);
  return ok && !o->oom;
}

bool report_html(const ReportInput *in, StrBuf *out) {
  static const char marker[] = "@REPORT_DATA@";
  const char *page = (const char *)report_page_html;
  const char *at = strstr(page, marker);
  if (!at) return false; /* the build embedded a broken template */
  sb_append(out, page, (size_t)(at - page));
  if (!data_json(in, out)) return false;
  const char *rest = at + sizeof marker - 1;
  sb_append(out, rest, report_page_html_len - (size_t)(rest - page));
  return !out->oom;
}

bool report_write(const char *path, const ReportInput *in, Error *err) {
  StrBuf sb;
  sb_init(&sb);
  if (!report_html(in, &sb)) {
    sb_free(&sb);
    return error_set(err, ERR_RUNTIME, -1, "%s: out of memory building the report", path);
  }
  AtomicFile af;
  if (!atomic_open(&af, path, err)) {
    sb_free(&sb);
    return false;
  }
  bool ok = fwrite(sb.data, 1, sb.len, af.f) == sb.len;
  sb_free(&sb);
  if (!ok) {
    atomic_close(&af, false, NULL);
    return error_set(err, ERR_RUNTIME, -1, "%s: cannot write the report", path);
  }
  return atomic_close(&af, true, err);
}

bool report_costs_of_run(const RunResult *res, ReportCost **out, int *n) {
  *out = NULL;
  *n = 0;
  ReportCost *c = calloc((size_t)(res->ninstr_stats ? res->ninstr_stats : 1), sizeof *c);
  if (!c) return false;
  int k = 0;
  for (int i = 0; i < res->ninstr_stats; i++) {
    const RunInstrStat *r = &res->instr_stats[i];
    if (!r->costed) continue;
    c[k] = (ReportCost){r->instr, r->s.count, r->flops, r->transcendentals,
                        r->s.bytes_read + r->s.bytes_written, r->compute_s, r->memory_s,
                        r->estimate_s, r->bound, r->bound_space};
    k++;
  }
  *out = c;
  *n = k;
  return true;
}
