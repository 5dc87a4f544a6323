#!/usr/bin/python3
"""Reference values for XlaBuilder's special functions (kernels/k_special.c,
custom calls xla_builder.math.*), computed independently of hlotools:

  * mpmath at 40 digits for IgammaGradA (d/da of the regularized lower
    incomplete gamma, numerically differentiated by mpmath.diff at that
    precision), RandomGammaGrad (-(dP/da) / (dP/dx)), Polygamma and the
    regularized incomplete beta;
  * numpy.nextafter for NextAfter (f16, f32, f64), and hand-derived bit
    patterns for f8e5m2fnuz (see nextafter_fnuz below).

Run with /usr/bin/python3 (numpy, scipy; mpmath from Debian's
python3-mpmath: apt-get install python3-mpmath).  It

  1. prints the C tables pasted into tests/test_special.c, and
  2. writes the golden cases testdata/interp-builder-math/*.{hlo,yaml,out}.

Every input is first rounded to f32 so one table serves the f32 and f64
tests; the references are evaluated at those exact values."""
import math
import os
import sys

import mpmath as mp
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens"))
from gen import write  # noqa: E402
from hlolit import const, shape_str  # noqa: E402

mp.mp.dps = 40
NAN, INF = float("nan"), float("inf")


def f32(v):
    return float(np.float32(v))


# ----------------------------------------------------------------- references


def ref_igamma_grad_a(a, x):
    if math.isnan(a) or math.isnan(x) or x < 0 or a <= 0:
        return NAN
    if x == 0:
        return 0.0
    return float(mp.diff(lambda s: mp.gammainc(s, 0, x, regularized=True), mp.mpf(a)))


def ref_random_gamma_grad(a, x):
    if math.isnan(a) or math.isnan(x) or x < 0 or a <= 0:
        return NAN
    if x == 0:
        return 0.0
    a, x = mp.mpf(a), mp.mpf(x)
    dp_da = mp.diff(lambda s: mp.gammainc(s, 0, x, regularized=True), a)
    dp_dx = mp.exp((a - 1) * mp.log(x) - x - mp.loggamma(a))
    return float(-dp_da / dp_dx)


def ref_polygamma(n, x):
    """XLA's conventions at the edges: NaN unless n is a natural number;
    poles give what XLA's zeta/digamma give (checked by hand below)."""
    if math.isnan(n) or math.isnan(x) or n != math.floor(n) or n < 0:
        return NAN
    if x <= 0 and x == math.floor(x):
        if n == 0:
            return -INF if x == 0 else NAN  # digamma: -inf at 0, NaN at negative integers
        # sign * n! * zeta(n+1, q<=0 integer): +inf for even n+1, else NaN
        return INF if (n + 1) % 2 == 0 else NAN
    return float(mp.polygamma(int(n), x))


def ref_betainc(a, b, x):
    if a <= 0 or b <= 0 or x < 0 or x > 1:
        return NAN
    return float(mp.betainc(a, b, 0, x, regularized=True))


# ------------------------------------------------------------- the test points

IGAMMA_POINTS = [
    (0.5, 0.25), (0.5, 3.0), (1.0, 1.0), (2.5, 0.75), (2.5, 4.0), (10.0, 8.0), (10.0, 12.0),
    (0.125, 0.015625), (3.0, 20.0), (50.0, 45.0), (0.03125, 0.5), (100.0, 120.0), (1.5, 1.25),
    (7.0, 0.5), (20.0, 21.0),
]
POLYGAMMA_POINTS = [
    (0, 2.5), (0, 0.25), (0, 30.0), (1, 0.5), (1, 3.75), (2, 1.25), (3, 10.5), (4, 0.375),
    (5, 2.0), (6, 7.5), (1, -1.5), (2, -0.75), (3, -2.25), (4, -3.625), (0, -0.5), (1, 100.0),
]
BETAINC_POINTS = [
    (0.5, 0.5, 0.25), (2.0, 3.0, 0.375), (2.0, 3.0, 0.875), (10.0, 2.0, 0.9375), (1.0, 1.0, 0.5),
    (5.0, 5.0, 0.5), (0.125, 10.0, 0.015625), (30.0, 40.0, 0.40625), (3.5, 0.75, 0.6875),
    (100.0, 80.0, 0.5625), (0.5, 20.0, 0.125), (1.5, 1.5, 0.99),
]


def inputs(points):
    return [tuple(f32(v) for v in p) for p in points]


def c_table(name, rows, nin):
    out = ["static const double %s[][%d] = {" % (name, nin + 1)]
    for r in rows:
        out.append("    {%s}," % ", ".join(c_double(v) for v in r))
    out.append("};")
    return "\n".join(out)


