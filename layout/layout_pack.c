/* Sub-byte packing for E(1|2|4), as XLA's PackIntN/UnpackIntN do it: element
 * i of a byte-per-element array goes to bits (i % per_byte) * bits upward of
 * byte i / per_byte, so the first element sits in the low-order bits. */
#include "layout/layout.h"

void layout_pack_bits(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, int bits) {
  int per_byte = 8 / bits;
  uint8_t mask = (uint8_t)((1u << bits) - 1u);
  int64_t nbytes = n / per_byte + (n % per_byte != 0);
  for (int64_t b = 0; b < nbytes; b++) {
    unsigned v = 0;
    for (int j = 0; j < per_byte; j++) {
      int64_t i = b * per_byte + j;
      if (i < n) v |= (unsigned)(src[i] & mask) << (j * bits); /* tail bits stay 0 */
    }
    dst[b] = (uint8_t)v;
  }
}

void layout_unpack_bits(uint8_t *restrict dst, const uint8_t *restrict src, int64_t n, int bits,
                        bool sign_extend) {
  int per_byte = 8 / bits;
  unsigned mask = (1u << bits) - 1u, sign = 1u << (bits - 1);
  for (int64_t i = 0; i < n; i++) {
    unsigned v = ((unsigned)src[i / per_byte] >> ((i % per_byte) * bits)) & mask;
    /* Natural storage of sN is the sign-extended byte (etype_convert.h). */
    if (sign_extend && (v & sign)) v |= ~mask;
    dst[i] = (uint8_t)v;
  }
}
