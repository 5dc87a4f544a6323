/* Reading values out of a custom call's JSON backend_config (GPU
 * GemmBackendConfig, TPU PartialReduce options, ...): a few lookups by key,
 * not a JSON parser.  Keys are matched at any depth, so they must be
 * distinct within the config. */
#ifndef HLO_INTERP_BACKEND_JSON_H
#define HLO_INTERP_BACKEND_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/ir.h"

/* The instruction's backend_config with \" unescaped, malloc'ed (free it),
 * or NULL when it has none (or out of memory: *oom set). */
char *backend_json_text(const Instr *in, bool *oom);

/* The value of key in s, just past its ':' and any blanks, or NULL.  key is
 * the proto field name ("activation_mode"); its JSON name
 * ("activationMode") matches too, as protobuf's JSON parser takes both. */
const char *json_value(const char *s, const char *key);
/* A number, written bare or (proto int64) as a string; dflt if absent.
 * False if present but not a number. */
bool json_number(const char *s, const char *key, double dflt, double *v);
/* An integer-valued number; dflt if absent.  False if present but not an
 * integer. */
bool json_int(const char *s, const char *key, int64_t dflt, int64_t *v);
/* A list of integers ("1" or 1), at most max; *n = 0 if absent. */
bool json_ints(const char *s, const char *key, int64_t *v, int max, int *n);
/* A string value copied into buf (truncated to size-1); false if absent or
 * not a string. */
bool json_string(const char *s, const char *key, char *buf, size_t size);

#endif