def c_double(v):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(v)


def tables():
    print("/* scripts/gen-special.py: {a, x, d/da P(a, x)} (mpmath, 40 digits) */")
    print(c_table("igamma_grad_a_ref", [p + (ref_igamma_grad_a(*p),) for p in inputs(IGAMMA_POINTS)], 2))
    print("/* scripts/gen-special.py: {a, x, -(dP/da) / (dP/dx)} (mpmath) */")
    print(c_table("random_gamma_grad_ref",
                  [p + (ref_random_gamma_grad(*p),) for p in inputs(IGAMMA_POINTS)], 2))
    print("/* scripts/gen-special.py: {n, x, polygamma(n, x)} (mpmath) */")
    print(c_table("polygamma_ref", [p + (ref_polygamma(*p),) for p in inputs(POLYGAMMA_POINTS)], 2))
    print("/* scripts/gen-special.py: {a, b, x, I_x(a, b)} (mpmath) */")
    print(c_table("betainc_ref", [p + (ref_betainc(*p),) for p in inputs(BETAINC_POINTS)], 3))


# -------------------------------------------------------------------- goldens
#
# Approximate results are compared after the module scales them and rounds
# (round-nearest-even, then +0 so -0 prints as 0): each element's scale is
# the largest power of ten at which the tolerance (rel_tol * |v| * scale) stays below 0.05
# of a unit and every scaled reference sits at least 0.08 away from a
# rounding boundary, so any result within the tolerance prints the same.

DIR = "interp-builder-math"
REL_TOL = {"f32": 2e-5, "f64": 1e-11}


class Mod:
    def __init__(self):
        self.lines, self.outs, self.exp, self.n = [], [], [], 0

    def name(self, p):
        self.n += 1
        return "%s_%d" % (p, self.n)

    def out(self, name, et, arr):
        self.outs.append((name, et, list(np.shape(arr))))
        self.exp.append((et, np.asarray(arr)))

    def call(self, et, fn, args):
        """custom-call of xla_builder.math.fn on constant operands; its name."""
        names = []
        for arr in args:
            c = self.name("c")
            self.lines.append(const(c, et, np.asarray(arr, np.float64)))
            names.append(c)
        r = self.name("r")
        s = shape_str(et, [len(args[0])])
        self.lines.append('  %s = %s custom-call(%s), custom_call_target="xla_builder.math.%s"'
                          % (r, s, ", ".join(names), fn))
        return r

    @staticmethod
    def clear_of_ties(w):
        """w is an integer, or at least 0.08 away from the half-way points."""
        return abs(w - round(w)) < 1e-9 or abs(w - math.floor(w) - 0.5) > 0.08

    def quant(self, src, et, ref):
        """Root output round(src * scale) + 0, one power-of-ten scale per
        element (a constant array)."""
        ref = np.asarray(ref, np.float64)
        t = np.float32 if et == "f32" else np.float64
        scales = []
        for v in ref:
            k = 0 if v == 0 else math.floor(math.log10(0.05 / (REL_TOL[et] * abs(v))))
            for scale in (10.0 ** (k - i) for i in range(4)):
                if self.clear_of_ties(v * float(t(scale))):
                    break
            else:
                raise ValueError("%s: reference %r sits on a rounding boundary" % (src, v))
            scales.append(scale)
        s = shape_str(et, [len(ref)])
        q = self.name("q")
        self.lines += ["  %s_s = %s constant({%s})" % (q, s, ", ".join(
                           ("%d" % c) if c >= 1 else repr(c) for c in scales)),
                       "  %s_m = %s multiply(%s, %s_s)" % (q, s, src, q),
                       "  %s_r = %s round-nearest-even(%s_m)" % (q, s, q),
                       "  %s_z = %s[] constant(0)" % (q, et),
                       "  %s_zb = %s broadcast(%s_z), dimensions={}" % (q, s, q),
                       "  %s = %s add(%s_r, %s_zb)" % (q, s, q, q)]
        self.out(q, et, np.round(ref * np.asarray(scales, t)).astype(t) + t(0))

    def write(self, name):
        shapes = ", ".join(shape_str(et, dims) for _, et, dims in self.outs)
        names = ", ".join(n for n, _, _ in self.outs)
        hlo = ("HloModule %s\n\nENTRY main {\n%s\n  ROOT out = (%s) tuple(%s)\n}\n"
               % (name, "\n".join(self.lines), shapes, names))
        write(DIR, name, hlo, self.exp)


