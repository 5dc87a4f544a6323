/* One precision of the special functions of k_special.h, included twice by
 * k_special.c with
 *   T       the working type (float or double),
 *   FN(f)   the public name of f for this type (f##_f32 / f##_f64),
 *   T_EPS   std::numeric_limits<T>::epsilon().
 * Math functions come from <tgmath.h>, so log(x) is logf(x) when T is float;
 * every constant goes through K() (rounded to T once, as XLA's ScalarLike
 * does) so no expression is silently widened to double (-Wdouble-promotion
 * is an error in k_special.c).  Operation order follows XLA's expression
 * trees: a + b + c is (a + b) + c, a * b / c is (a * b) / c. */

#define K(v) ((T)(v))
#define LOCAL(f) FN(f##_local)

/* --- Lanczos sum shared by lgamma and digamma ------------------------------
 * Gamma(z + 1) = sqrt(2 pi) (z + g + 1/2)^(z + 1/2) e^-(z + g + 1/2) A(z),
 * A(z) = c0 + sum_k c_k / (z + k).  Arguments below 1/2 are reflected
 * (z = -x) and fixed up with Gamma(x) Gamma(1 - x) = pi / sin(pi x). */

T FN(k_lgamma)(T input) {
  const T one_half = K(0.5), one = K(1);
  const T pi = K(M_PI);
  bool reflect = input < one_half;
  T z = reflect ? -input : input - one;
  T x = K(K_LANCZOS_BASE);
  for (int i = 0; i < K_LANCZOS_N; i++) x = x + K(k_lanczos_coef[i]) / (z + K(i) + one);
  /* log(t) as log(g + 1/2) + log1p(z / (g + 1/2)): more accurate when log is
   * not; t / log(t) keeps (z + 1/2) log t - t from overflowing. */
  const T gph = K(K_LANCZOS_G + 0.5);
  T t = gph + z;
  T log_t = K(log(K_LANCZOS_G + 0.5)) + log1p(z / gph);
  T log_y = K((log(2.0) + log(M_PI)) / 2) + (z + one_half - t / log_t) * log_t + log(x);
  /* Reflection: log pi - lgamma(1 - x) - log|sin(pi x)|, with sin taken of
   * the fractional part folded into [0, 1/2] (exactly 0 at the integers, no
   * overflow of pi x). */
  T abs_input = fabs(input);
  T frac = abs_input - floor(abs_input);
  T reduced = frac > K(0.5) ? one - frac : frac;
  T reflection_denom = log(sin(pi * reduced));
  T reflection =
      isfinite(reflection_denom) ? K(log(M_PI)) - reflection_denom - log_y : -reflection_denom;
  T result = reflect ? reflection : log_y;
  return isinf(input) ? K(INFINITY) : result;
}

T FN(k_digamma)(T input) {
  const T zero = K(0), one_half = K(0.5), one = K(1);
  const T pi = K(M_PI);
  bool reflect = input < one_half;
  T z = reflect ? -input : input - one;
  /* digamma(z + 1) = log t + A'(z) / A(z) - g / t. */
  T num = zero, denom = K(K_LANCZOS_BASE);
  for (int i = 0; i < K_LANCZOS_N; i++) {
    T zi = z + K(i) + one;
    num = num - K(k_lanczos_coef[i]) / (zi * zi);
    denom = denom + K(k_lanczos_coef[i]) / zi;
  }
  const T gph = K(K_LANCZOS_G + 0.5);
  T t = gph + z;
  T log_t = K(log(K_LANCZOS_G + 0.5)) + log1p(z / gph);
  T y = log_t + num / denom - K(K_LANCZOS_G) / t;
  /* digamma(x) = digamma(1 - x) - pi cot(pi x), with x shifted into
   * [-1/2, 1/2] first so pi x keeps its precision near the integers. */
  T reduced = input + fabs(floor(input + one_half));
  T reflection = y - pi * cos(pi * reduced) / sin(pi * reduced);
  T result = reflect ? reflection : y;
  /* Poles: the one-sided limits agree at 0 (-inf), not at the negative
   * integers (NaN), as TensorFlow's CPU kernel. */
  if (input < zero && input == floor(input)) return K(NAN);
  if (input == zero) return K(-INFINITY);
  return result;
}

