#include "base/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sb_init(StrBuf *sb) { memset(sb, 0, sizeof *sb); }

void sb_free(StrBuf *sb) {
  free(sb->data);
  sb_init(sb);
}

bool sb_reserve(StrBuf *sb, size_t extra) {
  if (sb->oom) return false;
  if (sb->len + extra + 1 <= sb->cap) return true;
  size_t cap = sb->cap ? sb->cap : 256;
  while (cap < sb->len + extra + 1) {
    if (cap > SIZE_MAX / 2) {
      sb->oom = true;
      return false;
    }
    cap *= 2;
  }
  char *d = realloc(sb->data, cap);
  if (!d) {
    sb->oom = true;
    return false;
  }
  sb->data = d;
  sb->cap = cap;
  return true;
}

void sb_append(StrBuf *sb, const char *s, size_t n) {
  if (!sb_reserve(sb, n)) return;
  memcpy(sb->data + sb->len, s, n);
  sb->len += n;
  sb->data[sb->len] = '\0';
}

void sb_putc(StrBuf *sb, char c) { sb_append(sb, &c, 1); }
void sb_puts(StrBuf *sb, const char *s) { sb_append(sb, s, strlen(s)); }

void sb_printf(StrBuf *sb, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof small) {
    sb_append(sb, small, (size_t)n);
    return;
  }
  if (!sb_reserve(sb, (size_t)n)) return;
  va_start(ap, fmt);
  vsnprintf(sb->data + sb->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  sb->len += (size_t)n;
}

char *sb_take(StrBuf *sb) {
  char *d = sb->data;
  if (!d) d = calloc(1, 1);
  sb_init(sb);
  return d;
}
