#include <criterion/criterion.h>

#include "kernels/k_rng.h"
#include "ktest.h"

/* Random123 kat_vectors (threefry2x32 20 rounds, philox4x32 10 rounds). */
Test(k_rng, threefry_known_answers) {
  struct { uint32_t ctr[2], key[2], out[2]; } kat[] = {
    {{0, 0}, {0, 0}, {0x6b200159, 0x99ba4efe}},
    {{0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x1cb996fc, 0xbb002be7}},
    {{0x243f6a88, 0x85a308d3}, {0x13198a2e, 0x03707344}, {0xc4923a9c, 0x483df7a0}},
  };
  for (int i = 0; i < 3; i++) {
    uint32_t o[2];
    k_threefry2x32(kat[i].key, kat[i].ctr, o);
    cr_expect(o[0] == kat[i].out[0] && o[1] == kat[i].out[1], "case %d: %08x %08x", i, o[0], o[1]);
  }
}

Test(k_rng, philox_known_answers) {
  struct { uint32_t ctr[4], key[2], out[4]; } kat[] = {
    {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
    {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff}, {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
    {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0}, {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (int i = 0; i < 3; i++) {
    uint32_t o[4];
    k_philox4x32(kat[i].key, kat[i].ctr, o);
    for (int j = 0; j < 4; j++) cr_expect_eq(o[j], kat[i].out[j], "case %d word %d", i, j);
  }
}

/* XLA CPU, state {0, 0}, three_fry, u32[3,2] gives state {0, 3} and rows
 * (threefry(ctr=i) words 0, 1): split on the even dim 1, three blocks. */
Test(k_rng, three_fry_u32_3x2_split_layout) {
  uint64_t st[2] = {0, 0}, ns[2];
  uint32_t o[6];
  int64_t d[] = {3, 2};
  KArray O = ka(ET_U32, 2, d, o);
  Error err;
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, st, 2, ns, &O, &err), "%s", err.msg);
  cr_expect(ns[0] == 0 && ns[1] == 3);
  cr_expect(o[0] == 0x6b200159u && o[1] == 0x99ba4efeu);
  /* The same values as a reference XLA CPU run printed (to 5 digits). */
  double want[] = {1.7973e9, 2.5791e9, 1.3515e9, 3.2358e9, 1.6886e9, 4.2293e9};
  for (int i = 0; i < 6; i++) cr_expect(fabs((double)o[i] - want[i]) < 1e5, "elem %d = %u", i, o[i]);
  for (int i = 0; i < 3; i++) {
    uint32_t key[2] = {0, 0}, ctr[2] = {(uint32_t)i, 0}, w[2];
    k_threefry2x32(key, ctr, w);
    cr_expect(o[2 * i] == w[0] && o[2 * i + 1] == w[1]);
  }
}

Test(k_rng, three_fry_odd_shapes_scalar_and_u64) {
  uint64_t st[2] = {0x1234567890abcdefull, 41}, ns[2];
  uint32_t key[2] = {0x90abcdefu, 0x12345678u};
  Error err;
  /* [3,5]: no even dim, split the largest (dim 1 -> 3 halves), slice to 5. */
  uint32_t o[15];
  int64_t d[] = {3, 5};
  KArray O = ka(ET_U32, 2, d, o);
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, st, 2, ns, &O, &err));
  cr_expect_eq(ns[1], 41u + 9u);
  for (int r = 0; r < 3; r++)
    for (int c = 0; c < 5; c++) {
      uint64_t in = 41 + (uint64_t)(r * 3 + c / 2);
      uint32_t ctr[2] = {(uint32_t)in, (uint32_t)(in >> 32)}, w[2];
      k_threefry2x32(key, ctr, w);
      cr_expect_eq(o[r * 5 + c], w[c % 2], "r%d c%d", r, c);
    }
  /* Scalar: word 0 of block 0, state + 1. */
  uint32_t s;
  KArray S = ka(ET_U32, 0, NULL, &s);
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, st, 2, ns, &S, &err));
  uint32_t c0[2] = {41, 0}, w0[2];
  k_threefry2x32(key, c0, w0);
  cr_expect(s == w0[0] && ns[1] == 42);
  /* u64: one block per element, low word first. */
  uint64_t q[3];
  KArray Q = ka(ET_U64, 1, (int64_t[]){3}, q);
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, st, 2, ns, &Q, &err));
  for (int i = 0; i < 3; i++) {
    uint32_t c[2] = {41u + (uint32_t)i, 0}, w[2];
    k_threefry2x32(key, c, w);
    cr_expect_eq(q[i], (uint64_t)w[0] | ((uint64_t)w[1] << 32));
  }
  cr_expect_eq(ns[1], 44u);
  /* u16: low halves of the u32 draws. */
  uint16_t h[4];
  uint32_t h32[4];
  KArray H = ka(ET_U16, 1, (int64_t[]){4}, h), H32 = ka(ET_U32, 1, (int64_t[]){4}, h32);
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, st, 2, ns, &H, &err));
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, st, 2, ns, &H32, &err));
  for (int i = 0; i < 4; i++) cr_expect_eq(h[i], (uint16_t)h32[i]);
}

