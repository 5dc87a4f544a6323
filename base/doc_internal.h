/* The node of base/doc.h, shared by the tree (doc.c) and its JSON and YAML
 * writers (doc_json.c, doc_yaml.c); not a public interface. */
#ifndef HLO_BASE_DOC_INTERNAL_H
#define HLO_BASE_DOC_INTERNAL_H

#include "base/doc.h"

typedef enum { DOC_MAP, DOC_SEQ, DOC_INT, DOC_NUM, DOC_STR, DOC_BOOL, DOC_NULL } DocKind;

struct Doc {
  DocKind kind;
  bool flow;        /* doc_flow */
  bool newline;     /* doc_newline */
  bool broken;      /* a child could not be made (out of memory) */
  const char *key;  /* when inside a map */
  const char *text; /* scalar text as written (numbers pre-formatted) */
  Doc *first, *last, *next;
};

/* A sequence of scalars only, none a string longer than 8 bytes: written
 * on one line ([2, 3], [*, 4, 4]). */
bool doc_short_scalars(const Doc *d);

/* Whether d and everything under it were built whole: no child was lost
 * to out of memory.  The writers write nothing for a broken tree. */
bool doc_complete(const Doc *d);

#endif
