/* .npy reading and writing (format versions 1.0, 2.0, 3.0). */
#include "interp/io/npy.h"
#include "interp/io/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "base/strbuf.h"
#include "layout/etype_convert.h"

static const uint8_t npy_magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

/* ---- the header dict: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } ---- */

typedef struct {
  const char *p, *end;
  const char *what;
  Error *err;
} Cur;

static void skip_ws(Cur *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static bool bad_header(Cur *c, const char *why) {
  return error_set(c->err, ERR_RUNTIME, -1, "%s: malformed .npy header: %s", c->what, why);
}

static bool expect_char(Cur *c, char ch, const char *why) {
  skip_ws(c);
  if (c->p >= c->end || *c->p != ch) return bad_header(c, why);
  c->p++;
  return true;
}

static bool parse_str(Cur *c, char *buf, size_t cap) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return bad_header(c, "expected a quoted string");
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (*c->p == '\\') return bad_header(c, "escapes in strings are not supported");
    if (n + 1 >= cap) return bad_header(c, "string too long");
    buf[n++] = *c->p++;
  }
  if (c->p >= c->end) return bad_header(c, "unterminated string");
  c->p++;
  buf[n] = 0;
  return true;
}

static bool parse_word(Cur *c, const char *w) {
  size_t n = strlen(w);
  if ((size_t)(c->end - c->p) >= n && memcmp(c->p, w, n) == 0) {
    c->p += n;
    return true;
  }
  return false;
}

static bool parse_shape(Cur *c, NpyArray *a) {
  if (!expect_char(c, '(', "shape must be a tuple")) return false;
  a->rank = 0;
  for (;;) {
    skip_ws(c);
    if (c->p < c->end && *c->p == ')') {
      c->p++;
      return true;
    }
    if (c->p >= c->end || *c->p < '0' || *c->p > '9') return bad_header(c, "shape entries must be non-negative integers");
    int64_t v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *c->p - '0', &v))
        return bad_header(c, "shape entry too large");
      c->p++;
    }
    if (c->p < c->end && (*c->p == 'L' || *c->p == 'l')) c->p++; /* python 2 longs */
    if (a->rank >= NPY_MAX_RANK) return bad_header(c, "too many dimensions");
    a->dims[a->rank++] = v;
    skip_ws(c);
    if (c->p < c->end && *c->p == ',') {
      c->p++;
      continue;
    }
    if (c->p < c->end && *c->p == ')') continue;
    return bad_header(c, "expected ',' or ')' in shape");
  }
}

/* descr -> element type; false for unsupported dtypes. */
static bool map_descr(const char *d, EType *t, int *raw, bool *swap, int *itemsize) {
  if (strlen(d) < 3 || !strchr("<>|=", d[0])) return false;
  char kind = d[1];
  char *endp;
  long size = strtol(d + 2, &endp, 10);
  if (*endp || size <= 0 || size > 16) return false;
  *itemsize = (int)size;
  *swap = d[0] == '>' && size > 1;
  *raw = 0;
  *t = ET_INVALID;
  switch (kind) {
  case 'b': *t = size == 1 ? ET_PRED : ET_INVALID; break;
  case 'i': *t = size == 1 ? ET_S8 : size == 2 ? ET_S16 : size == 4 ? ET_S32 : size == 8 ? ET_S64 : ET_INVALID; break;
  case 'u': *t = size == 1 ? ET_U8 : size == 2 ? ET_U16 : size == 4 ? ET_U32 : size == 8 ? ET_U64 : ET_INVALID; break;
  case 'f':
    if (size == 1) *raw = 1;
    else *t = size == 2 ? ET_F16 : size == 4 ? ET_F32 : size == 8 ? ET_F64 : ET_INVALID;
    break;
  case 'c': *t = size == 8 ? ET_C64 : size == 16 ? ET_C128 : ET_INVALID; break;
  case 'V': if (size == 1 || size == 2) *raw = (int)size; break;
  default: break;
  }
  return *t != ET_INVALID || *raw;
}

