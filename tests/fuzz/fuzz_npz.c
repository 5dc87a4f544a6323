/* libFuzzer target for the .npy and .npz readers (scripts/fuzz-npz.sh):
 * every input is read both as a .npy image and as an .npz archive (stored
 * and deflate members, zip64 fields).  Each must end in arrays or an error:
 * never a crash, a leak, undefined behaviour or an allocation the input's
 * size does not justify.  Both readings are done twice: copying the data
 * out and as views of the input (what hlorun binds from).  What was read is
 * bound as its own type, which touches every byte of the data, and f32 also
 * as bf16 (the conversion that must cope with a view's odd alignment). */
#include <stdint.h>
#include <stdlib.h>

#include "interp/io/npy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(const NpyArray *a) {
  if (a->etype == ET_INVALID || a->count > (1 << 20)) return;
  void *dst = malloc((size_t)(a->count ? a->count : 1) * 16);
  Error err;
  if (dst) (void)npy_bind(a, a->etype, dst, &err);
  if (dst && a->etype == ET_F32) (void)npy_bind(a, ET_BF16, dst, &err);
  free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  Error err;
  NpyArray a;
  if (npy_parse(data, size, "fuzz.npy", &a, &err)) touch(&a);
  npy_free(&a);
  if (npy_parse_view(data, size, "fuzz.npy", &a, &err)) touch(&a);
  npy_free(&a);
  NpzFile z;
  if (npz_parse(data, size, "fuzz.npz", &z, &err))
    for (int i = 0; i < z.count; i++) touch(&z.entries[i].array);
  npz_free(&z);
  if (npz_parse_view(data, size, "fuzz.npz", &z, &err))
    for (int i = 0; i < z.count; i++) touch(&z.entries[i].array);
  npz_free(&z);
  return 0;
}
