#!/usr/bin/python3
"""Inputs and independent references of the CHLO goldens
(testdata/stablehlo/chlo_*.mlir): each function evaluated in double (or
better) by mpmath and python's math module, then rounded to the golden's
type, never by hlotools.  Run from the repository root; rewrites the .npz
files.  Poles and edge values follow the functions' definitions (lgamma's
poles are +inf, digamma's nan, erf_inv(+-1) = +-inf)."""
import cmath
import math

import mpmath
import numpy as np

D = "testdata/stablehlo/"
mpmath.mp.dps = 40
INF, NAN = math.inf, math.nan

ERF_INV_IN = [0.0, 0.5, -0.5, 0.9, -0.99, 0.999999, 1.0, -1.0, 1.5, NAN, 1e-4, -0.3]
ERF_IN = [0.0, 0.25, -0.75, 1.0, -1.5, 1.99, 2.0, -3.5, 6.0, 10.0, 30.0, INF, -INF, NAN]
GAMMA_IN = [0.0, -1.0, -2.0, 1.0, 2.0, 0.5, -0.5, -2.5, 3.7, 1e-3, 100.0, 7.25, INF, NAN]


BESSEL_IN = [0.0, 0.5, -1.0, 5.0, 8.0, 20.0, -100.0]


def bessel_i1e(x):
    return float(mpmath.besseli(1, x) * mpmath.exp(-abs(x)))


def erf_inv(x):
    if math.isnan(x) or abs(x) > 1:
        return NAN
    if abs(x) == 1:
        return math.copysign(INF, x)
    return float(mpmath.erfinv(x))


def erfc(x):
    return NAN if math.isnan(x) else math.erfc(x)


def erf(x):
    return NAN if math.isnan(x) else math.erf(x)


def lgamma(x):
    if math.isnan(x):
        return NAN
    if math.isinf(x) or (x <= 0 and x == math.floor(x)):
        return INF
    return math.lgamma(x)


def digamma(x):
    if math.isnan(x) or (x <= 0 and x == math.floor(x)):
        return NAN
    if x == INF:
        return INF
    return float(mpmath.digamma(x))


def special(dtype, name):
    a = np.array(ERF_INV_IN, dtype)
    b = np.array(ERF_IN, dtype)
    c = np.array(GAMMA_IN, dtype)
    extra = {}
    if dtype == np.float64:
        extra["d"] = np.array(BESSEL_IN, dtype)
    np.savez(D + name + "_in.npz", a=a, b=b, c=c, **extra)
    # The reference of the value the module sees (the input rounded to dtype).
    outs = [[erf_inv(float(v)) for v in a], [erf(float(v)) for v in b], [erfc(float(v)) for v in b],
            [lgamma(float(v)) for v in c], [digamma(float(v)) for v in c]]
    if "d" in extra:
        outs.append([bessel_i1e(float(v)) for v in extra["d"]])
    np.savez(D + name + ".expected.npz", **{f"out{i}": np.array(o, dtype) for i, o in enumerate(outs)})


def safe(f, x):
    """f(x) in double; nan outside its domain, +-inf past overflow."""
    if math.isnan(x):
        return NAN
    try:
        return f(x)
    except ValueError:
        return NAN
    except OverflowError:
        return math.copysign(INF, x) if f is not math.cosh else INF


def atanh(x):
    return math.copysign(INF, x) if abs(x) == 1 else math.atanh(x)


def trig():
    f = np.float32
    t = np.array([0.0, 0.5, -0.9, 1e-4, 3.0, -20.0, 100.0, 1e30], f)
    u = np.array([0.0, 0.5, -0.5, 1.0, -1.0, 0.99, 1.5, NAN], f)
    v = np.array([1.0, 1.5, 10.0, 1e20, 0.5, -2.0, 3e38, NAN], f)[:7]
    w = np.array([0.0, INF, -INF, NAN, 1.0], f)
    z = np.array([1 + 2j, 0.5 - 1j], np.complex64)
    np.savez(D + "chlo_trig_in.npz", t=t, u=u, v=v, w=w, z=z)
    outs = [[safe(g, float(x)) for x in t] for g in (math.sinh, math.cosh, math.tan, math.atan, math.asinh)]
    outs += [[safe(g, float(x)) for x in u] for g in (math.asin, math.acos, atanh)]
    outs.append([safe(math.acosh, float(x)) for x in v])
    with np.errstate(over="ignore"):
        outs = [np.array(o, np.float64).astype(f) for o in outs]
    outs += [np.isinf(w), np.isposinf(w), np.isneginf(w)]
    outs += [np.array([g(complex(c)) for c in z], np.complex64) for g in (cmath.sinh, cmath.cosh)]
    np.savez(D + "chlo_trig.expected.npz", **{f"out{i}": o for i, o in enumerate(outs)})


def polygamma(n, x):
    if math.isnan(n) or n < 0 or n != math.floor(n):
        return NAN
    return float(mpmath.polygamma(int(n), x))


def zeta(s, q):
    if s == 1:
        return INF
    if s < 1:
        return NAN
    return float(mpmath.zeta(s, q))


def more():
    f = np.float32
    n = np.array([0, 1, 2, 3, 1, 1.5, -1], f)
    x = np.array([2.5, 1, 0.5, 3, -1.5, 2, 2], f)
    s = np.array([2, 3, 1, 0.5, 4, 2.5], f)
    q = np.array([1, 2, 1, 1, 0.5, 3], f)
    b = np.array(BESSEL_IN, f)
    h = np.array([0, 0.5, -0.9, 1], f)  # exact in bf16
    np.savez(D + "chlo_more_in.npz", n=n, x=x, s=s, q=q, b=b, h=h.astype(np.float32))
    outs = [[polygamma(float(a), float(c)) for a, c in zip(n, x)],
            [zeta(float(a), float(c)) for a, c in zip(s, q)],
            [bessel_i1e(float(v)) for v in b],
            [erf_inv(float(v)) for v in h],
            [polygamma(1.0, float(c)) for c in x]]
    np.savez(D + "chlo_more.expected.npz", **{f"out{i}": np.array(o, np.float64).astype(f) for i, o in enumerate(outs)})
    # next_after: numpy's nextafter on float32 is the reference.
    xs = np.array([0, 0, 1, 1, -0.0, NAN, 2], f)
    ys = np.array([1, -1, 2, 0, 0, 1, 2], f)
    np.savez(D + "chlo_next_after_in.npz", x=xs, y=ys)
    np.savez(D + "chlo_next_after.expected.npz", out0=np.nextafter(xs, ys), out1=np.nextafter(xs, f(INF)))


if __name__ == "__main__":
    more()
    trig()
    special(np.float32, "chlo_special_f32")
    special(np.float64, "chlo_special_f64")