Test(k_rng, philox_layout_and_state) {
  Error err;
  /* u64[3] state: key, counter lo, counter hi (with carry). */
  uint64_t st[3] = {0x0123456789abcdefull, UINT64_MAX, 7}, ns[3];
  uint32_t o[6];
  KArray O = ka(ET_U32, 1, (int64_t[]){6}, o);
  cr_assert(k_rng_bit_generator(K_RNG_PHILOX, st, 3, ns, &O, &err), "%s", err.msg);
  uint32_t key[2] = {0x89abcdefu, 0x01234567u};
  uint32_t c0[4] = {0xffffffffu, 0xffffffffu, 7, 0}, c1[4] = {0, 0, 8, 0}, w0[4], w1[4];
  k_philox4x32(key, c0, w0);
  k_philox4x32(key, c1, w1);
  for (int j = 0; j < 4; j++) cr_expect_eq(o[j], w0[j]);
  cr_expect(o[4] == w1[0] && o[5] == w1[1]);
  cr_expect(ns[0] == st[0] && ns[1] == 1 && ns[2] == 8);
  /* u64[2] state: counter is (lo = state[1], hi = state[0]); new state [key, lo + blocks]. */
  uint64_t s2[2] = {5, 10}, n2[2], q[3];
  KArray Q = ka(ET_U64, 1, (int64_t[]){3}, q);
  cr_assert(k_rng_bit_generator(K_RNG_PHILOX, s2, 2, n2, &Q, &err));
  uint32_t k5[2] = {5, 0}, cc[4] = {10, 0, 5, 0}, w[4];
  k_philox4x32(k5, cc, w);
  cr_expect_eq(q[0], (uint64_t)w[0] | ((uint64_t)w[1] << 32));
  cr_expect_eq(q[1], (uint64_t)w[2] | ((uint64_t)w[3] << 32));
  cr_expect(n2[0] == 5 && n2[1] == 12);
  /* Default algorithm is philox. */
  uint64_t q2[3];
  KArray Q2 = ka(ET_U64, 1, (int64_t[]){3}, q2);
  cr_assert(k_rng_bit_generator(K_RNG_DEFAULT, s2, 2, n2, &Q2, &err));
  cr_expect(memcmp(q, q2, sizeof q) == 0);
}

/* States longer than XLA reads: the draws depend on the key and counter
 * words only, and the words after them come back unchanged. */
