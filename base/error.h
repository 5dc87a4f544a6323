/* Errors are values.  Library code that can fail returns false and fills an
 * Error; only cmd/ prints and picks the exit code. */
#ifndef HLO_BASE_ERROR_H
#define HLO_BASE_ERROR_H

#include <stdbool.h>
#include <stdint.h>

/* What kind of failure, which cmd/ maps to an exit status (docs/cli.md). */
typedef enum {
  ERR_NONE = 0,
  ERR_RUNTIME = 1, /* bad input data, memory space exhausted, unsupported */
  ERR_USAGE = 2,   /* bad command line */
  ERR_INVALID = 3, /* the model/shape text does not parse or verify */
  ERR_MISMATCH = 4 /* a check the module makes failed (check.* custom calls) */
} ErrorKind;

typedef struct Error {
  ErrorKind kind;
  /* Byte offset into the source text the error points at, or -1. */
  int64_t offset;
  char msg[1024];
} Error;

/* Fills err (if not NULL) and returns false, so callers can write
 *   return error_set(err, ERR_INVALID, off, "bad %s", x); */
bool error_set(Error *err, ErrorKind kind, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
