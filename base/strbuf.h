/* Growable string buffer used by printers and diagnostics. */
#ifndef HLO_BASE_STRBUF_H
#define HLO_BASE_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct StrBuf {
  char *data; /* always NUL-terminated when len > 0 or after sb_init */
  size_t len, cap;
  bool oom; /* an append failed for lack of memory; contents are truncated */
} StrBuf;

void sb_init(StrBuf *sb);
void sb_free(StrBuf *sb);
void sb_putc(StrBuf *sb, char c);
void sb_append(StrBuf *sb, const char *s, size_t n);
void sb_puts(StrBuf *sb, const char *s);
void sb_printf(StrBuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Makes room for `extra` more bytes (and the NUL) after sb->len, for
 * writing at sb->data + sb->len directly; the writer then advances sb->len
 * and stores the NUL.  False (and sb->oom) when out of memory. */
bool sb_reserve(StrBuf *sb, size_t extra);
/* Hands the string over to the caller (malloc'd) and resets the buffer. */
char *sb_take(StrBuf *sb);

#endif
