#include <criterion/criterion.h>

#include "kernels/k_fft.h"
#include "ktest.h"

/* Naive O(N^2) DFT along one axis of a complex double array (reference). */
static void naive_axis(double *re, double *im, int rank, const int64_t *d, int ax, bool inv) {
  int64_t n = d[ax], outer = 1, inner = 1;
  for (int i = 0; i < ax; i++) outer *= d[i];
  for (int i = ax + 1; i < rank; i++) inner *= d[i];
  double *tr = malloc((size_t)(n + 1) * 8), *ti = malloc((size_t)(n + 1) * 8);
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      int64_t base = o * n * inner + in;
      for (int64_t k = 0; k < n; k++) {
        long double sr = 0, si = 0;
        for (int64_t j = 0; j < n; j++) {
          long double ang = (inv ? 2 : -2) * 3.14159265358979323846264338327950288L * (long double)((k * j) % n) / (long double)n;
          long double c = cosl(ang), s = sinl(ang);
          sr += re[base + j * inner] * c - im[base + j * inner] * s;
          si += re[base + j * inner] * s + im[base + j * inner] * c;
        }
        tr[k] = (double)(inv ? sr / n : sr);
        ti[k] = (double)(inv ? si / n : si);
      }
      for (int64_t k = 0; k < n; k++) { re[base + k * inner] = tr[k]; im[base + k * inner] = ti[k]; }
    }
  free(tr); free(ti);
}

Test(k_fft, hand_derived_small) {
  /* FFT([1, 2, 3, 4]) = [10, -2+2i, -2, -2-2i] */
  float x[8] = {1, 0, 2, 0, 3, 0, 4, 0}, o[8];
  int64_t d[] = {4}, L[] = {4};
  KArray X = ka(ET_C64, 1, d, x), O = ka(ET_C64, 1, d, o);
  Error err;
  cr_assert(k_fft(&X, K_FFT_FFT, 1, L, &O, &err), "%s", err.msg);
  float want[] = {10, 0, -2, 2, -2, 0, -2, -2};
  for (int i = 0; i < 8; i++) cr_expect(fabsf(o[i] - want[i]) < 1e-6f);
  /* IFFT brings it back. */
  float back[8];
  KArray B = ka(ET_C64, 1, d, back);
  cr_assert(k_fft(&O, K_FFT_IFFT, 1, L, &B, &err));
  for (int i = 0; i < 8; i++) cr_expect(fabsf(back[i] - x[i]) < 1e-6f);
  /* RFFT of length 5 real [1,0,0,0,0] -> 3 ones. */
  float r[5] = {1, 0, 0, 0, 0}, ro[6];
  KArray R = ka(ET_F32, 1, (int64_t[]){5}, r), RO = ka(ET_C64, 1, (int64_t[]){3}, ro);
  cr_assert(k_fft(&R, K_FFT_RFFT, 1, (int64_t[]){5}, &RO, &err), "%s", err.msg);
  for (int i = 0; i < 3; i++) cr_expect(fabsf(ro[2 * i] - 1) < 1e-6f && fabsf(ro[2 * i + 1]) < 1e-6f);
}

