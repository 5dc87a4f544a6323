/* fft (operation semantics "Fft"): FFT, IFFT, RFFT, IRFFT over the
 * innermost fft_length.size() dimensions (1 to 3; more are accepted), any
 * lengths (radix-2 for powers of two, Bluestein otherwise).  Arithmetic is in
 * complex double, rounded once to the result type.
 *
 *   FFT:   c64 -> c64 / c128 -> c128, X[k] = sum x[n] e^{-2 pi i k n / N}
 *   IFFT:  same types, e^{+...} and divided by N (per transformed axis)
 *   RFFT:  f32 -> c64 / f64 -> c128, innermost axis keeps L/2 + 1 outputs
 *   IRFFT: c64 -> f32 / c128 -> f64, innermost axis reads L/2 + 1 inputs and
 *          writes L reals (Hermitian extension; the imaginary parts of the
 *          DC and Nyquist bins are ignored). */
#ifndef HLO_KERNELS_K_FFT_H
#define HLO_KERNELS_K_FFT_H

#include "kernels/k_types.h"

typedef enum { K_FFT_FFT = 0, K_FFT_IFFT, K_FFT_RFFT, K_FFT_IRFFT } KFftType;

bool k_fft(const KArray *in, KFftType type, int nlen, const int64_t *fft_length, KArray *out,
           Error *err);

#endif
