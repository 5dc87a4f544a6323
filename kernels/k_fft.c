/* fft: per-axis 1-D complex transforms on a complex double working array. */
#include "kernels/k_fft.h"

#include <math.h>

#include "kernels/k_common.h"

/* A 1-D transform plan for length n (forward sign; inverse conjugates). */
typedef struct Plan {
  int64_t n, m;    /* m: power-of-two size used (n itself or Bluestein's) */
  kc128 *tw;       /* radix-2 twiddles for size m: tw[k] = e^{-2 pi i k / m}, k < m/2 */
  int64_t *rev;    /* bit reversal permutation of m */
  kc128 *chirp;    /* Bluestein: w[k] = e^{-pi i k^2 / n}, k < n */
  kc128 *bfilt;    /* Bluestein: FFT of the conjugate chirp filter, size m */
  kc128 *work;     /* size m */
} Plan;

static void plan_free(Plan *p) {
  k_free(p->tw); k_free(p->rev); k_free(p->chirp); k_free(p->bfilt); k_free(p->work);
  memset(p, 0, sizeof *p);
}

static void fft_pow2(const Plan *p, kc128 *x, bool inverse) {
  int64_t m = p->m;
  for (int64_t i = 0; i < m; i++) {
    int64_t j = p->rev[i];
    if (j > i) { kc128 t = x[i]; x[i] = x[j]; x[j] = t; }
  }
  for (int64_t len = 2; len <= m; len <<= 1) {
    int64_t half = len >> 1, step = m / len;
    for (int64_t s = 0; s < m; s += len)
      for (int64_t k = 0; k < half; k++) {
        kc128 w = p->tw[k * step];
        if (inverse) w = conj(w);
        kc128 a = x[s + k], b = x[s + k + half] * w;
        x[s + k] = a + b;
        x[s + k + half] = a - b;
      }
  }
}

/* e^{-2 pi i k / m}, exact at multiples of a quarter turn (so, e.g., the
 * real part of bin 1 of a length-4 transform is exactly 0, as in FFT
 * libraries with exact twiddles). */
static kc128 turn(int64_t k, int64_t m) {
  k %= m;
  if (k < 0) k += m;
  if ((4 * k) % m == 0) {
    switch ((4 * k) / m) {
    case 0: return 1;
    case 1: return -I;
    case 2: return -1;
    default: return I;
    }
  }
  double ang = -2.0 * M_PI * (double)k / (double)m;
  return cos(ang) + sin(ang) * I;
}

static bool plan_init(Plan *p, int64_t n, Error *err) {
  memset(p, 0, sizeof *p);
  p->n = n;
  int64_t m = 1;
  bool pow2 = (n & (n - 1)) == 0;
  if (pow2) m = n;
  else while (m < 2 * n - 1) m <<= 1;
  p->m = m;
  if (!(p->tw = k_malloc((m / 2 + 1) * 16, err)) || !(p->rev = k_malloc(m * 8, err)) || !(p->work = k_malloc(m * 16, err))) {
    plan_free(p);
    return false;
  }
  for (int64_t k = 0; k < m / 2; k++) p->tw[k] = turn(k, m);
  int bits = 0;
  while ((1ll << bits) < m) bits++;
  for (int64_t i = 0; i < m; i++) {
    int64_t r = 0;
    for (int b = 0; b < bits; b++) if (i & (1ll << b)) r |= 1ll << (bits - 1 - b);
    p->rev[i] = r;
  }
  if (!pow2) {
    if (!(p->chirp = k_malloc(n * 16, err)) || !(p->bfilt = k_malloc(m * 16, err))) { plan_free(p); return false; }
    int64_t q = 0; /* k^2 mod 2n, updated incrementally: exact, small angles */
    for (int64_t k = 0; k < n; k++) {
      if (k > 0) { q += 2 * k - 1; q %= 2 * n; }
      p->chirp[k] = turn(q, 2 * n); /* e^{-pi i q / n} */
    }
    for (int64_t i = 0; i < m; i++) p->bfilt[i] = 0;
    p->bfilt[0] = conj(p->chirp[0]);
    for (int64_t k = 1; k < n; k++) p->bfilt[k] = p->bfilt[m - k] = conj(p->chirp[k]);
    fft_pow2(p, p->bfilt, false);
  }
  return true;
}

