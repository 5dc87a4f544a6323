/* Large host memory blocks, kept for reuse by the whole process.
 *
 * Why: the first touch of a fresh page costs a page fault and the kernel's
 * zeroing of it (and, in a VM, often a fault on the host too); for the big
 * buffers of an evaluation that costs more than the arithmetic done on them.
 * So blocks of at least HOSTMEM_MIN bytes come from mmap (2 MiB aligned,
 * marked for transparent huge pages; sizes in 64 KiB steps, so that no
 * block wastes most of a huge page), and a freed block is not given back to
 * the system but kept as a free range: the next request of any size up to
 * it takes a piece of it (best fit, the rest stays free), neighbouring free
 * ranges merge, so the memory a run touches stays close to its peak live
 * size whatever the mix of sizes.  Free ranges above the limit (a quarter of
 * physical memory unless set) are unmapped.
 *
 * Buffers (interp/memspace.c) and big kernel temporaries (k_temp_alloc)
 * share it.  Thread-safe (one lock): the devices of a multi-device run are
 * threads. */
#ifndef HLO_BASE_HOSTMEM_H
#define HLO_BASE_HOSTMEM_H

#include <stdbool.h>
#include <stddef.h>

/* Requests below this go to malloc (the callers decide; see hostmem_alloc). */
#define HOSTMEM_MIN ((size_t)4 << 20)

/* A block of at least nbytes (rounded up to 64 KiB), 64 KiB aligned (2 MiB
 * when freshly mapped); NULL when the system is out of memory.  *zeroed says whether its bytes are all zero
 * (a fresh mapping) or left from an earlier use. */
void *hostmem_alloc(size_t nbytes, bool *zeroed);
/* Gives back a block from hostmem_alloc; false (and nothing done) when p is
 * not one (NULL, or memory from malloc: callers holding either kind free
 * the rest themselves, with one lookup). */
bool hostmem_free(void *p);
/* Whether p is a live block from hostmem_alloc. */
bool hostmem_owns(const void *p);
/* Unmaps every free range (live blocks stay). */
void hostmem_trim(void);
/* The most bytes kept free for reuse; 0 restores the default. */
void hostmem_set_limit(size_t bytes);

typedef struct HostMemStats {
  size_t live_bytes, free_bytes; /* handed out / kept for reuse */
  size_t mapped_bytes;           /* obtained from the system so far, in total */
  size_t reused_bytes;           /* requests served from free ranges, in total */
  int nlive, nfree;
} HostMemStats;
HostMemStats hostmem_stats(void);

#endif
