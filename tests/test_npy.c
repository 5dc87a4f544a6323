/* .npy/.npz reading, binding with cli.md's widening rules, writing, and
 * every kind of corrupt file.  Fixtures: scripts/gen-npy-fixtures.py (numpy);
 * the values checked here are the ones that script writes. */
#include <criterion/criterion.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interp/io/npy.h"

static const char *fx(const char *name) {
  static char path[1024];
  const char *file = __FILE__;
  const char *slash = strrchr(file, '/');
  int dir = slash ? (int)(slash - file) : 1;
  snprintf(path, sizeof path, "%.*s/../testdata/npy/%s", dir, slash ? file : ".", name);
  return path;
}

static NpyArray load(const char *name) {
  NpyArray a;
  Error err = {0};
  cr_assert(npy_read_file(fx(name), &a, &err), "%s: %s", name, err.msg);
  return a;
}

Test(npy_read, f32_c_and_fortran) {
  const char *names[] = {"f32_2x3.npy", "f32_2x3_fortran.npy"};
  for (int k = 0; k < 2; k++) {
    NpyArray a = load(names[k]);
    cr_expect_eq(a.etype, ET_F32);
    cr_expect(a.rank == 2 && a.dims[0] == 2 && a.dims[1] == 3 && a.count == 6);
    const float *d = a.data;
    for (int i = 0; i < 6; i++) cr_expect_eq(d[i], (float)(i + 1), "%s[%d]", names[k], i);
    npy_free(&a);
  }
}

Test(npy_read, endianness_versions_and_types) {
  NpyArray a = load("f64_be.npy");
  const double *d = a.data;
  cr_expect(a.etype == ET_F64 && d[0] == 1.5 && d[1] == -2.25 && d[2] == 1e300);
  npy_free(&a);
  a = load("i4_v2.npy");
  const int32_t *i4 = a.data;
  cr_expect(a.etype == ET_S32 && i4[0] == -1 && i4[2] == 2147483647);
  npy_free(&a);
  a = load("u2_v3.npy");
  cr_expect(a.etype == ET_U16 && ((uint16_t *)a.data)[1] == 65535);
  npy_free(&a);
  a = load("i2_be.npy");
  cr_expect(a.etype == ET_S16 && ((int16_t *)a.data)[0] == -2 && ((int16_t *)a.data)[1] == 258);
  npy_free(&a);
  a = load("i8.npy");
  cr_expect(((int64_t *)a.data)[0] == INT64_MIN && ((int64_t *)a.data)[1] == INT64_MAX);
  npy_free(&a);
  a = load("u8.npy");
  cr_expect(a.etype == ET_U64 && ((uint64_t *)a.data)[0] == UINT64_MAX);
  npy_free(&a);
  a = load("bool.npy");
  cr_expect(a.etype == ET_PRED && ((uint8_t *)a.data)[0] == 1 && ((uint8_t *)a.data)[1] == 0);
  npy_free(&a);
  a = load("f2.npy");
  cr_expect(a.etype == ET_F16 && ((uint16_t *)a.data)[1] == 0x7bff && ((uint16_t *)a.data)[2] == 0xb800);
  npy_free(&a);
  a = load("c8_be.npy");
  const float *c = a.data;
  cr_expect(a.etype == ET_C64 && c[0] == 1 && c[1] == 2 && c[2] == -3.5f && c[3] == -4);
  npy_free(&a);
  a = load("c16.npy");
  cr_expect(a.etype == ET_C128 && ((double *)a.data)[0] == 0.5 && ((double *)a.data)[1] == -1);
  npy_free(&a);
  a = load("scalar.npy");
  cr_expect(a.rank == 0 && a.count == 1 && ((float *)a.data)[0] == 2.5f);
  npy_free(&a);
  a = load("empty_0x3.npy");
  cr_expect(a.rank == 2 && a.count == 0 && a.dims[1] == 3);
  npy_free(&a);
}

