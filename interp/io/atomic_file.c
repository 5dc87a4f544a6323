/* Write-then-rename result files (interp/io/atomic_file.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interp/io/atomic_file.h"

bool atomic_open(AtomicFile *af, const char *path, Error *err) {
  memset(af, 0, sizeof af[0]);
  size_t n = strlen(path);
  af->target = strdup(path);
  af->tmp = malloc(n + sizeof ".tmp-XXXXXX");
  if (!af->target || !af->tmp) {
    free(af->target);
    free(af->tmp);
    return error_set(err, ERR_RUNTIME, -1, "%s: out of memory", path);
  }
  memcpy(af->tmp, path, n);
  memcpy(af->tmp + n, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
  int fd = mkstemp(af->tmp);
  if (fd < 0 || !(af->f = fdopen(fd, "wb"))) {
    int e = errno;
    if (fd >= 0) {
      close(fd);
      unlink(af->tmp);
    }
    free(af->target);
    free(af->tmp);
    return error_set(err, ERR_RUNTIME, -1, "%s: cannot create: %s", path, strerror(e));
  }
  /* mkstemp makes it 0600; a result file gets the usual 0666 & ~umask. */
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  return true;
}

bool atomic_close(AtomicFile *af, bool ok, Error *err) {
  bool closed = fclose(af->f) == 0;
  if (ok && !closed) ok = error_set(err, ERR_RUNTIME, -1, "%s: write error", af->target);
  if (ok && rename(af->tmp, af->target) != 0)
    ok = error_set(err, ERR_RUNTIME, -1, "%s: cannot write: %s", af->target, strerror(errno));
  if (!ok) unlink(af->tmp);
  free(af->target);
  free(af->tmp);
  memset(af, 0, sizeof af[0]);
  return ok;
}
