/* The vector f32 math kernels are bit-identical with the running libm; first
 * k_vexpf (kernels/k_vmath.c) against expf:
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

/* ---- log, log1p, expm1, sin, cos, erf, cbrt (k_vlog.c, k_vlog1p.c,
 * k_vexpm1.c, k_vsincos.c, k_verf.c, k_vcbrt.c): libm's bits on a sample of every float bit pattern
 * (bench_vexpf FUNC checks all 2^32), specials, every build, every length
 * through k_unary. */

typedef void (*VecFn)(float *restrict, const float *restrict, int64_t);
typedef void (*BuildFn)(int, float *restrict, const float *restrict, int64_t);

/* Whether the CPU has vector build b: 0 always; 1 AVX2 (with FMA for the
 * double-precision kernels), 2 AVX-512. */
static bool cpu_has_build(int b) {
  __builtin_cpu_init();
  if (b == 1) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (b == 2)
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma");
  return true;
}

static BuildFn sampled_build;
static int sampled_build_no;
static void run_sampled_build(float *restrict o, const float *restrict x, int64_t n) {
  sampled_build(sampled_build_no, o, x, n);
}

Test(vmath, new_kernels_match_libm_on_sampled_bit_patterns) {
  static const struct {
    const char *name;
    void (*fn)(float *restrict, const float *restrict, int64_t);
    float (*libm)(float);
  } cases[] = {{"log", k_vlogf, logf},   {"log1p", k_vlog1pf, log1pf}, {"expm1", k_vexpm1f, expm1f},
               {"sin", k_vsinf, sinf},   {"cos", k_vcosf, cosf},       {"erf", k_verff, erff},
               {"cbrt", k_vcbrtf, cbrtf}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    cr_expect_eq(sampled_mismatches(cases[i].fn, cases[i].libm), 0, "%s", cases[i].name);
}

/* fdlibm's expm1f, log1pf, erff and glibc's cbrtf use no FMA, so every vector build gives libm's
 * bits; of the double-precision log, sin and cos, the FMA builds do where
 * libm runs its FMA build (on a CPU with FMA and AVX2, as here; the plain
 * ones are checked exhaustively under GLIBC_TUNABLES, see bench_vexpf). */
Test(vmath, every_build_the_cpu_has_matches_libm) {
  struct {
    const char *name;
    BuildFn build;
    float (*libm)(float);
    int first;
  } fns[] = {{"expm1", k_vexpm1f_build, expm1f, 0}, {"log1p", k_vlog1pf_build, log1pf, 0},
             {"erf", k_verff_build, erff, 0},       {"cbrt", k_vcbrtf_build, cbrtf, 0},
             {"log", k_vlogf_build, logf, 1},       {"sin", k_vsinf_build, sinf, 1},
             {"cos", k_vcosf_build, cosf, 1}};
  for (size_t f = 0; f < sizeof fns / sizeof fns[0]; f++)
    for (int b = fns[f].first; b <= 2; b++) {
      if (!cpu_has_build(b)) continue;
      sampled_build = fns[f].build;
      sampled_build_no = b;
      cr_expect_eq(sampled_mismatches(run_sampled_build, fns[f].libm), 0, "%s build %d",
                   fns[f].name, b);
    }
}

/* Special values and the boundaries where the algorithms switch, both
 * signs, against libm and (for some) against values known by hand. */
static const float specials[] = {
    0.0f, 0x1p-149f, 0x1.fffffcp-127f, 0x1p-126f, 0x1p-60f, 0x1p-55f, 0x1p-30f, 0x1p-29f,
    0x1p-26f, 0x1p-25f, 0x1.fffffep-26f, 0x1p-13f, 0x1p-12f, 0x1.fffffep-13f, 0.25f,
    0x1.62e42ep-3f, 0x1.62e430p-3f, 0x1.633332p-2f, 0x1.634p-2f, 0x1.6a09e6p-2f, 0x1.ffffep-2f,
    0.5f, 0x1.921fb6p-1f, 0x1.921fb4p-1f, 0x1.0a2b22p-1f, 0x1.0a2b24p-1f, 0.99999994f, 1.0f,
    1.0000001f, 1.41421354f, 1.5707964f, 2.0f, 3.1415927f, 6.2831855f, 10.0f, 18.714974f,
    18.714975f, 27.0f, 88.72168f, 88.7217f, 0x1.62e42ep6f, 100.0f, 119.99999f, 120.0f,
    0x1p23f, 0x1p24f, 0x1p60f, 0x1p100f, 3.4028235e38f, INFINITY, NAN,
};

static void expect_specials(const char *name, VecFn vec, float (*libm)(float)) {
  enum { N = (int)(sizeof specials / sizeof specials[0]) };
  uint32_t snan_bits = 0x7fa00001u; /* signalling NaN: libm returns it quietened */
  float x[2 * N + 2], a[2 * N + 2];
  for (int i = 0; i < N; i++) x[2 * i] = specials[i], x[2 * i + 1] = -specials[i];
  memcpy(&x[2 * N], &snan_bits, 4);
  snan_bits |= 0x80000000u;
  memcpy(&x[2 * N + 1], &snan_bits, 4);
  vec(a, x, 2 * N + 2);
  for (int i = 0; i < 2 * N + 2; i++)
    cr_expect_eq(bits(a[i]), bits(libm(x[i])), "%s(%a): %a vs libm %a", name, (double)x[i],
                 (double)a[i], (double)libm(x[i]));
}

Test(vmath, logf_special_values) {
  expect_specials("log", k_vlogf, logf);
  float x[] = {1.0f, 0.0f, -0.0f, -1.0f, INFINITY, -INFINITY, NAN, 0x1p-149f, 2.0f};
  float a[9];
  k_vlogf(a, x, 9);
  cr_expect_eq(bits(a[0]), 0u);                      /* log 1 = +0 */
  cr_expect_eq(bits(a[1]), bits(-INFINITY));         /* log +-0 = -Inf */
  cr_expect_eq(bits(a[2]), bits(-INFINITY));
  cr_expect(isnan(a[3]) && isnan(a[5]) && isnan(a[6])); /* x < 0, -Inf, NaN */
  cr_expect_eq(bits(a[4]), bits(INFINITY));
  cr_expect_float_eq(a[7], -149.0f * 0.6931472f, 1e-4f); /* 2^-149: a subnormal */
  cr_expect_eq(bits(a[8]), bits(0.6931472f));        /* ln 2, correctly rounded */
}

Test(vmath, log1pf_special_values) {
  expect_specials("log1p", k_vlog1pf, log1pf);
  float x[] = {0.0f, -0.0f, -1.0f, -2.0f, INFINITY, -INFINITY, 0x1p-60f, 1.0f};
  float a[8];
  k_vlog1pf(a, x, 8);
  cr_expect_eq(bits(a[0]), 0u);
  cr_expect_eq(bits(a[1]), bits(-0.0f));
  cr_expect_eq(bits(a[2]), bits(-INFINITY)); /* log1p(-1) = -Inf */
  cr_expect(isnan(a[3]) && isnan(a[5]));       /* below -1 */
  cr_expect_eq(bits(a[4]), bits(INFINITY));
  cr_expect_eq(bits(a[6]), bits(0x1p-60f)); /* tiny x: x */
  cr_expect_eq(bits(a[7]), bits(0.6931472f));
}

Test(vmath, expm1f_special_values) {
  expect_specials("expm1", k_vexpm1f, expm1f);
  float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, 100.0f, -100.0f, 0x1p-30f, -0x1p-30f};
  float a[8];
  k_vexpm1f(a, x, 8);
  cr_expect_eq(bits(a[0]), 0u);
  cr_expect_eq(bits(a[1]), bits(-0.0f));
  cr_expect_eq(bits(a[2]), bits(INFINITY));
  cr_expect_eq(a[3], -1.0f);
  cr_expect_eq(bits(a[4]), bits(INFINITY)); /* overflow */
  cr_expect_eq(a[5], -1.0f);
  cr_expect_eq(bits(a[6]), bits(0x1p-30f)); /* tiny x: x */
  cr_expect_eq(bits(a[7]), bits(-0x1p-30f));
}

