/* CHLO's special functions as HLO formulas, the decompositions of XLA's
 * chlo_legalize_to_stablehlo: the same algorithms, branches and published
 * coefficients, so that results match XLA's to the last bits of the
 * approximations (not to a correctly rounded reference).  Callers upcast
 * f16/bf16 to f32 first, as XLA does (mlir_emit_chlo.c). */
#include <math.h>
#include <string.h>

#include "parser/mlir_chlo.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *mul(ChloEx *e, const char *a, const char *b) { return chlo_bin(e, "multiply", a, b); }
static const char *add(ChloEx *e, const char *a, const char *b) { return chlo_bin(e, "add", a, b); }
static const char *sub(ChloEx *e, const char *a, const char *b) { return chlo_bin(e, "subtract", a, b); }
static const char *dvd(ChloEx *e, const char *a, const char *b) { return chlo_bin(e, "divide", a, b); }

/* erfc for |x| >= 1 (Cephes ndtr.c, double): exp(-x^2) P(|x|)/Q(|x|) below
 * 8, exp(-x^2) R(|x|)/S(|x|) above, 0 once -x^2 < -maxlog, 2 - erfc(-x)
 * for negative x. */
static const char *erfc_ge1_f64(ChloEx *e, const char *x) {
  static const double P[] = {2.46196981473530512524E-10, 5.64189564831068821977E-1, 7.46321056442269912687E0,
                             4.86371970985681366614E1,   1.96520832956077098242E2,  5.26445194995477358631E2,
                             9.34528527171957607540E2,   1.02755188689515710272E3,  5.57535335369399327526E2};
  static const double Q[] = {1.0,                      1.32281951154744992508E1, 8.67072140885989742329E1,
                             3.54937778887819891062E2, 9.75708501743205489753E2, 1.82390916687909736289E3,
                             2.24633760818710981792E3, 1.65666309194161350182E3, 5.57535340817727675546E2};
  static const double R[] = {5.64189583547755073984E-1, 1.27536670759978104416E0, 5.01905042251180477414E0,
                             6.16021097993053585195E0,  7.40974269950448939160E0, 2.97886665372100240670E0};
  static const double S[] = {1.0,                      2.26052863220117276590E0, 9.39603524938001434673E0,
                             1.20489539808096656605E1, 1.70814450747565897222E1, 9.60896809063285878198E0,
                             3.36907645100081516050E0};
  const char *z = chlo_un(e, "negate", mul(e, x, x));
  const char *ez = chlo_un(e, "exponential", z);
  const char *ax = chlo_un(e, "abs", x);
  const char *near = dvd(e, mul(e, ez, chlo_poly(e, ax, P, N(P))), chlo_poly(e, ax, Q, N(Q)));
  const char *far = dvd(e, mul(e, ez, chlo_poly(e, ax, R, N(R))), chlo_poly(e, ax, S, N(S)));
  const char *r = chlo_sel(e, chlo_cmp(e, "LT", ax, chlo_k(e, 8)), near, far);
  r = chlo_sel(e, chlo_cmp(e, "LT", z, chlo_k(e, -7.09782712893383996843E2)), chlo_k(e, 0), r);
  return chlo_sel(e, chlo_cmp(e, "LT", x, chlo_k(e, 0)), sub(e, chlo_k(e, 2), r), r);
}

/* erf for |x| <= 1 (Cephes, double): x T(x^2) / U(x^2). */
static const char *erf_le1_f64(ChloEx *e, const char *x) {
  static const double T[] = {9.60497373987051638749E0, 9.00260197203842689217E1, 2.23200534594684319226E3,
                             7.00332514112805075473E3, 5.55923013010394962768E4};
  static const double U[] = {1.0, 3.35617141647503099647E1, 5.21357949780152679795E2, 4.59432382970980127987E3,
                             2.26290000613890934246E4, 4.92673942608635921086E4};
  const char *x2 = mul(e, x, x);
  return dvd(e, mul(e, x, chlo_poly(e, x2, T, N(T))), chlo_poly(e, x2, U, N(U)));
}

/* erfc for |x| >= 1 (Cephes erfcf, float): exp(-x^2)/|x| times P(1/x^2)
 * below 2 or R(1/x^2) above; clamped and reflected as the double one. */
