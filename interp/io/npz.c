/* .npz: zip archives of .npy members.  Reads STORED members (numpy.savez)
 * and DEFLATE ones (numpy.savez_compressed, interp/io/npz_inflate.c), zip64
 * extra fields included, and writes STORED archives (zip64 records where
 * sizes, offsets or the member count need them); every offset
 * and size is checked against the archive before use. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interp/io/npy.h"
#include "interp/io/npz_inflate.h"
#include "interp/io/atomic_file.h"

static uint32_t rd16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const uint8_t *p) { return rd16(p) | rd16(p + 2) << 16; }
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }
static void wr16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void wr32(uint8_t *p, uint32_t v) { wr16(p, v & 0xffff), wr16(p + 2, v >> 16); }
static void wr64(uint8_t *p, uint64_t v) { wr32(p, (uint32_t)v), wr32(p + 4, (uint32_t)(v >> 32)); }

static bool bad(Error *err, const char *what, const char *why) {
  return error_set(err, ERR_RUNTIME, -1, "%s: malformed .npz archive: %s", what, why);
}

void npz_free(NpzFile *f) {
  if (!f) return;
  for (int i = 0; i < f->count; i++) {
    free(f->entries[i].name);
    npy_free(&f->entries[i].array);
  }
  free(f->entries);
  if (f->file.data) npy_unmap(&f->file);
  memset(f, 0, sizeof *f);
}

/* A stored member read as a view: its CRC-32 left to npy_bind when the view
 * covers the member's data to its end (else, or when the data were
 * converted into a copy, checked now: false if it fails). */
static bool defer_crc(NpyArray *a, const uint8_t *image, size_t len, uint32_t crc) {
  const uint8_t *data = a->data;
  size_t bytes = (size_t)a->count * (size_t)(a->raw_bytes ? a->raw_bytes
                                                           : etype_storage_bytes(a->etype));
  if (a->owned || data < image || (size_t)(data - image) + bytes != len)
    return npy_crc32(0, image, len) == crc;
  a->crc_pending = true;
  a->crc_head = npy_crc32(0, image, (size_t)(data - image));
  a->crc_want = crc;
  return true;
}

/* The archive's members: copies, or with `view` views of buf (stored
 * members) and their own inflated images (deflated ones). */
