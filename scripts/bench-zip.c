/* Reading and writing a large .npz with our zip code (interp/io/npz.c) against
 * libzip, into and from final, preallocated buffers (docs/zip.md has the
 * numbers and the decision).  Not part of the build; scripts/bench-zip.sh
 * makes the archives with numpy, compiles this against the project's
 * sources and libzip, and runs it:
 *   bench-zip read-ours|read-libzip|read-direct|read-pread RUNS ARCHIVE.npz
 *   bench-zip write-ours|write-libzip RUNS ARCHIVE.npz OUT.npz
 * The arrays are loaded once (untimed), then the mode runs RUNS times; the
 * best wall and the best CPU time are printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
#include <zip.h>
#include <zlib.h>

#include "interp/io/npy.h"

enum { MAX_MEMBERS = 16 };

/* The archive's arrays, each in a buffer of its own allocated and touched
 * before the clock starts (an interpreter's value buffers). */
typedef struct Target {
  char name[256];
  EType etype;
  int rank;
  int64_t dims[NPY_MAX_RANK];
  size_t bytes;
  void *buf;
} Target;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
         (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

static void die(const char *what, const char *msg) {
  fprintf(stderr, "bench-zip: %s: %s\n", what, msg);
  exit(1);
}

/* Shapes, types and the arrays' contents, read once with our reader. */
static int load_targets(const char *path, Target *t) {
  NpzFile z;
  Error err;
  if (!npz_read_file(path, &z, &err)) die(path, err.msg);
  if (z.count > MAX_MEMBERS) die(path, "too many members");
  for (int i = 0; i < z.count; i++) {
    const NpyArray *a = &z.entries[i].array;
    snprintf(t[i].name, sizeof t[i].name, "%s.npy", z.entries[i].name);
    t[i].etype = a->etype;
    t[i].rank = a->rank;
    memcpy(t[i].dims, a->dims, sizeof a->dims);
    t[i].bytes = (size_t)a->count * etype_storage_bytes(a->etype);
    t[i].buf = malloc(t[i].bytes ? t[i].bytes : 1);
    if (!t[i].buf) die(path, "out of memory");
    memcpy(t[i].buf, a->data, t[i].bytes);
  }
  int n = z.count;
  npz_free(&z);
  return n;
}

/* Ours, as hlorun reads --inputs: map, parse (stored members viewed in the
 * mapping, deflated ones inflated into an image of their own), bind each
 * array into its final buffer. */
static void read_ours(const char *path, Target *t, int n) {
  NpzFile z;
  Error err;
  if (!npz_view_file(path, &z, &err)) die(path, err.msg);
  for (int i = 0; i < n && i < z.count; i++)
    if (!npy_bind(&z.entries[i].array, t[i].etype, t[i].buf, &err)) die(path, err.msg);
  npz_free(&z);
}

/* libzip: open the member, read the .npy header, then zip_fread the data
 * straight into the final buffer (libzip inflates and checks the CRC). */
static void read_libzip(const char *path, Target *t, int n) {
  int zerr;
  zip_t *za = zip_open(path, ZIP_RDONLY | ZIP_CHECKCONS, &zerr);
  if (!za) die(path, "zip_open failed");
  if (zip_get_num_entries(za, 0) != n) die(path, "member count differs");
  for (int i = 0; i < n; i++) {
    zip_file_t *f = zip_fopen_index(za, (zip_uint64_t)i, 0);
    if (!f) die(path, zip_strerror(za));
    uint8_t head[65536 + 12];
    if (zip_fread(f, head, 10) != 10) die(path, "short .npy preamble");
    size_t hlen = head[6] == 1 ? 10 + ((size_t)head[8] | (size_t)head[9] << 8) : 0;
    if (head[6] != 1) { /* version 2/3: 4-byte header length */
      if (zip_fread(f, head + 10, 2) != 2) die(path, "short .npy preamble");
      hlen = 12 + ((size_t)head[8] | (size_t)head[9] << 8 | (size_t)head[10] << 16);
    }
    size_t got = head[6] == 1 ? 10 : 12;
    if (hlen > sizeof head) die(path, "header too long");
    if (zip_fread(f, head + got, hlen - got) != (zip_int64_t)(hlen - got)) die(path, "short header");
    uint64_t image;
    Error err;
    if (!npy_image_size(head, hlen, t[i].name, &image, &err)) die(path, err.msg);
    if (image - hlen != t[i].bytes) die(path, "size differs");
    if (zip_fread(f, t[i].buf, t[i].bytes) != (zip_int64_t)t[i].bytes) die(path, zip_file_strerror(f));
    if (zip_fclose(f) != 0) die(path, "zip_fclose failed (CRC?)");
  }
  zip_discard(za);
}

/* What extending our reader would cost: a prototype of binding each member
 * straight from the mapped archive into its final buffer (stored: CRC and
 * one copy; deflate: zlib inflating into the buffer itself), without
 * npz_parse's intermediate array.  Classic (non-zip64) archives only, and
 * none of npz_parse's checks: an estimate of the lower bound, not a reader.
 * read-pread reads stored data with pread() into the buffer (then takes its
 * CRC there) instead of copying it out of the mapping, as libzip does. */
static uint32_t le16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | le16(p + 2) << 16; }