/* --- Hurwitz zeta (Johansson 2015, formula 5) ------------------------------
 * zeta(x, q) = S + I + T with S = sum_{k=0}^{N-1} (q + k)^-x (N = 10),
 * I = (q + N)^(1 - x) / (x - 1) and the Euler-Maclaurin tail
 * T = (q + N)^-x (1/2 + sum_{j=1}^{M} B_2j / (2j)! * x (x+1)...(x+2j-2) /
 * (q + N)^(2j-1)), M = 12, the sum by Horner's rule from the highest term.
 * When the next term is below eps * S the plain sum S is returned. */

T FN(k_zeta)(T x, T q) {
  const T one = K(1);
  T acc = q;
  T s = pow(q, -x);
  for (int i = 0; i < K_ZETA_N; i++) {
    acc = acc + one;
    s = s + pow(acc, -x);
  }
  acc = acc + one;
  T neg_power = pow(acc, -x);
  T integral = neg_power * acc / (x - one);
  T a_inverse_square = one / (acc * acc);
  T horner_sum = K(0);
  for (int i = 0; i < K_ZETA_M - 1; i++) {
    /* x (x+1)...: the pair of rising factors that joins term 12-i. */
    T factor = (x + K(2 * K_ZETA_M - 2 - 2 * i)) * (x + K(2 * K_ZETA_M - 3 - 2 * i));
    horner_sum = factor * a_inverse_square * (horner_sum + K(1.0 / k_zeta_coef[i]));
  }
  T tail = neg_power * (K(0.5) + x / acc * (K(1.0 / k_zeta_coef[K_ZETA_M - 1]) + horner_sum));
  T accurate = s + integral + tail;
  T out = fabs(neg_power) < fabs(s) * K(T_EPS) ? s : accurate;
  if (x == one) out = K(INFINITY); /* the harmonic series */
  if (x < one) out = K(NAN);
  if (q <= K(0) && x != floor(x)) out = K(NAN);
  /* Poles at the integers q <= 0: +inf only for even integer x. */
  if (q <= K(0) && q == floor(q))
    out = fmod(x, K(2)) == K(0) && x == floor(x) ? K(INFINITY) : K(NAN);
  return out;
}

/* --- polygamma --------------------------------------------------------------
 * psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x) for n >= 1.  That expansion
 * needs q = x > 0, so for x < 0 (not an integer) and 1 <= n <= 4 XLA uses
 * the n-th derivative of the digamma reflection,
 *   psi^(n)(x) = -n! zeta(n + 1, 1 - x) - g_n(x),  g_n = pi d^n/dx^n cot(pi x),
 * with g_1..g_4 written out (sin and cos of pi x reduced to [-1/2, 1/2]). */

T FN(k_polygamma)(T n, T x) {
  const T one = K(1), two = K(2);
  T n_plus_one = n + one;
  T sign = two * fmod(n, two) - one;
  T out;
  if (n == K(0)) {
    out = FN(k_digamma)(x);
  } else if (x < K(0) && x != floor(x) && n >= one && n <= K(4)) {
    const T pi = K(M_PI);
    T pix_r = pi * (x + fabs(floor(x + K(0.5))));
    T s = sin(pix_r), c = cos(pix_r);
    T s2 = s * s, s3 = s2 * s, s4 = s2 * s2, s5 = s4 * s;
    T pi2 = pi * pi, pi3 = pi2 * pi, pi4 = pi2 * pi2, pi5 = pi4 * pi;
    T gn;
    if (n == one) gn = -(pi2 / s2);
    else if (n == two) gn = two * pi3 * c / s3;
    else if (n == K(3)) gn = K(-2) * pi4 * (two + cos(two * pix_r)) / s4;
    else gn = K(8) * pi5 * c * (two + c * c) / s5;
    T psi_refl = -exp(FN(k_lgamma)(n_plus_one)) * FN(k_zeta)(n_plus_one, one - x);
    out = psi_refl - gn;
  } else {
    out = sign * exp(FN(k_lgamma)(n_plus_one)) * FN(k_zeta)(n_plus_one, x);
  }
  if (n != floor(n) || n < K(0)) out = K(NAN); /* n must be a natural number */
  return out;
}