Test(npy_bind, widening_rules) {
  Error err;
  NpyArray a = load("f32_for_bf16.npy");
  uint16_t bf[2];
  cr_assert(npy_bind(&a, ET_BF16, bf, &err), "%s", err.msg);
  cr_expect(bf[0] == 0x3f80 && bf[1] == 0x4040);
  uint8_t f8[4];
  cr_assert(npy_bind(&a, ET_F8E4M3FN, f8, &err));
  cr_expect(f8[0] == 0x38 && f8[1] == 0x44); /* 1.0039 -> 1.0; 3.0 = 1.5*2^1 */
  int32_t s32[2];
  cr_expect(!npy_bind(&a, ET_S32, s32, &err));
  cr_expect(strstr(err.msg, "s32") && strstr(err.msg, "float32[2]"), "%s", err.msg);
  npy_free(&a);
  a = load("bf16_raw.npy");
  cr_assert(npy_bind(&a, ET_BF16, bf, &err));
  cr_expect(bf[0] == 0x3f80 && bf[1] == 0xc040);
  cr_expect(!npy_bind(&a, ET_F32, s32, &err));
  npy_free(&a);
  a = load("f8_raw.npy");
  cr_assert(npy_bind(&a, ET_F8E4M3FN, f8, &err));
  cr_expect(f8[0] == 0x7e && f8[1] == 0x38);
  npy_free(&a);
  a = load("i1.npy"); /* -8, 7, 100, -128 -> s4 wraps like convert */
  int8_t s4[4];
  cr_assert(npy_bind(&a, ET_S4, s4, &err));
  cr_expect(s4[0] == -8 && s4[1] == 7 && s4[2] == 4 && s4[3] == 0);
  npy_free(&a);
  a = load("u1.npy"); /* 0, 15, 16, 255 -> u4 */
  uint8_t u4[4];
  cr_assert(npy_bind(&a, ET_U4, u4, &err));
  cr_expect(u4[0] == 0 && u4[1] == 15 && u4[2] == 0 && u4[3] == 15);
  cr_assert(npy_bind(&a, ET_F8E5M2, f8, &err)); /* raw one value per byte */
  cr_expect(f8[1] == 15);
  uint8_t pr[4];
  cr_expect(!npy_bind(&a, ET_PRED, pr, &err));
  npy_free(&a);
  a = load("bool.npy");
  cr_assert(npy_bind(&a, ET_PRED, pr, &err));
  cr_expect(pr[0] == 1 && pr[1] == 0 && pr[2] == 1);
  npy_free(&a);
}

static void expect_bad(const char *name, const char *needle) {
  NpyArray a;
  Error err = {0};
  cr_expect(!npy_read_file(fx(name), &a, &err), "%s should fail", name);
  cr_expect(strstr(err.msg, needle) != NULL, "%s: message '%s' lacks '%s'", name, err.msg, needle);
}

Test(npy_read, corrupt_files) {
  expect_bad("bad_magic.npy", "bad magic");
  expect_bad("truncated_header.npy", "truncated");
  expect_bad("garbage_dict.npy", "fortran_order");
  expect_bad("missing_key.npy", "needs descr");
  expect_bad("shape_overflow.npy", "too large");
  expect_bad("data_short.npy", "truncated");
  expect_bad("huge_declared.npy", "truncated");
  expect_bad("structured.npy", "structured");
  expect_bad("bad_dtype.npy", "unsupported dtype");
  expect_bad("bad_version.npy", "version");
  expect_bad("header_len_past_end.npy", "truncated");
  expect_bad("no_such_file.npy", "cannot open");
}

Test(npy_read, every_truncation_is_an_error) {
  uint8_t *buf;
  size_t len;
  Error err;
  cr_assert(npy_slurp(fx("f32_2x3.npy"), &buf, &len, &err));
  for (size_t cut = 0; cut < len; cut++) {
    NpyArray a;
    cr_expect(!npy_parse(buf, cut, "cut", &a, &err), "prefix of %zu bytes accepted", cut);
  }
  free(buf);
}

Test(npz, read_savez) {
  NpzFile f;
  Error err = {0};
  cr_assert(npz_read_file(fx("two.npz"), &f, &err), "%s", err.msg);
  cr_assert_eq(f.count, 2);
  cr_expect_str_eq(f.entries[0].name, "arg0");
  cr_expect_str_eq(f.entries[1].name, "arg1");
  cr_expect(f.entries[0].array.etype == ET_F32 && f.entries[0].array.count == 6);
  cr_expect(((float *)f.entries[0].array.data)[5] == 6.0f);
  cr_expect(((int32_t *)f.entries[1].array.data)[1] == 8);
  npz_free(&f);
}