Test(vmath, sinf_cosf_special_values) {
  expect_specials("sin", k_vsinf, sinf);
  expect_specials("cos", k_vcosf, cosf);
  float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 0x1p-20f, -0x1p-20f, 1e30f};
  float s[8], c[8];
  k_vsinf(s, x, 8);
  k_vcosf(c, x, 8);
  cr_expect_eq(bits(s[0]), 0u);
  cr_expect_eq(bits(s[1]), bits(-0.0f));
  cr_expect_eq(c[0], 1.0f);
  cr_expect_eq(c[1], 1.0f);
  for (int i = 2; i < 5; i++) cr_expect(isnan(s[i]) && isnan(c[i]), "x=%a", (double)x[i]);
  cr_expect_eq(bits(s[5]), bits(0x1p-20f)); /* tiny: sin x = x, cos x = 1 */
  cr_expect_eq(bits(s[6]), bits(-0x1p-20f));
  cr_expect_eq(c[5], 1.0f);
  cr_expect(fabsf(s[7]) <= 1.0f && fabsf(c[7]) <= 1.0f); /* 1e30: libm's reduction */
}

Test(vmath, erff_special_values) {
  expect_specials("erf", k_verff, erff);
  float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, 6.0f, -6.0f, 0x1p-140f, 0x1p-30f};
  float a[8];
  k_verff(a, x, 8);
  cr_expect_eq(bits(a[0]), 0u);
  cr_expect_eq(bits(a[1]), bits(-0.0f));
  cr_expect_eq(a[2], 1.0f);
  cr_expect_eq(a[3], -1.0f);
  cr_expect_eq(a[4], 1.0f); /* 1 - tiny rounds to 1 */
  cr_expect_eq(a[5], -1.0f);
  cr_expect(a[6] > 0x1p-140f && a[6] < 0x1.3p-140f); /* 2/sqrt(pi) x, a subnormal */
  cr_expect_eq(bits(a[7]), bits(0x1p-30f + 0x1.06eba8p-3f * 0x1p-30f));
}

