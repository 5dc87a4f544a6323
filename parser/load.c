#include "parser/load.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/diag.h"
#include "base/file.h"
#include "parser/mlir.h"
#include "parser/model_kind.h"
#include "parser/parser.h"
#include "parser/verify.h"

/* Parse (and verify) HLO text, its diagnostics left in diags. */
static Module *parse_verify(const char *display, const char *text, size_t len, Diags *diags,
                            bool verify) {
  Module *m = parse_module(display, text, len, diags);
  if (m && verify && !verify_module(m, diags)) {
    module_free(m);
    m = NULL;
  }
  return m;
}

/* A line starting with "// -----" (mlir-opt's -split-input-file marker). */
static bool has_split_marker(const char *text, size_t len) {
  static const char marker[] = "// -----";
  for (size_t i = 0; i + sizeof marker - 1 <= len; i++)
    if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, marker, sizeof marker - 1) == 0)
      return true;
  return false;
}

/* StableHLO: converted to HLO text (kept in src->converted, which the module
 * points into); every diagnostic is moved back to the MLIR op it came from. */
static Module *load_mlir(ModuleSource *src, StrBuf *report, ErrorKind *kind, bool verify) {
  Diags diags = {0}, hlo_diags = {0};
  MlirHlo h;
  Module *m = NULL;
  if (mlir_to_hlo(src->text, src->len, &h, &diags)) {
    m = parse_module(src->display, h.text, h.len, &hlo_diags);
    if (m && !mlir_name_results(&h, m)) diags_add(&hlo_diags, -1, "out of memory");
    if (m && (hlo_diags.count || !mlir_fill_blobs(&h, m, &hlo_diags))) {
      module_free(m);
      m = NULL;
    }
    if (m && verify && !verify_module(m, &hlo_diags)) {
      module_free(m);
      m = NULL;
    }
    for (int i = 0; i < hlo_diags.count; i++)
      diags_add(&diags, mlir_map_offset(&h, hlo_diags.items[i].offset), "%s (in the HLO it converts to)",
                hlo_diags.items[i].msg);
    diags.dropped += hlo_diags.dropped;
    if (m) { /* runtime diagnostics map back to the MLIR (module_source_place) */
      m->origin = src->text;
      m->origin_len = src->len;
      m->origin_line_off = h.line_off;
      m->origin_nlines = h.nlines;
    }
    src->converted = h.text;
    src->converted_line_off = h.line_off;
    h.text = NULL;
    h.line_off = NULL;
    mlir_hlo_free(&h);
  }
  if (!m) {
    if (diags.count == 0 && diags.dropped == 0) diags_add(&diags, -1, "the module could not be converted");
    if (has_split_marker(src->text, src->len))
      diags_add(&diags, -1, "the file holds several modules separated by '// -----' lines: "
                            "run it with --split-input-file");
    /* The Python line the op came from, when its loc(...) gives one. */
    for (int i = 0; i < diags.count; i++) {
      char where[512];
      if (mlir_loc_of(src->text, src->len, diags.items[i].offset, where, sizeof where))
        diag_set_note(&diags, i, "%s: note: from here", where);
    }
    diags_render_all(report, src->display, src->text, src->len, &diags);
    *kind = ERR_INVALID;
  }
  diags_free(&diags);
  diags_free(&hlo_diags);
  return m;
}

bool module_source_read(const char *path, ModuleSource *src, StrBuf *report, ErrorKind *kind) {
  memset(src, 0, sizeof *src);
  src->display = strcmp(path, "-") == 0 ? "<stdin>" : path;
  Error err = {0};
  struct stat st;
  if (strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    sb_printf(report, "%s is a directory, not an HLO text file: give one of its files (from an XLA "
                      "dump directory, a *.before_optimizations.txt or module_*.txt file)\n",
              path);
    *kind = ERR_USAGE;
    return false;
  }
  src->text = file_read_all(path, &src->len, &err);
  if (!src->text) {
    sb_printf(report, "%s\n", err.msg);
    *kind = ERR_RUNTIME;
    return false;
  }
  return true;
}

Module *parse_load_source(ModuleSource *src, StrBuf *report, ErrorKind *kind, bool verify) {
  Diags diags = {0};
  char what[2048];
  if (mlir_detect(src->text, src->len)) return load_mlir(src, report, kind, verify);
  if (model_kind_not_hlo(src->display, src->text, src->len, what, sizeof what)) {
    diags_add(&diags, -1, "%s", what);
    diags_render_all(report, src->display, src->text, src->len, &diags);
    diags_free(&diags);
    *kind = ERR_INVALID;
    return NULL;
  }
  Module *m = parse_verify(src->display, src->text, src->len, &diags, verify);
  if (!m) {
    if (diags.count == 0 && diags.dropped == 0)
      diags_add(&diags, -1, "the module could not be parsed");
    diags_render_all(report, src->display, src->text, src->len, &diags);
    *kind = ERR_INVALID;
  }
  diags_free(&diags);
  return m;
}

static Module *load(const char *path, ModuleSource *src, StrBuf *report, ErrorKind *kind,
                    bool verify) {
  if (!module_source_read(path, src, report, kind)) return NULL;
  return parse_load_source(src, report, kind, verify);
}

Module *parse_load_module(const char *path, ModuleSource *src, StrBuf *report, ErrorKind *kind) {
  return load(path, src, report, kind, true);
}

Module *parse_load_module_unverified(const char *path, ModuleSource *src, StrBuf *report,
                                     ErrorKind *kind) {
  return load(path, src, report, kind, false);
}

void module_source_free(ModuleSource *src) {
  free(src->text);
  free(src->converted);
  free(src->converted_line_off);
  memset(src, 0, sizeof *src);
}