static void expect_bad_npz(const char *name, const char *needle) {
  NpzFile f;
  Error err = {0};
  cr_expect(!npz_read_file(fx(name), &f, &err), "%s should fail", name);
  cr_expect(strstr(err.msg, needle) != NULL, "%s: message '%s' lacks '%s'", name, err.msg, needle);
}

Test(npz, corrupt_archives) {
  expect_bad_npz("truncated.npz", "malformed .npz");
  expect_bad_npz("not_zip.npz", "malformed .npz");
  expect_bad_npz("bad_crc.npz", "CRC");
  uint8_t *buf;
  size_t len;
  Error err;
  cr_assert(npy_slurp(fx("two.npz"), &buf, &len, &err));
  for (size_t cut = 0; cut < len; cut += 7) {
    NpzFile f;
    cr_expect(!npz_parse(buf, cut, "cut", &f, &err), "prefix of %zu bytes accepted", cut);
  }
  free(buf);
}

Test(npy_write, roundtrip_and_widening) {
  char path[] = "/tmp/hlo_npy_testXXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  Error err;
  int64_t dims[2] = {2, 2};
  uint16_t bf[4] = {0x3f80, 0x4000, 0xc040, 0x7fc0};
  cr_assert(npy_write_file(path, ET_BF16, 2, dims, bf, false, &err), "%s", err.msg);
  NpyArray a;
  cr_assert(npy_read_file(path, &a, &err), "%s", err.msg);
  cr_expect_str_eq(a.descr, "<f4");
  cr_expect(a.etype == ET_F32 && a.rank == 2 && a.dims[1] == 2);
  const float *f = a.data;
  cr_expect(f[0] == 1.0f && f[1] == 2.0f && f[2] == -3.0f && isnan(f[3]));
  uint16_t back[4];
  cr_assert(npy_bind(&a, ET_BF16, back, &err));
  cr_expect(memcmp(back, bf, sizeof bf) == 0);
  npy_free(&a);
  cr_assert(npy_write_file(path, ET_BF16, 2, dims, bf, true, &err));
  cr_assert(npy_read_file(path, &a, &err));
  cr_expect(a.raw_bytes == 2 && memcmp(a.data, bf, sizeof bf) == 0);
  npy_free(&a);
  int8_t s4[3] = {-8, 7, -1};
  int64_t d3 = 3;
  cr_assert(npy_write_file(path, ET_S4, 1, &d3, s4, false, &err));
  cr_assert(npy_read_file(path, &a, &err));
  cr_expect(a.etype == ET_S8 && memcmp(a.data, s4, 3) == 0);
  npy_free(&a);
  float sc = 4.5f;
  cr_assert(npy_write_file(path, ET_F32, 0, NULL, &sc, false, &err));
  cr_assert(npy_read_file(path, &a, &err));
  cr_expect(a.rank == 0 && ((float *)a.data)[0] == 4.5f);
  npy_free(&a);
  /* header is 64-byte aligned as numpy writes it */
  uint8_t *img;
  size_t len;
  cr_assert(npy_encode(ET_F32, 2, dims, (float[4]){0}, false, &img, &len, &err));
  size_t hlen = (size_t)img[8] | (size_t)img[9] << 8;
  cr_expect_eq((10 + hlen) % 64, 0);
  cr_expect_eq(img[10 + hlen - 1], '\n');
  free(img);
  unlink(path);
}

Test(npz_write, roundtrip) {
  char path[] = "/tmp/hlo_npz_testXXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  Error err;
  int64_t d0[1] = {3}, d1[2] = {1, 2};
  int32_t v0[3] = {1, -2, 3};
  double v1[2] = {0.5, -0.25};
  NpzMember m[2] = {{"out0", ET_S32, 1, d0, v0}, {"out1", ET_F64, 2, d1, v1}};
  cr_assert(npz_write_file(path, m, 2, false, &err), "%s", err.msg);
  NpzFile f;
  cr_assert(npz_read_file(path, &f, &err), "%s", err.msg);
  cr_assert_eq(f.count, 2);
  cr_expect_str_eq(f.entries[1].name, "out1");
  cr_expect(memcmp(f.entries[0].array.data, v0, sizeof v0) == 0);
  cr_expect(memcmp(f.entries[1].array.data, v1, sizeof v1) == 0);
  npz_free(&f);
  unlink(path);
}