static double rel_err(const double *got, const double *want, int64_t n) {
  double num = 0, den = 0;
  for (int64_t i = 0; i < n; i++) { num += (got[i] - want[i]) * (got[i] - want[i]); den += want[i] * want[i]; }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

Test(k_fft, random_any_length_1_to_3_dims) {
  Rng rng = {17};
  for (int rep = 0; rep < 60; rep++) {
    int nlen = 1 + rep % 3, batch_rank = (int)rng_int(&rng, 0, 1), rank = batch_rank + nlen;
    int64_t d[4], L[3];
    for (int i = 0; i < batch_rank; i++) d[i] = rng_int(&rng, 1, 3);
    for (int i = 0; i < nlen; i++) { L[i] = rng_int(&rng, 1, nlen == 1 ? 70 : 12); d[batch_rank + i] = L[i]; }
    if (rep == 0) { L[0] = 1009; d[batch_rank] = 1009; } /* prime */
    int64_t n = prod(rank, d);
    bool inv = rep % 2;
    double *re = malloc((size_t)n * 8), *im = malloc((size_t)n * 8), *got = malloc((size_t)n * 16), *want = malloc((size_t)n * 16);
    for (int64_t i = 0; i < n; i++) { re[i] = rng_unit(&rng) - 0.5; im[i] = rng_unit(&rng) - 0.5; }
    double *in = malloc((size_t)n * 16);
    for (int64_t i = 0; i < n; i++) { in[2 * i] = re[i]; in[2 * i + 1] = im[i]; }
    for (int ax = batch_rank; ax < rank; ax++) naive_axis(re, im, rank, d, ax, inv);
    for (int64_t i = 0; i < n; i++) { want[2 * i] = re[i]; want[2 * i + 1] = im[i]; }
    KArray X = ka(ET_C128, rank, d, in), O = ka(ET_C128, rank, d, got);
    Error err;
    cr_assert(k_fft(&X, inv ? K_FFT_IFFT : K_FFT_FFT, nlen, L, &O, &err), "%s", err.msg);
    cr_assert(rel_err(got, want, 2 * n) < 1e-9, "rep %d err %g", rep, rel_err(got, want, 2 * n));
    /* c64: the f32 path stays within ~1e-6 relative. */
    float *in32 = malloc((size_t)n * 8), *got32 = malloc((size_t)n * 8);
    for (int64_t i = 0; i < 2 * n; i++) in32[i] = (float)in[i];
    KArray X32 = ka(ET_C64, rank, d, in32), O32 = ka(ET_C64, rank, d, got32);
    cr_assert(k_fft(&X32, inv ? K_FFT_IFFT : K_FFT_FFT, nlen, L, &O32, &err));
    double *g64 = malloc((size_t)n * 16);
    for (int64_t i = 0; i < 2 * n; i++) g64[i] = got32[i];
    cr_assert(rel_err(g64, want, 2 * n) < 1e-6, "rep %d f32 err %g", rep, rel_err(g64, want, 2 * n));
    free(re); free(im); free(got); free(want); free(in); free(in32); free(got32); free(g64);
  }
}

Test(k_fft, rfft_irfft_roundtrip_and_against_full_fft) {
  Rng rng = {23};
  for (int rep = 0; rep < 40; rep++) {
    int nlen = 1 + rep % 3;
    int64_t L[3], d[3], hd[3];
    for (int i = 0; i < nlen; i++) { L[i] = rng_int(&rng, 1, nlen == 1 ? 40 : 9); d[i] = L[i]; hd[i] = L[i]; }
    hd[nlen - 1] = L[nlen - 1] / 2 + 1;
    int64_t n = prod(nlen, d), nh = prod(nlen, hd);
    double *x = malloc((size_t)n * 8), *spec = malloc((size_t)nh * 16), *back = malloc((size_t)n * 8);
    for (int64_t i = 0; i < n; i++) x[i] = rng_unit(&rng) - 0.5;
    KArray X = ka(ET_F64, nlen, d, x), S = ka(ET_C128, nlen, hd, spec), B = ka(ET_F64, nlen, d, back);
    Error err;
    cr_assert(k_fft(&X, K_FFT_RFFT, nlen, L, &S, &err), "%s", err.msg);
    /* Against the full complex FFT's first L/2+1 bins. */
    double *re = malloc((size_t)n * 8), *im = calloc((size_t)n, 8);
    memcpy(re, x, (size_t)n * 8);
    for (int ax = 0; ax < nlen; ax++) naive_axis(re, im, nlen, d, ax, false);
    int64_t inner = L[nlen - 1], hin = hd[nlen - 1];
    for (int64_t i = 0; i < nh; i++) {
      int64_t row = i / hin, k = i % hin, full = row * inner + k;
      cr_assert(fabs(spec[2 * i] - re[full]) < 1e-9 && fabs(spec[2 * i + 1] - im[full]) < 1e-9, "rep %d", rep);
    }
    cr_assert(k_fft(&S, K_FFT_IRFFT, nlen, L, &B, &err), "%s", err.msg);
    for (int64_t i = 0; i < n; i++) cr_assert(fabs(back[i] - x[i]) < 1e-9, "rep %d roundtrip", rep);
    free(x); free(spec); free(back); free(re); free(im);
  }
}

Test(k_fft, errors) {
  float x[8] = {0}, o[8];
  KArray X = ka(ET_C64, 1, (int64_t[]){4}, x), O = ka(ET_C64, 1, (int64_t[]){4}, o), F = ka(ET_F32, 1, (int64_t[]){4}, o);
  Error err;
  cr_expect_not(k_fft(&X, K_FFT_FFT, 1, (int64_t[]){5}, &O, &err));
  cr_expect_not(k_fft(&X, K_FFT_FFT, 1, (int64_t[]){4}, &F, &err));
  cr_expect_not(k_fft(&X, K_FFT_RFFT, 1, (int64_t[]){4}, &O, &err));
  cr_expect_not(k_fft(&X, K_FFT_FFT, 2, (int64_t[]){4, 4}, &O, &err));
}