Test(vmath, cbrtf_special_values) {
  expect_specials("cbrt", k_vcbrtf, cbrtf);
  float x[] = {0.0f, -0.0f, INFINITY, -INFINITY, 8.0f, -27.0f, 0x1p-149f, 0x1p-147f, 1e30f};
  float a[9];
  k_vcbrtf(a, x, 9);
  cr_expect_eq(bits(a[0]), 0u);
  cr_expect_eq(bits(a[1]), bits(-0.0f));
  cr_expect_eq(bits(a[2]), bits(INFINITY));
  cr_expect_eq(bits(a[3]), bits(-INFINITY));
  cr_expect_eq(a[4], 2.0f);
  cr_expect_eq(a[5], -3.0f);
  cr_expect_float_eq(a[6], 0x1.428a3p-50f, 0x1p-70f); /* 2^(-149/3) = 2^-50 2^(1/3) */
  cr_expect_float_eq(a[7], 0x1p-49f, 0x1p-70f);       /* a subnormal power of 8 */
  cr_expect_float_eq(a[8], 1e10f, 1e4f);
}

/* Every length, so every tail and, for sin and cos, big lanes (|x| >= 120,
 * finished by libm) at every position. */
Test(vmath, unary_log_log1p_expm1_sin_cos_erf_cbrt_every_length) {
  struct {
    KUnaryOp op;
    float (*libm)(float);
    float scale, shift;
  } ops[] = {{KU_LOG, logf, 0.71f, -0.5f},     {KU_LOG1P, log1pf, 0.31f, -1.5f},
             {KU_EXPM1, expm1f, 0.37f, -18.0f}, {KU_SIN, sinf, 3.1f, -160.0f},
             {KU_COS, cosf, 3.1f, -160.0f},   {KU_ERF, erff, 0.13f, -6.5f},
             {KU_CBRT, cbrtf, 17.0f, -900.0f}};
  float x[68], o[68];
  Error err;
  for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++)
    for (int n = 0; n <= 67; n++) {
      for (int i = 0; i < n; i++) x[i] = (float)(i * 37 % 101) * ops[k].scale + ops[k].shift;
      if (n > 3) x[n / 2] = NAN;
      cr_assert(k_unary(ops[k].op, ET_F32, o, x, n, &err));
      for (int i = 0; i < n; i++)
        cr_assert_eq(bits(o[i]), bits(ops[k].libm(x[i])), "%s n=%d i=%d x=%a",
                     k_unary_name(ops[k].op), n, i, (double)x[i]);
    }
}

/* The self-check behind the libm fallback notices a kernel that differs. */
Test(vmath, self_check_rejects_a_different_function) {
  cr_expect(k_vec_agrees_with_libm(k_vlogf, logf, 0.25f, 4.0f));
  cr_expect(k_vec_agrees_with_libm(k_vsinf, sinf, -8.0f, 8.0f));
  cr_expect(!k_vec_agrees_with_libm(k_vlogf, log1pf, 0.25f, 4.0f));
  cr_expect(!k_vec_agrees_with_libm(k_vsinf, cosf, -8.0f, 8.0f));
  cr_expect(!k_vec_agrees_with_libm(k_vexpm1f, expf, -2.0f, 2.0f));
}

/* ---- pow (k_vpow.c): libm's bits on every 997th x bit pattern against a
 * cycle of y values (bench_vexpf 1 pow checks every x), every build the CPU
 * has, the special pairs C99 Annex F lists, every length through
 * k_binary. */