static int elem_bytes(const NpyArray *a) { return a->raw_bytes ? a->raw_bytes : etype_storage_bytes(a->etype); }

static void byteswap(uint8_t *p, int64_t count, int unit) {
  for (int64_t i = 0; i < count; i++, p += unit)
    for (int j = 0; j < unit / 2; j++) {
      uint8_t t = p[j];
      p[j] = p[unit - 1 - j];
      p[unit - 1 - j] = t;
    }
}

/* Fortran-order src -> C-order dst. */
static void fortran_to_c(uint8_t *dst, const uint8_t *src, const NpyArray *a, int esz) {
  int64_t idx[NPY_MAX_RANK] = {0}, stride[NPY_MAX_RANK];
  int64_t s = 1;
  for (int d = 0; d < a->rank; d++) stride[d] = s, s *= a->dims[d];
  int64_t off = 0;
  for (int64_t i = 0; i < a->count; i++) {
    memcpy(dst + i * esz, src + off * esz, (size_t)esz);
    for (int d = a->rank - 1; d >= 0; d--) {
      idx[d]++;
      off += stride[d];
      if (idx[d] < a->dims[d]) break;
      off -= idx[d] * stride[d];
      idx[d] = 0;
    }
  }
}

/* The header of a .npy image: fills out's descr, etype, rank and dims and
 * says where the data starts and how many bytes it takes (not checked
 * against len: the caller does). */
typedef struct NpyLayout {
  size_t data_at;
  int64_t bytes;
  bool fortran, swap;
  int esz;
} NpyLayout;

static bool npy_parse_header(const uint8_t *buf, size_t len, const char *what, NpyArray *out, NpyLayout *lay,
                             Error *err) {
  memset(out, 0, sizeof *out);
  if (len < 10 || memcmp(buf, npy_magic, 6) != 0)
    return error_set(err, ERR_RUNTIME, -1, "%s: not a .npy file (bad magic)", what);
  int major = buf[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (len < 12) return error_set(err, ERR_RUNTIME, -1, "%s: truncated .npy header", what);
    hlen = (size_t)buf[8] | (size_t)buf[9] << 8 | (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    hstart = 12;
  } else {
    return error_set(err, ERR_RUNTIME, -1, "%s: unsupported .npy format version %d.%d", what, major, buf[7]);
  }
  if (hlen > len - hstart)
    return error_set(err, ERR_RUNTIME, -1, "%s: truncated .npy header (%zu bytes declared, %zu present)", what,
                     hlen, len - hstart);
  Cur c = {(const char *)buf + hstart, (const char *)buf + hstart + hlen, what, err};
  bool have_descr = false, have_order = false, have_shape = false, fortran = false;
  if (!expect_char(&c, '{', "expected '{'")) return false;
  for (;;) {
    skip_ws(&c);
    if (c.p < c.end && *c.p == '}') break;
    char key[32];
    if (!parse_str(&c, key, sizeof key)) return false;
    if (!expect_char(&c, ':', "expected ':' after key")) return false;
    skip_ws(&c);
    if (strcmp(key, "descr") == 0 && !have_descr) {
      if (c.p < c.end && *c.p == '[')
        return error_set(err, ERR_RUNTIME, -1, "%s: structured dtypes are not supported", what);
      if (!parse_str(&c, out->descr, sizeof out->descr)) return false;
      have_descr = true;
    } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
      if (parse_word(&c, "True")) fortran = true;
      else if (parse_word(&c, "False")) fortran = false;
      else return bad_header(&c, "fortran_order must be True or False");
      have_order = true;
    } else if (strcmp(key, "shape") == 0 && !have_shape) {
      if (!parse_shape(&c, out)) return false;
      have_shape = true;
    } else {
      return error_set(err, ERR_RUNTIME, -1, "%s: malformed .npy header: unexpected or repeated key '%s'", what, key);
    }
    skip_ws(&c);
    if (c.p < c.end && *c.p == ',') {
      c.p++;
      continue;
    }
    if (c.p < c.end && *c.p == '}') break;
    return bad_header(&c, "expected ',' or '}'");
  }
  if (!have_descr || !have_order || !have_shape)
    return error_set(err, ERR_RUNTIME, -1, "%s: malformed .npy header: needs descr, fortran_order and shape", what);
  bool swap;
  int itemsize;
  if (!map_descr(out->descr, &out->etype, &out->raw_bytes, &swap, &itemsize))
    return error_set(err, ERR_RUNTIME, -1, "%s: unsupported dtype '%s'", what, out->descr);
  int esz = elem_bytes(out);
  int64_t count = 1;
  for (int d = 0; d < out->rank; d++)
    if (__builtin_mul_overflow(count, out->dims[d], &count))
      return error_set(err, ERR_RUNTIME, -1, "%s: shape is too large", what);
  int64_t bytes;
  if (__builtin_mul_overflow(count, (int64_t)esz, &bytes))
    return error_set(err, ERR_RUNTIME, -1, "%s: shape is too large", what);
  out->count = count;
  *lay = (NpyLayout){hstart + hlen, bytes, fortran, swap, esz};
  return true;
}

