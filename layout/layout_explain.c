/* Explanations for hlolayout (see layout_explain.h).  Dims of intermediate
 * shapes are named after the logical dims they come from: "dim0", merged
 * "dim0*dim1", tile-grid "dim0/2", within-tile "dim0%2", added "1". */
#include "layout/layout_explain.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LABEL_MAX = 96 };
typedef char Label[LABEL_MAX];

void layout_lines_add(LayoutLines *l, const char *fmt, ...) {
  if (l->count == l->cap) {
    int cap = l->cap ? l->cap * 2 : 16;
    char **items = realloc(l->items, (size_t)cap * sizeof *items);
    if (!items) return;
    l->items = items;
    l->cap = cap;
  }
  char buf[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *s = strdup(buf);
  if (s) l->items[l->count++] = s;
}

void layout_lines_free(LayoutLines *l) {
  for (int i = 0; i < l->count; i++) free(l->items[i]);
  free(l->items);
  memset(l, 0, sizeof *l);
}

void layout_fmt_tuple(StrBuf *sb, const int64_t *v, int n, char open, char close) {
  sb_putc(sb, open);
  for (int i = 0; i < n; i++) sb_printf(sb, i ? ",%lld" : "%lld", (long long)v[i]);
  sb_putc(sb, close);
}

/* Tuple text in a static-free way: caller-provided buffer. */
static const char *tup(char *buf, size_t n, const int64_t *v, int rank, char open, char close) {
  StrBuf sb;
  sb_init(&sb);
  layout_fmt_tuple(&sb, v, rank, open, close);
  snprintf(buf, n, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
  return buf;
}

static void tile_text(char *buf, size_t n, const LayoutLevel *lv) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "T(");
  for (int j = 0; j < lv->tile_rank; j++) {
    if (j) sb_putc(&sb, ',');
    if (lv->written[j] == TILE_DIM_COMBINE)
      sb_putc(&sb, '*');
    else
      sb_printf(&sb, "%lld", (long long)lv->written[j]);
  }
  sb_putc(&sb, ')');
  snprintf(buf, n, "%s", sb.data);
  sb_free(&sb);
}

static bool is_compound(const char *l) { return strpbrk(l, "*/%") != NULL; }

