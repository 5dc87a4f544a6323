#include "base/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

void diags_add(Diags *d, int64_t offset, const char *fmt, ...) {
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
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  char *msg = strdup(buf);
  if (!msg) {
    d->dropped++;
    return;
  }
  d->items[d->count].offset = offset;
  d->items[d->count].msg = msg;
  d->count++;
}

void diags_free(Diags *d) {
  for (int i = 0; i < d->count; i++) free(d->items[i].msg);
  free(d->items);
  memset(d, 0, sizeof *d);
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

void diags_render_all(StrBuf *out, const char *filename, const char *src, size_t len,
                      const Diags *d) {
  for (int i = 0; i < d->count; i++) {
    char *r = diag_render(filename, src, len, d->items[i].offset, d->items[i].msg);
    if (r) sb_puts(out, r);
    else out->oom = true;
    free(r);
  }
  if (d->dropped)
    sb_printf(out, "%s: %d more errors not shown\n", filename ? filename : "<input>", d->dropped);
}
