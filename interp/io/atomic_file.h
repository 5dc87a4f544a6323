/* Result files written whole or not at all: the data goes to a temporary
 * file beside the target, renamed over it only once completely written, so
 * a failed or killed run never leaves a truncated file (or a half-written
 * one over an older result). */
#ifndef HLO_INTERP_IO_ATOMIC_FILE_H
#define HLO_INTERP_IO_ATOMIC_FILE_H

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"

typedef struct AtomicFile {
  FILE *f;
  char *target; /* malloc'd */
  char *tmp;    /* malloc'd: "<target>.tmp-XXXXXX" */
} AtomicFile;

/* Opens the temporary file for writing ("PATH: cannot create: why"). */
bool atomic_open(AtomicFile *af, const char *path, Error *err);
/* ok: close and rename into place (an error if either fails); !ok: close
 * and remove the temporary.  Returns whether the target now holds it all. */
bool atomic_close(AtomicFile *af, bool ok, Error *err);

#endif
