/* k_vexpf (kernels/k_vmath.c) is bit-identical with the running libm's expf:
 * a sample of every float bit pattern here (tests/bench/bench_vexpf checks
 * all 2^32), plus special values, every length mod the vector width, and the
 * exp / logistic ops of k_unary that use it. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "kernels/k_internal.h"
#include "kernels/kernels.h"

static uint32_t bits(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}

/* Mismatches of a vector kernel against libm's scalar function on every
 * 997th float bit pattern (the first five logged). */
static int64_t sampled_mismatches(void (*vec)(float *restrict, const float *restrict, int64_t),
                                  float (*libm)(float)) {
  enum { B = 4096 };
  static float x[B], a[B];
  uint64_t u = 0;
  int64_t bad = 0;
  while (u <= UINT32_MAX) {
    int m = 0;
    for (; m < B && u <= UINT32_MAX; m++, u += 997) {
      uint32_t w = (uint32_t)u;
      memcpy(&x[m], &w, 4);
    }
    vec(a, x, m);
    for (int i = 0; i < m; i++)
      if (bits(a[i]) != bits(libm(x[i])) && bad++ < 5)
        cr_log_error("x=%a: %a vs libm %a", (double)x[i], (double)a[i], (double)libm(x[i]));
  }
  return bad;
}

Test(vmath, expf_matches_libm_on_sampled_bit_patterns) {
  cr_assert_eq(sampled_mismatches(k_vexpf, expf), 0);
}

Test(vmath, expf_special_values) {
  uint32_t nan_payload = 0x7fa00001u; /* signalling NaN: libm returns it quietened */
  float sn;
  memcpy(&sn, &nan_payload, 4);
  float x[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 0x1p-126f, 1.0f, -1.0f, 88.0f, 0x1.62e42ep6f,
               0x1.62e430p6f, -0x1.9fe368p6f, -0x1.9fe36ap6f, -103.0f, -87.5f, 100.0f, -200.0f,
               INFINITY, -INFINITY, NAN, -NAN, sn, 3.4e38f, -3.4e38f};
  int n = (int)(sizeof x / sizeof x[0]);
  float a[32];
  k_vexpf(a, x, n);
  for (int i = 0; i < n; i++)
    cr_expect_eq(bits(a[i]), bits(expf(x[i])), "x=%a: %a vs libm %a", (double)x[i], (double)a[i],
                 (double)expf(x[i]));
  cr_expect_eq(bits(a[0]), bits(1.0f));
  cr_expect_eq(bits(a[16]), bits(INFINITY));
  cr_expect_eq(bits(a[17]), 0u);
  cr_expect(isnan(a[18]) && isnan(a[20]));
}

Test(vmath, unary_exp_and_logistic_every_length) {
  float x[77], o[77];
  Error err;
  for (int n = 0; n <= 77; n++) {
    for (int i = 0; i < n; i++) x[i] = (float)(i * 37 % 101) * 0.37f - 18.0f;
    cr_assert(k_unary(KU_EXP, ET_F32, o, x, n, &err));
    for (int i = 0; i < n; i++) cr_assert_eq(bits(o[i]), bits(expf(x[i])));
    cr_assert(k_unary(KU_LOGISTIC, ET_F32, o, x, n, &err));
    for (int i = 0; i < n; i++) cr_assert_eq(bits(o[i]), bits(1.0f / (1.0f + expf(-x[i]))));
  }
}

/* k_vtanhf (kernels/k_vtanh.c): libm's tanhf bit for bit, on a sample of
 * every float bit pattern (bench_vexpf STEP tanh checks all 2^32). */
Test(vmath, tanhf_matches_libm_on_sampled_bit_patterns) {
  cr_assert_eq(sampled_mismatches(k_vtanhf, tanhf), 0);
}

/* Every vector build the CPU has computes the same bits as the SSE one
 * (which, where libm is fdlibm's as on Debian 12, is libm's), on the
 * ranges where the algorithm switches: 2^-55, 2^-25 / 2, ln2 / 4, 1,
 * 1.5 ln2 / 2, 22, and the specials. */
Test(vmath, tanhf_builds_agree_at_every_switch) {
  float x[] = {0.0f, -0.0f, 0x1p-149f, 0x1p-56f, 0x1p-55f, 0x1.fffffep-56f, 0x1p-27f, 0x1p-26f,
               0x1.62e42ep-3f, 0x1.62e430p-3f, 0.25f, 0.5f, 0x1.0a2b22p-1f, 0x1.0a2b24p-1f,
               0x1.fffffep-1f, 1.0f, 1.5f, 2.0f, 5.5f, 9.0f, 11.0f, 21.999998f, 22.0f, 100.0f,
               3.4e38f, INFINITY, NAN};
  enum { N = (int)(sizeof x / sizeof x[0]) };
  float all[2 * N], ref[2 * N], got[2 * N];
  for (int i = 0; i < N; i++) all[2 * i] = x[i], all[2 * i + 1] = -x[i];
  k_vtanhf_build(0, ref, all, 2 * N);
  __builtin_cpu_init();
  bool has[3] = {true, __builtin_cpu_supports("avx2"),
                 __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
                     __builtin_cpu_supports("avx512vl")};
  for (int b = 1; b < 3; b++) {
    if (!has[b]) continue;
    k_vtanhf_build(b, got, all, 2 * N);
    for (int i = 0; i < 2 * N; i++)
      cr_expect_eq(bits(got[i]), bits(ref[i]), "build %d, x=%a: %a vs %a", b, (double)all[i],
                   (double)got[i], (double)ref[i]);
  }
  /* fdlibm's special results, by hand */
  cr_expect_eq(bits(ref[0]), bits(0.0f));
  cr_expect_eq(bits(ref[1]), bits(-0.0f));
  cr_expect_eq(ref[2 * 22], 1.0f);     /* tanh(22) rounds to 1 */
  cr_expect_eq(ref[2 * 25 + 1], -1.0f); /* -Inf */
  cr_expect(isnan(ref[2 * 26]));
  cr_expect_eq(bits(ref[2 * 3]), bits(0x1p-56f)); /* x (1 + x) = x below 2^-55 */
}

Test(vmath, unary_tanh_every_length) {
  float x[77], o[77];
  Error err;
  for (int n = 0; n <= 77; n++) {
    for (int i = 0; i < n; i++) x[i] = (float)(i * 37 % 101) * 0.23f - 11.0f;
    cr_assert(k_unary(KU_TANH, ET_F32, o, x, n, &err));
    for (int i = 0; i < n; i++) cr_assert_eq(bits(o[i]), bits(tanhf(x[i])), "n=%d i=%d", n, i);
  }
}