/* --- derivatives of the regularized incomplete gamma P(a, x) ---------------
 * With ax = x^a e^-x / Gamma(a):
 *  x <= 1 or x <= a: P = ax / a * sum_n c_n, c_0 = 1, c_n = c_{n-1} x / (a+n)
 *    (power series), differentiated term by term in a;
 *  otherwise: 1 - P = ax * CF(a, x), the Legendre continued fraction evaluated
 *    by its convergents p_k / q_k, differentiated along with p_k and q_k.
 * d(log ax)/da = log x - digamma(a) is added by the product rule.  The series
 * stops when the latest derivative term is below eps of the sum, the fraction
 * when the derivative moves by less than eps or after 2000 steps; p, q and
 * their derivatives are scaled by eps when |p| exceeds 1/eps. */

static T LOCAL(igamma_series)(KIgammaGrad which, T ax, T x, T a, bool enabled, T eps) {
  T r = a, c = K(1), ans = K(1), dc_da = K(0), dans_da = K(0);
  for (long it = 0; enabled && it < K_IGAMMA_SERIES_CAP; it++) {
    r = r + K(1);
    dc_da = dc_da * (x / r) + (K(-1) * c * x) / (r * r);
    dans_da = dans_da + dc_da;
    c = c * (x / r);
    ans = ans + c;
    enabled = fabs(dc_da / dans_da) > eps;
  }
  T dlogax_da = log(x) - FN(k_digamma)(a + K(1));
  if (which == K_IGAMMA_GRAD_A) return ax * (ans * dlogax_da + dans_da) / a;
  return -(dans_da + ans * dlogax_da) * x / a;
}

static T LOCAL(igammac_fraction)(KIgammaGrad which, T ax, T x, T a, bool enabled, T eps) {
  T y = K(1) - a, z = x + y + K(1), c = K(0);
  T pkm2 = K(1), qkm2 = x, pkm1 = x + K(1), qkm1 = z * x;
  T ans = pkm1 / qkm1;
  T dpkm2_da = K(0), dqkm2_da = K(0), dpkm1_da = K(0), dqkm1_da = -x;
  T dans_da = (dpkm1_da - ans * dqkm1_da) / qkm1;
  const T inv_eps = K(1) / eps;
  while (enabled && c < K(2000)) {
    c = c + K(1);
    y = y + K(1);
    z = z + K(2);
    T yc = y * c;
    T pk = pkm1 * z - pkm2 * yc;
    T qk = qkm1 * z - qkm2 * yc;
    bool qk_is_nonzero = qk != K(0);
    if (qk_is_nonzero) ans = pk / qk;
    T dpk_da = dpkm1_da * z - pkm1 - dpkm2_da * yc + pkm2 * c;
    T dqk_da = dqkm1_da * z - qkm1 - dqkm2_da * yc + qkm2 * c;
    T dans_da_new = qk_is_nonzero ? (dpk_da - ans * dqk_da) / qk : dans_da;
    T grad_change = qk_is_nonzero ? fabs(dans_da_new - dans_da) : K(1);
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    dpkm2_da = dpkm1_da;
    dqkm2_da = dqkm1_da;
    dpkm1_da = dpk_da;
    dqkm1_da = dqk_da;
    if (fabs(pk) > inv_eps) { /* keep the convergents in range */
      pkm2 = pkm2 * eps;
      pkm1 = pkm1 * eps;
      qkm2 = qkm2 * eps;
      qkm1 = qkm1 * eps;
      dpkm2_da = dpkm2_da * eps;
      dqkm2_da = dqkm2_da * eps;
      dpkm1_da = dpkm1_da * eps;
      dqkm1_da = dqkm1_da * eps;
    }
    dans_da = dans_da_new;
    enabled = grad_change > eps;
  }
  T dlogax_da = log(x) - FN(k_digamma)(a);
  if (which == K_IGAMMA_GRAD_A) return ax * (ans * dlogax_da + dans_da);
  return -(dans_da + ans * dlogax_da) * x;
}

static T LOCAL(igamma_grad)(KIgammaGrad which, T a, T x, T eps, T underflow) {
  if (isnan(a) || isnan(x) || x < K(0) || a <= K(0)) return K(NAN);
  if (x == K(0)) return K(0);
  bool use_igammac = x > K(1) && x > a;
  T log_ax = a * log(x) - x - FN(k_lgamma)(a);
  /* An underflowing ax skips the loops but still goes through the final
   * formula with the starting sums, as in XLA. */
  bool enabled = !(log_ax < underflow);
  T ax = exp(log_ax);
  if (use_igammac) return -LOCAL(igammac_fraction)(which, ax, x, a, enabled, eps);
  return LOCAL(igamma_series)(which, ax, x, a, enabled, eps);
}

