#include "base/arena.h"

#include <stdlib.h>
#include <string.h>

/* Blocks are chained; big requests get a block of their own so a huge
 * allocation does not waste the tail of the current block. */
typedef struct Block {
  struct Block *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
} Block;

struct Arena {
  Block *head;
  size_t reserved;
};

enum { ARENA_BLOCK = 64 * 1024, ARENA_ALIGN = 16 };

Arena *arena_new(void) { return calloc(1, sizeof(Arena)); }

void arena_free(Arena *arena) {
  if (!arena) return;
  Block *b = arena->head;
  while (b) {
    Block *next = b->next;
    free(b);
    b = next;
  }
  free(arena);
}

void arena_reset(Arena *arena) {
  Block *keep = NULL;
  for (Block *b = arena->head, *next; b; b = next) {
    next = b->next;
    if (!keep && b->size == ARENA_BLOCK) keep = b;
    else free(b);
  }
  arena->head = keep;
  arena->reserved = keep ? ARENA_BLOCK : 0;
  if (keep) keep->next = NULL, keep->used = 0;
}

static Block *block_new(size_t size) {
  Block *b = malloc(sizeof(Block) + size);
  if (!b) return NULL;
  b->next = NULL;
  b->size = size;
  b->used = 0;
  return b;
}

void *arena_alloc(Arena *arena, size_t size) {
  if (size == 0) size = 1;
  if (size > SIZE_MAX - ARENA_ALIGN) return NULL;
  size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  Block *b = arena->head;
  if (!b || b->size - b->used < size) {
    if (size > ARENA_BLOCK / 4) {
      /* Large: own block, linked behind the current one so the current
       * block keeps serving small requests. */
      Block *big = block_new(size);
      if (!big) return NULL;
      big->used = size;
      arena->reserved += size;
      if (b) {
        big->next = b->next;
        b->next = big;
      } else {
        arena->head = big;
      }
      memset(big->data, 0, size);
      return big->data;
    }
    Block *nb = block_new(ARENA_BLOCK);
    if (!nb) return NULL;
    nb->next = b;
    arena->head = nb;
    arena->reserved += ARENA_BLOCK;
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  memset(p, 0, size);
  return p;
}

void *arena_alloc_array(Arena *arena, size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) return NULL;
  return arena_alloc(arena, total);
}

char *arena_strndup(Arena *arena, const char *s, size_t n) {
  char *p = arena_alloc(arena, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

char *arena_strdup(Arena *arena, const char *s) {
  return arena_strndup(arena, s, strlen(s));
}

size_t arena_bytes_reserved(const Arena *arena) { return arena->reserved; }