static const char *erfc_ge1_f32(ChloEx *e, const char *x) {
  static const double P[] = {+2.326819970068386E-2, -1.387039388740657E-1, +3.687424674597105E-1,
                             -5.824733027278666E-1, +6.210004621745983E-1, -4.944515323274145E-1,
                             +3.404879937665872E-1, -2.741127028184656E-1, +5.638259427386472E-1};
  static const double R[] = {-1.047766399936249E+1, +1.297719955372516E+1, -7.495518717768503E+0,
                             +2.921019019210786E+0, -1.015265279202700E+0, +4.218463358204948E-1,
                             -2.820767439740514E-1, +5.641895067754075E-1};
  const char *x2 = mul(e, x, x);
  const char *z = chlo_un(e, "negate", x2);
  const char *ax = chlo_un(e, "abs", x);
  const char *one = chlo_k(e, 1);
  const char *r2 = dvd(e, one, x2);
  const char *q = mul(e, chlo_un(e, "exponential", z), dvd(e, one, ax));
  const char *poly = chlo_sel(e, chlo_cmp(e, "LT", ax, chlo_k(e, 2)), chlo_poly(e, r2, P, N(P)), chlo_poly(e, r2, R, N(R)));
  const char *r = mul(e, q, poly);
  r = chlo_sel(e, chlo_cmp(e, "LT", z, chlo_k(e, -88.72283905206835)), chlo_k(e, 0), r);
  return chlo_sel(e, chlo_cmp(e, "LT", x, chlo_k(e, 0)), sub(e, chlo_k(e, 2), r), r);
}

/* erf for |x| <= 1 (Cephes erff): x T(x^2). */
static const char *erf_le1_f32(ChloEx *e, const char *x) {
  static const double T[] = {+7.853861353153693E-5, -8.010193625184903E-4, +5.188327685732524E-3,
                             -2.685381193529856E-2, +1.128358514861418E-1, -3.761262582423300E-1,
                             +1.128379165726710E+0};
  return mul(e, x, chlo_poly(e, mul(e, x, x), T, N(T)));
}

/* erfc: the |x| >= 1 approximation, or 1 - erf below 1. */
const char *chlo_erfc(ChloEx *e, const char *x) {
  bool d = chlo_is_f64(e);
  const char *ge1 = d ? erfc_ge1_f64(e, x) : erfc_ge1_f32(e, x);
  const char *le1 = sub(e, chlo_k(e, 1), d ? erf_le1_f64(e, x) : erf_le1_f32(e, x));
  return chlo_sel(e, chlo_cmp(e, "LT", chlo_un(e, "abs", x), chlo_k(e, 1)), le1, ge1);
}

/* erf_inv (M. Giles, "Approximating the erfinv function", GPU Computing
 * Gems 2010): w = -log1p(-x^2); a polynomial in w - 2.5 (w < 5) or
 * sqrt(w) - 3 for floats, in w - 3.125 (w < 6.25), sqrt(w) - 3.25 (w < 16)
 * or sqrt(w) - 5 for doubles; times x; +-inf at +-1. */