static size_t npy_header_len(const uint8_t *h) {
  return h[6] == 1 ? 10 + le16(h + 8) : 12 + le32(h + 8);
}

static void read_direct(const char *path, Target *t, int n, bool use_pread) {
  NpyMapped m;
  Error err;
  if (!npy_map(path, true, &m, &err)) die(path, err.msg);
  int fd = use_pread ? open(path, O_RDONLY) : -1;
  if (use_pread && fd < 0) die(path, "open");
  const uint8_t *b = m.data, *eocd = b + m.len - 22;
  while (eocd > b && le32(eocd) != 0x06054b50u) eocd--;
  if (le16(eocd + 10) != (uint32_t)n) die(path, "member count differs");
  const uint8_t *c = b + le32(eocd + 16);
  for (int i = 0; i < n; i++) {
    uint32_t method = le16(c + 10), crc = le32(c + 16), csize = le32(c + 20), usize = le32(c + 24);
    const uint8_t *lh = b + le32(c + 42), *data = lh + 30 + le16(lh + 26) + le16(lh + 28);
    c += 46 + le16(c + 28) + le16(c + 30) + le16(c + 32);
    if (method == 0) {
      size_t hlen = npy_header_len(data);
      if (usize - hlen != t[i].bytes) die(path, "size differs");
      if (use_pread) { /* the data read into the buffer, then its CRC there */
        off_t at = (off_t)(data - b + (ptrdiff_t)hlen);
        size_t got = 0;
        while (got < t[i].bytes) {
          ssize_t r = pread(fd, (char *)t[i].buf + got, t[i].bytes - got, at + (off_t)got);
          if (r <= 0) die(path, "pread");
          got += (size_t)r;
        }
        if (npy_crc32(npy_crc32(0, data, hlen), t[i].buf, t[i].bytes) != crc) die(path, "CRC");
      } else {
        if (npy_crc32(0, data, usize) != crc) die(path, "CRC");
        memcpy(t[i].buf, data + hlen, t[i].bytes);
      }
      continue;
    }
    z_stream zs = {0};
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) die(path, "inflateInit2");
    uint8_t head[65536 + 12];
    zs.next_in = (Bytef *)data;
    zs.avail_in = csize;
    zs.next_out = head;
    zs.avail_out = 12; /* the preamble, then exactly the rest of the header */
    if (inflate(&zs, Z_SYNC_FLUSH) < 0 || zs.avail_out) die(path, "short header");
    size_t hlen = npy_header_len(head);
    zs.next_out = head + 12;
    zs.avail_out = (uInt)(hlen - 12);
    if (inflate(&zs, Z_SYNC_FLUSH) < 0 || zs.avail_out) die(path, "short header");
    zs.next_out = t[i].buf;
    zs.avail_out = (uInt)t[i].bytes;
    if (inflate(&zs, Z_FINISH) != Z_STREAM_END || zs.avail_out) die(path, "inflate");
    inflateEnd(&zs);
    uLong got = crc32(crc32(0, head, (uInt)hlen), t[i].buf, (uInt)t[i].bytes);
    if (got != crc || usize != hlen + t[i].bytes) die(path, "CRC");
  }
  npy_unmap(&m);
  if (fd >= 0) close(fd);
}