static const float pow_ys[] = {2.0f,  0.5f,  -1.0f, 3.0f,   -2.5f, 0x1.555556p-2f, 7.0f, 0.1f,
                               10.0f, -0.75f, 1e-3f, 100.0f, -3.0f, 1.5f,           0x1p-30f,
                               -60.0f, 0x1.fffffep127f, 0x1p-149f, -4.0f, 127.0f};
enum { POW_NY = sizeof pow_ys / sizeof pow_ys[0] };

static int64_t pow_sampled_mismatches(int build) {
  enum { B = 4096 };
  static float x[B], y[B], a[B];
  uint64_t u = 0;
  int64_t bad = 0;
  while (u <= UINT32_MAX) {
    int m = 0;
    for (; m < B && u <= UINT32_MAX; m++, u += 997) {
      uint32_t w = (uint32_t)u;
      memcpy(&x[m], &w, 4);
      y[m] = pow_ys[(u / 997) % POW_NY];
    }
    if (build < 0) k_vpowf(a, x, y, m);
    else k_vpowf_build(build, a, x, y, m);
    for (int i = 0; i < m; i++)
      if (bits(a[i]) != bits(powf(x[i], y[i])) && bad++ < 5)
        cr_log_error("pow(%a, %a): %a vs libm %a", (double)x[i], (double)y[i], (double)a[i],
                     (double)powf(x[i], y[i]));
  }
  return bad;
}

Test(vmath, powf_matches_libm_on_sampled_pairs) {
  cr_assert_eq(pow_sampled_mismatches(-1), 0);
  for (int b = 1; b <= 2; b++)
    if (cpu_has_build(b)) cr_expect_eq(pow_sampled_mismatches(b), 0, "build %d", b);
}

Test(vmath, powf_special_pairs) {
  const float v[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 2.0f, -2.0f, 3.0f, -3.0f, 0x1p-149f,
                     -0x1p-149f, 0x1p-127f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, 0.75f, 1.25f};
  enum { N = sizeof v / sizeof v[0] };
  float x[N * N], y[N * N], a[N * N];
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) x[i * N + j] = v[i], y[i * N + j] = v[j];
  k_vpowf(a, x, y, N * N);
  for (int i = 0; i < N * N; i++)
    cr_expect_eq(bits(a[i]), bits(powf(x[i], y[i])), "pow(%a, %a): %a vs libm %a", (double)x[i],
                 (double)y[i], (double)a[i], (double)powf(x[i], y[i]));
  /* by hand: Annex F's pairs and exact powers */
  float hx[] = {NAN, 1.0f, -1.0f, -2.0f, -2.0f, -8.0f, 0.0f, -0.0f, 2.0f, 0.5f, 4.0f, 10.0f};
  float hy[] = {0.0f, NAN, INFINITY, 3.0f, 0.5f, -1.0f, -1.0f, -3.0f, 128.0f, 150.0f, 0.5f, 2.0f};
  float h[12];
  k_vpowf(h, hx, hy, 12);
  cr_expect_eq(h[0], 1.0f);   /* pow(NaN, 0) = 1 */
  cr_expect_eq(h[1], 1.0f);   /* pow(1, NaN) = 1 */
  cr_expect_eq(h[2], 1.0f);   /* pow(-1, Inf) = 1 */
  cr_expect_eq(h[3], -8.0f);  /* odd integer y keeps the sign */
  cr_expect(isnan(h[4]));     /* x < 0, y not an integer */
  cr_expect_eq(h[5], -0.125f);
  cr_expect_eq(bits(h[6]), bits(INFINITY));  /* pow(+0, -1) */
  cr_expect_eq(bits(h[7]), bits(-INFINITY)); /* pow(-0, -3) */
  cr_expect_eq(bits(h[8]), bits(INFINITY));  /* overflow */
  cr_expect_eq(bits(h[9]), 0u);              /* underflow */
  cr_expect_eq(h[10], 2.0f);
  cr_expect_eq(h[11], 100.0f);
}

Test(vmath, binary_pow_every_length) {
  float x[68], y[68], o[68];
  Error err;
  for (int n = 0; n <= 67; n++) {
    for (int i = 0; i < n; i++) {
      x[i] = (float)(i * 37 % 101) * 0.11f - 3.0f;
      y[i] = (float)(i * 13 % 17) * 0.5f - 4.0f;
    }
    if (n > 3) x[n / 2] = 0.0f, y[n / 3] = 200.0f;
    cr_assert(k_binary(KB_POW, ET_F32, o, x, y, n, &err));
    for (int i = 0; i < n; i++)
      cr_assert_eq(bits(o[i]), bits(powf(x[i], y[i])), "n=%d i=%d pow(%a, %a)", n, i,
                   (double)x[i], (double)y[i]);
  }
}