/* In-place DFT of x[0..n) (forward or inverse, unnormalised). */
static void dft(Plan *p, kc128 *x, bool inverse) {
  int64_t n = p->n;
  if (n <= 1) return;
  if (!p->chirp) { fft_pow2(p, x, inverse); return; }
  /* Bluestein; the inverse is conj(DFT(conj(x))). */
  kc128 *w = p->work;
  int64_t m = p->m;
  for (int64_t k = 0; k < n; k++) w[k] = (inverse ? conj(x[k]) : x[k]) * p->chirp[k];
  for (int64_t k = n; k < m; k++) w[k] = 0;
  fft_pow2(p, w, false);
  for (int64_t k = 0; k < m; k++) w[k] *= p->bfilt[k];
  fft_pow2(p, w, true);
  for (int64_t k = 0; k < n; k++) {
    kc128 v = w[k] / (double)m * p->chirp[k];
    x[k] = inverse ? conj(v) : v;
  }
}

/* Transforms every line along axis `ax` of a [dims] complex array. */
static bool transform_axis(kc128 *data, int rank, const int64_t *dims, int ax, bool inverse, Error *err) {
  int64_t n = dims[ax], outer = 1, inner = 1;
  if (n <= 1) return true; /* length-1 transforms (and 1/N) are the identity */
  for (int i = 0; i < ax; i++) outer *= dims[i];
  for (int i = ax + 1; i < rank; i++) inner *= dims[i];
  if (n == 0 || outer * inner == 0) return true;
  Plan p;
  if (!plan_init(&p, n, err)) return false;
  kc128 *line = k_malloc(n * 16, err);
  if (!line) { plan_free(&p); return false; }
  for (int64_t o = 0; o < outer; o++)
    for (int64_t in = 0; in < inner; in++) {
      kc128 *base = data + o * n * inner + in;
      for (int64_t k = 0; k < n; k++) line[k] = base[k * inner];
      dft(&p, line, inverse);
      if (inverse) for (int64_t k = 0; k < n; k++) line[k] /= (double)n;
      for (int64_t k = 0; k < n; k++) base[k * inner] = line[k];
    }
  k_free(line);
  plan_free(&p);
  return true;
}

