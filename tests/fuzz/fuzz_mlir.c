/* libFuzzer target for the StableHLO (MLIR text) reader (scripts/fuzz-mlir.sh
 * builds and runs it): convert to HLO text, then parse and verify that text
 * as parse_load_module does, mapping every diagnostic back to the MLIR text.
 * Any input must give a module or diagnostics: never a crash, a leak,
 * undefined behaviour or a hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "parser/mlir.h"
#include "parser/parser.h"
#include "parser/verify.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  Diags diags = {0};
  MlirHlo h;
  if (mlir_to_hlo(text, size, &h, &diags)) {
    Diags hd = {0};
    Module *m = parse_module("fuzz.mlir", h.text, h.len, &hd);
    if (m && mlir_fill_blobs(&h, m, &hd)) verify_module(m, &hd);
    for (int i = 0; i < hd.count; i++) {
      int64_t off = mlir_map_offset(&h, hd.items[i].offset);
      free(diag_render("fuzz.mlir", text, size, off, hd.items[i].msg));
    }
    module_free(m);
    diags_free(&hd);
    mlir_hlo_free(&h);
  }
  for (int i = 0; i < diags.count; i++)
    free(diag_render("fuzz.mlir", text, size, diags.items[i].offset, diags.items[i].msg));
  diags_free(&diags);
  free(text);
  return 0;
}
