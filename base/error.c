#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>

bool error_set(Error *err, ErrorKind kind, int64_t offset, const char *fmt, ...) {
  if (!err) return false;
  err->kind = kind;
  err->offset = offset;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg, sizeof err->msg, fmt, ap);
  va_end(ap);
  return false;
}
