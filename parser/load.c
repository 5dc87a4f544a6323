#include "parser/load.h"

#include <stdlib.h>
#include <string.h>

#include "base/diag.h"
#include "base/file.h"
#include "parser/parser.h"
#include "parser/verify.h"

Module *parse_load_module(const char *path, ModuleSource *src, StrBuf *report, ErrorKind *kind) {
  memset(src, 0, sizeof *src);
  src->display = strcmp(path, "-") == 0 ? "<stdin>" : path;
  Error err = {0};
  src->text = file_read_all(path, &src->len, &err);
  if (!src->text) {
    sb_printf(report, "%s\n", err.msg);
    *kind = ERR_RUNTIME;
    return NULL;
  }
  Diags diags = {0};
  Module *m = parse_module(src->display, src->text, src->len, &diags);
  if (m && !verify_module(m, &diags)) {
    module_free(m);
    m = NULL;
  }
  if (!m) {
    if (diags.count == 0 && diags.dropped == 0)
      diags_add(&diags, -1, "the module could not be parsed");
    diags_render_all(report, src->display, src->text, src->len, &diags);
    *kind = ERR_INVALID;
  }
  diags_free(&diags);
  return m;
}

void module_source_free(ModuleSource *src) {
  free(src->text);
  memset(src, 0, sizeof *src);
}
