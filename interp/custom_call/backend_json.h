/* A custom call's JSON backend_config read as XLA reads it: parsed once
 * (interp/io/json.h) and checked against the target's protobuf message under
 * proto3's JSON mapping, so that nothing in it is silently ignored.
 *
 *   - a field is found under its proto name ("activation_mode") or its
 *     lowerCamelCase JSON name ("activationMode"); both at once is refused;
 *   - enums by name ("kRelu") or number (2 or "2");
 *   - 64-bit integers bare or quoted ("-1"); floats as numbers, quoted
 *     numbers or "NaN" / "Infinity" / "-Infinity";
 *   - repeated fields as arrays; null is the field's default.
 *
 * Each field of the schema (interp/custom_call/backend_schemas.h) says what the
 * interpreter does with it: PU_HONOURED (read by the target's evaluator),
 * PU_ACCEPTED (it cannot change results on a CPU: queues, autotuning
 * choices, scheduling, cost estimates) or PU_DEFAULT_ONLY (a feature not
 * implemented: refused unless it has its default value).  A field the
 * schema does not list is refused, naming its path. */
#ifndef HLO_INTERP_CUSTOM_CALL_BACKEND_JSON_H
#define HLO_INTERP_CUSTOM_CALL_BACKEND_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "interp/io/json.h"
#include "parser/ir.h"

typedef enum { PT_BOOL, PT_INT64, PT_DOUBLE, PT_STRING, PT_ENUM, PT_MESSAGE, PT_ANY } ProtoType;
typedef enum { PU_HONOURED, PU_ACCEPTED, PU_DEFAULT_ONLY } ProtoUse;

/* A proto enum whose values are 0 .. n-1, names[i] the name of value i. */
typedef struct ProtoEnum {
  const char *name;
  const char *const *names;
  int n;
} ProtoEnum;

typedef struct ProtoMessage ProtoMessage;

typedef struct ProtoField {
  const char *name; /* the proto name, snake_case */
  ProtoType type;
  bool repeated;
  ProtoUse use;
  const ProtoMessage *msg; /* PT_MESSAGE */
  const ProtoEnum *enm;    /* PT_ENUM */
} ProtoField;

struct ProtoMessage {
  const char *name;
  const ProtoField *fields;
  int nfields;
};

/* Checks object v against message m.  On failure err says
 * `backend_config field "PATH": why` (PATH as the text spells it, dotted
 * from v) with the byte offset in the config. */
bool proto_json_check(const Json *v, const ProtoMessage *m, Error *err);

/* An instruction's config, read and checked. */
typedef struct BackendConfig {
  Json *root;       /* the parsed text, NULL when the instruction has none */
  const Json *msg;  /* the target's message in it, NULL when absent */
} BackendConfig;

/* Reads in's backend_config as message m.  When wrap is not NULL the
 * config may also be m wrapped in that message (GpuBackendConfig) as its
 * field inner: a config whose keys are all wrap's fields is read as wrap.
 * An absent or empty config reads as all defaults.  Errors name the instruction and
 * target: `instruction %x: __cublas$gemm: backend_config field "epilogue":
 * ...`. */
bool backend_config_read(const Instr *in, const char *target, const ProtoMessage *m,
                         const ProtoMessage *wrap, const char *inner, BackendConfig *bc,
                         Error *err);
void backend_config_free(BackendConfig *bc);

/* The value at path (proto names joined by '.', each matched under either
 * spelling) of a checked config, or NULL when absent or null. */
const Json *bc_field(const BackendConfig *bc, const char *path);
bool bc_present(const BackendConfig *bc, const char *path);
/* The values of checked fields, dflt (or the proto default) when absent. */
double bc_double(const BackendConfig *bc, const char *path, double dflt);
int64_t bc_int(const BackendConfig *bc, const char *path, int64_t dflt);
bool bc_bool(const BackendConfig *bc, const char *path);
int bc_enum(const BackendConfig *bc, const char *path, const ProtoEnum *e, int dflt);
const char *bc_string(const BackendConfig *bc, const char *path, const char *dflt);
/* A repeated integer field into v (at most max); its length, or -1 when
 * longer than max. */
int bc_ints(const BackendConfig *bc, const char *path, int64_t *v, int max);
/* A repeated enum field as numbers, the same way. */
int bc_enums(const BackendConfig *bc, const char *path, const ProtoEnum *e, int *v, int max);

/* The refusal of a value the evaluator cannot honour:
 * `instruction %x: TARGET: backend_config field "PATH": value "V" is not
 * supported[; why]`, V the enum's name or the value's text. */
bool bc_unsupported(const Instr *in, const char *target, const BackendConfig *bc,
                    const char *path, const ProtoEnum *e, const char *why, Error *err);

/* The instruction's backend_config text, malloc'ed (free it), or NULL when
 * it has none (or out of memory: *oom set).  For configs that are not JSON
 * (jaxlib's FFI attribute dictionaries). */
char *backend_json_text(const Instr *in, bool *oom);

#endif
