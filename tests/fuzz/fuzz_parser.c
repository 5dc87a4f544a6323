/* libFuzzer target for the HLO text parser (scripts/fuzz-parser.sh builds
 * and runs it), both entries: a module and a lone shape.  Any input must
 * give a module or diagnostics: never a crash, a leak, undefined
 * behaviour or a hang. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "parser/parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* The parser wants a NUL sentinel after the text. */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  Diags diags = {0};
  Module *m = parse_module("fuzz.hlo", text, size, &diags);
  /* Rendering exercises every reported offset against the source. */
  for (int i = 0; i < diags.count; i++)
    free(diag_render("fuzz.hlo", text, size, diags.items[i].offset, diags.items[i].msg));
  module_free(m);
  diags_free(&diags);
  /* The same bytes as hlolayout's SHAPE argument. */
  Arena *arena = arena_new();
  if (arena) {
    Shape shape;
    Error err;
    if (!parse_shape_text(text, size, arena, &shape, &err))
      free(diag_render("<shape>", text, size, err.offset, err.msg));
    arena_free(arena);
  }
  free(text);
  return 0;
}