bool npy_image_size(const uint8_t *buf, size_t len, const char *what, uint64_t *size, Error *err) {
  NpyArray a;
  NpyLayout lay;
  if (!npy_parse_header(buf, len, what, &a, &lay, err)) return false;
  if ((uint64_t)lay.bytes > UINT64_MAX - lay.data_at)
    return error_set(err, ERR_RUNTIME, -1, "%s: shape is too large", what);
  *size = (uint64_t)lay.data_at + (uint64_t)lay.bytes;
  return true;
}

/* The array of a .npy image: its data copied out (owned), or with `view`
 * pointing into buf when nothing needs converting (C order, host byte
 * order, not bool, which is normalised to 0/1). */
static bool parse_image(const uint8_t *buf, size_t len, const char *what, bool view, NpyArray *out,
                        Error *err) {
  NpyLayout lay;
  if (!npy_parse_header(buf, len, what, out, &lay, err)) return false;
  size_t data_at = lay.data_at;
  int64_t bytes = lay.bytes, count = out->count;
  bool fortran = lay.fortran && out->rank > 1, swap = lay.swap;
  int esz = lay.esz;
  if ((uint64_t)bytes > (uint64_t)(len - data_at))
    return error_set(err, ERR_RUNTIME, -1, "%s: data is truncated: shape needs %" PRId64 " bytes, file has %zu",
                     what, bytes, len - data_at);
  const uint8_t *src = buf + data_at;
  if (view && !fortran && !swap && out->etype != ET_PRED && bytes > 0) {
    out->data = (void *)src;
    return true;
  }
  out->data = out->owned = malloc(bytes ? (size_t)bytes : 1);
  if (!out->data) return error_set(err, ERR_RUNTIME, -1, "%s: out of memory", what);
  if (fortran) fortran_to_c(out->data, src, out, esz);
  else memcpy(out->data, src, (size_t)bytes);
  if (swap) byteswap(out->data, etype_is_complex(out->etype) ? 2 * count : count,
                     etype_is_complex(out->etype) ? esz / 2 : esz);
  if (out->etype == ET_PRED) {
    uint8_t *p = out->data;
    for (int64_t i = 0; i < count; i++) p[i] = p[i] != 0;
  }
  return true;
}

bool npy_parse(const uint8_t *buf, size_t len, const char *what, NpyArray *out, Error *err) {
  return parse_image(buf, len, what, false, out, err);
}

bool npy_parse_view(const uint8_t *buf, size_t len, const char *what, NpyArray *out, Error *err) {
  return parse_image(buf, len, what, true, out, err);
}

void npy_free(NpyArray *a) {
  if (!a) return;
  free(a->owned);
  if (a->file.data) npy_unmap(&a->file);
  a->data = a->owned = NULL;
}

