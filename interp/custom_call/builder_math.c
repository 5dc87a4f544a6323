/* xla_builder.math.<fn> custom calls (interp/custom_call/builder_math.h), elementwise over
 * operands of one shape and element type, the result of that shape and type:
 *
 *   Acos, Acosh, Asin, Asinh, Atan, Cosh (one float/complex operand):
 *     C libm for f32/f64 (narrower floats computed in f32 and rounded once),
 *     <complex.h> for c64/c128;
 *   IgammaGradA(a, x), RandomGammaGrad(a, x), Polygamma(n, x),
 *   RegularizedIncompleteBeta(a, b, x), NextAfter(from, to):
 *     kernels/k_special.h, XLA's algorithms in f32 for f32 and f64 for f64.
 *     Narrower floats follow XLA's upcasting: computed in f32 and rounded
 *     once where XLA converts to f32 (bf16/f16 everywhere, plus the f8/f4
 *     types for IgammaGradA); the types XLA would compute in their own 8-bit
 *     arithmetic (or rejects) are an error here.  NextAfter works on the bit
 *     pattern of any float type. */
#include "interp/custom_call/builder_math.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/cmplx.h"
#include "interp/eval_views.h"
#include "kernels/k_special.h"
#include "layout/etype_convert.h"

/* --- one-operand functions (libm) --- */

typedef struct UnaryFn {
  const char *name;
  float (*f)(float);
  double (*d)(double);
  float complex (*cf)(float complex);
  double complex (*cd)(double complex);
} UnaryFn;

static const UnaryFn unary_fns[] = {
    {"Acos", acosf, acos, cacosf, cacos},     {"Acosh", acoshf, acosh, cacoshf, cacosh},
    {"Asin", asinf, asin, casinf, casin},     {"Asinh", asinhf, asinh, casinhf, casinh},
    {"Atan", atanf, atan, catanf, catan},     {"Cosh", coshf, cosh, ccoshf, ccosh},
};

static void unary_apply(const UnaryFn *m, EType t, const void *src, void *dst, int64_t n) {
  if (t == ET_F32) {
    const float *x = src;
    float *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = m->f(x[i]);
  } else if (t == ET_F64) {
    const double *x = src;
    double *y = dst;
    for (int64_t i = 0; i < n; i++) y[i] = m->d(x[i]);
  } else if (t == ET_C64) {
    const float *x = src;
    float *y = dst;
    for (int64_t i = 0; i < n; i++) {
      float complex z = m->cf(CMPLXF(x[2 * i], x[2 * i + 1]));
      y[2 * i] = crealf(z);
      y[2 * i + 1] = cimagf(z);
    }
  } else if (t == ET_C128) {
    const double *x = src;
    double *y = dst;
    for (int64_t i = 0; i < n; i++) {
      double complex z = m->cd(CMPLX(x[2 * i], x[2 * i + 1]));
      y[2 * i] = creal(z);
      y[2 * i + 1] = cimag(z);
    }
  } else { /* narrower floats: in f32, rounded once */
    int es = etype_storage_bytes(t);
    const char *x = src;
    char *y = dst;
    for (int64_t i = 0; i < n; i++)
      etype_store_f32(t, m->f(etype_load_f32(t, x + i * es)), y + i * es);
  }
}

/* --- special functions (k_special.h) --- */

typedef enum {
  SF_IGAMMA_GRAD_A,
  SF_RANDOM_GAMMA_GRAD,
  SF_POLYGAMMA,
  SF_BETAINC,
  SF_NEXTAFTER
} SpecialKind;

typedef struct SpecialFn {
  const char *name;
  SpecialKind kind;
  int nin;
} SpecialFn;

static const SpecialFn special_fns[] = {
    {"IgammaGradA", SF_IGAMMA_GRAD_A, 2},
    {"RandomGammaGrad", SF_RANDOM_GAMMA_GRAD, 2},
    {"Polygamma", SF_POLYGAMMA, 2},
    {"RegularizedIncompleteBeta", SF_BETAINC, 3},
    {"NextAfter", SF_NEXTAFTER, 2},
};

/* Whether XLA computes fn on narrow float type t in f32 (true) or in t's
 * own arithmetic / not at all (false: not reproduced here). */
static bool upcasts_to_f32(SpecialKind k, EType t) {
  if (t == ET_F16 || t == ET_BF16) return true;
  if (k != SF_IGAMMA_GRAD_A) return false;
  /* Igamma's list of upcast types: the f8 types and f4e2m1fn. */
  switch (t) {
  case ET_F8E5M2: case ET_F8E4M3: case ET_F8E4M3FN: case ET_F8E4M3B11FNUZ:
  case ET_F8E3M4: case ET_F8E5M2FNUZ: case ET_F8E4M3FNUZ: case ET_F4E2M1FN:
    return true;
  default:
    return false;
  }
}

/* Epsilon and -log(max finite) of the operand type t, which XLA's igamma
 * derivatives use even when computing in f32 (k_special.h). */
