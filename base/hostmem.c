#include "base/hostmem.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Under AddressSanitizer free ranges are poisoned, so a use after free of a
 * reused block is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#define HOSTMEM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HOSTMEM_ASAN 1
#endif
#endif
#ifdef HOSTMEM_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ALIGN ((size_t)2 << 20) /* a transparent huge page: fresh mappings start on one */
/* Block sizes are multiples of GRAIN, not of ALIGN: a block's last huge page
 * is shared with its neighbour's first rather than rounded up (a 4.1 MiB
 * tensor took 6 MiB, and with THP all of it was touched: 25-bert's ~600
 * live blocks held ~280 MB more than their tensors). */
#define GRAIN ((size_t)64 << 10)

typedef struct Range {
  char *p;
  size_t size;
} Range;

static Range *live_, *free_; /* free_ sorted by address, neighbours never touching */
static int nlive_, nfree_, cap_live_, cap_free_;
static size_t live_bytes_, free_bytes_, mapped_bytes_, reused_bytes_, limit_;

static size_t free_limit(void) {
  if (limit_) return limit_;
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return (size_t)1 << 30;
  return (size_t)pages / 4 * (size_t)page;
}

static void set_limit_locked(size_t bytes) { limit_ = bytes; }

static bool reserve(Range **a, int *cap, int need) {
  if (need <= *cap) return true;
  int n = *cap ? *cap * 2 : 64;
  Range *r = realloc(*a, sizeof *r * (size_t)n);
  if (!r) return false;
  *a = r;
  *cap = n;
  return true;
}

static char *map_fresh(size_t sz) {
  size_t len = sz + ALIGN;
  char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  char *a = (char *)(((uintptr_t)p + ALIGN - 1) & ~(uintptr_t)(ALIGN - 1));
  if (a > p) munmap(p, (size_t)(a - p));
  size_t tail = (size_t)((p + len) - (a + sz));
  if (tail) munmap(a + sz, tail);
#ifdef MADV_HUGEPAGE
  madvise(a, sz, MADV_HUGEPAGE);
#endif
  mapped_bytes_ += sz;
  return a;
}

static void unmap_free_ranges(void) {
  for (int i = 0; i < nfree_; i++) {
    UNPOISON(free_[i].p, free_[i].size); /* the addresses may be mapped again */
    munmap(free_[i].p, free_[i].size);
  }
  free_bytes_ = 0;
  nfree_ = 0;
}

static void drop_free(int i) {
  memmove(&free_[i], &free_[i + 1], sizeof *free_ * (size_t)(nfree_ - i - 1));
  nfree_--;
}

static void *alloc_locked(size_t nbytes, bool *zeroed) {
  *zeroed = false;
  if (nbytes > SIZE_MAX / 2) return NULL;
  size_t sz = nbytes ? (nbytes + GRAIN - 1) & ~(GRAIN - 1) : GRAIN;
  if (!reserve(&live_, &cap_live_, nlive_ + 1)) return NULL;
  int best = -1;
  for (int i = 0; i < nfree_; i++)
    if (free_[i].size >= sz && (best < 0 || free_[i].size < free_[best].size)) best = i;
  char *p;
  if (best >= 0) { /* the front of the best fitting range; the rest stays free */
    p = free_[best].p;
    free_[best].p += sz;
    free_[best].size -= sz;
    if (!free_[best].size) drop_free(best);
    free_bytes_ -= sz;
    reused_bytes_ += sz;
    UNPOISON(p, sz);
  } else {
    if (!(p = map_fresh(sz))) {
      unmap_free_ranges(); /* ranges too small to use may be what is in the way */
      if (!(p = map_fresh(sz))) return NULL;
    }
    *zeroed = true;
  }
  live_[nlive_++] = (Range){p, sz};
  live_bytes_ += sz;
  return p;
}

static int find_live(const void *p) {
  for (int i = nlive_ - 1; i >= 0; i--)
    if (live_[i].p == p) return i;
  return -1;
}