bool npy_slurp(const char *path, uint8_t **buf, size_t *len, Error *err) {
  *buf = NULL;
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return error_set(err, ERR_RUNTIME, -1, "%s: cannot open: %s", path, strerror(errno));
  long size = -1;
  if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
  if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return error_set(err, ERR_RUNTIME, -1, "%s: cannot read (not a regular file?)", path);
  }
  uint8_t *b = malloc(size ? (size_t)size : 1);
  if (!b) {
    fclose(f);
    return error_set(err, ERR_RUNTIME, -1, "%s: out of memory reading %ld bytes", path, size);
  }
  size_t got = fread(b, 1, (size_t)size, f);
  fclose(f);
  if (got != (size_t)size) {
    free(b);
    return error_set(err, ERR_RUNTIME, -1, "%s: read error", path);
  }
  *buf = b;
  *len = (size_t)size;
  return true;
}

bool npy_map(const char *path, bool populate, NpyMapped *m, Error *err) {
  memset(m, 0, sizeof *m);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
    /* The page cache mapped as it is: no copy of the file into a buffer
     * of our own before the arrays are copied out of it. */
    int flags = MAP_PRIVATE | (populate ? MAP_POPULATE : 0);
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, flags, fd, 0);
    if (p != MAP_FAILED) {
      madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
      m->data = p;
      m->len = (size_t)st.st_size;
      m->mapped = true;
      m->fd = fd;
      return true;
    }
  }
  if (fd >= 0) close(fd);
  uint8_t *buf; /* a pipe, an empty file, or no mmap: read it */
  if (!npy_slurp(path, &buf, &m->len, err)) return false;
  m->data = buf;
  return true;
}

void npy_unmap(NpyMapped *m) {
  if (m->mapped) {
    munmap((void *)m->data, m->len);
    close(m->fd);
  } else {
    free((void *)m->data);
  }
  memset(m, 0, sizeof *m);
}

/* A view of data inside a mapped file reads them with pread from now on. */
void npy_view_in_file(NpyArray *a, const NpyMapped *m) {
  const uint8_t *d = a->data;
  if (a->owned || !m->mapped || d < m->data || d >= m->data + m->len) return;
  a->in_file = true;
  a->pread_fd = m->fd;
  a->pread_offset = (uint64_t)(d - m->data);
}

bool npy_read_file(const char *path, NpyArray *out, Error *err) {
  NpyMapped m;
  memset(out, 0, sizeof *out);
  if (!npy_map(path, true, &m, err)) return false;
  bool ok = npy_parse(m.data, m.len, path, out, err);
  npy_unmap(&m);
  return ok;
}

bool npy_view_file(const char *path, NpyArray *out, Error *err) {
  NpyMapped m;
  memset(out, 0, sizeof *out);
  if (!npy_map(path, false, &m, err)) return false;
  bool ok = npy_parse_view(m.data, m.len, path, out, err);
  if (ok && !out->owned) {
    out->file = m; /* the view keeps the file mapped */
    npy_view_in_file(out, &out->file);
  } else {
    npy_unmap(&m);
  }
  return ok;
}

static const char *numpy_name(const NpyArray *a) {
  if (a->raw_bytes) return a->raw_bytes == 2 ? "void16 (raw 2-byte)" : "void8 (raw 1-byte)";
  switch (a->etype) {
  case ET_PRED: return "bool";
  case ET_S8: return "int8";
  case ET_S16: return "int16";
  case ET_S32: return "int32";
  case ET_S64: return "int64";
  case ET_U8: return "uint8";
  case ET_U16: return "uint16";
  case ET_U32: return "uint32";
  case ET_U64: return "uint64";
  case ET_F16: return "float16";
  case ET_F32: return "float32";
  case ET_F64: return "float64";
  case ET_C64: return "complex64";
  case ET_C128: return "complex128";
  default: return "?";
  }
}

void npy_describe(const NpyArray *a, char *buf, size_t cap) {
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "%s[", numpy_name(a));
  for (int d = 0; d < a->rank; d++) sb_printf(&sb, "%s%" PRId64, d ? "," : "", a->dims[d]);
  sb_putc(&sb, ']');
  snprintf(buf, cap, "%s", sb.data ? sb.data : "");
  sb_free(&sb);
}

