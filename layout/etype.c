#include "layout/etype.h"

#include <string.h>

typedef struct {
  const char *name;
  int bits, bytes;
  ETypeKind kind;
} ETypeInfo;

static const ETypeInfo etype_info[ET_COUNT] = {
    [ET_INVALID] = {"invalid", 0, 0, EK_NONE},
#define ETYPE(id, text, bits, bytes, kind) [ET_##id] = {text, bits, bytes, kind},
#include "layout/etypes.def"
#undef ETYPE
    [ET_TUPLE] = {"tuple", 0, 0, EK_TUPLE},
    [ET_BUFFER] = {"buffer", 0, 0, EK_TUPLE},
};

static const ETypeInfo *info(EType t) {
  return (unsigned)t < ET_COUNT ? &etype_info[t] : &etype_info[ET_INVALID];
}

const char *etype_name(EType t) { return info(t)->name; }
int etype_bits(EType t) { return info(t)->bits; }
int etype_storage_bytes(EType t) { return info(t)->bytes; }
ETypeKind etype_kind(EType t) { return info(t)->kind; }

EType etype_from_name(const char *s, size_t len) {
  for (int t = ET_INVALID + 1; t < ET_TUPLE; t++) {
    const char *n = etype_info[t].name;
    /* The first byte rules out most names cheaply: the lexer asks about
     * every identifier. */
    if (len && n[0] == s[0] && strlen(n) == len && memcmp(n, s, len) == 0) return (EType)t;
  }
  return ET_INVALID;
}