/* 65,536 members do not fit the classic end record's 16-bit count: the
 * archive carries zip64 end records, read back here and (when numpy is
 * there) by numpy itself, an independent reader. */
Test(npz_write, zip64_member_count, .timeout = 60) {
  char path[] = "/tmp/hlo_npz_manyXXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  enum { N = 65536 };
  NpzMember *m = calloc(N, sizeof *m);
  char (*names)[16] = calloc(N, sizeof *names);
  int32_t *vals = calloc(N, sizeof *vals);
  int64_t d[1] = {1};
  cr_assert(m && names && vals);
  for (int i = 0; i < N; i++) {
    snprintf(names[i], sizeof names[i], "out%d", i);
    vals[i] = i * 3;
    m[i] = (NpzMember){names[i], ET_S32, 1, d, &vals[i]};
  }
  Error err;
  cr_assert(npz_write_file(path, m, N, false, &err), "%s", err.msg);
  NpzFile f;
  cr_assert(npz_read_file(path, &f, &err), "%s", err.msg);
  cr_assert_eq(f.count, N);
  cr_expect_str_eq(f.entries[N - 1].name, "out65535");
  cr_expect_eq(*(const int32_t *)f.entries[N - 1].array.data, (N - 1) * 3);
  cr_expect_eq(*(const int32_t *)f.entries[40000].array.data, 120000);
  npz_free(&f);
  if (access("/usr/bin/python3", X_OK) == 0 &&
      system("/usr/bin/python3 -c 'import numpy' 2>/dev/null") == 0) {
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import numpy as np; z = np.load('%s'); "
             "assert len(z.files) == 65536; assert int(z['out65535'][0]) == 196605; "
             "assert int(z['out1'][0]) == 3\"",
             path);
    cr_expect_eq(system(cmd), 0, "numpy does not read the archive back");
  }
  unlink(path);
  free(m);
  free(names);
  free(vals);
}

static void put16(uint8_t *p, unsigned v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, v & 0xffff), put16(p + 2, v >> 16); }

/* A central directory that points many entries at the same member: the
 * bytes of a small file would be read as many copies (a 1 MB file as 2 GB).
 * Refused as soon as the members' data add up to more than the archive. */
Test(npz, overlapping_members_refused) {
  char path[] = "/tmp/hlo_npz_overlapXXXXXX";
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  close(fd);
  Error err;
  int64_t d[1] = {64};
  float v[64] = {0};
  NpzMember m[1] = {{"x", ET_F32, 1, d, v}};
  cr_assert(npz_write_file(path, m, 1, false, &err), "%s", err.msg);
  FILE *f = fopen(path, "rb");
  cr_assert(f);
  uint8_t buf[4096];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  unlink(path);
  /* the one central record (46 + "x.npy") and the end record (22) */
  size_t cd_at = len - 22 - 51, rec = 51;
  enum { COPIES = 40 };
  uint8_t *big = malloc(cd_at + COPIES * rec + 22);
  cr_assert(big);
  memcpy(big, buf, cd_at);
  for (int i = 0; i < COPIES; i++) memcpy(big + cd_at + i * rec, buf + cd_at, rec);
  uint8_t *eocd = big + cd_at + COPIES * rec;
  memcpy(eocd, buf + len - 22, 22);
  put16(eocd + 8, COPIES);
  put16(eocd + 10, COPIES);
  put32(eocd + 12, (uint32_t)(COPIES * rec));
  NpzFile z;
  size_t blen = cd_at + COPIES * rec + 22;
  cr_assert_not(npz_parse(big, blen, "overlap.npz", &z, &err));
  cr_expect(strstr(err.msg, "members overlap"), "%s", err.msg);
  /* the same archive with its one entry reads fine */
  put16(eocd + 8, 1);
  put16(eocd + 10, 1);
  put32(eocd + 12, (uint32_t)rec);
  memcpy(big + cd_at + rec, eocd, 22);
  cr_assert(npz_parse(big, cd_at + rec + 22, "one.npz", &z, &err), "%s", err.msg);
  cr_expect_eq(z.count, 1);
  npz_free(&z);
  free(big);
}

