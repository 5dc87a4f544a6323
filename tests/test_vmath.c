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

Test(vmath, expf_matches_libm_on_sampled_bit_patterns) {
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
    k_vexpf(a, x, m);
    for (int i = 0; i < m; i++)
      if (bits(a[i]) != bits(expf(x[i])) && bad++ < 5)
        cr_log_error("x=%a: %a vs libm %a", (double)x[i], (double)a[i], (double)expf(x[i]));
  }
  cr_assert_eq(bad, 0);
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
