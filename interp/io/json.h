/* A small strict JSON (RFC 8259) reader: the whole text into a tree of
 * values, for custom-call backend_configs (interp/custom_call/backend_json.h).
 *
 * Strict: one value with only blanks around it, no comments, no trailing
 * commas, no leading zeros, no control characters in strings, no lone
 * surrogates, no duplicate keys in an object (protobuf's JSON parser
 * refuses them too).  Objects keep their keys in text order; strings are
 * unescaped (\uXXXX and surrogate pairs to UTF-8); numbers are kept as
 * their text, so a 64-bit integer is exact however it is read later.
 * Nesting deeper than JSON_MAX_DEPTH or a text longer than JSON_MAX_BYTES
 * is refused, and so is an object of more than JSON_MAX_MEMBERS keys: a
 * config is small, and the reader recurses. */
#ifndef HLO_INTERP_IO_JSON_H
#define HLO_INTERP_IO_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"

/* Objects are searched linearly for duplicate keys: a cap keeps that cheap. */
enum { JSON_MAX_DEPTH = 64, JSON_MAX_MEMBERS = 4096 };
#define JSON_MAX_BYTES ((size_t)1 << 24)

typedef enum {
  JSON_NULL, JSON_FALSE, JSON_TRUE, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT
} JsonKind;

typedef struct Json Json;
struct Json {
  JsonKind kind;
  int64_t offset; /* byte offset of the value in the text */
  char *key;      /* the member's key (unescaped) when inside an object, else NULL */
  char *text;     /* NUMBER: as written; STRING: unescaped, NUL-terminated */
  size_t len;     /* bytes of text (a string may hold \u0000) */
  Json *kids;     /* ARRAY elements / OBJECT members, in text order */
  size_t nkids;
};

/* Parses n bytes of s into *out (free with json_free).  On failure returns
 * false with err's offset the byte offset in s where it went wrong and the
 * message saying what was expected there. */
bool json_parse(const char *s, size_t n, Json **out, Error *err);
void json_free(Json *v);

/* "null", "false", "true", "number", "string", "array", "object". */
const char *json_kind_name(JsonKind k);

/* The member of object v with this key, or NULL. */
const Json *json_member(const Json *v, const char *key);

#endif