/* numpy.savez_compressed: DEFLATE members through zlib. */
Test(npz_deflate, read_savez_compressed) {
  NpzFile f;
  Error err = {0};
  cr_assert(npz_read_file(fx("compressed.npz"), &f, &err), "%s", err.msg);
  cr_assert_eq(f.count, 1);
  cr_expect_str_eq(f.entries[0].name, "a");
  cr_expect(f.entries[0].array.etype == ET_F32 && f.entries[0].array.count == 6);
  cr_expect(((float *)f.entries[0].array.data)[5] == 6.0f);
  npz_free(&f);
  cr_assert(npz_read_file(fx("compressed_two.npz"), &f, &err), "%s", err.msg);
  cr_assert_eq(f.count, 2);
  cr_expect_str_eq(f.entries[1].name, "zeros");
  cr_expect(f.entries[1].array.etype == ET_F64 && f.entries[1].array.count == 3000);
  for (int i = 0; i < 3000; i++) cr_expect(((double *)f.entries[1].array.data)[i] == 0.0);
  cr_expect(((float *)f.entries[0].array.data)[0] == 1.0f);
  npz_free(&f);
  const char *names[] = {"deflate_ok.npz", "deflate_zip64.npz"};
  for (int k = 0; k < 2; k++) {
    cr_assert(npz_read_file(fx(names[k]), &f, &err), "%s: %s", names[k], err.msg);
    const float *v = f.entries[0].array.data;
    cr_expect(f.count == 1 && f.entries[0].array.count == 3, "%s", names[k]);
    cr_expect(v[0] == 1.5f && v[1] == -2.0f && v[2] == 0.25f, "%s", names[k]);
    npz_free(&f);
  }
}

Test(npz_deflate, corrupt_streams) {
  expect_bad_npz("deflate_bad_crc.npz", "fails its CRC check");
  expect_bad_npz("deflate_truncated.npz", "truncated");
  expect_bad_npz("deflate_corrupt.npz", "corrupt deflate stream");
  expect_bad_npz("deflate_size_mismatch.npz", "its .npy header describes 140");
  expect_bad_npz("deflate_bomb_declared.npz", "more than deflate can produce");
  expect_bad_npz("deflate_bomb_actual.npz", "inflates to more than its declared 140 bytes");
  expect_bad_npz("deflate_method_12.npz", "compression method 12");
}

/* Every prefix, and every single-byte change of a compressed archive, is a
 * clean error or a good read (never a crash: run under ASan). */
Test(npz_deflate, every_cut_and_flip) {
  uint8_t *buf;
  size_t len;
  Error err;
  cr_assert(npy_slurp(fx("compressed_two.npz"), &buf, &len, &err));
  for (size_t cut = 0; cut < len; cut++) {
    NpzFile f;
    cr_expect(!npz_parse(buf, cut, "cut", &f, &err), "prefix of %zu bytes accepted", cut);
  }
  for (size_t at = 0; at < len; at++) {
    NpzFile f;
    buf[at] ^= 0x5a;
    if (npz_parse(buf, len, "flip", &f, &err)) npz_free(&f);
    buf[at] ^= 0x5a;
  }
  free(buf);
}

/* A write that fails part-way leaves the old file as it was and no
 * temporary behind (interp/io/atomic_file.c). */
