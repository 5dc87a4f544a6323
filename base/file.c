#include "base/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *read_stream(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  if (!buf) return NULL;
  for (;;) {
    if (cap - n < 2) {
      char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n - 1, f);
    n += r;
    if (r == 0) break;
  }
  if (ferror(f)) {
    free(buf);
    return NULL;
  }
  buf[n] = '\0';
  *len = n;
  return buf;
}

char *file_read_all(const char *path, size_t *len, Error *err) {
  bool from_stdin = strcmp(path, "-") == 0;
  FILE *f = from_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    error_set(err, ERR_RUNTIME, -1, "cannot open %s: %s", path, strerror(errno));
    return NULL;
  }
  char *text = read_stream(f, len);
  if (!from_stdin) fclose(f);
  if (!text) error_set(err, ERR_RUNTIME, -1, "cannot read %s", from_stdin ? "<stdin>" : path);
  return text;
}
