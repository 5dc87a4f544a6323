/* base/hostmem: big blocks are reused by later requests of any size that
 * fits, freed neighbours merge, the free bytes stay under the limit, and
 * kernel temporaries (k_malloc/k_free) and buffers share the blocks. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "base/hostmem.h"
#include "interp/memspace.h"
#include "kernels/k_common.h"

#define MiB ((size_t)1 << 20)

static void fresh(void) {
  hostmem_set_limit(0);
  hostmem_trim();
}

TestSuite(hostmem, .init = fresh, .fini = fresh);

Test(hostmem, fresh_blocks_are_zero_aligned_and_owned) {
  bool zeroed = false;
  unsigned char *p = hostmem_alloc(5 * MiB, &zeroed);
  cr_assert_not_null(p);
  cr_assert(zeroed);
  cr_assert_eq((uintptr_t)p % (2 * MiB), 0);
  for (size_t i = 0; i < 5 * MiB; i += 4096) cr_assert_eq(p[i], 0);
  cr_assert(hostmem_owns(p));
  cr_assert_not(hostmem_owns(p + 64));
  HostMemStats st = hostmem_stats();
  cr_assert_eq(st.live_bytes, 5 * MiB); /* a multiple of 64 KiB already */
  hostmem_free(p);
  cr_assert_not(hostmem_owns(p));
  st = hostmem_stats();
  cr_assert_eq(st.live_bytes, 0);
  cr_assert_eq(st.free_bytes, 5 * MiB);
  /* sizes round up to 64 KiB, not to a whole huge page */
  p = hostmem_alloc(5 * MiB + 1, &zeroed);
  cr_assert_eq(hostmem_stats().live_bytes, 5 * MiB + 64 * 1024);
  hostmem_free(p);
}

Test(hostmem, smaller_request_takes_a_piece_of_a_freed_block) {
  bool z;
  char *big = hostmem_alloc(16 * MiB, &z);
  cr_assert_not_null(big);
  memset(big, 7, 16 * MiB);
  hostmem_free(big);
  size_t mapped = hostmem_stats().mapped_bytes;
  char *a = hostmem_alloc(4 * MiB, &z), *b = hostmem_alloc(6 * MiB, &z);
  cr_assert_eq(a, big); /* the front of the free range */
  cr_assert_eq(b, big + 4 * MiB);
  cr_assert_not(z); /* reused: the old bytes are still there */
  cr_assert_eq(b[0], 7);
  HostMemStats st = hostmem_stats();
  cr_assert_eq(st.mapped_bytes, mapped, "no fresh mapping for requests that fit");
  cr_assert_eq(st.free_bytes, 6 * MiB);
  cr_assert_eq(st.nfree, 1);
  /* freeing both merges the three pieces back into one range */
  hostmem_free(a);
  hostmem_free(b);
  st = hostmem_stats();
  cr_assert_eq(st.nfree, 1);
  cr_assert_eq(st.free_bytes, 16 * MiB);
  char *again = hostmem_alloc(16 * MiB, &z);
  cr_assert_eq(again, big);
  hostmem_free(again);
}

Test(hostmem, best_fit_prefers_the_smallest_range_that_fits) {
  bool z;
  char *x = hostmem_alloc(8 * MiB, &z), *sep = hostmem_alloc(2 * MiB, &z),
       *y = hostmem_alloc(4 * MiB, &z), *sep2 = hostmem_alloc(2 * MiB, &z);
  hostmem_free(x);
  hostmem_free(y);
  char *p = hostmem_alloc(4 * MiB, &z);
  cr_assert_eq(p, y);
  hostmem_free(p);
  hostmem_free(sep);
  hostmem_free(sep2);
}

Test(hostmem, free_bytes_stay_under_the_limit) {
  hostmem_set_limit(6 * MiB);
  bool z;
  char *a = hostmem_alloc(8 * MiB, &z), *b = hostmem_alloc(8 * MiB, &z);
  hostmem_free(a);
  cr_assert_leq(hostmem_stats().free_bytes, 6 * MiB);
  hostmem_free(b);
  cr_assert_leq(hostmem_stats().free_bytes, 6 * MiB);
  hostmem_trim();
  cr_assert_eq(hostmem_stats().free_bytes, 0);
}

Test(hostmem, unknown_pointers_are_ignored) {
  int local;
  hostmem_free(&local);
  hostmem_free(NULL);
  cr_assert_not(hostmem_owns(&local));
  cr_assert_not(hostmem_owns(NULL));
}

Test(hostmem, kernel_temporaries_and_buffers_share_blocks) {
  Error err;
  char *t = k_malloc(12 * MiB, &err);
  cr_assert_not_null(t);
  cr_assert(hostmem_owns(t));
  memset(t, 1, 12 * MiB);
  k_free(t);
  /* a buffer allocated right after reuses the temporary's pages, and asked
   * for zeroed bytes it gets them even though the block is not fresh */
  MemSystem m;
  mem_init(&m);
  void *buf;
  cr_assert(mem_alloc(&m, 0, 10 * (int64_t)MiB, true, "x", &buf, &err), "%s", err.msg);
  cr_assert_eq(buf, t);
  for (size_t i = 0; i < 10 * MiB; i += 4093) cr_assert_eq(((char *)buf)[i], 0);
  mem_release(&m, 0, buf, 10 * (int64_t)MiB);
  /* small temporaries stay with malloc; k_free takes both kinds */
  char *s = k_malloc(100, &err);
  cr_assert_not(hostmem_owns(s));
  k_free(s);
  mem_destroy(&m);
  cr_assert_eq(hostmem_stats().free_bytes, 0, "mem_destroy trims the free ranges");
}
