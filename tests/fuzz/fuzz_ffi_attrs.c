/* libFuzzer target for the reader of typed-FFI attributes
 * (interp/custom_call/ffi_attrs.c: a custom call's backend_config text, read
 * when a user's FFI handler runs it; scripts/fuzz-ffi-attrs.sh builds and
 * runs it).  Every input must end in attributes or an error that says why:
 * never a crash, a leak, undefined behaviour or a hang.  What was read is
 * walked as a handler would walk it (names in order, every value's bytes),
 * and the order is checked: a handler may binary-search the names. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "interp/custom_call/ffi_attrs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned walk(const XLA_FFI_Attrs *a) {
  unsigned sum = 0;
  for (int64_t i = 0; i < a->size; i++) {
    const XLA_FFI_ByteSpan *n = a->names[i];
    for (size_t k = 0; k < n->len; k++) sum += (unsigned char)n->ptr[k];
    if (i > 0) {
      const XLA_FFI_ByteSpan *p = a->names[i - 1];
      size_t m = p->len < n->len ? p->len : n->len;
      int c = memcmp(p->ptr, n->ptr, m);
      if (c > 0 || (c == 0 && p->len >= n->len)) __builtin_trap(); /* unsorted or repeated */
    }
    switch (a->types[i]) {
    case XLA_FFI_AttrType_SCALAR: {
      const XLA_FFI_Scalar *s = a->attrs[i];
      for (size_t k = 0; k < (size_t)ffi_attrs_value_bytes(s->dtype); k++) sum += ((unsigned char *)s->value)[k];
      break;
    }
    case XLA_FFI_AttrType_ARRAY: {
      const XLA_FFI_Array *r = a->attrs[i];
      for (size_t k = 0; k < r->size * (size_t)ffi_attrs_value_bytes(r->dtype); k++)
        sum += ((unsigned char *)r->data)[k];
      break;
    }
    case XLA_FFI_AttrType_STRING: {
      const XLA_FFI_ByteSpan *s = a->attrs[i];
      for (size_t k = 0; k < s->len; k++) sum += (unsigned char)s->ptr[k];
      break;
    }
    case XLA_FFI_AttrType_DICTIONARY: sum += walk(a->attrs[i]); break;
    default: __builtin_trap();
    }
  }
  return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The attribute text comes NUL-terminated from the parsed module. */
  char *text = malloc(size + 1);
  Arena *arena = arena_new();
  if (text && arena) {
    memcpy(text, data, size);
    text[size] = '\0';
    XLA_FFI_Attrs attrs;
    Error err = {0};
    if (ffi_attrs_parse(text, size, arena, 0, &attrs, &err)) {
      volatile unsigned sink = walk(&attrs);
      (void)sink;
    } else if (strlen(err.msg) == 0) {
      __builtin_trap(); /* a refusal must say why */
    }
  }
  if (arena) arena_free(arena);
  free(text);
  return 0;
}