static bool owns_locked(const void *p) { return p && find_live(p) >= 0; }

/* Unmaps free bytes (from the ends of the largest ranges) down to the limit. */
static void enforce_limit(void) {
  size_t lim = free_limit();
  while (free_bytes_ > lim && nfree_ > 0) {
    int big = 0;
    for (int i = 1; i < nfree_; i++)
      if (free_[i].size > free_[big].size) big = i;
    size_t cut = (free_bytes_ - lim + GRAIN - 1) & ~(GRAIN - 1);
    if (cut > free_[big].size) cut = free_[big].size;
    free_[big].size -= cut;
    UNPOISON(free_[big].p + free_[big].size, cut); /* the address may be mapped again */
    munmap(free_[big].p + free_[big].size, cut);
    free_bytes_ -= cut;
    if (!free_[big].size) drop_free(big);
  }
}

static bool free_locked(void *ptr) {
  if (!ptr) return false;
  int li = find_live(ptr);
  if (li < 0) return false; /* not ours */
  Range r = live_[li];
  live_[li] = live_[--nlive_];
  live_bytes_ -= r.size;
  if (!reserve(&free_, &cap_free_, nfree_ + 1)) {
    munmap(r.p, r.size);
    return true;
  }
  POISON(r.p, r.size);
  int lo = 0, hi = nfree_; /* at: the first free range above r */
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (free_[mid].p < r.p) lo = mid + 1;
    else hi = mid;
  }
  int at = lo;
  free_bytes_ += r.size;
  bool join_prev = at > 0 && free_[at - 1].p + free_[at - 1].size == r.p;
  bool join_next = at < nfree_ && r.p + r.size == free_[at].p;
  if (join_prev && join_next) {
    free_[at - 1].size += r.size + free_[at].size;
    drop_free(at);
  } else if (join_prev) {
    free_[at - 1].size += r.size;
  } else if (join_next) {
    free_[at].p = r.p;
    free_[at].size += r.size;
  } else {
    memmove(&free_[at + 1], &free_[at], sizeof *free_ * (size_t)(nfree_ - at));
    free_[at] = r;
    nfree_++;
  }
  enforce_limit();
  return true;
}

static void trim_locked(void) {
  unmap_free_ranges();
  if (nlive_ == 0) { /* nothing left: the tables too (no leak reports) */
    free(live_);
    free(free_);
    live_ = free_ = NULL;
    cap_live_ = cap_free_ = 0;
  }
}

static HostMemStats stats_locked(void) {
  return (HostMemStats){.live_bytes = live_bytes_, .free_bytes = free_bytes_,
                        .mapped_bytes = mapped_bytes_, .reused_bytes = reused_bytes_,
                        .nlive = nlive_, .nfree = nfree_};
}

/* --- the public functions: one lock (the devices of a multi-device run are
 * threads sharing this process's blocks; calls are few and short) --- */

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;

void hostmem_set_limit(size_t bytes) {
  pthread_mutex_lock(&lock_);
  set_limit_locked(bytes);
  pthread_mutex_unlock(&lock_);
}

void *hostmem_alloc(size_t nbytes, bool *zeroed) {
  pthread_mutex_lock(&lock_);
  void *p = alloc_locked(nbytes, zeroed);
  pthread_mutex_unlock(&lock_);
  return p;
}

bool hostmem_owns(const void *p) {
  pthread_mutex_lock(&lock_);
  bool r = owns_locked(p);
  pthread_mutex_unlock(&lock_);
  return r;
}

bool hostmem_free(void *ptr) {
  pthread_mutex_lock(&lock_);
  bool ours = free_locked(ptr);
  pthread_mutex_unlock(&lock_);
  return ours;
}

void hostmem_trim(void) {
  pthread_mutex_lock(&lock_);
  trim_locked();
  pthread_mutex_unlock(&lock_);
}

HostMemStats hostmem_stats(void) {
  pthread_mutex_lock(&lock_);
  HostMemStats st = stats_locked();
  pthread_mutex_unlock(&lock_);
  return st;
}