def golden_approx(name, fn, ref, points, edges):
    """f32 and f64 calls of fn on points (scaled, rounded) and on edge cases
    whose results are exact (NaN, inf, 0: compared as they are)."""
    m = Mod()
    pts = inputs(points)
    cols = list(zip(*pts))
    for et in ("f32", "f64"):
        r = m.call(et, fn, cols)
        m.quant(r, et, [ref(*p) for p in pts])
        ecols = list(zip(*edges))
        r = m.call(et, fn, ecols)
        m.out(r, et, np.asarray([ref(*p) for p in edges], np.float32 if et == "f32" else np.float64))
    m.write(name)


def golden_nextafter():
    """numpy.nextafter on f16, f32, f64 over zeros, subnormals, the largest
    finite values, infinities and NaN (XLA returns the type's default quiet
    NaN, positive, when either operand is NaN)."""
    m = Mod()
    for et, t in (("f16", np.float16), ("f32", np.float32), ("f64", np.float64)):
        fi = np.finfo(t)
        tiny = t(fi.smallest_subnormal)
        pairs = [(0.0, 1.0), (0.0, -1.0), (-0.0, 0.0), (0.0, -0.0), (-0.0, -1.0), (tiny, 0.0),
                 (-tiny, 1.0), (tiny, 1.0), (1.0, 2.0), (1.0, 0.0), (-1.0, -2.0), (-1.0, 2.0),
                 (fi.max, INF), (INF, 0.0), (-INF, 0.0), (fi.max, fi.max), (1.5, NAN), (NAN, 1.0),
                 (fi.tiny, 0.0), (2.0, 2.0)]
        fr = np.asarray([p[0] for p in pairs], t)
        to = np.asarray([p[1] for p in pairs], t)
        with np.errstate(over="ignore"):  # max -> inf is the point
            ref = np.nextafter(fr, to)
        ref = np.where(np.isnan(ref), t(NAN), ref)  # positive default NaN
        # numpy's float16 nextafter returns `from` when the two compare equal
        # (-0 vs 0); C's nextafter, and XLA, return `to`.
        ref = np.where(fr == to, to, ref)
        names = []
        for arr in (fr, to):
            c = m.name("c")
            m.lines.append("  %s = %s constant({%s})" % (c, shape_str(et, [len(arr)]),
                                                           ", ".join(hlo_float(v) for v in arr)))
            names.append(c)
        r = m.name("r")
        m.lines.append('  %s = %s custom-call(%s, %s), custom_call_target="xla_builder.math.NextAfter"'
                       % (r, shape_str(et, [len(pairs)]), names[0], names[1]))
        m.out(r, et, ref)
    m.write("next_after_f16_f32_f64")


def hlo_float(v):
    v = float(v)
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return repr(v)


def main():
    tables()
    golden_approx("igamma_grad_a", "IgammaGradA", ref_igamma_grad_a,
                  [(0.5, 0.25), (2.5, 4.0), (10.0, 8.0), (1.5, 1.25), (3.0, 20.0)],
                  [(1.0, 0.0), (0.0, 1.0), (-1.0, 2.0), (2.0, -1.0), (NAN, 1.0)])
    golden_approx("random_gamma_grad", "RandomGammaGrad", ref_random_gamma_grad,
                  [(0.5, 0.25), (2.5, 4.0), (10.0, 9.0), (1.5, 1.25), (3.0, 20.0)],
                  [(1.0, 0.0), (0.0, 1.0), (2.0, -1.0), (1.0, NAN)])
    golden_approx("polygamma", "Polygamma", ref_polygamma,
                  [(0, 2.5), (1, 0.5), (2, 1.25), (3, 10.5), (1, -1.5), (2, -0.75)],
                  [(1.5, 2.0), (-1.0, 2.0), (0.0, 0.0), (0.0, -2.0), (1.0, 0.0), (2.0, 0.0)])
    golden_approx("regularized_incomplete_beta", "RegularizedIncompleteBeta", ref_betainc,
                  [(0.5, 0.5, 0.25), (2.0, 3.0, 0.375), (2.0, 3.0, 0.875), (5.0, 5.0, 0.5),
                   (3.5, 0.75, 0.6875)],
                  [(0.0, 1.0, 0.5), (1.0, -1.0, 0.5), (1.0, 1.0, -0.5), (1.0, 1.0, 1.5),
                   (2.0, 3.0, 0.0), (2.0, 3.0, 1.0)])
    golden_nextafter()
    print("/* wrote %s */" % ", ".join(sorted(os.path.basename(w) for w in __import__("gen").written)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