Test(npz_write, failed_write_keeps_old_file) {
  char dir[] = "/tmp/hlo_atomic_testXXXXXX";
  cr_assert(mkdtemp(dir));
  char path[128];
  snprintf(path, sizeof path, "%s/result.npz", dir);
  Error err;
  int64_t d1 = 1;
  float old = 42.0f;
  NpzMember good = {"out0", ET_F32, 1, &d1, &old};
  cr_assert(npz_write_file(path, &good, 1, false, &err), "%s", err.msg);
  char longname[600];
  memset(longname, 'n', sizeof longname - 1);
  longname[sizeof longname - 1] = 0;
  float v[2] = {1, 2};
  NpzMember m[2] = {{"out0", ET_F32, 1, &d1, v}, {longname, ET_F32, 1, &d1, v + 1}};
  cr_expect(!npz_write_file(path, m, 2, false, &err), "a bad member name must fail");
  NpzFile f;
  cr_assert(npz_read_file(path, &f, &err), "%s", err.msg);
  cr_expect(f.count == 1 && ((float *)f.entries[0].array.data)[0] == 42.0f, "old result changed");
  npz_free(&f);
  glob_t g;
  char pattern[160];
  snprintf(pattern, sizeof pattern, "%s/*", dir);
  cr_expect(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1, "a temporary file was left behind");
  globfree(&g);
  /* A directory that does not exist: a clear error, nothing created. */
  char missing[160];
  snprintf(missing, sizeof missing, "%s/no/such.npy", dir);
  cr_expect(!npy_write_file(missing, ET_F32, 1, &d1, v, false, &err));
  cr_expect(strstr(err.msg, "cannot create") != NULL, "%s", err.msg);
  unlink(path);
  rmdir(dir);
}

Test(npz_deflate, edge_cases) {
  NpzFile f;
  Error err = {0};
  cr_assert(npz_read_file(fx("compressed_edges.npz"), &f, &err), "%s", err.msg);
  cr_assert_eq(f.count, 7);
  const NpyArray *a = &f.entries[0].array; /* scalar */
  cr_expect(!strcmp(f.entries[0].name, "scalar") && a->rank == 0 && a->count == 1 &&
            ((float *)a->data)[0] == 2.5f);
  a = &f.entries[1].array; /* empty */
  cr_expect(a->rank == 2 && a->dims[0] == 0 && a->dims[1] == 3 && a->count == 0);
  a = &f.entries[2].array; /* special */
  const double *d = a->data;
  cr_expect(a->etype == ET_F64 && isnan(d[0]) && d[1] == INFINITY && d[2] == -INFINITY);
  cr_expect(d[3] == 0.0 && signbit(d[3]), "-0 must keep its sign");
  a = &f.entries[3].array; /* flags */
  const uint8_t *b = a->data;
  cr_expect(a->etype == ET_PRED && b[0] == 1 && b[1] == 0 && b[2] == 1);
  a = &f.entries[4].array; /* small */
  cr_expect(a->etype == ET_S8 && ((int8_t *)a->data)[0] == -128 && ((int8_t *)a->data)[1] == 127);
  a = &f.entries[5].array; /* cplx */
  cr_expect(a->etype == ET_C64 && ((float *)a->data)[0] == 1.0f && ((float *)a->data)[1] == 2.0f);
  a = &f.entries[6].array; /* be: big-endian, swapped on reading */
  cr_expect(a->etype == ET_F64 && ((double *)a->data)[0] == 1.5 && ((double *)a->data)[1] == -3.0);
  npz_free(&f);
}

/* Views (npy_view_file, npz_view_file): what hlorun binds its inputs from.
 * Every fixture bound through a view gives the bytes the owning readers
 * give, whether the data were viewed in place or had to be converted
 * (Fortran order, big-endian, bool). */
static void expect_same_binding(const NpyArray *view, const NpyArray *owned, const char *what) {
  cr_assert_eq(view->count, owned->count, "%s", what);
  EType t = owned->etype;
  if (t == ET_INVALID) return; /* raw bytes: compared by the test below */
  size_t n = (size_t)owned->count * (size_t)etype_storage_bytes(t);
  void *a = malloc(n + 1), *b = malloc(n + 1);
  Error err = {0};
  cr_assert(npy_bind(view, t, a, &err) && npy_bind(owned, t, b, &err), "%s: %s", what, err.msg);
  cr_expect(memcmp(a, b, n) == 0, "%s: the view binds other bytes", what);
  free(a);
  free(b);
}

