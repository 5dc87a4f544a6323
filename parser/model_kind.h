/* Recognising a model argument that is not HLO text (StableHLO/MLIR, a
 * serialized HLO proto, a numpy file, a directory) so that the user is told
 * what it is and how to get HLO text, instead of a parse error on line 1
 * (parser/model_kind.c). */
#ifndef HLO_PARSER_MODEL_KIND_H
#define HLO_PARSER_MODEL_KIND_H

#include <stdbool.h>
#include <stddef.h>

/* How to get HLO text from JAX and torch-xla (one line, no newline). */
extern const char MODEL_KIND_HOWTO[];

/* If text (the whole file, named path) is clearly not HLO text, writes one
 * line "this is ..., not HLO text; <how to get it>" into msg and returns
 * true.  Text starting with HloModule (after comments) is never flagged. */
bool model_kind_not_hlo(const char *path, const char *text, size_t len, char *msg, size_t cap);

#endif