static bool parse_archive(const uint8_t *buf, size_t len, const char *what, bool view, NpzFile *out,
                          Error *err) {
  memset(out, 0, sizeof *out);
  if (len < 22) return bad(err, what, "too short for a zip archive");
  /* end of central directory, searched backwards over a possible comment */
  size_t eocd = SIZE_MAX;
  size_t lowest = len > 22 + 65535 ? len - 22 - 65535 : 0;
  for (size_t at = len - 22 + 1; at-- > lowest;)
    if (rd32(buf + at) == 0x06054b50u) {
      eocd = at;
      break;
    }
  if (eocd == SIZE_MAX) return bad(err, what, "no end-of-central-directory record (not a zip file?)");
  uint64_t entries = rd16(buf + eocd + 10), cd_size = rd32(buf + eocd + 12), cd_off = rd32(buf + eocd + 16);
  if (entries == 0xffff || cd_size == 0xffffffffu || cd_off == 0xffffffffu) {
    if (eocd < 20 || rd32(buf + eocd - 20) != 0x07064b50u) return bad(err, what, "zip64 locator missing");
    uint64_t z = rd64(buf + eocd - 20 + 8);
    if (z > len || len - z < 56 || rd32(buf + z) != 0x06064b50u) return bad(err, what, "bad zip64 record");
    entries = rd64(buf + z + 32);
    cd_size = rd64(buf + z + 40);
    cd_off = rd64(buf + z + 48);
  }
  if (cd_off > len || cd_size > len - cd_off) return bad(err, what, "central directory outside the file");
  if (entries > cd_size / 46) return bad(err, what, "entry count does not fit the central directory");
  out->entries = calloc(entries ? (size_t)entries : 1, sizeof *out->entries);
  if (!out->entries) return error_set(err, ERR_RUNTIME, -1, "%s: out of memory", what);
  const uint8_t *p = buf + cd_off, *end = buf + cd_off + cd_size;
  /* Each member's data are bytes of their own: a directory pointing many
   * entries at the same bytes (a few MB read as GBs) is refused once the
   * members' data add up to more than the archive. */
  uint64_t spans = 0;
  for (uint64_t i = 0; i < entries; i++) {
    if (end - p < 46 || rd32(p) != 0x02014b50u) {
      npz_free(out);
      return bad(err, what, "bad central directory entry");
    }
    uint32_t method = rd16(p + 10), crc = rd32(p + 16);
    uint64_t csize = rd32(p + 20), usize = rd32(p + 24), loff = rd32(p + 42);
    size_t nlen = rd16(p + 28), xlen = rd16(p + 30), clen = rd16(p + 32);
    if ((size_t)(end - p) - 46 < nlen + xlen + clen) {
      npz_free(out);
      return bad(err, what, "central directory entry overruns");
    }
    const uint8_t *x = p + 46 + nlen, *xend = x + xlen;
    while (xend - x >= 4) { /* zip64 extended information */
      uint32_t id = rd16(x), sz = rd16(x + 2);
      if ((size_t)(xend - x - 4) < sz) break;
      if (id == 1) {
        const uint8_t *q = x + 4, *qend = q + sz;
        if (usize == 0xffffffffu && qend - q >= 8) usize = rd64(q), q += 8;
        if (csize == 0xffffffffu && qend - q >= 8) csize = rd64(q), q += 8;
        if (loff == 0xffffffffu && qend - q >= 8) loff = rd64(q), q += 8;
      }
      x += 4 + sz;
    }
    char *name = malloc(nlen + 1);
    if (!name) {
      npz_free(out);
      return error_set(err, ERR_RUNTIME, -1, "%s: out of memory", what);
    }
    memcpy(name, p + 46, nlen);
    name[nlen] = 0;
    if (nlen > 4 && strcmp(name + nlen - 4, ".npy") == 0) name[nlen - 4] = 0;
    NpzEntry *e = &out->entries[out->count++];
    e->name = name;
    p += 46 + nlen + xlen + clen;
    if (method != 0 && method != 8) {
      error_set(err, ERR_RUNTIME, -1,
                "%s: member '%s' uses zip compression method %u; only stored (numpy.savez) and "
                "deflate (numpy.savez_compressed) members are read",
                what, name, method);
      npz_free(out);
      return false;
    }
    if (method == 0 && csize != usize) {
      npz_free(out);
      return bad(err, what, "stored member with different sizes");
    }
    if (loff > len || len - loff < 30 || rd32(buf + loff) != 0x04034b50u) {
      npz_free(out);
      return bad(err, what, "bad local file header");
    }
    uint64_t data_at = loff + 30 + rd16(buf + loff + 26) + rd16(buf + loff + 28);
    if (data_at > len || csize > len - data_at) {
      char why[128];
      snprintf(why, sizeof why, "member '%s' is truncated", name);
      npz_free(out);
      return bad(err, what, why);
    }
    spans += csize;
    if (spans > len) {
      npz_free(out);
      return bad(err, what, "members overlap: their data add up to more than the archive");
    }
    const uint8_t *image = buf + data_at;
    uint8_t *inflated = NULL;
    bool crc_later = view && method == 0; /* see NpyArray.crc_pending */
    if (method == 8) {
      if (!npz_inflate_member(buf + data_at, csize, usize, crc, what, name, &inflated, err)) {
        npz_free(out);
        return false;
      }
      image = inflated;
    } else if (!crc_later && npy_crc32(0, buf + data_at, (size_t)usize) != crc) {
      char why[128];
      snprintf(why, sizeof why, "member '%s' fails its CRC check", name);
      npz_free(out);
      return bad(err, what, why);
    }
    char member_what[512];
    snprintf(member_what, sizeof member_what, "%s[%s]", what, name);
    bool parsed = view ? npy_parse_view(image, (size_t)usize, member_what, &e->array, err)
                       : npy_parse(image, (size_t)usize, member_what, &e->array, err);
    if (parsed && view && inflated && !e->array.owned) e->array.owned = inflated; /* its view */
    else free(inflated);
    if (!parsed) {
      npz_free(out);
      return false;
    }
    if (crc_later && !defer_crc(&e->array, image, (size_t)usize, crc)) {
      char why[128];
      snprintf(why, sizeof why, "member '%s' fails its CRC check", name);
      npz_free(out);
      return bad(err, what, why);
    }
  }
  return true;
}

