#include "interp/memspace.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mem_init(MemSystem *m) { memset(m, 0, sizeof *m); }

void mem_destroy(MemSystem *m) {
  for (int i = 0; i < m->npool; i++) free(m->pool_block[i]);
  m->npool = 0;
  m->pool_bytes = 0;
}

static size_t rounded(int64_t nbytes) {
  size_t sz = ((size_t)nbytes + 63) & ~(size_t)63;
  return sz ? sz : 64;
}

MemSpace *mem_find(MemSystem *m, int64_t id) {
  for (int i = 0; i < m->nspaces; i++)
    if (m->spaces[i].id == id) return &m->spaces[i];
  return NULL;
}

static MemSpace *add_space(MemSystem *m, int64_t id, const char *name, int64_t capacity,
                           double bandwidth) {
  if (m->nspaces >= MEM_MAX_SPACES) return NULL;
  /* Keep the spaces sorted by id so reports list them in a stable order. */
  int at = m->nspaces;
  while (at > 0 && m->spaces[at - 1].id > id) at--;
  memmove(&m->spaces[at + 1], &m->spaces[at], (size_t)(m->nspaces - at) * sizeof(MemSpace));
  m->nspaces++;
  MemSpace *s = &m->spaces[at];
  memset(s, 0, sizeof *s);
  s->id = id;
  snprintf(s->name, sizeof s->name, "%s", name);
  s->capacity = capacity;
  s->bandwidth = bandwidth;
  return s;
}

bool mem_add_space(MemSystem *m, int64_t id, const char *name, int64_t capacity,
                   double bandwidth, Error *err) {
  if (mem_find(m, id))
    return error_set(err, ERR_USAGE, -1, "memory space %" PRId64 " is configured twice", id);
  if (id < 0) return error_set(err, ERR_USAGE, -1, "memory space id %" PRId64 " is negative", id);
  if (!add_space(m, id, name, capacity, bandwidth))
    return error_set(err, ERR_USAGE, -1, "too many memory spaces (at most %d)", MEM_MAX_SPACES);
  return true;
}

MemSpace *mem_space(MemSystem *m, int64_t id, Error *err) {
  MemSpace *s = mem_find(m, id);
  if (s) return s;
  if (m->strict) {
    error_set(err, ERR_RUNTIME, -1,
              "memory space S(%" PRId64 ") is not in the memory configuration", id);
    return NULL;
  }
  char name[MEM_NAME_MAX];
  snprintf(name, sizeof name, "S(%" PRId64 ")", id);
  s = add_space(m, id, name, MEM_UNLIMITED, 0);
  if (!s) {
    error_set(err, ERR_RUNTIME, -1, "too many memory spaces (at most %d)", MEM_MAX_SPACES);
    return NULL;
  }
  s->implicit = true;
  return s;
}

void mem_format_bytes(int64_t bytes, char *buf, int bufsize) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes == MEM_UNLIMITED) {
    snprintf(buf, (size_t)bufsize, "unlimited");
    return;
  }
  int u = 0;
  int64_t v = bytes;
  while (u < 6 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    u++;
  }
  if (v < 1024 * 10 || u == 6) {
    snprintf(buf, (size_t)bufsize, "%" PRId64 " %s", v, units[u]);
    return;
  }
  double d = (double)bytes;
  u = 0;
  while (u < 6 && d >= 1024) {
    d /= 1024;
    u++;
  }
  snprintf(buf, (size_t)bufsize, "%.2f %s", d, units[u]);
}

