/* Data-movement kernels: the seed's examples (operation semantics: Slice,
 * Concatenate, Transpose, Rev, Pad, Iota, Broadcast), hand-derived edge
 * cases, and randomized checks against naive index loops. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/k_movement.h"

static void expect_f32(const float *got, const float *want, int n) {
  for (int i = 0; i < n; i++) cr_assert_eq(got[i], want[i], "element %d: %g != %g", i, got[i], want[i]);
}

static void expect_i32(const int32_t *got, const int32_t *want, int n) {
  for (int i = 0; i < n; i++) cr_assert_eq(got[i], want[i], "element %d: %d != %d", i, got[i], want[i]);
}

/* b = {{0,1,2},{3,4,5},{6,7,8},{9,10,11}} from the seed. */
static const float B[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};

Test(movement, seed_slice_1d) {
  const float a[5] = {0, 1, 2, 3, 4};
  float out[2];
  int64_t sd[] = {5}, od[] = {2}, st[] = {2}, str[] = {1};
  k_slice(out, od, a, sd, 1, st, str, 4);
  expect_f32(out, (float[]){2, 3}, 2);
}

Test(movement, seed_slice_2d) {
  float out[4];
  int64_t sd[] = {4, 3}, od[] = {2, 2}, st[] = {2, 1}, str[] = {1, 1};
  k_slice(out, od, B, sd, 2, st, str, 4);
  expect_f32(out, (float[]){7, 8, 10, 11}, 4);
}

Test(movement, strided_slice) {
  /* rows 0,2 (stride 2), columns 0,2 (stride 2) */
  float out[4];
  int64_t sd[] = {4, 3}, od[] = {2, 2}, st[] = {0, 0}, str[] = {2, 2};
  k_slice(out, od, B, sd, 2, st, str, 4);
  expect_f32(out, (float[]){0, 2, 6, 8}, 4);
  /* [1:4:2] on a length-5 vector -> 1, 3 */
  const float a[5] = {0, 1, 2, 3, 4};
  int64_t sd1[] = {5}, od1[] = {2}, st1[] = {1}, str1[] = {2};
  k_slice(out, od1, a, sd1, 1, st1, str1, 4);
  expect_f32(out, (float[]){1, 3}, 2);
}

Test(movement, seed_concat_2d) {
  const int32_t a[6] = {1, 2, 3, 4, 5, 6}, b[2] = {7, 8};
  int32_t out[8];
  int64_t od[] = {4, 2}, ad[] = {3, 2}, bd[] = {1, 2}, z[] = {0, 0}, at[] = {3, 0};
  k_move_box(out, od, z, a, ad, z, ad, 2, 4);
  k_move_box(out, od, at, b, bd, z, bd, 2, 4);
  expect_i32(out, (int32_t[]){1, 2, 3, 4, 5, 6, 7, 8}, 8);
}

Test(movement, transpose_2d_and_3d) {
  float out[12];
  int64_t d[] = {4, 3}, p[] = {1, 0};
  k_transpose(out, B, d, p, 2, 4);
  expect_f32(out, (float[]){0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}, 12);
  /* Seed Reshape/Collapse example v = f32[4x2x3]; transpose {1,2,0} gives
   * the out-of-order collapse v021_24 when flattened. */
  float v[24] = {10, 11, 12, 15, 16, 17, 20, 21, 22, 25, 26, 27,
                 30, 31, 32, 35, 36, 37, 40, 41, 42, 45, 46, 47};
  float o[24];
  int64_t vd[] = {4, 2, 3}, vp[] = {1, 2, 0};
  k_transpose(o, v, vd, vp, 3, 4);
  expect_f32(o, (float[]){10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42,
                          15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37, 47}, 24);
}