static KIgammaLimits igamma_limits(EType t) {
  if (t == ET_F32) return k_igamma_limits_f32();
  const EFloatFormat *f = etype_float_format(t);
  KIgammaLimits lim;
  lim.eps = ldexpf(1.0f, -f->mbits);
  /* log of the type's max, computed in f32 and rounded to the type as XLA's
   * Log on a narrow constant is. */
  unsigned char buf[8];
  etype_store_f32(t, logf((float)etype_small_decode(f, f->max_bits)), buf);
  lim.underflow = -etype_load_f32(t, buf);
  return lim;
}

static void special_f32(SpecialKind k, EType t, float *const *a, float *y, int64_t n) {
  switch (k) {
  case SF_IGAMMA_GRAD_A:
  case SF_RANDOM_GAMMA_GRAD: {
    KIgammaGrad which = k == SF_IGAMMA_GRAD_A ? K_IGAMMA_GRAD_A : K_RANDOM_GAMMA_GRAD;
    KIgammaLimits lim = igamma_limits(t);
    for (int64_t i = 0; i < n; i++) y[i] = k_igamma_grad_f32(which, a[0][i], a[1][i], lim);
    break;
  }
  case SF_POLYGAMMA:
    for (int64_t i = 0; i < n; i++) y[i] = k_polygamma_f32(a[0][i], a[1][i]);
    break;
  case SF_NEXTAFTER:
    for (int64_t i = 0; i < n; i++) y[i] = k_nextafter_f32(a[0][i], a[1][i]);
    break;
  case SF_BETAINC: break; /* array-wide: special_kernel */
  }
}

static void special_f64(SpecialKind k, double *const *a, double *y, int64_t n) {
  switch (k) {
  case SF_IGAMMA_GRAD_A:
  case SF_RANDOM_GAMMA_GRAD: {
    KIgammaGrad which = k == SF_IGAMMA_GRAD_A ? K_IGAMMA_GRAD_A : K_RANDOM_GAMMA_GRAD;
    for (int64_t i = 0; i < n; i++) y[i] = k_igamma_grad_f64(which, a[0][i], a[1][i]);
    break;
  }
  case SF_POLYGAMMA:
    for (int64_t i = 0; i < n; i++) y[i] = k_polygamma_f64(a[0][i], a[1][i]);
    break;
  case SF_NEXTAFTER:
    for (int64_t i = 0; i < n; i++) y[i] = k_nextafter_f64(a[0][i], a[1][i]);
    break;
  case SF_BETAINC: break;
  }
}

/* NextAfter on a float type narrower than f32, element by element on its
 * bits (one element per 1 or 2 bytes). */
static void nextafter_narrow(EType t, const void *from, const void *to, void *y, int64_t n) {
  int es = etype_storage_bytes(t);
  KNextAfterType nt = {etype_bits(t), 0, false};
  const EFloatFormat *f = etype_float_format(t);
  nt.fnuz = f->nan == EF_NAN_FNUZ;
  unsigned char nan_elem[2] = {0, 0};
  etype_store_f32(t, NAN, nan_elem);
  nt.nan_bits = es == 2 ? (uint64_t)(nan_elem[0] | nan_elem[1] << 8) : nan_elem[0];
  uint64_t mask = ((uint64_t)1 << nt.bits) - 1;
  for (int64_t i = 0; i < n; i++) {
    const char *pf = (const char *)from + i * es, *pt = (const char *)to + i * es;
    uint16_t bf = 0, bt = 0;
    memcpy(&bf, pf, (size_t)es);
    memcpy(&bt, pt, (size_t)es);
    uint64_t r = k_nextafter_bits(&nt, bf & mask, isnan(etype_load_f32(t, pf)), bt & mask,
                                  isnan(etype_load_f32(t, pt)));
    uint16_t rb = (uint16_t)r;
    memcpy((char *)y + i * es, &rb, (size_t)es);
  }
}

