/* Inflating one DEFLATE (method 8) member of an .npz, checked against its
 * declared sizes, its .npy header and its CRC-32 (interp/io/npz_inflate.c). */
#ifndef HLO_INTERP_IO_NPZ_INFLATE_H
#define HLO_INTERP_IO_NPZ_INFLATE_H

#include <stdbool.h>
#include <stdint.h>

#include "interp/io/npy.h"

/* src: csize compressed bytes (raw deflate); usize and crc: what the zip
 * directory declares.  On success *out is the malloc'd .npy image of usize
 * bytes; otherwise an Error naming `what` (the archive) and the member. */
bool npz_inflate_member(const uint8_t *src, uint64_t csize, uint64_t usize, uint32_t crc, const char *what,
                        const char *name, uint8_t **out, Error *err);

#endif
