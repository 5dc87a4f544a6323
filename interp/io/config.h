/* Memory configuration: which memory spaces exist, their capacities and
 * bandwidths.  Built-in presets (--device NAME) and YAML files
 * (--memory-config FILE.yaml, read with libyaml):
 *
 *   device: my-board          # optional display name
 *   base: tpu-v4              # optional: start from a preset, then override
 *   strict: false             # optional: S(n) ids not listed are an error
 *   spaces:
 *     - id: 0                 # S(0)
 *       name: HBM
 *       capacity: 32GiB       # B, KiB/MiB/GiB/TiB (also K/M/G/T), KB/MB/GB/TB
 *                             # (powers of 1000), or "unlimited"
 *       bandwidth: 1.2TB/s    # optional, bytes per second, same suffixes
 *   peak_flops:               # optional: peak compute per element type, in
 *     bf16: 197e12            # operations per second (bf16, f16, f32, f64,
 *     int8: 394e12            # int8); the cost model of --stats divides flops
 *                             # by them (interp/cost_model.h)
 *   custom_calls:             # optional: custom-call targets the user brings,
 *     - my_op=libmy_ops.so:MyOp  # as hlorun --custom-call (paths relative
 *     - pallas_k=ref.hlo      # to this file's directory)
 *
 * A space listed with an id the base already has replaces that space's
 * fields that are given.  Unknown keys, bad values and malformed YAML are
 * errors "FILE:LINE:COL: message" (ERR_USAGE). */
#ifndef HLO_INTERP_IO_CONFIG_H
#define HLO_INTERP_IO_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "interp/memspace.h"

typedef struct MemSpaceConfig {
  int64_t id;
  char name[MEM_NAME_MAX];
  int64_t capacity;  /* MEM_UNLIMITED when none */
  double bandwidth;  /* bytes/s, 0 = unknown */
  const char *note;  /* where the number comes from (presets) */
} MemSpaceConfig;

/* The element-type classes a device states a peak compute rate for
 * (MemConfig.peak_flops); config_peak_names are their YAML keys. */
enum { PEAK_BF16, PEAK_F16, PEAK_F32, PEAK_F64, PEAK_INT8, PEAK_NTYPES };
extern const char *const config_peak_names[PEAK_NTYPES];

enum { CONFIG_MAX_CUSTOM_CALLS = 32, CONFIG_CUSTOM_CALL_MAX = 1024 };

typedef struct MemConfig {
  char device[64];
  const char *description;
  bool strict;
  int nspaces;
  MemSpaceConfig spaces[MEM_MAX_SPACES];
  /* Peak operations per second by PEAK_* class; 0: not stated (the cost
   * model then uses the f32 figure).  peak_note: where they come from. */
  double peak_flops[PEAK_NTYPES];
  const char *peak_note;
  /* custom_calls: registrations (interp/custom_call/user_calls.h), for the
   * command to load; paths in them are relative to dir (the file's
   * directory; "" for presets). */
  int ncustom_calls;
  char custom_calls[CONFIG_MAX_CUSTOM_CALLS][CONFIG_CUSTOM_CALL_MAX];
  char dir[CONFIG_CUSTOM_CALL_MAX];
} MemConfig;

/* Names of the built-in presets, NULL-terminated ("cpu", "tpu-v4", ...). */
const char *const *config_preset_names(void);
/* Fills cfg with a preset; false (ERR_USAGE, listing the known names) if the
 * name is unknown. */
bool config_preset(const char *name, MemConfig *cfg, Error *err);
/* The default configuration (the "cpu" preset). */
void config_default(MemConfig *cfg);

/* Parses YAML text (len bytes); filename is used in messages only. */
bool config_parse_yaml(const char *filename, const char *text, size_t len, MemConfig *cfg,
                       Error *err);
/* Reads and parses a file. */
bool config_load_file(const char *path, MemConfig *cfg, Error *err);

/* "16GiB", "1.5 MiB", "1000", "unlimited" -> bytes.  False on a bad value. */
bool config_parse_bytes(const char *s, int64_t *out);
/* "1.2TB/s", "819GB/s", "900e9" -> bytes per second. */
bool config_parse_bandwidth(const char *s, double *out);

/* Sets up the memory system's spaces from a configuration. */
bool config_apply(const MemConfig *cfg, MemSystem *mem, Error *err);

#endif