Test(npy_view, same_values_as_owning_readers) {
  const char *npys[] = {"f32_2x3.npy", "f32_2x3_fortran.npy", "f64_be.npy", "bool.npy",
                        "i2_be.npy", "c8_be.npy", "scalar.npy", "empty_0x3.npy", "u8.npy"};
  for (size_t k = 0; k < sizeof npys / sizeof *npys; k++) {
    NpyArray v, o;
    Error err = {0};
    cr_assert(npy_view_file(fx(npys[k]), &v, &err), "%s: %s", npys[k], err.msg);
    cr_assert(npy_read_file(fx(npys[k]), &o, &err), "%s: %s", npys[k], err.msg);
    expect_same_binding(&v, &o, npys[k]);
    npy_free(&v);
    npy_free(&o);
  }
  const char *npzs[] = {"two.npz", "compressed_two.npz", "deflate_zip64.npz"};
  for (size_t k = 0; k < sizeof npzs / sizeof *npzs; k++) {
    NpzFile v, o;
    Error err = {0};
    cr_assert(npz_view_file(fx(npzs[k]), &v, &err), "%s: %s", npzs[k], err.msg);
    cr_assert(npz_read_file(fx(npzs[k]), &o, &err), "%s: %s", npzs[k], err.msg);
    cr_assert_eq(v.count, o.count);
    for (int e = 0; e < v.count; e++) expect_same_binding(&v.entries[e].array, &o.entries[e].array, npzs[k]);
    npz_free(&v);
    npz_free(&o);
  }
}

/* A view's data sit wherever the member's bytes are in the archive (numpy's
 * savez puts f32 data at odd offsets), so converting f32 into bf16 must not
 * assume alignment: small integers are exact in bf16, whose bits are then
 * the f32 bits' upper half. */
Test(npy_view, unaligned_f32_into_bf16) {
  enum { N = 2500 }; /* more than one conversion block */
  float vals[N];
  for (int i = 0; i < N; i++) vals[i] = (float)(i % 256) * (i % 3 ? 1.0f : -0.5f);
  int64_t dims[1] = {N};
  uint8_t *img;
  size_t len;
  Error err = {0};
  cr_assert(npy_encode(ET_F32, 1, dims, vals, false, &img, &len, &err), "%s", err.msg);
  uint8_t *shifted = malloc(len + 3);
  memcpy(shifted + 3, img, len);
  NpyArray a;
  cr_assert(npy_parse_view(shifted + 3, len, "shifted", &a, &err), "%s", err.msg);
  cr_expect(a.owned == NULL && a.data == shifted + 3 + (len - N * 4), "not a view of the image");
  uint16_t got[N];
  cr_assert(npy_bind(&a, ET_BF16, got, &err), "%s", err.msg);
  for (int i = 0; i < N; i++) {
    uint32_t bits;
    memcpy(&bits, &vals[i], 4);
    cr_expect_eq(got[i], (uint16_t)(bits >> 16), "element %d", i);
  }
  npy_free(&a);
  free(shifted);
  free(img);
}

/* A stored member read as a view has its CRC checked as it is bound (one
 * pass over the data), so a flipped byte is refused there; the copying
 * reader refuses it at once.  bad_crc.npz's data byte is flipped
 * (scripts/gen-npy-fixtures.py). */
Test(npy_view, crc_checked_when_bound) {
  NpzFile z;
  Error err = {0};
  cr_assert(npz_view_file(fx("bad_crc.npz"), &z, &err), "%s", err.msg);
  cr_assert(z.count >= 1);
  NpyArray *a = &z.entries[0].array;
  cr_expect(a->crc_pending, "the stored member's check was not left to the bind");
  size_t n = (size_t)a->count * (size_t)etype_storage_bytes(a->etype) + 1;
  void *dst = malloc(n);
  cr_expect(!npy_bind(a, a->etype, dst, &err));
  cr_expect(strstr(err.msg, "CRC") != NULL, "%s", err.msg);
  if (a->etype == ET_F32) { /* the converting path checks first too */
    err.msg[0] = 0;
    cr_expect(!npy_bind(a, ET_BF16, dst, &err) && strstr(err.msg, "CRC"), "%s", err.msg);
  }
  free(dst);
  npz_free(&z);
  /* an intact archive binds through the same path */
  cr_assert(npz_view_file(fx("two.npz"), &z, &err), "%s", err.msg);
  cr_expect(z.entries[0].array.crc_pending);
  float v[6];
  cr_expect(npy_bind(&z.entries[0].array, ET_F32, v, &err), "%s", err.msg);
  cr_expect(v[5] == 6.0f);
  npz_free(&z);
}
