/* Reading StableHLO (MLIR text, as JAX's lower().as_text() prints it) by
 * converting it to HLO text that the HLO parser then reads (parser/mlir_*.c,
 * docs/stablehlo.md).  Each generated line remembers the MLIR offset of the
 * op it came from, so that parse and verify errors point into the .mlir file. */
#ifndef HLO_PARSER_MLIR_H
#define HLO_PARSER_MLIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/strbuf.h"

/* The generated text and, for each of its lines (0-based), the MLIR byte
 * offset it came from. */
typedef struct MlirHlo {
  char *text; /* malloc'd, NUL-terminated */
  size_t len;
  int64_t *line_off; /* malloc'd, nlines entries */
  int nlines;
  /* Constants carried as bytes (dense_resource and large hex blobs): the
   * text says "blob.N = T constant(0)"; mlir_fill_blobs copies them in. */
  struct MBlob *blobs; /* malloc'd, nblobs entries sorted by id */
  int nblobs;
  /* The entry's jax.result_info names, when every result has a non-empty
   * one and no two are equal (else NULL): malloc'd, nresult_names of them. */
  char **result_names;
  int nresult_names;
} MlirHlo;

/* True when text (after blanks and comments) starts the way MLIR does. */
bool mlir_detect(const char *text, size_t len);

/* Converts a StableHLO module to HLO text.  On failure returns false with
 * one diagnostic (MLIR offset) in diags. */
bool mlir_to_hlo(const char *text, size_t len, MlirHlo *out, Diags *diags);

/* The MLIR offset for an offset into out->text (-1 stays -1). */
int64_t mlir_map_offset(const MlirHlo *h, int64_t hlo_offset);

/* Copies the blob constants of h into m's constant literals (after
 * parse_module, before verify_module).  False when the module's constants do
 * not match them (a diagnostic in diags). */
struct Module;
bool mlir_fill_blobs(const MlirHlo *h, struct Module *m, Diags *diags);

/* Gives m the result names of h (Module.result_names, in m's arena). */
bool mlir_name_results(const MlirHlo *h, struct Module *m);

/* The user's file location (FILE:LINE:COL, as the op's loc(...) resolves
 * through names, #loc aliases, callsites and fused locations) of the op at
 * or around MLIR offset off; false when it has none (parser/mlir_loc.c). */
bool mlir_loc_of(const char *src, size_t len, int64_t off, char *buf, size_t cap);

void mlir_hlo_free(MlirHlo *h);

#endif
