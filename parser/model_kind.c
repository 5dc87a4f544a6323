/* What a model argument is when it is not HLO text (parser/model_kind.h). */
#include "parser/model_kind.h"

#include <stdio.h>
#include <string.h>

const char MODEL_KIND_HOWTO[] =
    "get HLO text from JAX with jax.jit(f).lower(*args).compiler_ir('hlo').as_hlo_text(), or "
    "run with XLA_FLAGS=--xla_dump_to=DIR and take DIR/*.before_optimizations.txt (or "
    "module_*.txt); from torch-xla with torch_xla._XLAC._get_xla_tensors_hlo(tensors), or "
    "XLA_SAVE_TENSORS_FILE=FILE with XLA_SAVE_TENSORS_FMT=hlo";

static bool starts(const char *p, const char *end, const char *word) {
  size_t n = strlen(word);
  return (size_t)(end - p) >= n && memcmp(p, word, n) == 0;
}

static bool has_suffix(const char *path, const char *suffix) {
  size_t n = strlen(path), k = strlen(suffix);
  return n >= k && strcmp(path + n - k, suffix) == 0;
}

/* Skips white space and // comments (both HLO and MLIR have them). */
static const char *skip_blank(const char *p, const char *end) {
  for (;;) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    if (end - p >= 2 && p[0] == '/' && p[1] == '/') {
      while (p < end && *p != '\n') p++;
      continue;
    }
    return p;
  }
}

/* Bytes no text file has: NUL, or many control characters. */
static bool looks_binary(const char *text, size_t len) {
  size_t n = len < 4096 ? len : 4096, ctl = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)text[i];
    if (c == 0) return true;
    if (c < 32 && c != '\t' && c != '\n' && c != '\r' && c != '\f') ctl++;
  }
  return n && ctl * 10 > n;
}

bool model_kind_not_hlo(const char *path, const char *text, size_t len, char *msg, size_t cap) {
  const char *end = text + len, *p = skip_blank(text, end);
  if (starts(p, end, "HloModule")) return false;
  if (starts(text, end, "\x93NUMPY") || has_suffix(path, ".npy")) {
    snprintf(msg, cap, "this is a numpy array (.npy), not a model: give it with --inputs; the model is HLO text (%s)",
             MODEL_KIND_HOWTO);
    return true;
  }
  if (starts(text, end, "PK\x03\x04") || starts(text, end, "PK\x05\x06") || has_suffix(path, ".npz")) {
    snprintf(msg, cap,
             "this is a zip archive (.npz), not a model: give arrays with --inputs; the model is HLO "
             "text (%s)",
             MODEL_KIND_HOWTO);
    return true;
  }
  static const char *const mlir[] = {"module @", "module {", "module attributes", "func.func",
                                     "stablehlo.", "#loc", "\"builtin.module\"", "mhlo.", NULL};
  for (int i = 0; mlir[i]; i++)
    if (starts(p, end, mlir[i])) {
      snprintf(msg, cap,
               "this is a fragment of StableHLO/MLIR text, not a module; hlorun reads a whole "
               "StableHLO module (as JAX's .as_text() prints it, docs/stablehlo.md) or HLO text: %s",
               MODEL_KIND_HOWTO);
      return true;
    }
  if (has_suffix(path, ".pb") || looks_binary(text, len)) {
    snprintf(msg, cap,
             "this is binary data (a serialized HLO proto?), not HLO text; hlorun reads HLO text: %s",
             MODEL_KIND_HOWTO);
    return true;
  }
  return false;
}