Test(movement, reverse) {
  float out[12];
  int64_t d[] = {4, 3};
  uint8_t r0[] = {1, 0}, r1[] = {0, 1}, r01[] = {1, 1};
  k_reverse(out, B, d, r0, 2, 4);
  expect_f32(out, (float[]){9, 10, 11, 6, 7, 8, 3, 4, 5, 0, 1, 2}, 12);
  k_reverse(out, B, d, r1, 2, 4);
  expect_f32(out, (float[]){2, 1, 0, 5, 4, 3, 8, 7, 6, 11, 10, 9}, 12);
  k_reverse(out, B, d, r01, 2, 4);
  expect_f32(out, (float[]){11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, 12);
}

Test(movement, broadcast) {
  /* scalar 2.0 to f32[2,3] (seed Broadcast example) */
  float two = 2, out[6];
  int64_t od[] = {2, 3};
  k_broadcast(out, od, 2, &two, NULL, 0, NULL, 4);
  expect_f32(out, (float[]){2, 2, 2, 2, 2, 2}, 6);
  /* {1,2,3} along dim 1 of [2,3] and along dim 0 of [3,2] */
  const float v[3] = {1, 2, 3};
  int64_t vd[] = {3}, b1[] = {1}, b0[] = {0}, od2[] = {3, 2};
  k_broadcast(out, od, 2, v, vd, 1, b1, 4);
  expect_f32(out, (float[]){1, 2, 3, 1, 2, 3}, 6);
  k_broadcast(out, od2, 2, v, vd, 1, b0, 4);
  expect_f32(out, (float[]){1, 1, 2, 2, 3, 3}, 6);
  /* degenerate dim: [1,3] -> [2,3] with dims {0,1} */
  int64_t d13[] = {1, 3}, b01[] = {0, 1};
  k_broadcast(out, od, 2, v, d13, 2, b01, 4);
  expect_f32(out, (float[]){1, 2, 3, 1, 2, 3}, 6);
}

Test(movement, pad_edge_interior_negative) {
  const int32_t a[3] = {1, 2, 3};
  int32_t pv = 0, out[16];
  int64_t ad[] = {3};
  /* lo=1 hi=2 interior=1: 0 1 0 2 0 3 0 0 */
  int64_t od[] = {8}, lo[] = {1}, in1[] = {1};
  k_pad(out, od, a, ad, 1, lo, in1, &pv, 4);
  expect_i32(out, (int32_t[]){0, 1, 0, 2, 0, 3, 0, 0}, 8);
  /* lo=-1 hi=-1 interior=1: interior first gives 1 0 2 0 3, then cut one
   * element at each end: 0 2 0 */
  int64_t od2[] = {3}, lo2[] = {-1};
  k_pad(out, od2, a, ad, 1, lo2, in1, &pv, 4);
  expect_i32(out, (int32_t[]){0, 2, 0}, 3);
  /* lo=-2 hi=0 interior=0: 3 */
  int64_t od3[] = {1}, lo3[] = {-2}, in0[] = {0};
  k_pad(out, od3, a, ad, 1, lo3, in0, &pv, 4);
  expect_i32(out, (int32_t[]){3}, 1);
  /* 2-D: [[1,2],[3,4]] with padding 1_0x0_1_1 and value 9:
   * rows: lo 1; cols: hi 1 interior 1 -> width 4 */
  const int32_t m[4] = {1, 2, 3, 4};
  int32_t nine = 9;
  int64_t md[] = {2, 2}, mo[] = {3, 4}, mlo[] = {1, 0}, mint[] = {0, 1};
  k_pad(out, mo, m, md, 2, mlo, mint, &nine, 4);
  expect_i32(out, (int32_t[]){9, 9, 9, 9, 1, 9, 2, 9, 3, 9, 4, 9}, 12);
}

Test(movement, seed_iota) {
  int64_t out[32];
  int64_t d[] = {4, 8};
  k_iota(ET_S64, out, d, 2, 0);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) cr_assert_eq(out[i * 8 + j], i);
  k_iota(ET_S64, out, d, 2, 1);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) cr_assert_eq(out[i * 8 + j], j);
}

/* Many chunks, straight into the element type: bf16 counts exactly to 256,
 * then rounds to nearest even (257 -> 256, 259 -> 260). */
Test(movement, iota_in_chunks_and_types) {
  int64_t d[] = {3, 70001, 5};
  int64_t n = d[0] * d[1] * d[2];
  int32_t *s = malloc(sizeof *s * (size_t)n);
  uint16_t *b = malloc(sizeof *b * (size_t)n);
  cr_assert(s && b);
  k_iota(ET_S32, s, d, 3, 1);
  k_iota(ET_BF16, b, d, 3, 1);
  for (int64_t i = 0; i < d[0]; i++)
    for (int64_t j = 0; j < d[1]; j++)
      for (int64_t k = 0; k < d[2]; k++) {
        int64_t at = (i * d[1] + j) * d[2] + k;
        cr_assert_eq(s[at], j);
        if (j == 257) cr_assert_eq(b[at], 0x4380); /* 256 */
        if (j == 259) cr_assert_eq(b[at], 0x4382); /* 260 */
        if (j <= 256) {
          float f = (float)j;
          uint32_t u;
          memcpy(&u, &f, 4);
          cr_assert_eq(b[at], u >> 16); /* exact */
        }
      }
  free(s);
  free(b);
}

Test(movement, fill_every_size) {
  unsigned char out[16 * 7];
  /* One 16-byte pattern whose first es bytes are the value of size es (filling
   * it per size made GCC 12 -O3 report a false -Wstringop-overflow). */
  unsigned char val[16];
  for (size_t i = 0; i < sizeof val; i++) val[i] = (unsigned char)(i * 7 + 1);
  for (size_t es = 1; es <= sizeof val; es++) {
    k_fill(out, 7, val, es);
    for (size_t k = 0; k < 7; k++) cr_assert_eq(memcmp(out + k * es, val, es), 0, "es %zu", es);
  }
}