/* Labels of level t's input dims (t == nlevels: the final shape). */
static void level_labels(const LayoutPlan *p, int t, Label *out) {
  Label a[LAYOUT_MAX_DIMS], b[LAYOUT_MAX_DIMS];
  Label *cur = a, *nxt = b;
  for (int k = 0; k < p->rank; k++) snprintf(cur[k], LABEL_MAX, "dim%d", p->phys_to_logical[k]);
  int rank = p->rank;
  for (int l = 0; l < t; l++) {
    const LayoutLevel *lv = &p->levels[l];
    Label ext[LAYOUT_MAX_DIMS];
    for (int i = 0; i < lv->ext_rank; i++)
      snprintf(ext[i], LABEL_MAX, "%s", i < lv->ext ? "1" : cur[i - lv->ext]);
    for (int m = 0; m < lv->merged_rank; m++) {
      Label merged = "";
      for (int x = lv->merge_first[m]; x <= lv->merge_last[m]; x++) {
        size_t used = strlen(merged);
        snprintf(merged + used, LABEL_MAX - used, "%s%s", x > lv->merge_first[m] ? "*" : "",
                 ext[x]);
      }
      if (m < lv->nmajor) {
        memcpy(nxt[m], merged, LABEL_MAX);
      } else {
        int k = m - lv->nmajor;
        bool paren = is_compound(merged);
        snprintf(nxt[m], LABEL_MAX, "%s%.80s%s/%lld", paren ? "(" : "", merged, paren ? ")" : "",
                 (long long)lv->tile[k]);
        snprintf(nxt[lv->nmajor + lv->ntile + k], LABEL_MAX, "%s%.80s%s%%%lld", paren ? "(" : "",
                 merged, paren ? ")" : "", (long long)lv->tile[k]);
      }
    }
    rank = lv->out_rank;
    Label *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  memcpy(out, cur, (size_t)rank * sizeof(Label));
}

void layout_explain_levels(const LayoutPlan *p, LayoutLines *out) {
  for (int t = 0; t < p->nlevels; t++) {
    const LayoutLevel *lv = &p->levels[t];
    char tt[256], in[512], grid[512], tile[512], res[512];
    tile_text(tt, sizeof tt, lv);
    tup(in, sizeof in, lv->in_dims, lv->in_rank, '[', ']');
    tup(grid, sizeof grid, lv->out_dims + lv->nmajor, lv->ntile, '[', ']');
    StrBuf tb;
    sb_init(&tb);
    for (int k = 0; k < lv->ntile; k++) sb_printf(&tb, k ? "x%lld" : "%lld", (long long)lv->tile[k]);
    snprintf(tile, sizeof tile, "%s", tb.data ? tb.data : "");
    sb_free(&tb);
    tup(res, sizeof res, lv->out_dims, lv->out_rank, '[', ']');
    layout_lines_add(out, "%s on %s -> tile grid %s of %s tiles -> %s", tt, in, grid, tile, res);
  }
}

int layout_padding_causes(const LayoutPlan *p, LayoutPadCause *out, int max) {
  int n = 0;
  for (int t = 0; t < p->nlevels; t++) {
    const LayoutLevel *lv = &p->levels[t];
    Label labels[LAYOUT_MAX_DIMS];
    level_labels(p, t, labels);
    Label ext[LAYOUT_MAX_DIMS];
    for (int i = 0; i < lv->ext_rank; i++)
      snprintf(ext[i], LABEL_MAX, "%s", i < lv->ext ? "added size-1 dim" : labels[i - lv->ext]);
    for (int k = 0; k < lv->ntile; k++) {
      int m = lv->nmajor + k;
      int64_t size = lv->merged_dims[m], padded = lv->out_dims[m] * lv->tile[k];
      if (padded == size) continue;
      if (n < max) {
        LayoutPadCause *c = &out[n];
        c->level = t + 1;
        c->what[0] = '\0';
        for (int x = lv->merge_first[m]; x <= lv->merge_last[m]; x++) {
          size_t used = strlen(c->what);
          snprintf(c->what + used, sizeof c->what - used, "%s%.40s", x > lv->merge_first[m] ? "*" : "",
                   ext[x]);
        }
        c->size = size;
        c->padded = padded;
      }
      n++;
    }
  }
  if (p->slots != p->raw_slots) {
    if (n < max) {
      out[n].level = 0;
      snprintf(out[n].what, sizeof out[n].what, "L(%lld) tail alignment",
               (long long)p->tail_alignment);
      out[n].size = p->raw_slots;
      out[n].padded = p->slots;
    }
    n++;
  }
  return n;
}

void layout_explain_size_notes(const LayoutPlan *p, LayoutLines *notes) {
  if (p->xla_array_bytes < 0) {
    layout_lines_add(notes,
                     "XLA's ShapeUtil::ArraySize does not handle '*' combined dims in the first "
                     "tile; the sizes above follow the tiling model of layout.md");
  } else if (p->xla_array_bytes != p->physical_bytes) {
    layout_lines_add(notes,
                     "XLA's ShapeUtil::ArraySize gives %lld bytes (%lld elements) here: it uses "
                     "only the first tile (and the largest SC split piece), so padding added by "
                     "later tiles is not counted",
                     (long long)p->xla_array_bytes, (long long)p->xla_array_slots);
  }
}

static void linear_step(const LayoutPlan *p, const int64_t *final_idx, LayoutLines *steps,
                        int64_t offset) {
  StrBuf sb;
  sb_init(&sb);
  char a[512], b[512], st[512];
  sb_printf(&sb, "linear index (row-major) of %s in %s, strides %s: ",
            tup(a, sizeof a, final_idx, p->final_rank, '(', ')'),
            tup(b, sizeof b, p->final_dims, p->final_rank, '[', ']'),
            tup(st, sizeof st, p->final_strides, p->final_rank, '(', ')'));
  for (int i = 0; i < p->final_rank; i++)
    sb_printf(&sb, "%s%lld*%lld", i ? " + " : "", (long long)final_idx[i],
              (long long)p->final_strides[i]);
  if (p->final_rank == 0) sb_puts(&sb, "0");
  sb_printf(&sb, " = %lld", (long long)offset);
  layout_lines_add(steps, "%s", sb.data);
  sb_free(&sb);
}

static void physical_step(const LayoutPlan *p, LayoutLines *steps, const int64_t *phys) {
  StrBuf sb;
  sb_init(&sb);
  sb_puts(&sb, "minor_to_major ");
  layout_fmt_tuple(&sb, p->minor_to_major, p->rank, '{', '}');
  sb_puts(&sb, ": physical order (major to minor) is ");
  for (int k = 0; k < p->rank; k++)
    sb_printf(&sb, "%sdim%d", k ? ", " : "", p->phys_to_logical[k]);
  if (p->rank == 0) sb_puts(&sb, "(none, scalar)");
  char a[512], b[512];
  sb_printf(&sb, " -> physical index %s in %s", tup(a, sizeof a, phys, p->rank, '(', ')'),
            tup(b, sizeof b, p->phys_dims, p->rank, '[', ']'));
  layout_lines_add(steps, "%s", sb.data);
  sb_free(&sb);
}

/* The lines for one level, forward direction (cur = the level's input). */
static void level_steps(const LayoutPlan *p, int t, const int64_t *cur, const int64_t *out,
                        LayoutLines *steps) {
  const LayoutLevel *lv = &p->levels[t];
  Label labels[LAYOUT_MAX_DIMS];
  level_labels(p, t, labels);
  char tt[256], a[512], b[512];
  tile_text(tt, sizeof tt, lv);
  layout_lines_add(steps, "tiling level %d: %s applies to the %d most-minor dims of %s", t + 1, tt,
                   lv->tile_rank, tup(a, sizeof a, lv->in_dims, lv->in_rank, '[', ']'));
  int64_t ext[LAYOUT_MAX_DIMS], merged[LAYOUT_MAX_DIMS];
  for (int i = 0; i < lv->ext_rank; i++) ext[i] = i < lv->ext ? 0 : cur[i - lv->ext];
  if (lv->ext)
    layout_lines_add(steps, "  the tile is longer than the rank: %d leading size-1 dim%s added -> %s in %s",
                     lv->ext, lv->ext == 1 ? "" : "s", tup(a, sizeof a, ext, lv->ext_rank, '(', ')'),
                     tup(b, sizeof b, lv->ext_dims, lv->ext_rank, '[', ']'));
  for (int m = 0; m < lv->merged_rank; m++) {
    int64_t v = 0;
    /* Horner form of the merged index: ((a)*sb + b)*sc + c */
    char expr[1024] = "";
    for (int x = lv->merge_first[m]; x <= lv->merge_last[m]; x++) {
      char prev[1024];
      memcpy(prev, expr, sizeof prev);
      if (x == lv->merge_first[m])
        snprintf(expr, sizeof expr, "%lld", (long long)ext[x]);
      else
        snprintf(expr, sizeof expr, "%s%.900s%s*%lld + %lld", strchr(prev, '+') ? "(" : "", prev,
                 strchr(prev, '+') ? ")" : "", (long long)lv->ext_dims[x], (long long)ext[x]);
      v = v * lv->ext_dims[x] + ext[x];
    }
    merged[m] = v;
    if (lv->merge_last[m] > lv->merge_first[m]) {
      StrBuf names;
      sb_init(&names);
      for (int x = lv->merge_first[m]; x <= lv->merge_last[m]; x++)
        sb_printf(&names, "%s%s", x > lv->merge_first[m] ? ", " : "",
                  x < lv->ext ? "1" : labels[x - lv->ext]);
      layout_lines_add(steps, "  '*' combines (%s) into one dim of size %lld: index %s = %lld",
                       names.data, (long long)lv->merged_dims[m], expr, (long long)v);
      sb_free(&names);
    }
  }
  if (lv->nmajor)
    layout_lines_add(steps, "  dims before the tile keep their index: %s",
                     tup(a, sizeof a, merged, lv->nmajor, '(', ')'));
  StrBuf ti, wi;
  sb_init(&ti);
  sb_init(&wi);
  for (int k = 0; k < lv->ntile; k++) {
    int64_t q = merged[lv->nmajor + k];
    sb_printf(&ti, "%s%lld div %lld", k ? ", " : "", (long long)q, (long long)lv->tile[k]);
    sb_printf(&wi, "%s%lld mod %lld", k ? ", " : "", (long long)q, (long long)lv->tile[k]);
  }
  char g[512], gd[512], w[512], wd[512];
  layout_lines_add(steps, "  tile index (%s) = %s in tile grid %s", ti.data ? ti.data : "",
                   tup(g, sizeof g, out + lv->nmajor, lv->ntile, '(', ')'),
                   tup(gd, sizeof gd, lv->out_dims + lv->nmajor, lv->ntile, '[', ']'));
  layout_lines_add(steps, "  within-tile index (%s) = %s in tile %s", wi.data ? wi.data : "",
                   tup(w, sizeof w, out + lv->nmajor + lv->ntile, lv->ntile, '(', ')'),
                   tup(wd, sizeof wd, lv->tile, lv->ntile, '[', ']'));
  sb_free(&ti);
  sb_free(&wi);
  layout_lines_add(steps, "  -> index %s in %s", tup(a, sizeof a, out, lv->out_rank, '(', ')'),
                   tup(b, sizeof b, lv->out_dims, lv->out_rank, '[', ']'));
}

static void offset_steps(const LayoutPlan *p, int64_t offset, LayoutLines *steps) {
  int64_t byte;
  int bit;
  layout_byte_position(p, offset, &byte, &bit);
  if (p->packed_bits)
    layout_lines_add(steps,
                     "element offset %lld; E(%d) packs %d elements per byte from the low-order "
                     "bits up: bit offset %lld*%d = %lld = byte %lld, bit %d",
                     (long long)offset, p->packed_bits, 8 / p->packed_bits, (long long)offset,
                     p->packed_bits, (long long)(byte * 8 + bit), (long long)byte, bit);
  else
    layout_lines_add(steps, "element offset %lld; byte offset %lld*%d = %lld", (long long)offset,
                     (long long)offset, p->storage_bytes, (long long)byte);
}

void layout_explain_index(const LayoutPlan *p, const int64_t *index, LayoutLines *steps,
                          LayoutLines *notes) {
  char a[512], b[512];
  layout_lines_add(steps, "logical index %s in dims %s", tup(a, sizeof a, index, p->rank, '(', ')'),
                   tup(b, sizeof b, p->dims, p->rank, '[', ']'));
  int64_t x[LAYOUT_MAX_DIMS], y[LAYOUT_MAX_DIMS];
  int64_t *cur = x, *nxt = y;
  for (int k = 0; k < p->rank; k++) cur[k] = index[p->phys_to_logical[k]];
  physical_step(p, steps, cur);
  for (int t = 0; t < p->nlevels; t++) {
    layout_level_forward(&p->levels[t], cur, nxt);
    level_steps(p, t, cur, nxt, steps);
    int64_t *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  int64_t offset = layout_offset_unchecked(p, index);
  linear_step(p, cur, steps, offset);
  offset_steps(p, offset, steps);
  int64_t xla;
  if (!layout_xla_linear_index(p, index, &xla)) {
    layout_lines_add(notes, "XLA's LayoutUtil::LinearIndex does not handle '*' combined dims");
  } else if (xla != offset) {
    if (p->rank == 1)
      layout_lines_add(notes,
                       "XLA's LayoutUtil::LinearIndex returns the index itself (%lld) for rank-1 "
                       "arrays, ignoring the tiles",
                       (long long)xla);
    else
      layout_lines_add(notes,
                       "XLA's LayoutUtil::LinearIndex uses only the first tile and returns %lld "
                       "here; the tiling model (layout.md) gives %lld",
                       (long long)xla, (long long)offset);
  }
}

void layout_explain_offset(const LayoutPlan *p, int64_t offset, LayoutLines *steps) {
  char a[512], b[512];
  if (offset >= p->raw_slots) {
    layout_lines_add(steps,
                     "offset %lld is in the tail padding added by L(%lld): slots %lld..%lld hold "
                     "no element",
                     (long long)offset, (long long)p->tail_alignment, (long long)p->raw_slots,
                     (long long)p->slots - 1);
    return;
  }
  int64_t x[LAYOUT_MAX_DIMS], y[LAYOUT_MAX_DIMS];
  int64_t *cur = x, *nxt = y;
  int64_t rest = offset;
  for (int i = p->final_rank - 1; i >= 0; i--) {
    cur[i] = rest % p->final_dims[i];
    rest /= p->final_dims[i];
  }
  layout_lines_add(steps, "offset %lld is position %s of the final shape %s (row-major)",
                   (long long)offset, tup(a, sizeof a, cur, p->final_rank, '(', ')'),
                   tup(b, sizeof b, p->final_dims, p->final_rank, '[', ']'));
  for (int t = p->nlevels - 1; t >= 0; t--) {
    const LayoutLevel *lv = &p->levels[t];
    char tt[256];
    tile_text(tt, sizeof tt, lv);
    StrBuf sb;
    sb_init(&sb);
    bool pad = false;
    for (int k = 0; k < lv->ntile; k++) {
      int m = lv->nmajor + k;
      int64_t q = cur[m] * lv->tile[k] + cur[lv->nmajor + lv->ntile + k];
      sb_printf(&sb, "%s%lld*%lld + %lld = %lld", k ? ", " : "", (long long)cur[m],
                (long long)lv->tile[k], (long long)cur[lv->nmajor + lv->ntile + k], (long long)q);
      if (q >= lv->merged_dims[m]) {
        sb_printf(&sb, " >= size %lld", (long long)lv->merged_dims[m]);
        pad = true;
      }
    }
    layout_lines_add(steps, "undo tiling level %d %s: tile index * tile size + within-tile index: %s",
                     t + 1, tt, sb.data ? sb.data : "");
    sb_free(&sb);
    if (pad || !layout_level_backward(lv, cur, nxt)) {
      layout_lines_add(steps, "  -> past the end of a dimension: offset %lld is padding",
                       (long long)offset);
      return;
    }
    layout_lines_add(steps, "  -> index %s in %s", tup(a, sizeof a, nxt, lv->in_rank, '(', ')'),
                     tup(b, sizeof b, lv->in_dims, lv->in_rank, '[', ']'));
    int64_t *tmp = cur;
    cur = nxt;
    nxt = tmp;
  }
  int64_t index[SHAPE_MAX_RANK];
  for (int k = 0; k < p->rank; k++) index[p->phys_to_logical[k]] = cur[k];
  StrBuf sb;
  sb_init(&sb);
  for (int k = 0; k < p->rank; k++) sb_printf(&sb, "%sdim%d", k ? ", " : "", p->phys_to_logical[k]);
  layout_lines_add(steps, "physical index %s is (%s) -> logical index %s",
                   tup(a, sizeof a, cur, p->rank, '(', ')'), sb.data ? sb.data : "",
                   tup(b, sizeof b, index, p->rank, '(', ')'));
  sb_free(&sb);
}