Test(k_rng, wide_states_keep_extra_words) {
  Error err;
  uint64_t tf4[4] = {9, 10, 11, 12}, tf2[2] = {9, 10}, n4[4], n2[2];
  uint32_t a[5], b[5];
  KArray A = ka(ET_U32, 1, (int64_t[]){5}, a), B = ka(ET_U32, 1, (int64_t[]){5}, b);
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, tf4, 4, n4, &A, &err), "%s", err.msg);
  cr_assert(k_rng_bit_generator(K_RNG_THREE_FRY, tf2, 2, n2, &B, &err), "%s", err.msg);
  cr_expect(memcmp(a, b, sizeof a) == 0);
  cr_expect(n4[0] == 9 && n4[1] == 13 && n4[2] == 11 && n4[3] == 12 && n2[1] == 13);
  uint64_t ph6[6] = {0, 1, 8, 9, 4, 1}, ph3[3] = {0, 1, 8}, n6[6], n3[3];
  cr_assert(k_rng_bit_generator(K_RNG_PHILOX, ph6, 6, n6, &A, &err), "%s", err.msg);
  cr_assert(k_rng_bit_generator(K_RNG_PHILOX, ph3, 3, n3, &B, &err), "%s", err.msg);
  cr_expect(memcmp(a, b, sizeof a) == 0);
  cr_expect(n6[0] == 0 && n6[1] == 3 && n6[2] == 8 && n6[3] == 9 && n6[4] == 4 && n6[5] == 1);
  /* No counter word: an error for both algorithms. */
  cr_expect_not(k_rng_bit_generator(K_RNG_THREE_FRY, tf4, 1, n4, &A, &err));
  cr_expect_not(k_rng_bit_generator(K_RNG_PHILOX, ph6, 1, n6, &A, &err));
}

Test(k_rng, errors_and_narrow_types) {
  uint64_t st[2] = {1, 2}, ns[3];
  Error err;
  uint8_t p[4];
  KArray P = ka(ET_PRED, 1, (int64_t[]){4}, p), C = ka(ET_C64, 1, (int64_t[]){1}, p);
  cr_expect_not(k_rng_bit_generator(K_RNG_PHILOX, st, 2, ns, &P, &err));
  cr_expect_not(k_rng_bit_generator(K_RNG_PHILOX, st, 2, ns, &C, &err));
  cr_expect_not(k_rng_bit_generator(K_RNG_THREE_FRY, st, 1, ns, &P, &err));
  int8_t s4[8];
  KArray S4 = ka(ET_S4, 1, (int64_t[]){8}, s4);
  cr_assert(k_rng_bit_generator(K_RNG_PHILOX, st, 2, ns, &S4, &err));
  for (int i = 0; i < 8; i++) cr_expect(s4[i] >= -8 && s4[i] <= 7);
}

Test(k_rng, uniform_and_normal_statistics) {
  uint64_t st[2] = {42, 0};
  int64_t n = 20000;
  float *u = malloc((size_t)n * 4), a = -2, b = 3;
  KArray U = ka(ET_F32, 1, &n, u);
  Error err;
  cr_assert(k_rng_uniform(&a, &b, st, &U, &err), "%s", err.msg);
  double mean = 0;
  for (int64_t i = 0; i < n; i++) { cr_assert(u[i] >= a && u[i] < b); mean += u[i]; }
  cr_expect(fabs(mean / (double)n - 0.5) < 0.05);
  cr_expect(st[1] > 0);
  int32_t *iv = malloc((size_t)n * 4), lo = -5, hi = 5;
  KArray IV = ka(ET_S32, 1, &n, iv);
  cr_assert(k_rng_uniform(&lo, &hi, st, &IV, &err));
  for (int64_t i = 0; i < n; i++) cr_assert(iv[i] >= lo && iv[i] < hi);
  double *g = malloc((size_t)n * 8), mu = 1, sg = 2, m = 0, v = 0;
  KArray G = ka(ET_F64, 1, &n, g);
  cr_assert(k_rng_normal(&mu, &sg, st, &G, &err));
  for (int64_t i = 0; i < n; i++) m += g[i];
  m /= (double)n;
  for (int64_t i = 0; i < n; i++) v += (g[i] - m) * (g[i] - m);
  v /= (double)n;
  cr_expect(fabs(m - 1) < 0.1 && fabs(v - 4) < 0.3, "mean %g var %g", m, v);
  free(u); free(iv); free(g);
}
