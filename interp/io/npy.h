/* .npy and .npz files (numpy's own formats): reading with full validation
 * (every malformed file is an Error, sizes are checked against the file
 * before anything is allocated) and writing, with the widening rules of
 * docs/cli.md for the element types numpy lacks. */
#ifndef HLO_INTERP_IO_NPY_H
#define HLO_INTERP_IO_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/error.h"
#include "layout/etype.h"

#define NPY_MAX_RANK 64

/* A whole file to read from: mapped when it is a regular file, else read
 * into memory (npy_slurp).  Release with npy_unmap.  A mapped file keeps
 * its descriptor open (fd, when mapped): views copy their data out of it with
 * pread, which on this kind of machine is several times faster than
 * copying out of the mapping (no page-table work for the file's pages). */
typedef struct NpyMapped {
  const uint8_t *data;
  size_t len;
  bool mapped;
  int fd;
} NpyMapped;

/* One array as read: data in C order, host byte order, natural storage of
 * `etype` (bool -> pred, i1..i8 -> s8..s64, u1..u8 -> u8..u64, f2/f4/f8 ->
 * f16/f32/f64, c8/c16 -> c64/c128).  Raw ml_dtypes arrays ('<V2', '|V1')
 * have etype ET_INVALID and raw_bytes 2 or 1: one element's bits each. */
typedef struct NpyArray {
  EType etype;
  int raw_bytes;
  char descr[16]; /* as written in the file, e.g. "<f4" */
  int rank;
  int64_t dims[NPY_MAX_RANK];
  int64_t count;
  /* count * element bytes (never NULL after success).  Arrays from
   * npy_parse / npy_read_file / npz_parse / npz_read_file own it (aligned
   * malloc'd memory in `owned`); views (npy_view_file, npz_view_file)
   * may point into the file they were read from, at any alignment: read
   * a view's data with npy_bind or memcpy only. */
  void *data;
  void *owned; /* what npy_free frees */
  NpyMapped file; /* the file a view's data point into, or zeroed */
  /* A stored .npz member viewed in place has its CRC-32 checked as npy_bind
   * copies the data (one pass over them, not two): the CRC of the member's
   * bytes before the data, and the one the archive records. */
  bool crc_pending;
  uint32_t crc_head, crc_want;
  /* A view of a mapped file: its data are read with pread by npy_bind,
   * from pread_offset in pread_fd. */
  bool in_file;
  int pread_fd;
  uint64_t pread_offset;
} NpyArray;

/* Parses a whole .npy image; `what` names it in messages (file name). */
bool npy_parse(const uint8_t *buf, size_t len, const char *what, NpyArray *out, Error *err);
bool npy_read_file(const char *path, NpyArray *out, Error *err);
/* As npy_parse, but a view of buf (which must outlive it) when the data
 * need no conversion. */
bool npy_parse_view(const uint8_t *buf, size_t len, const char *what, NpyArray *out, Error *err);
/* Reads a .npy file without copying its data when they are already C order
 * and host byte order (as numpy writes them): the array is then a view of
 * the mapped file, kept mapped until npy_free.  For inputs that are bound
 * (copied once) into a run's buffers. */
bool npy_view_file(const char *path, NpyArray *out, Error *err);
/* The size a whole .npy image must have, from its header alone (buf must
 * hold the complete header; the data may be missing). */
bool npy_image_size(const uint8_t *buf, size_t len, const char *what, uint64_t *size, Error *err);
void npy_free(NpyArray *a);
/* Human description of what the file holds: "float32[2,3]". */
void npy_describe(const NpyArray *a, char *buf, size_t cap);

/* Converts a read array into `want` for a parameter, with cli.md's rules:
 * the exact type; float32 for bf16/f8/f6/f4 (rounded as XLA's convert);
 * int8 for s1/s2/s4, uint8 for u1/u2/u4, bool for pred; raw '<V2' for
 * bf16/f16; '|V1', '<i1', '<u1' holding one value per byte for 8-bit and
 * sub-byte types.  dst holds a->count elements of want.  False (with a
 * message naming what was expected and found) if the dtype does not fit,
 * or if a view's pending CRC check fails. */
bool npy_bind(const NpyArray *a, EType want, void *dst, Error *err);

/* Numpy descr used to write `t` (widened unless raw): "<f4", "|b1", ... */
const char *npy_descr_for(EType t, bool raw);

/* A .npy header for an array (bytes, malloc'd) and what its data will be:
 * count elements of etype, data_len bytes in the file, widened to f32
 * when the type has no numpy dtype of its own (unless raw). */
typedef struct NpyHeader {
  uint8_t *bytes;
  size_t len;
  EType etype;
  int64_t count;
  bool widen;
  size_t data_len;
} NpyHeader;
bool npy_header(EType t, int rank, const int64_t *dims, bool raw, NpyHeader *h, Error *err);
void npy_header_free(NpyHeader *h);
/* Writes the array's data as the header says, straight from data (widened
 * types through a block buffer), folding it into *crc when crc is given. */
bool npy_write_body(FILE *f, const NpyHeader *h, const void *data, uint32_t *crc);
/* CRC-32 (zlib's) of n bytes after crc. */
uint32_t npy_crc32(uint32_t crc, const void *p, size_t n);

/* Encodes one array as a complete .npy image (malloc'd into *out). */
bool npy_encode(EType t, int rank, const int64_t *dims, const void *data, bool raw, uint8_t **out,
                size_t *out_len, Error *err);
bool npy_write_file(const char *path, EType t, int rank, const int64_t *dims, const void *data, bool raw,
                    Error *err);

/* ---- .npz: a zip archive of .npy members ---- */
typedef struct NpzEntry {
  char *name; /* member name without the ".npy" suffix, malloc'd */
  NpyArray array;
} NpzEntry;

typedef struct NpzFile {
  int count;
  NpzEntry *entries;   /* in archive order */
  NpyMapped file;      /* what views point into (npz_view_file) */
} NpzFile;

/* Reads STORED members (numpy.savez) and DEFLATE members
 * (numpy.savez_compressed), zip64 included; sizes, CRC-32 and the deflate
 * stream are checked (interp/io/npz_inflate.c). */
bool npz_parse(const uint8_t *buf, size_t len, const char *what, NpzFile *out, Error *err);
bool npz_read_file(const char *path, NpzFile *out, Error *err);
/* As npz_parse, but stored members are views of buf (which must outlive
 * them) and deflated ones own their inflated image. */
bool npz_parse_view(const uint8_t *buf, size_t len, const char *what, NpzFile *out, Error *err);
/* As npz_read_file, but stored members are views of the mapped file
 * (see npy_view_file) and deflated ones own their inflated image: no
 * member is copied after it is read. */
bool npz_view_file(const char *path, NpzFile *out, Error *err);
void npz_free(NpzFile *f);

/* Writes arrays as an uncompressed zip of "<name>.npy" members. */
typedef struct NpzMember {
  const char *name;
  EType etype;
  int rank;
  const int64_t *dims;
  const void *data;
} NpzMember;
bool npz_write_file(const char *path, const NpzMember *members, int count, bool raw, Error *err);

/* Reads a whole file with a size limit check (helper shared by both). */
bool npy_slurp(const char *path, uint8_t **buf, size_t *len, Error *err);
/* populate: map every page at once (a reader that goes through them all)
 * rather than on first touch (views: npy_bind preads the data). */
bool npy_map(const char *path, bool populate, NpyMapped *m, Error *err);
/* Marks a view of data inside m (mapped) to be read with pread. */
void npy_view_in_file(NpyArray *a, const NpyMapped *m);
void npy_unmap(NpyMapped *m);

#endif