const char *chlo_erf_inv(ChloEx *e, const char *x) {
  static const double F_LT5[] = {2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
                                 -0.00125372503, -0.00417768164, 0.246640727,   1.50140941};
  static const double F_GE5[] = {-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
                                 -0.0076224613,   0.00943887047,  1.00167406,    2.83297682};
  static const double D_LT625[] = {
      -3.6444120640178196996e-21, -1.685059138182016589e-19,  1.2858480715256400167e-18, 1.115787767802518096e-17,
      -1.333171662854620906e-16,  2.0972767875968561637e-17,  6.6376381343583238325e-15, -4.0545662729752068639e-14,
      -8.1519341976054721522e-14, 2.6335093153082322977e-12,  -1.2975133253453532498e-11, -5.4154120542946279317e-11,
      1.051212273321532285e-09,   -4.1126339803469836976e-09, -2.9070369957882005086e-08, 4.2347877827932403518e-07,
      -1.3654692000834678645e-06, -1.3882523362786468719e-05, 0.0001867342080340571352,  -0.00074070253416626697512,
      -0.0060336708714301490533,  0.24015818242558961693,     1.6536545626831027356};
  static const double D_LT16[] = {
      2.2137376921775787049e-09,  9.0756561938885390979e-08, -2.7517406297064545428e-07, 1.8239629214389227755e-08,
      1.5027403968909827627e-06,  -4.013867526981545969e-06, 2.9234449089955446044e-06,  1.2475304481671778723e-05,
      -4.7318229009055733981e-05, 6.8284851459573175448e-05, 2.4031110387097893999e-05,  -0.0003550375203628474796,
      0.00095328937973738049703,  -0.0016882755560235047313, 0.0024914420961078508066,   -0.0037512085075692412107,
      0.005370914553590063617,    1.0052589676941592334,     3.0838856104922207635};
  static const double D_GE16[] = {
      -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,  -3.7894654401267369937e-09,
      7.6157012080783393804e-09,  -1.4960026627149240478e-08, 2.9147953450901080826e-08,  -6.7711997758452339498e-08,
      2.2900482228026654717e-07,  -9.9298272942317002539e-07, 4.5260625972231537039e-06,  -1.9681778105531670567e-05,
      7.5995277030017761139e-05,  -0.00021503011930044477347, -0.00013871931833623122026, 1.0103004648645343977,
      4.8499064014085844221};
  const char *w = chlo_un(e, "negate", chlo_un(e, "log-plus-one", mul(e, x, chlo_un(e, "negate", x))));
  const char *p;
  if (!chlo_is_f64(e)) {
    const char *lt = chlo_cmp(e, "LT", w, chlo_k(e, 5));
    w = chlo_sel(e, lt, sub(e, w, chlo_k(e, 2.5)), sub(e, chlo_un(e, "sqrt", w), chlo_k(e, 3)));
    p = chlo_sel(e, lt, chlo_k(e, F_LT5[0]), chlo_k(e, F_GE5[0]));
    for (int i = 1; i < N(F_LT5); i++)
      p = add(e, chlo_sel(e, lt, chlo_k(e, F_LT5[i]), chlo_k(e, F_GE5[i])), mul(e, p, w));
  } else {
    /* The three series have 23, 19 and 17 terms: the shorter ones start
     * later, so the first 17 steps select among all three, the next two
     * between the first two, the last four use only the first. */
    const char *lt625 = chlo_cmp(e, "LT", w, chlo_k(e, 6.25)), *lt16 = chlo_cmp(e, "LT", w, chlo_k(e, 16));
    const char *sw = sub(e, chlo_un(e, "sqrt", w), chlo_sel(e, lt16, chlo_k(e, 3.25), chlo_k(e, 5)));
    w = chlo_sel(e, lt625, sub(e, w, chlo_k(e, 3.125)), sw);
    const char *c[23];
    for (int i = 0; i < 23; i++) {
      c[i] = chlo_k(e, D_LT625[i]);
      if (i < 19) c[i] = chlo_sel(e, lt625, c[i], chlo_k(e, D_LT16[i]));
      if (i < 17) c[i] = chlo_sel(e, lt16, c[i], chlo_k(e, D_GE16[i]));
    }
    p = c[0];
    for (int i = 1; i < 17; i++) p = add(e, c[i], mul(e, p, w));
    for (int i = 17; i < 19; i++) p = chlo_sel(e, lt16, add(e, c[i], mul(e, p, w)), p);
    for (int i = 19; i < 23; i++) p = chlo_sel(e, lt625, add(e, c[i], mul(e, p, w)), p);
  }
  const char *at_one = chlo_cmp(e, "EQ", chlo_un(e, "abs", x), chlo_k(e, 1));
  return chlo_sel(e, at_one, mul(e, x, chlo_k(e, INFINITY)), mul(e, p, x));
}

/* Lanczos' approximation, g = 7, n = 9 (as XLA's math library). */
static const double LANCZOS_G = 7, LANCZOS_BASE = 0.99999999999980993227684700473478;
static const double LANCZOS[] = {676.520368121885098567009190444019, -1259.13921672240287047156078755283,
                                 771.3234287776530788486528258894,   -176.61502916214059906584551354,
                                 12.507343278686904814458936853,     -0.13857109526572011689554707,
                                 9.984369578019570859563e-6,         1.50563273514931155834e-7};

/* z = -x below 1/2 (reflection), x - 1 otherwise; log(t) with
 * t = z + g + 1/2, as log(g + 1/2) + log1p(z / (g + 1/2)). */
static const char *lanczos_z(ChloEx *e, const char *x, const char **reflect) {
  *reflect = chlo_cmp(e, "LT", x, chlo_k(e, 0.5));
  return chlo_sel(e, *reflect, chlo_un(e, "negate", x), sub(e, x, chlo_k(e, 1)));
}

static const char *lanczos_log_t(ChloEx *e, const char *z, const char **t) {
  const char *gh = chlo_k(e, LANCZOS_G + 0.5);
  *t = add(e, gh, z);
  return add(e, chlo_k(e, log(LANCZOS_G + 0.5)), chlo_un(e, "log-plus-one", dvd(e, z, gh)));
}