static void write_ours(const char *out, const Target *t, int n) {
  NpzMember m[MAX_MEMBERS];
  for (int i = 0; i < n; i++) {
    m[i] = (NpzMember){t[i].name, t[i].etype, t[i].rank, t[i].dims, t[i].buf};
    m[i].name = strndup(t[i].name, strlen(t[i].name) - 4); /* npz_write_file adds ".npy" */
  }
  Error err;
  if (!npz_write_file(out, m, n, false, &err)) die(out, err.msg);
  for (int i = 0; i < n; i++) free((char *)m[i].name);
}

/* libzip: each member is header + data as two fragments of the caller's
 * memory (no copy), stored; zip_close writes a temporary file and renames
 * it over OUT. */
static void write_libzip(const char *out, const Target *t, int n) {
  int zerr;
  zip_t *za = zip_open(out, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
  if (!za) die(out, "zip_open failed");
  NpyHeader h[MAX_MEMBERS];
  for (int i = 0; i < n; i++) {
    Error err;
    if (!npy_header(t[i].etype, t[i].rank, t[i].dims, false, &h[i], &err)) die(out, err.msg);
    zip_buffer_fragment_t frag[2] = {{h[i].bytes, h[i].len}, {t[i].buf, t[i].bytes}};
    zip_source_t *s = zip_source_buffer_fragment(za, frag, 2, 0);
    if (!s) die(out, zip_strerror(za));
    zip_int64_t idx = zip_file_add(za, t[i].name, s, ZIP_FL_ENC_UTF_8);
    if (idx < 0) die(out, zip_strerror(za));
    zip_set_file_compression(za, (zip_uint64_t)idx, ZIP_CM_STORE, 0);
  }
  if (zip_close(za) != 0) die(out, zip_strerror(za));
  for (int i = 0; i < n; i++) npy_header_free(&h[i]);
}

int main(int argc, char **argv) {
  if (argc < 4) die("usage", "bench-zip MODE RUNS ARCHIVE.npz [OUT.npz]");
  const char *mode = argv[1], *path = argv[3], *out = argc > 4 ? argv[4] : NULL;
  int runs = atoi(argv[2]);
  if (runs < 1) die("usage", "RUNS must be at least 1");
  Target t[MAX_MEMBERS];
  int n = load_targets(path, t);
  /* Reads overwrite the buffers: what they held is checked after each run. */
  uint32_t want[MAX_MEMBERS];
  bool reading = !strncmp(mode, "read-", 5);
  for (int i = 0; reading && i < n; i++) want[i] = npy_crc32(0, t[i].buf, t[i].bytes);
  double best_wall = 1e30, best_cpu = 1e30;
  for (int run = 0; run < runs; run++) {
    for (int i = 0; reading && i < n; i++) memset(t[i].buf, 0xa5, t[i].bytes);
    double w0 = now(), c0 = cpu();
    if (!strcmp(mode, "read-ours")) read_ours(path, t, n);
    else if (!strcmp(mode, "read-libzip")) read_libzip(path, t, n);
    else if (!strcmp(mode, "read-direct")) read_direct(path, t, n, false);
    else if (!strcmp(mode, "read-pread")) read_direct(path, t, n, true);
    else if (!strcmp(mode, "write-ours") && out) write_ours(out, t, n);
    else if (!strcmp(mode, "write-libzip") && out) write_libzip(out, t, n);
    else die("usage", "unknown mode");
    double wall = now() - w0, cpu_s = cpu() - c0;
    for (int i = 0; reading && i < n; i++)
      if (npy_crc32(0, t[i].buf, t[i].bytes) != want[i]) die(t[i].name, "read back wrong");
    if (wall < best_wall) best_wall = wall;
    if (cpu_s < best_cpu) best_cpu = cpu_s;
  }
  printf("%-13s %-13s best of %d: wall %7.3f s  cpu %7.3f s\n", mode,
         strrchr(path, '/') ? strrchr(path, '/') + 1 : path, runs, best_wall, best_cpu);
  for (int i = 0; i < n; i++) free(t[i].buf);
  return 0;
}
