/* Arena allocator: everything a parsed module (or one run) owns lives in one
 * arena, so freeing the arena frees it all.  Allocations are zeroed and
 * 16-byte aligned.  Returns NULL only when the system is out of memory. */
#ifndef HLO_BASE_ARENA_H
#define HLO_BASE_ARENA_H

#include <stddef.h>
#include <stdint.h>

typedef struct Arena Arena;

Arena *arena_new(void);
void arena_free(Arena *arena);
void *arena_alloc(Arena *arena, size_t size);
/* size * count with overflow check; NULL on overflow or out of memory. */
void *arena_alloc_array(Arena *arena, size_t count, size_t size);
char *arena_strndup(Arena *arena, const char *s, size_t n);
char *arena_strdup(Arena *arena, const char *s);
/* Forgets every allocation but keeps one block for the next ones: for a
 * scratch arena filled and emptied many times (one trace record each). */
void arena_reset(Arena *arena);
/* Total bytes obtained from the system (for memory budgets and benchmarks). */
size_t arena_bytes_reserved(const Arena *arena);

#endif