/* lgamma: (z + 1/2 - t/log t) log t - ... with the reflection
 * log(pi) - log|sin(pi frac|x|)| - lgamma(1 - x) below 1/2, +inf at +-inf. */
const char *chlo_lgamma(ChloEx *e, const char *x) {
  const char *reflect, *t;
  const char *z = lanczos_z(e, x, &reflect);
  const char *a = chlo_k(e, LANCZOS_BASE);
  for (int i = 0; i < N(LANCZOS); i++) a = add(e, a, dvd(e, chlo_k(e, LANCZOS[i]), add(e, z, chlo_k(e, i + 1))));
  const char *log_t = lanczos_log_t(e, z, &t);
  const char *r = mul(e, sub(e, add(e, z, chlo_k(e, 0.5)), dvd(e, t, log_t)), log_t);
  const char *lg = add(e, add(e, chlo_k(e, (log(2) + log(M_PI)) / 2), r), chlo_un(e, "log", a));
  const char *ax = chlo_un(e, "abs", x);
  const char *frac = sub(e, ax, chlo_un(e, "floor", ax));
  frac = chlo_sel(e, chlo_cmp(e, "LT", chlo_k(e, 0.5), frac), sub(e, chlo_k(e, 1), frac), frac);
  const char *den = chlo_un(e, "log", chlo_un(e, "sine", mul(e, chlo_k(e, M_PI), frac)));
  const char *refl = sub(e, sub(e, chlo_k(e, log(M_PI)), den), lg);
  refl = chlo_sel(e, mlir_line(e->st, e->off, "c", e->p, "is-finite(%s)", den), refl, chlo_un(e, "negate", den));
  lg = chlo_sel(e, reflect, refl, lg);
  const char *inf = chlo_cmp(e, "EQ", ax, chlo_k(e, INFINITY));
  return chlo_sel(e, inf, chlo_k(e, INFINITY), lg);
}

/* digamma: log t + a'/a - g/t, reflected as digamma(1 - x) - pi cot(pi x)
 * below 1/2 (x shifted into [-1/2, 1/2] first); nan at the poles. */
const char *chlo_digamma(ChloEx *e, const char *x) {
  const char *reflect, *t;
  const char *z = lanczos_z(e, x, &reflect);
  const char *a = chlo_k(e, LANCZOS_BASE), *ap = chlo_k(e, 0);
  for (int i = 0; i < N(LANCZOS); i++) {
    const char *zk = add(e, z, chlo_k(e, i + 1)), *c = chlo_k(e, LANCZOS[i]);
    ap = sub(e, ap, dvd(e, c, mul(e, zk, zk)));
    a = add(e, a, dvd(e, c, zk));
  }
  const char *log_t = lanczos_log_t(e, z, &t);
  const char *dg = sub(e, add(e, log_t, dvd(e, ap, a)), dvd(e, chlo_k(e, LANCZOS_G), t));
  const char *rx = add(e, x, chlo_un(e, "abs", chlo_un(e, "floor", add(e, x, chlo_k(e, 0.5)))));
  const char *pix = mul(e, chlo_k(e, M_PI), rx);
  const char *refl = sub(e, dg, dvd(e, mul(e, chlo_k(e, M_PI), chlo_un(e, "cosine", pix)), chlo_un(e, "sine", pix)));
  dg = chlo_sel(e, reflect, refl, dg);
  const char *pole = chlo_pred(e, "and", chlo_cmp(e, "LE", x, chlo_k(e, 0)), chlo_cmp(e, "EQ", x, chlo_un(e, "floor", x)));
  return chlo_sel(e, pole, chlo_k(e, NAN), dg);
}

/* Hurwitz zeta(x, q) (F. Johansson, arXiv:1309.2877, formula 5): ten terms
 * of the series, then a 12-term Euler-Maclaurin tail by Horner's rule;
 * nan for x < 1 or a non-integer x with q <= 0, the poles at integer
 * q <= 0 (+inf for even x), +inf at x = 1. */