static bool special_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                           int nouts, Error *err) {
  const SpecialFn *fn = arg;
  KArray *r = &outs[0];
  for (int k = 0; k < fn->nin; k++)
    if (nouts != 1 || ins[k].etype != r->etype || ins[k].rank != r->rank ||
        (r->rank > 0 && memcmp(ins[k].dims, r->dims, sizeof(int64_t) * (size_t)r->rank)))
      return error_set(err, ERR_RUNTIME, in->offset,
                       "xla_builder.math.%s needs operands and result of one "
                       "shape and element type", fn->name);
  EType t = r->etype;
  if (!etype_is_float(t))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "xla_builder.math.%s of %s: operands must be real floats",
                     fn->name, etype_name(t));
  int64_t n = 1;
  for (int d = 0; d < r->rank; d++) n *= r->dims[d];
  if (fn->kind == SF_NEXTAFTER && t != ET_F32 && t != ET_F64) {
    nextafter_narrow(t, ins[0].data, ins[1].data, r->data, n);
    return true;
  }
  if (t == ET_F64) {
    double *a[3] = {ins[0].data, ins[1].data, fn->nin > 2 ? ins[2].data : NULL};
    if (fn->kind == SF_BETAINC) return k_betainc_f64(a[0], a[1], a[2], r->data, n, err);
    special_f64(fn->kind, a, r->data, n);
    return true;
  }
  if (t != ET_F32 && !upcasts_to_f32(fn->kind, t))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "xla_builder.math.%s of %s is not supported (XLA computes "
                     "it in f32 only for f16/bf16%s)", fn->name, etype_name(t),
                     fn->kind == SF_IGAMMA_GRAD_A ? ", the f8 types and f4e2m1fn" : "");
  /* f32 itself, or a narrow type converted to f32 scratch and back. */
  bool narrow = t != ET_F32;
  float *a[3] = {NULL, NULL, NULL}, *y = r->data, *scratch = NULL;
  size_t cnt = (size_t)(n > 0 ? n : 1);
  if (narrow) {
    scratch = malloc(cnt * sizeof(float) * (size_t)(fn->nin + 1));
    if (!scratch) return error_set(err, ERR_RUNTIME, in->offset, "out of memory");
    for (int k = 0; k < fn->nin; k++) {
      a[k] = scratch + cnt * (size_t)k;
      etype_convert_array(ET_F32, a[k], t, ins[k].data, n);
    }
    y = scratch + cnt * (size_t)fn->nin;
  } else {
    for (int k = 0; k < fn->nin; k++) a[k] = ins[k].data;
  }
  bool ok = true;
  if (fn->kind == SF_BETAINC) ok = k_betainc_f32(a[0], a[1], a[2], y, n, err);
  else special_f32(fn->kind, t, a, y, n);
  if (ok && narrow) etype_convert_array(t, r->data, ET_F32, y, n);
  free(scratch);
  return ok;
}

static bool unary_kernel(const Instr *in, const void *arg, const KArray *ins, KArray *outs,
                         int nouts, Error *err) {
  const UnaryFn *m = arg;
  const KArray *a = &ins[0];
  KArray *r = &outs[0];
  if (nouts != 1 || a->etype != r->etype || a->rank != r->rank ||
      (r->rank > 0 && memcmp(a->dims, r->dims, sizeof(int64_t) * (size_t)r->rank)))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "xla_builder.math.%s: the result must have the operand's "
                     "shape",
                     m->name);
  if (!etype_is_float(r->etype) && !etype_is_complex(r->etype))
    return error_set(err, ERR_RUNTIME, in->offset,
                     "xla_builder.math.%s of %s: only float and complex types",
                     m->name, etype_name(r->etype));
  int64_t n = 1;
  for (int d = 0; d < r->rank; d++) n *= r->dims[d];
  unary_apply(m, r->etype, a->data, r->data, n);
  return true;
}

/* Operand count and kinds, before any view is made. */
static bool check_operands(Frame *fr, const Instr *in, const char *fn, int nin, const Shape *rs,
                           Error *err) {
  bool ok = in->noperands == nin && shape_is_array(rs);
  for (int k = 0; ok && k < nin; k++) ok = frame_operand(fr, in, k)->info != NULL;
  if (!ok)
    return error_set(err, ERR_RUNTIME, in->offset,
                     "xla_builder.math.%s takes %d array%s and returns one array",
                     fn, nin, nin == 1 ? "" : "s");
  return true;
}

static const char prefix[] = "xla_builder.math.";
enum { PREFIX_LEN = sizeof prefix - 1 };

bool eval_builder_math_known(const char *target) {
  if (strncmp(target, prefix, PREFIX_LEN) != 0) return false;
  const char *fn = target + PREFIX_LEN;
  for (size_t i = 0; i < sizeof unary_fns / sizeof unary_fns[0]; i++)
    if (!strcmp(fn, unary_fns[i].name)) return true;
  for (size_t i = 0; i < sizeof special_fns / sizeof special_fns[0]; i++)
    if (!strcmp(fn, special_fns[i].name)) return true;
  return false;
}

bool eval_builder_math(EvalCtx *ctx, Frame *fr, const Instr *in, const char *target,
                       const Shape *rs, Value **out, Error *err) {
  const char *fn = target + PREFIX_LEN;
  for (size_t i = 0; i < sizeof unary_fns / sizeof unary_fns[0]; i++)
    if (!strcmp(fn, unary_fns[i].name))
      return check_operands(fr, in, fn, 1, rs, err) &&
             eval_kernel_op(ctx, fr, in, rs, 1, unary_kernel, &unary_fns[i], out, err);
  for (size_t i = 0; i < sizeof special_fns / sizeof special_fns[0]; i++)
    if (!strcmp(fn, special_fns[i].name))
      return check_operands(fr, in, fn, special_fns[i].nin, rs, err) &&
             eval_kernel_op(ctx, fr, in, rs, special_fns[i].nin, special_kernel, &special_fns[i],
                            out, err);
  return error_set(err, ERR_RUNTIME, in->offset, "custom-call target \"%s\" is not supported",
                   target);
}