bool mem_charge(MemSystem *m, int64_t id, int64_t nbytes, const char *who, Error *err) {
  MemSpace *s = mem_space(m, id, err);
  if (!s) return false;
  if (nbytes < 0) return error_set(err, ERR_RUNTIME, -1, "%s: negative buffer size", who);
  if (nbytes > s->capacity - s->live) {
    char ask[48], cap[48], fr[48], pk[48];
    mem_format_bytes(nbytes, ask, sizeof ask);
    mem_format_bytes(s->capacity, cap, sizeof cap);
    mem_format_bytes(s->capacity - s->live, fr, sizeof fr);
    mem_format_bytes(s->peak, pk, sizeof pk);
    return error_set(err, ERR_RUNTIME, -1,
                     "%s: memory space S(%" PRId64 ") %s is exhausted: asked for %" PRId64
                     " bytes (%s), %" PRId64 " bytes free (%s) of capacity %s, peak use %" PRId64
                     " bytes (%s)",
                     who, s->id, s->name, nbytes, ask, s->capacity - s->live, fr, cap, s->peak,
                     pk);
  }
  s->live += nbytes;
  if (s->live > s->peak) s->peak = s->live;
  s->nallocs++;
  if (nbytes > s->largest_alloc) s->largest_alloc = nbytes;
  return true;
}

void mem_discharge(MemSystem *m, int64_t id, int64_t nbytes) {
  MemSpace *s = mem_find(m, id);
  if (s) s->live -= nbytes;
}

void *mem_raw_alloc(MemSystem *m, int64_t nbytes, bool zero) {
  /* Round up to the alignment (aligned_alloc wants a multiple); at least one
   * line so that empty arrays still get a distinct pointer.  The rounding
   * tail is always zeroed so packed/odd sizes never expose garbage. */
  size_t sz = rounded(nbytes);
  void *p = NULL;
  for (int i = m->npool - 1; i >= 0; i--) {
    if (m->pool_size[i] == sz) {
      p = m->pool_block[i];
      m->pool_bytes -= sz;
      m->npool--;
      m->pool_size[i] = m->pool_size[m->npool];
      m->pool_block[i] = m->pool_block[m->npool];
      break;
    }
  }
  if (!p) p = aligned_alloc(64, sz);
  if (!p) return NULL;
  if (zero) memset(p, 0, sz);
  else memset((char *)p + nbytes, 0, sz - (size_t)nbytes);
  return p;
}

bool mem_alloc(MemSystem *m, int64_t id, int64_t nbytes, bool zero, const char *who, void **out,
               Error *err) {
  *out = NULL;
  if (!mem_charge(m, id, nbytes, who, err)) return false;
  void *p = mem_raw_alloc(m, nbytes, zero);
  if (!p) {
    mem_discharge(m, id, nbytes);
    return error_set(err, ERR_RUNTIME, -1,
                     "%s: out of host memory allocating %" PRId64 " bytes for S(%" PRId64 ")",
                     who, nbytes, id);
  }
  *out = p;
  return true;
}

void mem_raw_free(MemSystem *m, void *p, int64_t nbytes) {
  if (!p) return;
  size_t sz = rounded(nbytes);
  /* Small blocks are cheap to get again; keep the big ones. */
  if (sz >= 65536 && sz <= MEM_POOL_MAX_BYTES && m->pool_bytes + sz <= MEM_POOL_MAX_BYTES) {
    if (m->npool == MEM_POOL_SLOTS) {
      /* evict the oldest */
      m->pool_bytes -= m->pool_size[0];
      free(m->pool_block[0]);
      memmove(&m->pool_size[0], &m->pool_size[1], sizeof(size_t) * (MEM_POOL_SLOTS - 1));
      memmove(&m->pool_block[0], &m->pool_block[1], sizeof(void *) * (MEM_POOL_SLOTS - 1));
      m->npool--;
    }
    m->pool_size[m->npool] = sz;
    m->pool_block[m->npool] = p;
    m->npool++;
    m->pool_bytes += sz;
    return;
  }
  free(p);
}

void mem_release(MemSystem *m, int64_t id, void *p, int64_t nbytes) {
  if (!p) return;
  mem_discharge(m, id, nbytes);
  mem_raw_free(m, p, nbytes);
}

void mem_count_read(MemSystem *m, int64_t id, int64_t nbytes) {
  MemSpace *s = mem_find(m, id);
  if (s) s->bytes_read += nbytes;
}

void mem_count_write(MemSystem *m, int64_t id, int64_t nbytes) {
  MemSpace *s = mem_find(m, id);
  if (s) s->bytes_written += nbytes;
}