const char *chlo_zeta(ChloEx *e, const char *x, const char *q) {
  static const double C[] = {-7.1661652561756670113e18, 1.8152105401943546773e17, -4.5979787224074726105e15,
                             1.1646782814350067249e14,  -2.950130727918164224e12, 7.47242496e10,
                             -1.8924375803183791606e9,  47900160.0,               -1209600.0,
                             30240.0,                   -720.0,                   12.0};
  const int terms = N(C), iters = 9, two_terms_minus_one = 2 * N(C) - 1;
  const char *zero = chlo_k(e, 0), *one = chlo_k(e, 1), *nx = chlo_un(e, "negate", x);
  const char *acc = q, *sum = chlo_bin(e, "power", q, nx), *qp;
  for (int i = 0; i < iters; i++) {
    acc = add(e, acc, one);
    sum = add(e, sum, chlo_bin(e, "power", acc, nx));
  }
  acc = add(e, acc, one);
  qp = chlo_bin(e, "power", acc, nx);
  const char *em = dvd(e, mul(e, qp, acc), sub(e, x, one));
  const char *inv_acc2 = dvd(e, one, mul(e, acc, acc));
  const char *hs = zero;
  for (int i = 0; i < terms - 1; i++) {
    const char *f = mul(e, add(e, x, chlo_k(e, two_terms_minus_one - 1 - 2 * i)),
                        add(e, x, chlo_k(e, two_terms_minus_one - 2 - 2 * i)));
    hs = mul(e, f, mul(e, inv_acc2, add(e, hs, chlo_k(e, 1. / C[i]))));
  }
  const char *tail = mul(e, qp, add(e, chlo_k(e, .5), mul(e, dvd(e, x, acc), add(e, chlo_k(e, 1. / C[terms - 1]), hs))));
  const char *exact = add(e, add(e, sum, em), tail);
  double tiny = chlo_is_f64(e) ? 4.9406564584124654e-324 : 1.4012984643248171e-45;
  const char *out = chlo_sel(e, chlo_cmp(e, "LT", chlo_un(e, "abs", qp), mul(e, chlo_un(e, "abs", sum), chlo_k(e, tiny))),
                             sum, exact);
  const char *nan = chlo_k(e, NAN), *inf = chlo_k(e, INFINITY);
  out = chlo_sel(e, chlo_cmp(e, "LT", x, one), nan, out);
  const char *q_le0 = chlo_cmp(e, "LE", q, zero);
  const char *x_int = chlo_cmp(e, "EQ", x, chlo_un(e, "floor", x));
  out = chlo_sel(e, chlo_pred(e, "and", q_le0, chlo_cmp(e, "NE", x, chlo_un(e, "floor", x))), nan, out);
  const char *pole = chlo_pred(e, "and", q_le0, chlo_cmp(e, "EQ", q, chlo_un(e, "floor", q)));
  const char *even = chlo_pred(e, "and", x_int, chlo_cmp(e, "EQ", chlo_bin(e, "remainder", x, chlo_k(e, 2)), zero));
  out = chlo_sel(e, pole, chlo_sel(e, even, inf, nan), out);
  return chlo_sel(e, chlo_cmp(e, "EQ", x, one), inf, out);
}

/* polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x) for natural n > 0,
 * digamma(x) for n = 0, nan for other n. */
const char *chlo_polygamma(ChloEx *e, const char *n, const char *x) {
  const char *one = chlo_k(e, 1), *zero = chlo_k(e, 0);
  const char *sign = sub(e, mul(e, chlo_k(e, 2), chlo_bin(e, "remainder", n, chlo_k(e, 2))), one);
  const char *n1 = add(e, n, one);
  const char *r = mul(e, mul(e, sign, chlo_un(e, "exponential", chlo_lgamma(e, n1))), chlo_zeta(e, n1, x));
  r = chlo_sel(e, chlo_cmp(e, "EQ", n, zero), chlo_digamma(e, x), r);
  const char *bad = chlo_pred(e, "or", chlo_cmp(e, "NE", n, chlo_un(e, "floor", n)), chlo_cmp(e, "LT", n, zero));
  return chlo_sel(e, bad, chlo_k(e, NAN), r);
}

/* Clenshaw's recurrence for a Chebyshev series (Cephes chbevl). */
static const char *chebyshev(ChloEx *e, const char *x, const double *c, int n) {
  const char *b0 = chlo_k(e, 0), *b1 = b0, *b2 = b0;
  for (int i = 0; i < n; i++) {
    b2 = b1;
    b1 = b0;
    b0 = add(e, sub(e, mul(e, x, b1), b2), chlo_k(e, c[i]));
  }
  return mul(e, sub(e, b0, b2), chlo_k(e, 0.5));
}