/* Naive reference: dst[i . ds] = src[i . ss]. */
static void naive(unsigned char *dst, const int64_t *ds, const unsigned char *src,
                  const int64_t *ss, const int64_t *dims, int rank, size_t es) {
  int64_t idx[8] = {0}, total = 1;
  for (int i = 0; i < rank; i++) total *= dims[i];
  for (int64_t n = 0; n < total; n++) {
    int64_t a = 0, b = 0;
    for (int i = 0; i < rank; i++) {
      a += idx[i] * ds[i];
      b += idx[i] * ss[i];
    }
    memcpy(dst + a * (int64_t)es, src + b * (int64_t)es, es);
    for (int i = rank - 1; i >= 0; i--) {
      if (++idx[i] < dims[i]) break;
      idx[i] = 0;
    }
  }
}

Test(movement, random_transposes_match_naive) {
  srand(7);
  static const size_t sizes[] = {1, 2, 4, 8, 16, 3, 6};
  for (int iter = 0; iter < 300; iter++) {
    int rank = 1 + rand() % 5;
    int64_t dims[8], perm[8];
    int64_t total = 1;
    for (int i = 0; i < rank; i++) {
      dims[i] = 1 + rand() % (rank <= 2 ? 70 : 9);
      total *= dims[i];
      perm[i] = i;
    }
    for (int i = rank - 1; i > 0; i--) {
      int j = rand() % (i + 1);
      int64_t t = perm[i];
      perm[i] = perm[j];
      perm[j] = t;
    }
    size_t es = sizes[rand() % 7];
    unsigned char *src = malloc((size_t)total * es), *a = malloc((size_t)total * es),
                  *b = malloc((size_t)total * es);
    for (int64_t i = 0; i < total * (int64_t)es; i++) src[i] = (unsigned char)rand();
    k_transpose(a, src, dims, perm, rank, es);
    int64_t sstr[8], od[8], dstr[8], ss[8];
    k_row_major_strides(dims, rank, sstr);
    for (int i = 0; i < rank; i++) {
      od[i] = dims[perm[i]];
      ss[i] = sstr[perm[i]];
    }
    k_row_major_strides(od, rank, dstr);
    naive(b, dstr, src, ss, od, rank, es);
    cr_assert_eq(memcmp(a, b, (size_t)total * es), 0, "iter %d rank %d es %zu", iter, rank, es);
    free(src);
    free(a);
    free(b);
  }
}

Test(movement, random_pads_match_naive) {
  srand(11);
  for (int iter = 0; iter < 300; iter++) {
    int rank = 1 + rand() % 3;
    int64_t sd[3], od[3], lo[3], hi[3], in[3];
    int64_t stot = 1, otot = 1;
    bool empty = false;
    for (int i = 0; i < rank; i++) {
      sd[i] = rand() % 6;
      lo[i] = rand() % 7 - 3;
      hi[i] = rand() % 7 - 3;
      in[i] = rand() % 3;
      od[i] = lo[i] + hi[i] + sd[i] + (sd[i] ? (sd[i] - 1) * in[i] : 0);
      if (od[i] < 0) empty = true;
      stot *= sd[i];
      otot *= od[i] > 0 ? od[i] : 0;
    }
    if (empty) continue;
    int32_t *src = malloc(sizeof(int32_t) * (size_t)(stot + 1));
    int32_t *a = malloc(sizeof(int32_t) * (size_t)(otot + 1));
    int32_t *b = malloc(sizeof(int32_t) * (size_t)(otot + 1));
    for (int64_t i = 0; i < stot; i++) src[i] = (int32_t)(i + 1);
    int32_t pv = -1;
    k_pad(a, od, src, sd, rank, lo, in, &pv, 4);
    for (int64_t i = 0; i < otot; i++) b[i] = -1;
    /* naive: for each source index, its output position */
    int64_t idx[3] = {0};
    for (int64_t n = 0; n < stot; n++) {
      int64_t pos = 0;
      bool inside = true;
      for (int i = 0; i < rank; i++) {
        int64_t p = lo[i] + idx[i] * (in[i] + 1);
        if (p < 0 || p >= od[i]) inside = false;
        pos = pos * od[i] + p;
      }
      if (inside) b[pos] = src[n];
      for (int i = rank - 1; i >= 0; i--) {
        if (++idx[i] < sd[i]) break;
        idx[i] = 0;
      }
    }
    cr_assert_eq(memcmp(a, b, sizeof(int32_t) * (size_t)otot), 0, "iter %d", iter);
    free(src);
    free(a);
    free(b);
  }
}