/* --- regularized incomplete beta -------------------------------------------
 * I_x(a, b) = x^a (1-x)^b / (a B(a, b)) * 1 / (1 + d_1 / (1 + d_2 / (1 + ...)))
 * (DLMF 8.17.22) with d_{2m+1} = -(a+m)(a+b+m) x / ((a+2m)(a+2m+1)) and
 * d_{2m} = m (b-m) x / ((a+2m-1)(a+2m)).  It converges fast for
 * x < (a+1)/(a+b+2); otherwise I_x(a, b) = 1 - I_{1-x}(b, a) (DLMF 8.17.4).
 * The fraction is evaluated by the modified Lentz method (Thompson & Barnett
 * 1986): tiny = eps/2 replaces zero denominators, and the loop stops when
 * every |delta - 1| < eps/2 (Cephes' thresholds and iteration counts). */

/* Partial numerator `it` (>= 1) of the fraction for one (a, b, x). */
static inline T LOCAL(betainc_numerator)(uint32_t it, T a, T b, T x) {
  if (it == 1) return K(1);
  T m = K((it - 1) / 2);
  if (it % 2 == 0) return -(a + m) * (a + b + m) * x / ((a + K(2) * m) * (a + K(2) * m + K(1)));
  return m * (b - m) * x / ((a + K(2) * m - K(1)) * (a + K(2) * m));
}

/* The (a, b, x) the fraction runs on: swapped by the symmetry relation when
 * the original x is not in the fast region. */
static inline bool LOCAL(betainc_args)(T a, T b, T x, T *fa, T *fb, T *fx) {
  bool direct = x < (a + K(1)) / (a + b + K(2));
  *fa = direct ? a : b;
  *fb = direct ? b : a;
  *fx = direct ? x : K(1) - x;
  return direct;
}

bool FN(k_betainc)(const T *a, const T *b, const T *x, T *out, int64_t n, Error *err) {
  const T tiny = K(T_EPS / 2), threshold = K(T_EPS / 2);
  const uint32_t iterations = sizeof(T) == sizeof(float) ? 200 : 600;
  /* Lentz state per element: c, d here, the convergent h in out. */
  T *c = malloc((size_t)(n > 0 ? n : 1) * 2 * sizeof(T));
  if (!c) return error_set(err, ERR_RUNTIME, -1, "out of memory (incomplete beta of %lld elements)",
                           (long long)n);
  T *d = c + n;
  for (int64_t i = 0; i < n; i++) { /* partial denominator 0 is 0 -> tiny */
    c[i] = tiny;
    d[i] = K(0);
    out[i] = tiny;
  }
  bool unconverged = true;
  for (uint32_t it = 1; it < iterations && unconverged; it++) {
    unconverged = false;
    for (int64_t i = 0; i < n; i++) {
      T fa, fb, fx;
      LOCAL(betainc_args)(a[i], b[i], x[i], &fa, &fb, &fx);
      T num = LOCAL(betainc_numerator)(it, fa, fb, fx);
      T ci = K(1) + num / c[i];
      if (fabs(ci) < tiny) ci = tiny;
      T di = K(1) + num * d[i];
      if (fabs(di) < tiny) di = tiny;
      di = K(1) / di;
      T delta = ci * di;
      out[i] = out[i] * delta;
      c[i] = ci;
      d[i] = di;
      unconverged |= fabs(delta - K(1)) >= threshold;
    }
  }
  free(c);
  for (int64_t i = 0; i < n; i++) {
    T fa, fb, fx;
    bool direct = LOCAL(betainc_args)(a[i], b[i], x[i], &fa, &fb, &fx);
    T lbeta = FN(k_lgamma)(fa) + FN(k_lgamma)(fb) - FN(k_lgamma)(fa + fb);
    T r = out[i] * exp(log(fx) * fa + log1p(-fx) * fb - lbeta) / fa;
    if (a[i] <= K(0) || b[i] <= K(0) || x[i] < K(0) || x[i] > K(1)) r = K(NAN);
    out[i] = direct ? r : K(1) - r;
  }
  return true;
}

#undef LOCAL
#undef K