bool npz_parse(const uint8_t *buf, size_t len, const char *what, NpzFile *out, Error *err) {
  return parse_archive(buf, len, what, false, out, err);
}

bool npz_parse_view(const uint8_t *buf, size_t len, const char *what, NpzFile *out, Error *err) {
  return parse_archive(buf, len, what, true, out, err);
}

bool npz_read_file(const char *path, NpzFile *out, Error *err) {
  NpyMapped m;
  memset(out, 0, sizeof *out);
  if (!npy_map(path, true, &m, err)) return false;
  bool ok = npz_parse(m.data, m.len, path, out, err);
  npy_unmap(&m);
  return ok;
}

bool npz_view_file(const char *path, NpzFile *out, Error *err) {
  NpyMapped m;
  memset(out, 0, sizeof *out);
  if (!npy_map(path, false, &m, err)) return false;
  if (!npz_parse_view(m.data, m.len, path, out, err)) {
    npy_unmap(&m);
    return false;
  }
  out->file = m; /* the stored members' views point into it */
  for (int i = 0; i < out->count; i++) npy_view_in_file(&out->entries[i].array, &out->file);
  return true;
}

/* Zip fields that do not fit 16/32 bits hold all ones and the real value
 * goes in a zip64 field, as numpy (Python's zipfile) writes and reads them. */
#define ZIP16_MAX 0xffffu
#define ZIP32_MAX 0xffffffffu

/* One member's central directory record, appended to *cd. */
static bool central_record(uint8_t **cd, size_t *cd_len, size_t *cd_cap, const char *name,
                           int nlen, uint32_t crc, uint64_t size, uint64_t off, Error *err) {
  bool big = size >= ZIP32_MAX, far = off >= ZIP32_MAX;
  int xlen = big || far ? 4 + (big ? 16 : 0) + (far ? 8 : 0) : 0;
  size_t need = *cd_len + 46 + (size_t)nlen + (size_t)xlen;
  if (need > *cd_cap) { /* doubling: 65,536 members must not copy the directory each time */
    size_t cap = *cd_cap ? *cd_cap * 2 : 4096;
    while (cap < need) cap *= 2;
    uint8_t *ncd = realloc(*cd, cap);
    if (!ncd) return error_set(err, ERR_RUNTIME, -1, "out of memory");
    *cd = ncd;
    *cd_cap = cap;
  }
  uint8_t *c = *cd + *cd_len;
  memset(c, 0, 46);
  wr32(c, 0x02014b50u);
  wr16(c + 4, big || far ? 45 : 20); /* version made by, needed */
  wr16(c + 6, big || far ? 45 : 20);
  wr16(c + 14, 0x0021); /* 1980-01-01 */
  wr32(c + 16, crc);
  wr32(c + 20, big ? ZIP32_MAX : (uint32_t)size);
  wr32(c + 24, big ? ZIP32_MAX : (uint32_t)size);
  wr16(c + 28, (uint32_t)nlen);
  wr16(c + 30, (uint32_t)xlen);
  wr32(c + 42, far ? ZIP32_MAX : (uint32_t)off);
  memcpy(c + 46, name, (size_t)nlen);
  uint8_t *x = c + 46 + nlen;
  if (xlen) {
    wr16(x, 0x0001);
    wr16(x + 2, (uint32_t)(xlen - 4));
    x += 4;
    if (big) wr64(x, size), wr64(x + 8, size), x += 16;
    if (far) wr64(x, off);
  }
  *cd_len += 46 + (size_t)nlen + (size_t)xlen;
  return true;
}

/* The end records: zip64 ones when the count, the directory's size or its
 * offset do not fit the classic record. */
