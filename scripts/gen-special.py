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
from hlolit import cast, const, shape_str  # noqa: E402

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
# the largest power of ten at which the tolerance (REL_TOL * |v| * scale)
# stays below 0.05 of a unit and the scaled reference sits at least 0.08
# away from a rounding tie, so any result within the tolerance prints the
# same.  REL_TOL covers what tests/test_special.c measures for these points.

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


def golden_narrow(name, fn, ref, points):
    """f16 and bf16 operands, which XLA (and hlorun) compute in f32 and round
    once: the expected value is the reference rounded to the type, for the
    points whose reference lies at least 0.05 ulp away from a rounding tie
    (the f32 computation is good to ~1e-5 relative, well inside that)."""
    m = Mod()
    for et, p in (("f16", 11), ("bf16", 8)):
        pts, want = [], []
        for pt in points:
            pt = tuple(float(cast(et, np.float64(v))) for v in pt)
            v = ref(*pt)
            w = v / 2.0 ** (math.frexp(v)[1] - p)  # v in ulps of et
            if abs(w - math.floor(w) - 0.5) > 0.05:  # else: too near a tie, skipped
                pts.append(pt)
                want.append(v)
        assert len(pts) >= 3, (name, et)
        r = m.call(et, fn, list(zip(*pts)))
        m.out(r, et, cast(et, np.asarray(want, np.float64)))
    m.write(name)


def golden_nextafter_fnuz():
    """f8e5m2fnuz by hand (bias 16, 2 mantissa bits, no -0, NaN = 0x80):
    2^-17 = 7.62939453125e-06 is the smallest subnormal (0x01), 1.0 is 0x40
    and 0.875 (0x3f) its lower neighbour, 57344 (0x7f) the largest.
      -2^-17 -> 1      : +0 (the step would land on -0, which is NaN here)
      0      -> -1     : -2^-17 (0x81)
      1      -> 0      : 0.875
      1      -> 57344  : 1.25 (0x41)
      57344  -> 57344  : 57344
      -1     -> 1      : -0.875 (signs differ: towards zero)
      nan    -> 1      : nan (0x80, which convert to f32 reads as -nan: the
                         NaN keeps its sign bit, set in 0x80)"""
    m = Mod()
    fr = "-7.62939453125e-06, 0, 1, 1, 57344, -1, nan"
    to = "1, -1, 0, 57344, 57344, 1, 1"
    m.lines += ["  c_1 = f8e5m2fnuz[7] constant({%s})" % fr,
                "  c_2 = f8e5m2fnuz[7] constant({%s})" % to,
                '  r_3 = f8e5m2fnuz[7] custom-call(c_1, c_2), '
                'custom_call_target="xla_builder.math.NextAfter"',
                "  r_4 = f32[7] convert(r_3)"]
    m.outs.append(("r_4", "f32", [7]))
    m.exp.append(("f32", np.asarray([0, -7.62939453125e-06, 0.875, 1.25, 57344, -0.875, -NAN],
                                    np.float32)))
    m.write("next_after_f8e5m2fnuz")


def golden_errors():
    """Operands XLA rejects (or computes in 8-bit arithmetic, which hlorun
    does not reproduce) are errors naming the instruction."""
    cases = [
        ("error_shapes_differ", "f32[3]", "f32[2]", "f32[3]", "IgammaGradA",
         "instruction r: xla_builder.math.IgammaGradA needs operands and result of one shape"),
        ("error_types_differ", "f32[2]", "f64[2]", "f32[2]", "Polygamma",
         "instruction r: xla_builder.math.Polygamma needs operands and result of one shape"),
        ("error_f8_polygamma", "f8e4m3fn[2]", "f8e4m3fn[2]", "f8e4m3fn[2]", "Polygamma",
         "instruction r: xla_builder.math.Polygamma of f8e4m3fn is not supported"),
        ("error_integer_operands", "s32[2]", "s32[2]", "s32[2]", "NextAfter",
         "instruction r: xla_builder.math.NextAfter of s32: operands must be real floats"),
    ]
    for name, s0, s1, rs, fn, msg in cases:
        hlo = ("HloModule %s\n\nENTRY main {\n  p0 = %s parameter(0)\n  p1 = %s parameter(1)\n"
               '  ROOT r = %s custom-call(p0, p1), custom_call_target="xla_builder.math.%s"\n}\n'
               % (name, s0, s1, rs, fn))
        write_error(name, hlo, msg)
    hlo = ("HloModule error_operand_count\n\nENTRY main {\n  p0 = f32[2] parameter(0)\n"
           '  ROOT r = f32[2] custom-call(p0, p0), '
           'custom_call_target="xla_builder.math.RegularizedIncompleteBeta"\n}\n')
    write_error("error_operand_count", hlo, "instruction r: xla_builder.math."
                "RegularizedIncompleteBeta takes 3 arrays and returns one array")


def write_error(name, hlo, msg):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", DIR)
    with open(os.path.join(path, name + ".hlo"), "w") as f:
        f.write(hlo)
    with open(os.path.join(path, name + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                "stderr_contains: '%s'\n" % (name, msg))


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
    golden_narrow("polygamma_f16_bf16", "Polygamma", ref_polygamma,
                  [(0, 2.5), (1, 0.5), (2, 1.25), (1, -1.5), (1, -1.25), (3, 4.0), (0, 7.0)])
    golden_narrow("regularized_incomplete_beta_f16_bf16", "RegularizedIncompleteBeta", ref_betainc,
                  [(0.5, 0.5, 0.25), (2.0, 3.0, 0.375), (5.0, 5.0, 0.75), (3.5, 0.75, 0.6875),
                   (1.5, 4.0, 0.125)])
    golden_nextafter()
    golden_nextafter_fnuz()
    golden_errors()
    print("/* wrote %s */" % ", ".join(sorted(os.path.basename(w) for w in __import__("gen").written)),
          file=sys.stderr)


if __name__ == "__main__":
    main()
