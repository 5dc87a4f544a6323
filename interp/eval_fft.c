/* fft through kernels/k_fft.h: fft_type FFT / IFFT / RFFT / IRFFT over the
 * innermost fft_length dimensions. */
#include "interp/eval_ops.h"

#include <string.h>

#include "interp/eval_views.h"
#include "kernels/k_fft.h"

typedef struct FftArg {
  KFftType type;
  const IntList *len;
} FftArg;

static bool fft_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                       int nouts, Error *err) {
  (void)in;
  (void)nouts;
  const FftArg *a = arg;
  return k_fft(&ins[0], a->type, a->len->n, a->len->v, &outs[0], err);
}

/* Op: fft
 * Operands: operand
 * Attributes: fft_type (FFT, IFFT, RFFT, IRFFT), fft_length
 *
 * The discrete Fourier transform over the innermost len(fft_length) dimensions:
 * complex to complex (FFT, and IFFT scaled by 1/n), real to complex (RFFT, the
 * n/2+1 non-negative frequencies of the last dimension) and back (IRFFT).
 *
 * Rule: XLA operation semantics, Fft.
 * Refuses: operand or result dimensions that do not match fft_length for the type.
 */
bool eval_fft(EvalCtx *ctx, Frame *f, const Instr *in, const Shape *rs, Value **out, Error *err) {
  static const char *const names[] = {"FFT", "IFFT", "RFFT", "IRFFT"};
  static const KFftType types[] = {K_FFT_FFT, K_FFT_IFFT, K_FFT_RFFT, K_FFT_IRFFT};
  const char *t = eval_attr_enum(in, ATTR_FFT_TYPE, "");
  FftArg a = {K_FFT_FFT, eval_attr_ints(in, ATTR_FFT_LENGTH)};
  int k = 0;
  while (k < 4 && strcmp(t, names[k]) != 0) k++;
  if (k == 4)
    return error_set(err, ERR_RUNTIME, in->offset, "unknown fft_type '%s'",
                     t);
  if (!a.len)
    return error_set(err, ERR_RUNTIME, in->offset, "needs fft_length");
  a.type = types[k];
  return eval_kernel_op(ctx, f, in, rs, 1, fft_kernel, &a, out, err);
}