/* ---- binding to a parameter's element type ---- */

static bool is_narrow_float(EType t) { return etype_is_float(t) && t != ET_F32 && t != ET_F64 && t != ET_F16; }

/* f32 elements converted into a narrow float type; a view's data may sit
 * at any address, so unaligned ones go through an aligned block. */
static void convert_f32(EType want, void *dst, const void *src, int64_t n) {
  if ((uintptr_t)src % _Alignof(float) == 0) {
    etype_convert_array(want, dst, ET_F32, src, n);
    return;
  }
  enum { BLOCK = 1024 };
  float block[BLOCK];
  int64_t dst_size = etype_storage_bytes(want);
  for (int64_t i = 0; i < n; i += BLOCK) {
    int64_t k = n - i < BLOCK ? n - i : BLOCK;
    memcpy(block, (const char *)src + i * 4, (size_t)k * 4);
    etype_convert_array(want, (char *)dst + i * dst_size, ET_F32, block, k);
  }
}

/* one raw value per byte into an 8-bit or sub-byte type */
static void bind_bytes(EType want, uint8_t *dst, const uint8_t *src, int64_t n) {
  int bits = etype_bits(want);
  bool sext = etype_kind(want) == EK_SINT;
  for (int64_t i = 0; i < n; i++) {
    uint8_t v = src[i];
    if (want == ET_PRED) v = v != 0;
    else if (bits < 8) {
      v &= (uint8_t)((1u << bits) - 1u);
      if (sext && (v >> (bits - 1))) v |= (uint8_t)~((1u << bits) - 1u);
    }
    dst[i] = v;
  }
}

static bool crc_failed(Error *err) {
  return error_set(err, ERR_RUNTIME, -1, "the member fails its CRC check (a corrupt archive)");
}

/* A's data copied as they are into dst (n bytes): read from its file when
 * it is a view of one, else copied from memory; with crc, their CRC-32
 * folded into *crc block by block while the block is in cache. */
static bool copy_data(const NpyArray *a, void *dst, size_t n, uint32_t *crc, Error *err) {
  enum { BLOCK = 1 << 20 };
  for (size_t at = 0; at < n;) {
    size_t k = n - at < BLOCK ? n - at : BLOCK;
    char *d = (char *)dst + at;
    if (a->in_file) {
      ssize_t got = pread(a->pread_fd, d, k, (off_t)(a->pread_offset + at));
      if (got < 0 && errno == EINTR) continue;
      if (got < 0)
        return error_set(err, ERR_RUNTIME, -1, "cannot read the data: %s", strerror(errno));
      if (got == 0) return error_set(err, ERR_RUNTIME, -1, "the file got shorter while it was read");
      k = (size_t)got;
    } else {
      memcpy(d, (const char *)a->data + at, k);
    }
    if (crc) *crc = npy_crc32(*crc, d, k);
    at += k;
  }
  return true;
}

