#include "interp/memspace.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hostmem.h"

void mem_init(MemSystem *m) { memset(m, 0, sizeof *m); }

/* The shared host budget (multi-device runs): take sz bytes, or false when
 * the devices together would hold more than the limit. */
static bool host_take(MemSystem *m, size_t sz) {
  if (!m->host) return true;
  int64_t now = atomic_fetch_add(&m->host->held, (int64_t)sz) + (int64_t)sz;
  if (now <= m->host->limit) return true;
  atomic_fetch_sub(&m->host->held, (int64_t)sz);
  return false;
}

static void host_give(MemSystem *m, size_t sz) {
  if (m->host) atomic_fetch_sub(&m->host->held, (int64_t)sz);
}

void mem_destroy(MemSystem *m) {
  for (int c = 0; c < MEM_SMALL_CLASSES; c++) {
    while (m->small_free[c]) {
      void *p = m->small_free[c];
      memcpy(&m->small_free[c], p, sizeof(void *));
      free(p);
      host_give(m, (size_t)(c + 1) * 64);
    }
    m->small_count[c] = 0;
  }
  /* The run is over: give back the big blocks kept for reuse (the devices
   * of a multi-device run share them: run_devices trims once all are done). */
  if (!m->host) hostmem_trim();
}

/* Big buffers are hostmem blocks (base/hostmem.h): 2 MiB aligned huge pages,
 * kept for reuse by any later request that fits, as the first touch of
 * fresh pages costs more than the arithmetic of an elementwise op on them.
 * Fresh mappings are zero, so `zero` is free for them. */
static size_t rounded(int64_t nbytes) {
  size_t sz = ((size_t)nbytes + 63) & ~(size_t)63;
  return sz ? sz : 64;
}

static void *block_new(size_t sz, bool *fresh_zero) {
  *fresh_zero = false;
  if (sz < HOSTMEM_MIN) return aligned_alloc(64, sz);
  return hostmem_alloc(sz, fresh_zero);
}

static void block_free(MemSystem *m, void *p, size_t sz) {
  if (sz >= HOSTMEM_MIN) hostmem_free(p);
  else free(p);
  host_give(m, sz);
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

static MemSpace *space_fits(MemSystem *m, int64_t id, int64_t nbytes, const char *who,
                            Error *err) {
  MemSpace *s = mem_space(m, id, err);
  if (!s) return NULL;
  if (nbytes < 0) {
    error_set(err, ERR_RUNTIME, -1, "%s%snegative buffer size", MEM_WHO(who));
    return NULL;
  }
  if (nbytes > s->capacity - s->live) {
    char ask[48], cap[48], fr[48], pk[48];
    mem_format_bytes(nbytes, ask, sizeof ask);
    mem_format_bytes(s->capacity, cap, sizeof cap);
    mem_format_bytes(s->capacity - s->live, fr, sizeof fr);
    mem_format_bytes(s->peak, pk, sizeof pk);
    char label[MEM_NAME_MAX + 32];
    mem_space_label(s, label, sizeof label);
    error_set(err, ERR_RUNTIME, -1,
              "%s%smemory space %s is exhausted: asked for %" PRId64 " bytes (%s), %" PRId64
              " bytes free (%s) of capacity %s, peak use %" PRId64 " bytes (%s)",
              MEM_WHO(who), label, nbytes, ask, s->capacity - s->live, fr,
              cap, s->peak, pk);
    return NULL;
  }
  return s;
}

bool mem_fits(MemSystem *m, int64_t id, int64_t nbytes, const char *who, Error *err) {
  return space_fits(m, id, nbytes, who, err) != NULL;
}

bool mem_charge(MemSystem *m, int64_t id, int64_t nbytes, const char *who, Error *err) {
  MemSpace *s = space_fits(m, id, nbytes, who, err);
  if (!s) return false;
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
  size_t cls = sz / 64 - 1;
  if (cls < MEM_SMALL_CLASSES && m->small_free[cls]) {
    p = m->small_free[cls];
    memcpy(&m->small_free[cls], p, sizeof(void *));
    m->small_count[cls]--;
    if (zero) memset(p, 0, sz);
    else memset((char *)p + nbytes, 0, sz - (size_t)nbytes);
    return p;
  }
  bool fresh_zero = false;
  if (!host_take(m, sz)) return NULL;
  p = block_new(sz, &fresh_zero);
  if (!p) {
    host_give(m, sz);
    return NULL;
  }
  if (fresh_zero) return p;
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
    if (m->host) {
      char lim[48];
      mem_format_bytes(m->host->limit, lim, sizeof lim);
      return error_set(err, ERR_RUNTIME, -1,
                       "%s%sout of host memory allocating %" PRId64 " bytes for S(%" PRId64
                       "): the devices of this run share %s of this machine's memory",
                       MEM_WHO(who), nbytes, id, lim);
    }
    return error_set(err, ERR_RUNTIME, -1,
                     "%s%sout of host memory allocating %" PRId64 " bytes for S(%" PRId64 ")",
                     MEM_WHO(who), nbytes, id);
  }
  *out = p;
  return true;
}

void mem_raw_free(MemSystem *m, void *p, int64_t nbytes) {
  if (!p) return;
  size_t sz = rounded(nbytes);
  size_t cls = sz / 64 - 1;
  if (cls < MEM_SMALL_CLASSES && m->small_count[cls] < MEM_SMALL_KEEP) {
    memcpy(p, &m->small_free[cls], sizeof(void *));
    m->small_free[cls] = p;
    m->small_count[cls]++;
    return;
  }
  block_free(m, p, sz);
}

void mem_release(MemSystem *m, int64_t id, void *p, int64_t nbytes) {
  if (!p) return;
  mem_discharge(m, id, nbytes);
  mem_raw_free(m, p, nbytes);
}

void mem_detach(MemSystem *m, int64_t id, void *p, int64_t nbytes) {
  if (!p) return;
  mem_discharge(m, id, nbytes);
  host_give(m, rounded(nbytes));
}

/* Blocks come from hostmem (big) or aligned_alloc (small, see block_new). */
void mem_free_detached(void *p) {
  if (!hostmem_free(p)) free(p);
}

void mem_count_read(MemSystem *m, int64_t id, int64_t nbytes) {
  MemSpace *s = mem_find(m, id);
  if (s) s->bytes_read += nbytes;
}

void mem_count_write(MemSystem *m, int64_t id, int64_t nbytes) {
  MemSpace *s = mem_find(m, id);
  if (s) s->bytes_written += nbytes;
}

void mem_space_label(const MemSpace *s, char *buf, int bufsize) {
  char plain[32];
  snprintf(plain, sizeof plain, "S(%" PRId64 ")", s->id);
  if (!strcmp(s->name, plain)) snprintf(buf, (size_t)bufsize, "%s", plain);
  else snprintf(buf, (size_t)bufsize, "%s %s", plain, s->name);
}