bool k_fft(const KArray *in, KFftType type, int nlen, const int64_t *L, KArray *out, Error *err) {
  int rank = in->rank;
  if (nlen < 1 || nlen > rank || rank > K_MAX_RANK) return error_set(err, ERR_RUNTIME, -1, "fft: %d fft lengths for rank %d", nlen, rank);
  EType it = in->etype, ot = out->etype;
  bool ok_types = false;
  switch (type) {
  case K_FFT_FFT: case K_FFT_IFFT: ok_types = etype_is_complex(it) && ot == it; break;
  case K_FFT_RFFT: ok_types = (it == ET_F32 && ot == ET_C64) || (it == ET_F64 && ot == ET_C128); break;
  case K_FFT_IRFFT: ok_types = (it == ET_C64 && ot == ET_F32) || (it == ET_C128 && ot == ET_F64); break;
  }
  if (!ok_types) return error_set(err, ERR_RUNTIME, -1, "fft: unsupported types %s -> %s", etype_name(it), etype_name(ot));
  if (out->rank != rank) return error_set(err, ERR_RUNTIME, -1, "fft: result rank differs");
  int first = rank - nlen;
  /* XLA's FFT and IFFT keep the operand's shape whatever fft_length says:
   * an empty one is an empty result, nothing to transform. */
  if (type == K_FFT_FFT || type == K_FFT_IFFT) {
    bool same = true, empty = false;
    for (int i = 0; i < rank; i++) same &= out->dims[i] == in->dims[i], empty |= in->dims[i] == 0;
    if (same && empty) return true;
  }
  /* Expected input / output sizes of the transformed axes. */
  for (int i = 0; i < rank; i++) {
    int64_t want_in = in->dims[i], want_out = in->dims[i];
    if (i >= first) {
      int64_t l = L[i - first];
      if (l < 0) return error_set(err, ERR_RUNTIME, -1, "fft: negative fft_length");
      bool last = i == rank - 1;
      want_in = (type == K_FFT_IRFFT && last) ? (l == 0 ? 0 : l / 2 + 1) : l;
      want_out = (type == K_FFT_RFFT && last) ? (l == 0 ? 0 : l / 2 + 1) : l;
      /* XLA takes an IRFFT of length 0 over an innermost dim of 1 too: the
       * result is empty either way. */
      bool empty_irfft = type == K_FFT_IRFFT && last && l == 0 && in->dims[i] == 1;
      if (in->dims[i] != want_in && !empty_irfft) return error_set(err, ERR_RUNTIME, -1, "fft: input dimension %d is %lld, expected %lld", i, (long long)in->dims[i], (long long)want_in);
    }
    if (out->dims[i] != want_out) return error_set(err, ERR_RUNTIME, -1, "fft: result dimension %d is %lld, expected %lld", i, (long long)out->dims[i], (long long)want_out);
  }
  /* Working array: full (time-domain sized) innermost axis. */
  int64_t wd[K_MAX_RANK], nw, nin, nout;
  for (int i = 0; i < rank; i++) wd[i] = i >= first ? L[i - first] : in->dims[i];
  if (!k_num_elements(rank, wd, &nw, err) || !k_num_elements(rank, in->dims, &nin, err) || !k_num_elements(rank, out->dims, &nout, err)) return false;
  if (nout == 0) return true;
  kc128 *w = k_malloc((nw + 1) * 16, err);
  if (!w) return false;
  bool ok = false;
  int64_t Lin = in->dims[rank - 1], Lw = wd[rank - 1], rows = Lw ? nw / Lw : 0;
  if (type == K_FFT_RFFT) {
    double *tmp = k_malloc((nin + 1) * 8, err);
    if (!tmp) goto done;
    k_cvt(ET_F64, tmp, it, in->data, nin);
    for (int64_t i = 0; i < nw; i++) w[i] = tmp[i];
    k_free(tmp);
    for (int ax = rank - 1; ax >= first; ax--)
      if (!transform_axis(w, rank, wd, ax, false, err)) goto done;
    /* Keep L/2 + 1 bins of the innermost axis. */
    int64_t keep = out->dims[rank - 1];
    for (int64_t r = 0; r < rows; r++)
      for (int64_t k = 0; k < keep; k++) w[r * keep + k] = w[r * Lw + k];
    k_cvt(ot, out->data, ET_C128, w, nout);
  } else if (type == K_FFT_IRFFT) {
    kc128 *tmp = k_malloc((nin + 1) * 16, err);
    if (!tmp) goto done;
    k_cvt(ET_C128, tmp, it, in->data, nin);
    /* Inverse over the outer fft axes on the half spectrum, then c2r. */
    int64_t hd[K_MAX_RANK];
    for (int i = 0; i < rank; i++) hd[i] = i == rank - 1 ? Lin : wd[i];
    for (int ax = first; ax < rank - 1; ax++)
      if (!transform_axis(tmp, rank, hd, ax, true, err)) { k_free(tmp); goto done; }
    for (int64_t r = 0; r < rows; r++) {
      kc128 *src = tmp + r * Lin, *dst = w + r * Lw;
      for (int64_t k = 0; k < Lw; k++) {
        if (k < Lin && k <= Lw / 2) dst[k] = src[k];
        else dst[k] = conj(src[Lw - k]);
      }
      if (Lw > 0) dst[0] = creal(dst[0]);
      if (Lw % 2 == 0 && Lw > 0) dst[Lw / 2] = creal(dst[Lw / 2]);
    }
    k_free(tmp);
    if (!transform_axis(w, rank, wd, rank - 1, true, err)) goto done;
    double *re = (double *)w;
    for (int64_t i = 0; i < nw; i++) re[i] = creal(w[i]);
    k_cvt(ot, out->data, ET_F64, re, nout);
  } else {
    k_cvt(ET_C128, w, it, in->data, nin);
    for (int ax = rank - 1; ax >= first; ax--)
      if (!transform_axis(w, rank, wd, ax, type == K_FFT_IFFT, err)) goto done;
    k_cvt(ot, out->data, ET_C128, w, nout);
  }
  ok = true;
done:
  k_free(w);
  return ok;
}
