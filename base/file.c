#include "base/file.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reads at most FILE_READ_MAX bytes: a stream that goes on past that (a
 * pipe from a runaway program) is refused instead of exhausting memory. */
static char *read_stream(FILE *f, size_t *len, bool *too_big) {
  size_t cap = 1 << 16, n = 0;
  *too_big = false;
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
    /* Text never holds a NUL byte (the lexer stops at the first one with an
     * error), so a binary stream is read no further than its first NUL. */
    bool nul = r && memchr(buf + n, 0, r);
    n += r;
    if (r == 0 || nul) break;
    if (n > FILE_READ_MAX) {
      free(buf);
      *too_big = true;
      return NULL;
    }
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
  /* A device (/dev/zero, a terminal, a disk) is no file to read whole. */
  struct stat st;
  if (!from_stdin && fstat(fileno(f), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
    fclose(f);
    error_set(err, ERR_RUNTIME, -1, "cannot read %s: it is a device, not a file", path);
    return NULL;
  }
  bool too_big;
  char *text = read_stream(f, len, &too_big);
  int saved = errno;
  if (!from_stdin) fclose(f);
  const char *name = from_stdin ? "<stdin>" : path;
  if (!text && too_big)
    error_set(err, ERR_RUNTIME, -1, "cannot read %s: longer than %d GiB", name,
              (int)(FILE_READ_MAX >> 30));
  else if (!text)
    error_set(err, ERR_RUNTIME, -1, "cannot read %s: %s", name,
              saved ? strerror(saved) : "out of memory");
  return text;
}