bool npy_bind(const NpyArray *a, EType want, void *dst, Error *err) {
  int wbits = etype_bits(want);
  size_t esz = (size_t)(a->raw_bytes ? a->raw_bytes : etype_storage_bytes(a->etype));
  size_t bytes = (size_t)a->count * esz;
  if (!a->raw_bytes && a->etype == want) { /* the common case: one pass */
    uint32_t crc = a->crc_head;
    if (!copy_data(a, dst, bytes, a->crc_pending ? &crc : NULL, err)) return false;
    return !a->crc_pending || crc == a->crc_want || crc_failed(err);
  }
  if (a->crc_pending) { /* a view of a stored .npz member, checked first */
    if (npy_crc32(a->crc_head, a->data, bytes) != a->crc_want) return crc_failed(err);
    NpyArray checked = *a;
    checked.crc_pending = false;
    return npy_bind(&checked, want, dst, err);
  }
  if (a->raw_bytes == 2 && (want == ET_BF16 || want == ET_F16)) {
    memcpy(dst, a->data, (size_t)a->count * 2);
    return true;
  }
  bool bytewise = a->raw_bytes == 1 || a->etype == ET_S8 || a->etype == ET_U8;
  if (is_narrow_float(want) && a->etype == ET_F32 && !a->raw_bytes) {
    convert_f32(want, dst, a->data, a->count);
    return true;
  }
  if (etype_kind(want) == EK_SINT && wbits < 8 && a->etype == ET_S8 && !a->raw_bytes) {
    etype_convert_array(want, dst, ET_S8, a->data, a->count);
    return true;
  }
  if (etype_kind(want) == EK_UINT && wbits < 8 && a->etype == ET_U8 && !a->raw_bytes) {
    etype_convert_array(want, dst, ET_U8, a->data, a->count);
    return true;
  }
  if (bytewise && wbits <= 8 && want != ET_PRED && (etype_is_float(want) || wbits < 8)) {
    bind_bytes(want, dst, a->data, a->count);
    return true;
  }
  char held[96];
  npy_describe(a, held, sizeof held);
  const char *want_np = npy_descr_for(want, false);
  return error_set(err, ERR_RUNTIME, -1, "expects %s (numpy '%s'), the file holds %s", etype_name(want), want_np,
                   held);
}

/* ---- writing ---- */

const char *npy_descr_for(EType t, bool raw) {
  switch (t) {
  case ET_PRED: return "|b1";
  case ET_S1: case ET_S2: case ET_S4: case ET_S8: return "|i1";
  case ET_U1: case ET_U2: case ET_U4: case ET_U8: return "|u1";
  case ET_S16: return "<i2";
  case ET_S32: return "<i4";
  case ET_S64: return "<i8";
  case ET_U16: return "<u2";
  case ET_U32: return "<u4";
  case ET_U64: return "<u8";
  case ET_F16: return "<f2";
  case ET_F32: return "<f4";
  case ET_F64: return "<f8";
  case ET_C64: return "<c8";
  case ET_C128: return "<c16";
  case ET_BF16: return raw ? "<V2" : "<f4";
  default: return etype_is_float(t) ? (raw ? "|V1" : "<f4") : NULL;
  }
}

