/* libFuzzer target for the YAML memory configuration reader (interp/io/config.c,
 * `hlorun --memory-config FILE`; scripts/fuzz-config.sh builds and runs it).
 * Every input must end in a configuration or an "FILE:LINE:COL: message"
 * error: never a crash, a leak, undefined behaviour or a hang.  What was read
 * is applied to a memory system, as hlorun does, and every space is labelled
 * and its capacity formatted, which reads every field the parser filled. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/io/config.h"
#include "interp/memspace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* config_load_file hands the parser a NUL-terminated buffer: do the same. */
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  MemConfig cfg;
  Error err;
  if (config_parse_yaml("fuzz.yaml", text, size, &cfg, &err)) {
    MemSystem mem;
    if (config_apply(&cfg, &mem, &err)) {
      char label[MEM_NAME_MAX + 32], bytes[64];
      for (int i = 0; i < mem.nspaces; i++) {
        mem_space_label(&mem.spaces[i], label, sizeof label);
        mem_format_bytes(mem.spaces[i].capacity, bytes, sizeof bytes);
      }
    }
    mem_destroy(&mem);
  } else if (strlen(err.msg) == 0) {
    __builtin_trap(); /* a refusal must say why */
  }
  free(text);
  return 0;
}
