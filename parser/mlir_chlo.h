/* The CHLO reader's expression builder (mlir_chlo_expr.c) and special
 * functions (mlir_chlo_math.c): each function writes the HLO instructions
 * of one formula over values of one floating-point tensor type and returns
 * the HLO name of the result.  The decompositions follow XLA's
 * chlo_legalize_to_stablehlo (algorithms and published coefficients:
 * Cephes, Giles' erfinv, Lanczos g = 7, Johansson's Hurwitz zeta). */
#ifndef HLO_PARSER_MLIR_CHLO_H
#define HLO_PARSER_MLIR_CHLO_H

#include "parser/mlir_internal.h"

typedef struct ChloEx {
  MState *st;
  int64_t off;
  MType *t; /* the type computed in (f32 or f64, the op's shape) */
  MType *p; /* pred of the same shape */
  int nk;   /* constants written so far, reused by value */
  double kv[96];
  const char *kn[96];
} ChloEx;

void chlo_ex_init(ChloEx *e, MState *st, int64_t off, const MType *t);
MType *chlo_like(MState *st, const MType *t, const char *etype);
bool chlo_is_f64(const ChloEx *e);

/* Instructions over e->t (or pred for compare/and/or). */
const char *chlo_k(ChloEx *e, double v); /* a constant of e->t's shape */
const char *chlo_ki(ChloEx *e, long long v); /* the same for integer types */
const char *chlo_un(ChloEx *e, const char *hop, const char *a);
const char *chlo_bin(ChloEx *e, const char *hop, const char *a, const char *b);
const char *chlo_cmp(ChloEx *e, const char *dir, const char *a, const char *b);
const char *chlo_pred(ChloEx *e, const char *hop, const char *a, const char *b); /* and/or */
const char *chlo_sel(ChloEx *e, const char *p, const char *a, const char *b);
/* Horner: c[0] * x^(n-1) + ... + c[n-1]. */
const char *chlo_poly(ChloEx *e, const char *x, const double *c, int n);

/* Special functions of x (and y) in e->t (mlir_chlo_math.c). */
const char *chlo_erfc(ChloEx *e, const char *x);
const char *chlo_erf_inv(ChloEx *e, const char *x);
const char *chlo_lgamma(ChloEx *e, const char *x);
const char *chlo_digamma(ChloEx *e, const char *x);
const char *chlo_zeta(ChloEx *e, const char *x, const char *q);
const char *chlo_polygamma(ChloEx *e, const char *n, const char *x);
const char *chlo_bessel_i1e(ChloEx *e, const char *x);
const char *chlo_sinh(ChloEx *e, const char *x);
const char *chlo_cosh(ChloEx *e, const char *x);

#endif
