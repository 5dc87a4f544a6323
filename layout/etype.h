/* Element types: names, bit widths, kinds.  Conversions between element
 * types (bf16, f16, every f8/f6/f4 variant, sub-byte ints) live in
 * layout/etype_convert.h. */
#ifndef HLO_LAYOUT_ETYPE_H
#define HLO_LAYOUT_ETYPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
  EK_NONE,
  EK_PRED,
  EK_SINT,
  EK_UINT,
  EK_FLOAT,
  EK_COMPLEX,
  EK_TOKEN,
  EK_OPAQUE,
  EK_TUPLE
} ETypeKind;

typedef enum {
  ET_INVALID = 0,
#define ETYPE(id, text, bits, bytes, kind) ET_##id,
#include "layout/etypes.def"
#undef ETYPE
  ET_TUPLE, /* structural: "(...)" */
  ET_BUFFER, /* structural: "b(...)" */
  ET_COUNT
} EType;

const char *etype_name(EType t);        /* "f32"; "tuple"/"buffer" for the structural ones */
int etype_bits(EType t);                /* 4 for s4, 16 for bf16, 0 for token */
int etype_storage_bytes(EType t);       /* natural dense storage, sub-byte -> 1 */
ETypeKind etype_kind(EType t);
/* Looks a lower-case spelling up; ET_INVALID if it is not a type name.
 * Only the ETYPE list above is reserved ("tuple"/"buffer" are not). */
EType etype_from_name(const char *s, size_t len);

static inline bool etype_is_float(EType t) { return etype_kind(t) == EK_FLOAT; }
static inline bool etype_is_complex(EType t) { return etype_kind(t) == EK_COMPLEX; }
static inline bool etype_is_int(EType t) {
  return etype_kind(t) == EK_SINT || etype_kind(t) == EK_UINT;
}
static inline bool etype_is_array(EType t) {
  ETypeKind k = etype_kind(t);
  return k != EK_NONE && k != EK_TUPLE;
}

#endif