static bool write_end(FILE *f, int count, uint64_t cd_len, uint64_t cd_off) {
  bool z64 = (uint64_t)count >= ZIP16_MAX || cd_len >= ZIP32_MAX || cd_off >= ZIP32_MAX;
  if (z64) {
    uint8_t r[56] = {0}, loc[20] = {0};
    wr32(r, 0x06064b50u);
    wr64(r + 4, 44); /* size of the rest of the record */
    wr16(r + 12, 45);
    wr16(r + 14, 45);
    wr64(r + 24, (uint64_t)count);
    wr64(r + 32, (uint64_t)count);
    wr64(r + 40, cd_len);
    wr64(r + 48, cd_off);
    wr32(loc, 0x07064b50u);
    wr64(loc + 8, cd_off + cd_len); /* where the zip64 record starts */
    wr32(loc + 16, 1);
    if (fwrite(r, 1, 56, f) != 56 || fwrite(loc, 1, 20, f) != 20) return false;
  }
  uint8_t eocd[22] = {0};
  wr32(eocd, 0x06054b50u);
  wr16(eocd + 8, z64 ? ZIP16_MAX : (uint32_t)count);
  wr16(eocd + 10, z64 ? ZIP16_MAX : (uint32_t)count);
  wr32(eocd + 12, z64 ? ZIP32_MAX : (uint32_t)cd_len);
  wr32(eocd + 16, z64 ? ZIP32_MAX : (uint32_t)cd_off);
  return fwrite(eocd, 1, 22, f) == 22;
}

bool npz_write_file(const char *path, const NpzMember *members, int count, bool raw, Error *err) {
  AtomicFile af;
  if (!atomic_open(&af, path, err)) return false;
  FILE *f = af.f;
  uint8_t *cd = NULL;
  size_t cd_len = 0, cd_cap = 0;
  uint64_t off = 0;
  bool ok = true;
  for (int i = 0; i < count && ok; i++) {
    NpyHeader h;
    if (!npy_header(members[i].etype, members[i].rank, members[i].dims, raw, &h, err)) {
      ok = false;
      break;
    }
    char name[512];
    int nlen = snprintf(name, sizeof name, "%s.npy", members[i].name);
    if (nlen <= 0 || (size_t)nlen >= sizeof name) {
      npy_header_free(&h);
      ok = error_set(err, ERR_RUNTIME, -1, "%s: member name '%s' too long for a zip archive", path,
                     members[i].name);
      break;
    }
    /* The member goes out straight from the caller's array; its CRC, known
     * only then, is patched into the local header afterwards. */
    uint64_t dlen = h.len + h.data_len;
    bool big = dlen >= ZIP32_MAX;
    uint8_t lh[30] = {0};
    int lx = big ? 20 : 0; /* zip64 extra: both sizes */
    wr32(lh, 0x04034b50u);
    wr16(lh + 4, big ? 45 : 20); /* version needed */
    wr16(lh + 12, 0x0021);       /* 1980-01-01 */
    wr32(lh + 18, big ? ZIP32_MAX : (uint32_t)dlen);
    wr32(lh + 22, big ? ZIP32_MAX : (uint32_t)dlen);
    wr16(lh + 26, (uint32_t)nlen);
    wr16(lh + 28, (uint32_t)lx);
    ok = fwrite(lh, 1, 30, f) == 30 && fwrite(name, 1, (size_t)nlen, f) == (size_t)nlen;
    if (ok && big) {
      uint8_t x[20];
      wr16(x, 0x0001);
      wr16(x + 2, 16);
      wr64(x + 4, dlen);
      wr64(x + 12, dlen);
      ok = fwrite(x, 1, 20, f) == 20;
    }
    uint32_t crc = npy_crc32(0, h.bytes, h.len);
    ok = ok && fwrite(h.bytes, 1, h.len, f) == h.len &&
         npy_write_body(f, &h, members[i].data, &crc);
    npy_header_free(&h);
    uint8_t crc_le[4];
    wr32(crc_le, crc);
    ok = ok && fseeko(f, (off_t)(off + 14), SEEK_SET) == 0 && fwrite(crc_le, 1, 4, f) == 4 &&
         fseeko(f, 0, SEEK_END) == 0;
    if (!ok) {
      error_set(err, ERR_RUNTIME, -1, "%s: write error", path);
      break;
    }
    ok = central_record(&cd, &cd_len, &cd_cap, name, nlen, crc, dlen, off, err);
    off += 30 + (uint64_t)nlen + (uint64_t)lx + dlen;
  }
  if (ok) {
    ok = (cd_len == 0 || fwrite(cd, 1, cd_len, f) == cd_len) && write_end(f, count, cd_len, off);
    if (!ok) error_set(err, ERR_RUNTIME, -1, "%s: write error", path);
  }
  free(cd);
  return atomic_close(&af, ok, err);
}