/* bessel_i1e (Cephes i1e): Chebyshev series in |x|/2 - 2 up to 8, in
 * 32/|x| - 2 (over sqrt|x|) above; odd in x. */
const char *chlo_bessel_i1e(ChloEx *e, const char *x) {
  static const double A[] = {
      2.77791411276104639959E-18, -2.11142121435816608115E-17, 1.55363195773620046921E-16,
      -1.10559694773538630805E-15, 7.60068429473540693410E-15, -5.04218550472791168711E-14,
      3.22379336594557470981E-13, -1.98397439776494371520E-12, 1.17361862988909016308E-11,
      -6.66348972350202774223E-11, 3.62559028155211703701E-10, -1.88724975172282928790E-9,
      9.38153738649577178388E-9,  -4.44505912879632808065E-8,  2.00329475355213526229E-7,
      -8.56872026469545474066E-7, 3.47025130813767847674E-6,   -1.32731636560394358279E-5,
      4.78156510755005422638E-5,  -1.61760815825896745588E-4,  5.12285956168575772895E-4,
      -1.51357245063125314899E-3, 4.15642294431288815669E-3,   -1.05640848946261981558E-2,
      2.47264490306265168283E-2,  -5.29459812080949914269E-2,  1.02643658689847095384E-1,
      -1.76416518357834055153E-1, 2.52587186443633654823E-1};
  static const double B[] = {
      7.51729631084210481353E-18,  4.41434832307170791151E-18,  -4.65030536848935832153E-17,
      -3.20952592199342395980E-17, 2.96262899764595013876E-16,  3.30820231092092828324E-16,
      -1.88035477551078244854E-15, -3.81440307243700780478E-15, 1.04202769841288027642E-14,
      4.27244001671195135429E-14,  -2.10154184277266431302E-14, -4.08355111109219731823E-13,
      -7.19855177624590851209E-13, 2.03562854414708950722E-12,  1.41258074366137813316E-11,
      3.25260358301548823856E-11,  -1.89749581235054123450E-11, -5.58974346219658380687E-10,
      -3.83538038596423702205E-9,  -2.63146884688951950684E-8,  -2.51223623787020892529E-7,
      -3.88256480887769039346E-6,  -1.10588938762623716291E-4,  -9.76109749136146840777E-3,
      7.78576235018280120474E-1};
  /* Floats use the tails of the double series (17 and 7 terms), as Cephes'
   * single-precision i1ef. */
  bool d = chlo_is_f64(e);
  const double *a = d ? A : A + (N(A) - 17), *b = d ? B : B + (N(B) - 7);
  int na = d ? N(A) : 17, nb = d ? N(B) : 7;
  const char *z = chlo_un(e, "abs", x);
  const char *lo = mul(e, z, chebyshev(e, sub(e, mul(e, chlo_k(e, 0.5), z), chlo_k(e, 2)), a, na));
  const char *hi = dvd(e, chebyshev(e, sub(e, dvd(e, chlo_k(e, 32), z), chlo_k(e, 2)), b, nb), chlo_un(e, "sqrt", z));
  const char *r = chlo_sel(e, chlo_cmp(e, "LE", z, chlo_k(e, 8)), lo, hi);
  return mul(e, chlo_un(e, "sign", x), r);
}

/* e^(x + log 1/2) -/+ e^(log 1/2 - x): no overflow while the result fits. */
static const char *half_exps(ChloEx *e, const char *x, const char *hop) {
  const char *lh = chlo_un(e, "log", chlo_k(e, 0.5));
  return chlo_bin(e, hop, chlo_un(e, "exponential", add(e, x, lh)), chlo_un(e, "exponential", sub(e, lh, x)));
}

/* sinh: (expm1(x) + expm1(x) / (expm1(x) + 1)) / 2 below |x| = 1 (keeps the
 * first-order term), the half-exponential difference above (and for
 * complex x). */
const char *chlo_sinh(ChloEx *e, const char *x) {
  const char *big = half_exps(e, x, "subtract");
  if (e->t->etype[0] == 'c') return big; /* complex: XLA uses this form alone */
  const char *m = chlo_un(e, "exponential-minus-one", x);
  const char *one = chlo_k(e, 1);
  const char *small = mul(e, chlo_k(e, 0.5), add(e, m, dvd(e, m, add(e, m, one))));
  return chlo_sel(e, chlo_cmp(e, "LT", chlo_un(e, "abs", x), one), small, big);
}

const char *chlo_cosh(ChloEx *e, const char *x) { return half_exps(e, x, "add"); }
