#include "base/diag.h"

#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

/* The stored diagnostic with this exact message, or NULL. */
static Diag *diags_find(Diags *d, const char *msg) {
  for (int i = 0; i < d->count; i++)
    if (strcmp(d->items[i].msg, msg) == 0) return &d->items[i];
  return NULL;
}

void diags_add(Diags *d, int64_t offset, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  /* A repeat takes no room of its own, so 999 identical errors do not hide
   * a different one behind DIAGS_MAX. */
  Diag *same = diags_find(d, buf);
  if (same) {
    if (same->repeats < DIAG_REPEATS_KEPT) same->repeat_offsets[same->repeats] = offset;
    if (same->repeats < INT_MAX) same->repeats++;
    return;
  }
  if (d->count >= DIAGS_MAX) {
    d->dropped++;
    return;
  }
  if (d->count == d->cap) {
    int cap = d->cap ? d->cap * 2 : 8;
    Diag *items = realloc(d->items, (size_t)cap * sizeof *items);
    if (!items) {
      d->dropped++;
      return;
    }
    d->items = items;
    d->cap = cap;
  }
  char *msg = strdup(buf);
  if (!msg) {
    d->dropped++;
    return;
  }
  memset(&d->items[d->count], 0, sizeof d->items[d->count]);
  d->items[d->count].offset = offset;
  d->items[d->count].msg = msg;
  d->count++;
}

void diags_free(Diags *d) {
  for (int i = 0; i < d->count; i++) free(d->items[i].msg), free(d->items[i].note);
  free(d->items);
  memset(d, 0, sizeof *d);
}

void diag_set_note(Diags *d, int i, const char *fmt, ...) {
  if (i < 0 || i >= d->count) return;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  free(d->items[i].note);
  d->items[i].note = strdup(buf); /* NULL when out of memory: no note */
}

void diag_line_col(const char *src, size_t len, int64_t offset, int64_t *line, int64_t *col) {
  if (offset < 0) offset = 0;
  if ((size_t)offset > len) offset = (int64_t)len;
  int64_t ln = 1;
  size_t line_start = 0;
  for (size_t i = 0; i < (size_t)offset; i++) {
    if (src[i] == '\n') {
      ln++;
      line_start = i + 1;
    }
  }
  *line = ln;
  *col = offset - (int64_t)line_start + 1;
}

/* Lines longer than this are shown as a window around the column. */
enum { DIAG_WINDOW = 60 };

char *diag_render(const char *filename, const char *src, size_t len, int64_t offset,
                  const char *msg) {
  return diag_render_as(filename, src, len, offset, "error", msg);
}

char *diag_render_as(const char *filename, const char *src, size_t len, int64_t offset,
                     const char *severity, const char *msg) {
  if (!filename) filename = "<input>";
  if (offset < 0 || !src) {
    size_t n = strlen(filename) + strlen(severity) + strlen(msg) + 16;
    char *out = malloc(n);
    if (out) snprintf(out, n, "%s: %s: %s\n", filename, severity, msg);
    return out;
  }
  int64_t line, col;
  diag_line_col(src, len, offset, &line, &col);
  size_t pos = (size_t)(offset > (int64_t)len ? (int64_t)len : offset);
  size_t start = pos - (size_t)(col - 1);
  size_t end = pos;
  while (end < len && src[end] != '\n') end++;
  /* Show at most DIAG_WINDOW bytes either side of the caret. */
  size_t show_start = start, show_end = end;
  bool cut_left = false, cut_right = false;
  if (pos - show_start > DIAG_WINDOW) {
    show_start = pos - DIAG_WINDOW;
    cut_left = true;
  }
  if (show_end - pos > DIAG_WINDOW) {
    show_end = pos + DIAG_WINDOW;
    cut_right = true;
  }
  size_t shown = show_end - show_start;
  size_t n = strlen(filename) + strlen(severity) + strlen(msg) + 2 * shown + 128;
  char *out = malloc(n);
  if (!out) return NULL;
  int w = snprintf(out, n, "%s:%lld:%lld: %s: %s\n%s", filename, (long long)line,
                   (long long)col, severity, msg, cut_left ? "..." : "");
  size_t k = (size_t)w;
  for (size_t i = show_start; i < show_end; i++) {
    char c = src[i];
    /* Keep the caret aligned: tabs stay tabs, other control bytes become '?'. */
    out[k++] = (c == '\t' || ((unsigned char)c >= 32 && c != 127)) ? c : '?';
  }
  if (cut_right) {
    memcpy(out + k, "...", 3);
    k += 3;
  }
  out[k++] = '\n';
  if (cut_left) {
    memcpy(out + k, "   ", 3);
    k += 3;
  }
  for (size_t i = show_start; i < pos; i++) out[k++] = src[i] == '\t' ? '\t' : ' ';
  out[k++] = '^';
  out[k++] = '\n';
  out[k] = '\0';
  return out;
}

/* "FILE: note: the error above is repeated 3 more times (lines 7, 8, 9)";
 * the lines of the first DIAG_REPEATS_KEPT repeats, then how many more. */
static void render_repeats(StrBuf *out, const char *filename, const char *src, size_t len,
                           const Diag *g) {
  sb_printf(out, "%s: note: the error above is repeated %d more time%s",
            filename ? filename : "<input>", g->repeats, g->repeats == 1 ? "" : "s");
  int shown = g->repeats < DIAG_REPEATS_KEPT ? g->repeats : DIAG_REPEATS_KEPT;
  bool located = src != NULL;
  for (int k = 0; k < shown; k++) located = located && g->repeat_offsets[k] >= 0;
  if (located) {
    for (int k = 0; k < shown; k++) {
      int64_t line, col;
      diag_line_col(src, len, g->repeat_offsets[k], &line, &col);
      sb_printf(out, "%s%" PRId64, k ? ", " : shown == 1 ? " (line " : " (lines ", line);
    }
    if (g->repeats > shown) sb_printf(out, " and %d more", g->repeats - shown);
    sb_puts(out, ")");
  }
  sb_puts(out, "\n");
}

void diags_render_all(StrBuf *out, const char *filename, const char *src, size_t len,
                      const Diags *d) {
  for (int i = 0; i < d->count; i++) {
    const Diag *g = &d->items[i];
    char *r = diag_render(filename, src, len, g->offset, g->msg);
    if (r) sb_puts(out, r);
    else out->oom = true;
    free(r);
    if (g->note) sb_printf(out, "%s\n", g->note);
    if (g->repeats) render_repeats(out, filename, src, len, g);
  }
  if (d->dropped)
    sb_printf(out, "%s: %d more errors not shown\n", filename ? filename : "<input>", d->dropped);
}
