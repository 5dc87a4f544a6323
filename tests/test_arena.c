/* The arena: zeroed aligned allocations, big blocks of their own, and
 * arena_reset keeping one block for the next round. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"

Test(arena, reset_keeps_one_block_and_zeroes_again) {
  Arena *a = arena_new();
  cr_assert(a);
  arena_reset(a); /* an empty arena is fine */
  cr_assert_eq(arena_bytes_reserved(a), 0);
  for (int round = 0; round < 3; round++) {
    unsigned char *p = arena_alloc(a, 100);
    cr_assert(p && ((uintptr_t)p % 16) == 0);
    for (int i = 0; i < 100; i++) cr_assert_eq(p[i], 0, "round %d byte %d", round, i);
    memset(p, 0xAB, 100);
    unsigned char *big = arena_alloc(a, 1 << 20); /* a block of its own */
    cr_assert(big && big[0] == 0 && big[(1 << 20) - 1] == 0);
    for (int i = 0; i < 2000; i++) cr_assert(arena_alloc(a, 64)); /* a second small block */
    cr_assert_gt(arena_bytes_reserved(a), (size_t)(1 << 20));
    arena_reset(a);
    cr_assert_eq(arena_bytes_reserved(a), 64 * 1024, "round %d", round);
  }
  arena_free(a);
}
