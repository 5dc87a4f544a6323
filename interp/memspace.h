/* Simulated memory spaces (layout.md section 3: S(0) HBM, S(1) VMEM, S(5)
 * host, other ids backend specific).  Every buffer of a run is allocated in
 * one space; a space counts its live and peak bytes and the traffic the
 * evaluator reports against it.  A request that does not fit the space's
 * capacity is a runtime error naming who asked, the space and the numbers. */
#ifndef HLO_INTERP_MEMSPACE_H
#define HLO_INTERP_MEMSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* Capacity of a space without a limit. */
#define MEM_UNLIMITED INT64_MAX
enum { MEM_MAX_SPACES = 32, MEM_NAME_MAX = 64 };

typedef struct MemSpace {
  int64_t id;                /* S(n) */
  char name[MEM_NAME_MAX];   /* "HBM", "VMEM", "host" */
  int64_t capacity;          /* bytes, MEM_UNLIMITED if none */
  double bandwidth;          /* bytes per second, 0 = unknown */
  bool implicit;             /* not configured: created on first use */
  int64_t live, peak;        /* bytes currently allocated / high-water mark */
  int64_t bytes_read, bytes_written;
  int64_t nallocs;
  int64_t largest_alloc;
} MemSpace;

enum { MEM_SMALL_CLASSES = 64, MEM_SMALL_KEEP = 256 }; /* classes of 64 bytes up to 4 KiB */

/* Host memory shared by the devices of a multi-device run (each device has
 * its own MemSystem and simulated spaces, but they all live in this
 * process): the real bytes they hold (their buffers) against a
 * limit, so that many devices fail cleanly instead of exhausting the
 * machine. */
typedef struct MemHostBudget {
  _Atomic int64_t held;
  int64_t limit;
} MemHostBudget;

typedef struct MemSystem {
  void *small_free[MEM_SMALL_CLASSES]; /* free lists (next pointer in the block) */
  int small_count[MEM_SMALL_CLASSES];
  int nspaces;
  MemSpace spaces[MEM_MAX_SPACES];
  /* Ids not configured get an unlimited implicit space (a real dump may use
   * backend-specific spaces the configuration does not know); when strict,
   * they are an error instead. */
  bool strict;
  MemHostBudget *host; /* shared host budget, or NULL (no limit: one device) */
} MemSystem;

void mem_init(MemSystem *m);
/* Frees the small blocks kept for reuse and, for a single device (no shared
 * host budget), trims base/hostmem's free ranges (the counters stay
 * readable). */
void mem_destroy(MemSystem *m);
/* Adds a configured space; false (ERR_USAGE) on a duplicate id or when full. */
bool mem_add_space(MemSystem *m, int64_t id, const char *name, int64_t capacity,
                   double bandwidth, Error *err);
/* The space with this id, or NULL. */
MemSpace *mem_find(MemSystem *m, int64_t id);
/* The space with this id, created (implicit, unlimited) if missing and not
 * strict.  NULL with an error otherwise. */
MemSpace *mem_space(MemSystem *m, int64_t id, Error *err);

/* Allocates nbytes (64-byte aligned; zero-filled when `zero`) in space `id`
 * on behalf of `who` (an instruction or parameter description that starts
 * the message; NULL or "" for none).
 * Errors (ERR_RUNTIME): the space is full, or the system is out of memory. */
/* The arguments for a "%s%s" message prefix: "who: ", or nothing when who
 * is NULL or empty (in the run loop, which prefixes the instruction). */
#define MEM_WHO(who) ((who) && *(who) ? (who) : ""), ((who) && *(who) ? ": " : "")

bool mem_alloc(MemSystem *m, int64_t id, int64_t nbytes, bool zero, const char *who, void **out, Error *err);
/* The accounting half of mem_alloc / mem_release: counts nbytes in the
 * space (or fails as mem_alloc does) without touching host memory. */
bool mem_charge(MemSystem *m, int64_t id, int64_t nbytes, const char *who, Error *err);
void mem_discharge(MemSystem *m, int64_t id, int64_t nbytes);
/* Whether nbytes would fit in space `id` now (the error mem_charge would
 * give if not), without counting anything: for host temporaries and scratch
 * buffers tied to a space but not accounted in it. */
bool mem_fits(MemSystem *m, int64_t id, int64_t nbytes, const char *who, Error *err);
/* Host allocation used for every buffer (64-byte aligned, rounded up to a
 * whole line whose tail is zeroed); give it back with mem_raw_free. */
void *mem_raw_alloc(MemSystem *m, int64_t nbytes, bool zero);
void mem_raw_free(MemSystem *m, void *p, int64_t nbytes);
/* Releases a buffer obtained from mem_alloc with the same space and size. */
void mem_release(MemSystem *m, int64_t id, void *p, int64_t nbytes);
/* Released as mem_release does, except that the bytes go to the caller,
 * who frees them with mem_free_detached (after the MemSystem is gone if
 * need be): a run's result handed out without a copy. */
void mem_detach(MemSystem *m, int64_t id, void *p, int64_t nbytes);
void mem_free_detached(void *p);

/* Traffic counters (bytes moved through the space). */
void mem_count_read(MemSystem *m, int64_t id, int64_t nbytes);
void mem_count_write(MemSystem *m, int64_t id, int64_t nbytes);

/* "32 GiB", "16 MiB", "1.5 KiB", "123 B" (exact binary units when whole). */
void mem_format_bytes(int64_t bytes, char *buf, int bufsize);
/* "S(1) vmem"; just "S(3)" when the space has no name of its own (its name
 * is the default "S(3)"). */
void mem_space_label(const MemSpace *s, char *buf, int bufsize);

#endif