bool npy_header(EType t, int rank, const int64_t *dims, bool raw, NpyHeader *h, Error *err) {
  memset(h, 0, sizeof *h);
  const char *descr = npy_descr_for(t, raw);
  if (!descr) return error_set(err, ERR_RUNTIME, -1, "cannot write element type %s to .npy", etype_name(t));
  if (rank < 0 || rank > NPY_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "bad rank %d", rank);
  int64_t count = 1;
  for (int d = 0; d < rank; d++)
    if (dims[d] < 0 || __builtin_mul_overflow(count, dims[d], &count))
      return error_set(err, ERR_RUNTIME, -1, "array too large for .npy");
  bool widen = descr[1] == 'f' && descr[2] == '4' && t != ET_F32;
  int esz = widen ? 4 : (t == ET_BF16 ? 2 : etype_storage_bytes(t));
  int64_t bytes;
  if (__builtin_mul_overflow(count, (int64_t)esz, &bytes))
    return error_set(err, ERR_RUNTIME, -1, "array too large for .npy");
  StrBuf sb;
  sb_init(&sb);
  sb_printf(&sb, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
  for (int d = 0; d < rank; d++) sb_printf(&sb, "%s%" PRId64, d ? ", " : "", dims[d]);
  sb_puts(&sb, rank == 1 ? ",), }" : "), }");
  size_t prefix = 10;
  size_t total = prefix + sb.len + 1;
  if ((total + 63) / 64 * 64 - prefix > 65535) prefix = 12, total = prefix + sb.len + 1;
  size_t padded = (total + 63) / 64 * 64;
  while (prefix + sb.len + 1 < padded) sb_putc(&sb, ' ');
  sb_putc(&sb, '\n');
  uint8_t *b = sb.oom ? NULL : malloc(prefix + sb.len);
  if (!b) {
    sb_free(&sb);
    return error_set(err, ERR_RUNTIME, -1, "out of memory");
  }
  memcpy(b, npy_magic, 6);
  b[6] = prefix == 10 ? 1 : 2;
  b[7] = 0;
  if (prefix == 10) {
    b[8] = (uint8_t)(sb.len & 0xff);
    b[9] = (uint8_t)(sb.len >> 8);
  } else {
    for (int i = 0; i < 4; i++) b[8 + i] = (uint8_t)(sb.len >> (8 * i));
  }
  memcpy(b + prefix, sb.data, sb.len);
  h->bytes = b;
  h->len = prefix + sb.len;
  h->etype = t;
  h->count = count;
  h->widen = widen;
  h->data_len = (size_t)bytes;
  sb_free(&sb);
  return true;
}

void npy_header_free(NpyHeader *h) {
  free(h->bytes);
  h->bytes = NULL;
}

/* Widened types go out through a block buffer: no copy of the whole array. */
enum { NPY_WRITE_BLOCK = 1 << 16 };

bool npy_write_body(FILE *f, const NpyHeader *h, const void *data, uint32_t *crc) {
  if (!h->widen) {
    if (crc && h->data_len) *crc = npy_crc32(*crc, data, h->data_len);
    return !h->data_len || fwrite(data, 1, h->data_len, f) == h->data_len;
  }
  float *block = malloc(sizeof(float) * NPY_WRITE_BLOCK);
  if (!block) return false;
  int esz = etype_storage_bytes(h->etype);
  bool ok = true;
  for (int64_t at = 0; ok && at < h->count; at += NPY_WRITE_BLOCK) {
    int64_t n = h->count - at < NPY_WRITE_BLOCK ? h->count - at : NPY_WRITE_BLOCK;
    etype_convert_array(ET_F32, block, h->etype, (const uint8_t *)data + at * esz, n);
    if (crc) *crc = npy_crc32(*crc, block, (size_t)n * 4);
    ok = fwrite(block, 4, (size_t)n, f) == (size_t)n;
  }
  free(block);
  return ok;
}

uint32_t npy_crc32(uint32_t crc, const void *p, size_t n) {
  const uint8_t *q = p;
  uLong c = crc;
  while (n > 0) { /* zlib's uInt is 32 bits */
    uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
    c = crc32(c, q, k);
    q += k;
    n -= k;
  }
  return (uint32_t)c;
}

bool npy_encode(EType t, int rank, const int64_t *dims, const void *data, bool raw, uint8_t **out,
                size_t *out_len, Error *err) {
  *out = NULL;
  *out_len = 0;
  NpyHeader h;
  if (!npy_header(t, rank, dims, raw, &h, err)) return false;
  size_t len = h.len + h.data_len;
  uint8_t *b = malloc(len ? len : 1);
  if (!b) {
    npy_header_free(&h);
    return error_set(err, ERR_RUNTIME, -1, "out of memory writing .npy");
  }
  memcpy(b, h.bytes, h.len);
  if (h.widen) etype_convert_array(ET_F32, b + h.len, t, data, h.count);
  else if (h.data_len) memcpy(b + h.len, data, h.data_len);
  npy_header_free(&h);
  *out = b;
  *out_len = len;
  return true;
}

/* Header, then the data straight from the caller's array. */
bool npy_write_file(const char *path, EType t, int rank, const int64_t *dims, const void *data, bool raw,
                    Error *err) {
  NpyHeader h;
  if (!npy_header(t, rank, dims, raw, &h, err)) return false;
  AtomicFile af;
  if (!atomic_open(&af, path, err)) {
    npy_header_free(&h);
    return false;
  }
  bool ok = fwrite(h.bytes, 1, h.len, af.f) == h.len && npy_write_body(af.f, &h, data, NULL);
  npy_header_free(&h);
  if (!ok) error_set(err, ERR_RUNTIME, -1, "%s: write error", path);
  return atomic_close(&af, ok, err);
}
