#!/usr/bin/python3
"""Writes testdata/op-type-matrix/: every elementwise op x every element type.

Run from anywhere:  /usr/bin/python3 scripts/gen-op-type-matrix.py

The op list is read from parser/opcodes.def (OPC_UNARY / OPC_BINARY rows, plus
the elementwise ops of class OPC_OTHER named in OTHER_OPS) and the type list
from layout/etypes.def, so a new op or type joins the sweep by itself: an op
this script cannot classify stops it with an error, and a new element kind
too.  For each (op, type) pair the expected verdict is one of

  computed        the module runs; its output is the oracle's, byte for byte
  verify-rejected hlorun exits 3 and names the op and the type (the line of
                  every rejected instruction is in <op>.rejected.err)
  refused         the verifier accepts it but the evaluator refuses at run
                  time: exit 1, the message names the op and the type

and MATRIX.md lists every pair with its verdict.

The oracle is testdata/elementwise/xla_model.py (exact narrow-float
encoding, XLA's literal printing) with the op models of
testdata/elementwise/gen.py and gen_more.py (numpy f32, Python floats,
exact integers), never hlorun's output.  Which pairs XLA accepts follows
xla/service/shape_inference.cc (InferUnaryOpShape, InferBinaryOpShape); the
few places where hlotools is stricter are listed in DEVIATIONS and in
MATRIX.md.

Inputs are edge values: 0, -0, +-1, the type's min/max, NaN, +-inf,
denormals, overflowing results, division by zero, shifts >= the bit width.
Transcendental functions (exp, log, sin, ..., power, atan2) are only fed
points whose result is exact (0, 1, inf, NaN, ...): the golden runner
compares text, and a libm result is not exactly specified elsewhere
(testdata/elementwise/*_transcendental cover glibc's values on f32, f64,
bf16, f16).  NaNs an op creates (0/0, inf-inf) have the CPU's sign, so they
are checked with compare(r, r), direction=NE as in testdata/elementwise.
"""
import math
import os
import re
import sys

sys.dont_write_bytecode = True
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'testdata', 'elementwise'))

import numpy as np  # noqa: E402

import xla_model as X  # noqa: E402

# The model knows s2..s64/u2..u64; the 1-bit integers follow the same rules.
X.INT_BITS.setdefault('s1', 1)
X.INT_BITS.setdefault('u1', 1)

import gen as G  # noqa: E402
import gen_more as GM  # noqa: E402

GM.g = G
_total_key = GM.total_key


def total_key(t, v):
    # f8e8m0fnu has no sign bit: its bits are already in value order, the NaN
    # (0xff) above every number as a positive NaN is in the total order
    return v if t == 'f8e8m0fnu' else _total_key(t, v)


GM.total_key = total_key
OUT_DIR = os.path.join(REPO, 'testdata', 'op-type-matrix')
G.OUT_DIR = OUT_DIR
np.seterr(all='ignore')
NAN, INF = math.nan, math.inf

# ------------------------------------------------------------ the tables


def read_opcodes():
    ops = []
    pat = re.compile(r'^OPCODE\(\w+, "([^"]+)", -?\d+, -?\d+, (OPC_\w+)\)')
    with open(os.path.join(REPO, 'parser', 'opcodes.def')) as f:
        for line in f:
            m = pat.match(line)
            if m:
                ops.append((m.group(1), m.group(2)))
    return ops


def read_etypes():
    types = []
    pat = re.compile(r'^ETYPE\(\w+, "([^"]+)", (\d+), (\d+), (EK_\w+)\)')
    with open(os.path.join(REPO, 'layout', 'etypes.def')) as f:
        for line in f:
            m = pat.match(line)
            if m:
                types.append((m.group(1), m.group(4)))
    return types


KIND_LETTER = {'EK_PRED': 'P', 'EK_SINT': 'S', 'EK_UINT': 'U', 'EK_FLOAT': 'F', 'EK_COMPLEX': 'C'}
NOT_ARRAY_KINDS = ('EK_TOKEN', 'EK_OPAQUE')  # no values to compute on

# Which element kinds XLA's shape inference accepts, per op (P pred, S/U
# signed/unsigned integers, F floats, C complex).  'how' says how the oracle
# computes it: 'exact' over every edge value, 'points' over the op's exact
# points only (transcendental functions).
UNARY = {
    'abs': ('SFC', 'exact'),            # ElementIsSigned || complex
    'negate': ('SUFC', 'exact'),
    'sign': ('SFC', 'exact'),
    'not': ('PSU', 'exact'),
    'popcnt': ('SU', 'exact'),
    'count-leading-zeros': ('SU', 'exact'),
    'floor': ('F', 'exact'), 'ceil': ('F', 'exact'),
    'round-nearest-afz': ('F', 'exact'), 'round-nearest-even': ('F', 'exact'),
    'is-finite': ('F', 'exact'),
    'real': ('FC', 'exact'), 'imag': ('FC', 'exact'),
    'sqrt': ('FC', 'exact'),            # correctly rounded (IEEE), f32 >= 2p+2 for narrow types
    'copy': ('PSUFC', 'exact'),
    'reduce-precision': ('F', 'exact'),  # with the type's own exponent/mantissa: identity
    'erf': ('F', 'points'),
    'exponential': ('FC', 'points'), 'exponential-minus-one': ('FC', 'points'),
    'log': ('FC', 'points'), 'log-plus-one': ('FC', 'points'), 'rsqrt': ('FC', 'points'),
    'cbrt': ('FC', 'points'), 'sine': ('FC', 'points'), 'cosine': ('FC', 'points'),
    'tan': ('FC', 'points'), 'tanh': ('FC', 'points'), 'logistic': ('FC', 'points'),
}
BINARY = {
    'add': ('PSUFC', 'exact'), 'multiply': ('PSUFC', 'exact'),
    'maximum': ('PSUFC', 'exact'), 'minimum': ('PSUFC', 'exact'),
    'subtract': ('SUFC', 'exact'), 'divide': ('SUFC', 'exact'), 'remainder': ('SUFC', 'exact'),
    'power': ('SUFC', 'points'), 'atan2': ('SUFC', 'points'),
    'shift-left': ('SUFC', 'exact'), 'shift-right-arithmetic': ('SUFC', 'exact'),
    'shift-right-logical': ('SUFC', 'exact'),
    'and': ('PSU', 'exact'), 'or': ('PSU', 'exact'), 'xor': ('PSU', 'exact'),
    'complex': ('F', 'exact'),          # f32 or f64 only (other floats: Unimplemented)
}
# Elementwise ops of class OPC_OTHER the sweep covers; every other
# OPC_OTHER op is not elementwise (the matrix ignores it).
OTHER_OPS = ('compare', 'select', 'clamp', 'convert', 'reduce')
REDUCERS = ('add', 'multiply', 'maximum', 'minimum', 'and', 'or', 'xor')

# Where hlotools' verifier is stricter than XLA's shape inference: the pair
# is rejected (exit 3) although InferBinaryOpShape only refuses PRED.  XLA's
# HloEvaluator cannot compute these either (no float shifts, no integer or
# complex atan2), so rejecting up front is the safe choice.
DEVIATIONS = {
    'atan2': ('SU', 'XLA accepts integer atan2 (InferBinaryOpShape only refuses PRED); rejected here'),
    'shift-left': ('FC', 'XLA accepts float/complex shifts (only PRED refused); rejected here'),
    'shift-right-arithmetic': ('FC', 'XLA accepts float/complex shifts (only PRED refused); rejected here'),
    'shift-right-logical': ('FC', 'XLA accepts float/complex shifts (only PRED refused); rejected here'),
    'complex': ('F', 'complex of two floats other than f32/f64: XLA returns Unimplemented'),
}
# Pairs the verifier accepts (as XLA does) but no evaluator computes: they
# must be refused at run time (exit 1).  Key: (op, kind letters or a type).
REFUSED = {
    ('cbrt', 'C'): 'no complex cbrt in XLA\'s evaluator or in C',
    ('remainder', 'C'): 'XLA\'s evaluator has no complex remainder',
}

# The verifier's wording for a rejected element type (parser/infer_elementwise.c).
EXPECTED_WORDS = {
    'P': 'pred', 'PSU': 'pred or integral', 'SU': 'integral', 'F': 'floating', 'FC': 'floating or complex',
    'SFC': 'signed or complex', 'SUFC': 'integral, floating or complex', 'ARITH': 'arithmetic',
}

# ------------------------------------------------------------ edge values


def int_edges(t):
    w = X.INT_BITS[t]
    raw = [0, 1, X.imax(t), X.imin(t), 2, 3, X.imax(t) - 1, -1, -2, (1 << (w - 1)) // 3]
    out = []
    for v in raw:
        v = X.wrap(t, v)
        if v not in out:
            out.append(v)
    return out


def float_edges(t):
    """0, -0, +-1, +-max, +-min denormal, NaN, +-inf, 1.5, -2.5 when t has them."""
    xs = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, NAN, INF, -INF]
    if t == 'f32':
        xs += [3.4028234663852886e38, -3.4028234663852886e38, 1.401298464324817e-45, -1.401298464324817e-45]
    elif t == 'f64':
        xs += [1.7976931348623157e308, -1.7976931348623157e308, 5e-324, -5e-324]
    else:
        f = X.FMTS[t]
        xs += [f.max_value, -f.max_value]
        if f.nan != 'e8m0':
            xs += [f.decode(1), -f.decode(1)]
        else:
            xs += [2.0 ** -127, 2.0 ** 127]
    return exact_values(t, xs)


def exact_values(t, xs):
    """The values of xs that t holds exactly (sign of zero and NaN included), as elements."""
    out = []
    for x in xs:
        e = X.val(t, x)
        back = X.as_float(t, e)
        ok = (math.isnan(x) and math.isnan(back)) or (back == x and math.copysign(1, back) == math.copysign(1, x))
        if ok and not any(same_elem(t, e, o) for o in out):
            out.append(e)
    return out


def same_elem(t, a, b):
    if t in ('f32', 'f64'):
        return X.f64_bits(float(a)) == X.f64_bits(float(b)) or (math.isnan(float(a)) and math.isnan(float(b)))
    return a == b


def complex_edges(t):
    zs = [(0.0, 0.0), (-0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (-1.5, 2.5), (2.5, -1.5), (NAN, 0.0), (0.0, NAN),
          (INF, 1.0), (1.0, -INF)]
    return [X.val(t, complex(a, b)) for a, b in zs]


def edges(t):
    if t == 'pred':
        return [False, True]
    if X.is_int(t):
        return int_edges(t)
    if X.is_complex(t):
        return complex_edges(t)
    return float_edges(t)


# Transcendental ops: inputs with an exactly known result, as (x, f(x)).
POINTS = {
    'exponential': [(0.0, 1.0), (-0.0, 1.0), (INF, INF), (-INF, 0.0), (NAN, NAN)],
    'exponential-minus-one': [(0.0, 0.0), (-0.0, -0.0), (INF, INF), (-INF, -1.0), (NAN, NAN)],
    'log': [(1.0, 0.0), (0.0, -INF), (-0.0, -INF), (INF, INF), (NAN, NAN)],
    'log-plus-one': [(0.0, 0.0), (-0.0, -0.0), (-1.0, -INF), (INF, INF), (NAN, NAN)],
    'rsqrt': [(1.0, 1.0), (4.0, 0.5), (0.25, 2.0), (0.0, INF), (-0.0, -INF), (INF, 0.0), (NAN, NAN)],
    'cbrt': [(0.0, 0.0), (-0.0, -0.0), (1.0, 1.0), (-1.0, -1.0), (8.0, 2.0), (-8.0, -2.0), (INF, INF),
             (-INF, -INF), (NAN, NAN)],
    'sine': [(0.0, 0.0), (-0.0, -0.0), (NAN, NAN)],
    'cosine': [(0.0, 1.0), (-0.0, 1.0), (NAN, NAN)],
    'tan': [(0.0, 0.0), (-0.0, -0.0), (NAN, NAN)],
    'tanh': [(0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0), (NAN, NAN)],
    'logistic': [(0.0, 0.5), (-0.0, 0.5), (INF, 1.0), (-INF, 0.0), (NAN, NAN)],
    'erf': [(0.0, 0.0), (-0.0, -0.0), (INF, 1.0), (-INF, -1.0), (NAN, NAN)],
}
# C99 Annex G values at exact points (XLA calls std:: on std::complex).
COMPLEX_POINTS = {
    'exponential': [((0, 0), (1, 0))],
    'exponential-minus-one': [((0, 0), (0, 0))],
    'log': [((1, 0), (0, 0))],
    'log-plus-one': [((0, 0), (0, 0))],
    'rsqrt': [((4, 0), (0.5, 0))],
    'sine': [((0, 0), (0, 0))],
    'cosine': [((0, 0), (1, -0.0))],
    'tan': [((0, 0), (0, 0))],
    'tanh': [((0, 0), (0, 0))],
    'logistic': [((0, 0), (0.5, 0))],
}
# power / atan2 on floats: (a, b, result), exact in every libm.
BINARY_POINTS = {
    'power': [(2.0, 3.0, 8.0), (-2.0, 2.0, 4.0), (1.5, 0.0, 1.0), (NAN, 0.0, 1.0), (1.0, NAN, 1.0),
              (0.0, -1.0, INF), (4.0, 0.5, 2.0), (-1.0, INF, 1.0), (0.5, -1.0, 2.0), (2.0, -1.0, 0.5)],
    'atan2': [(0.0, 1.0, 0.0), (-0.0, 1.0, -0.0), (0.0, INF, 0.0), (NAN, 1.0, NAN), (1.0, NAN, NAN)],
}

# ------------------------------------------------------------ models


def unary_model(op, t, v):
    if op in ('copy', 'reduce-precision'):
        return v
    if X.is_complex(t):
        return complex_unary(op, t, v)
    return G.unary_model(op, t, v)


def complex_unary(op, t, v):
    rt = 'f32' if t == 'c64' else 'f64'
    re, im = float(v[0]), float(v[1])
    if op == 'real':
        return X.val(rt, re)
    if op == 'imag':
        return X.val(rt, im)
    if op == 'negate':
        return (-v[0], -v[1])
    if op == 'abs':  # hypot: inf wins over NaN (C99 Annex G)
        return X.val(rt, INF if math.isinf(re) or math.isinf(im) else math.hypot(re, im))
    raise ValueError(op)


def unary_rtype(op, t):
    if op == 'is-finite':
        return 'pred'
    if op in ('abs', 'real', 'imag') and X.is_complex(t):
        return 'f32' if t == 'c64' else 'f64'
    return t


def cmplx_pick_second(a, b, is_max):
    """maximum/minimum of complex numbers: XLA's evaluator refuses them, so this
    follows the StableHLO spec (lexicographic on (real, imag)); a NaN part wins
    as for floats, and of two equal values the first is kept."""
    an = math.isnan(a[0]) or math.isnan(a[1])
    bn = math.isnan(b[0]) or math.isnan(b[1])
    if an or bn:
        return not an and bn
    if a[0] != b[0]:
        return (b[0] > a[0]) == is_max
    if a[1] != b[1]:
        return (b[1] > a[1]) == is_max
    return False


def binary_model(op, t, a, b):
    if X.is_complex(t):
        if op == 'add':
            return (a[0] + b[0], a[1] + b[1])
        if op == 'subtract':
            return (a[0] - b[0], a[1] - b[1])
        if op in ('maximum', 'minimum'):
            return b if cmplx_pick_second(tuple(map(float, a)), tuple(map(float, b)), op == 'maximum') else a
        raise ValueError(op)
    return G.binary_model(op, t, a, b)


_gen_binary_model = G.binary_model


def wrapped_binary_model(op, t, a, b):
    # x^0 = 1 and 1^y = 1 wrap like every other integer result (s1: 1 is -1)
    r = _gen_binary_model(op, t, a, b)
    return X.wrap(t, r) if X.is_int(t) else r


G.binary_model = wrapped_binary_model  # gen.emit_binary calls it too


# ------------------------------------------------------------ module writers


class Module(G.Case):
    """A computed case: instructions over constants, the tuple of results printed."""


def is_nan_val(t, v):
    if X.is_complex(t):
        return math.isnan(float(v[0])) or math.isnan(float(v[1]))
    return G.is_nan_val(t, v)


def emit_points_unary(c, op, t, pts):
    """op on the exact points of pts that t can hold; result NaNs compared with NE."""
    rt = unary_rtype(op, t)
    xs, want = [], []
    for x, y in pts:
        e = exact_values(t, [x])
        if not e:
            continue
        xs.append(e[0])
        want.append(X.val(rt, y))
    if not xs:
        return False
    keep = [i for i in range(len(xs)) if not (X.is_float(rt) and is_nan_val(rt, want[i]))]
    nan = [i for i in range(len(xs)) if i not in keep]
    if keep:
        a = c.const(t, [xs[i] for i in keep])
        r = c.instr(rt, [len(keep)], '%s(%s)' % (op, a))
        c.out(r, rt, [len(keep)], [want[i] for i in keep])
    if nan:
        a = c.const(t, [xs[i] for i in nan])
        r = c.instr(rt, [len(nan)], '%s(%s)' % (op, a))
        p = c.instr('pred', [len(nan)], 'compare(%s, %s), direction=NE' % (r, r), 'isnan')
        c.out(p, 'pred', [len(nan)], [True] * len(nan))
    return True


def emit_complex_points(c, op, t, pts):
    xs = [X.val(t, complex(*x)) for x, _ in pts]
    want = [(X.val('f32' if t == 'c64' else 'f64', y[0]), X.val('f32' if t == 'c64' else 'f64', y[1]))
            for _, y in pts]
    a = c.const(t, xs)
    r = c.instr(t, [len(xs)], '%s(%s)' % (op, a))
    c.out(r, t, [len(xs)], want)


def emit_exact_unary(c, op, t):
    xs = edges(t)
    if op == 'reduce-precision':
        eb, mb = (11, 52) if t == 'f64' else (8, 23)
        a = c.const(t, xs)
        r = c.instr(t, [len(xs)], 'reduce-precision(%s), exponent_bits=%d, mantissa_bits=%d' % (a, eb, mb))
        c.out(r, t, [len(xs)], xs)
        return
    rt = unary_rtype(op, t)
    res = [unary_model(op, t, v) for v in xs]
    fresh = [i for i in range(len(xs)) if X.is_float(rt) and is_nan_val(rt, res[i]) and not is_nan_val(t, xs[i])]
    keep = [i for i in range(len(xs)) if i not in fresh]
    if keep:
        a = c.const(t, [xs[i] for i in keep])
        r = c.instr(rt, [len(keep)], '%s(%s)' % (op, a))
        c.out(r, rt, [len(keep)], [res[i] for i in keep])
    if fresh:
        a = c.const(t, [xs[i] for i in fresh])
        r = c.instr(rt, [len(fresh)], '%s(%s)' % (op, a))
        p = c.instr('pred', [len(fresh)], 'compare(%s, %s), direction=NE' % (r, r), 'isnan')
        c.out(p, 'pred', [len(fresh)], [True] * len(fresh))


def binary_pairs(op, t):
    if t == 'pred':
        return [(a, b) for a in (False, True) for b in (False, True)]
    if X.is_int(t):
        w = X.INT_BITS[t]
        ps = [(X.imax(t), 1), (X.imin(t), -1), (X.imin(t), 1), (3, 0), (-3, 0), (0, 0), (X.imax(t), X.imax(t)),
              (X.imin(t), X.imin(t)), (1, w - 1), (1, w), (-1, w + 3), (-2, 1), (1, -1), (3, 2), (-3, 2), (2, 2),
              (-1, -1), (X.imax(t), 2)]
        out = []
        for a, b in ps:
            p = (X.wrap(t, a), X.wrap(t, b))
            if p not in out:
                out.append(p)
        return out
    if X.is_complex(t):
        zs = complex_edges(t)
        return [(a, b) for a in zs[:6] for b in zs] + [(zs[6], zs[7]), (zs[8], zs[9])]
    xs = float_edges(t)
    return [(a, b) for a in xs for b in xs]


def emit_binary_exact(c, op, t):
    if X.is_complex(t):
        ps = binary_pairs(op, t)
        if op in ('multiply', 'divide'):
            # exactly representable products / quotients of small values
            zs = [((1, 2), (3, -4), (11, 2)), ((0.5, 0), (0, 0.25), (0, 0.125)), ((-1, 1), (2, 2), (-4, 0))]
            if op == 'divide':
                zs = [((11, 2), (3, -4), (1, 2)), ((0, 0.125), (0, 0.25), (0.5, 0)), ((-6, 8), (2, 0), (-3, 4))]
            rt = 'f32' if t == 'c64' else 'f64'
            a = c.const(t, [X.val(t, complex(*x)) for x, _, _ in zs])
            b = c.const(t, [X.val(t, complex(*y)) for _, y, _ in zs])
            r = c.instr(t, [len(zs)], '%s(%s, %s)' % (op, a, b))
            c.out(r, t, [len(zs)], [(X.val(rt, z[0]), X.val(rt, z[1])) for _, _, z in zs])
            return
        res = [binary_model(op, t, a, b) for a, b in ps]
        # add/subtract create NaN parts (inf - inf); keep only pairs whose parts are not fresh NaNs
        keep = [i for i, (a, b) in enumerate(ps)
                if op in ('maximum', 'minimum') or not any(
                    math.isnan(float(res[i][k])) and not (math.isnan(float(a[k])) or math.isnan(float(b[k])))
                    for k in (0, 1))]
        a = c.const(t, [ps[i][0] for i in keep])
        b = c.const(t, [ps[i][1] for i in keep])
        r = c.instr(t, [len(keep)], '%s(%s, %s)' % (op, a, b))
        c.out(r, t, [len(keep)], [cnorm(t, res[i]) for i in keep])
        return
    if op == 'complex':
        ct = 'c64' if t == 'f32' else 'c128'
        ps = binary_pairs(op, t)
        a = c.const(t, [p[0] for p in ps])
        b = c.const(t, [p[1] for p in ps])
        r = c.instr(ct, [len(ps)], 'complex(%s, %s)' % (a, b))
        c.out(r, ct, [len(ps)], ps)
        return
    G.emit_binary(c, op, t, binary_pairs(op, t))


def cnorm(t, z):
    F = np.float32 if t == 'c64' else float
    return (F(z[0]), F(z[1]))


def emit_binary_points(c, op, t):
    if X.is_complex(t):
        # power: XLA's evaluator gives z^0 = 1, 0^(x+0i) = 0 for x > 0.  atan2:
        # XLA's -i * log((x + iy) / sqrt(x^2 + y^2)) at y = 0, x = 1 is
        # (-0 - 1i) * (0 + 0i) = 0 - 0i in C's complex multiplication.
        pts = [((2.5, -1.5), (0, 0), (1, 0)), ((0, 0), (0, 0), (1, 0)), ((0, 0), (2, 0), (0, 0))]
        if op == 'atan2':
            pts = [((0, 0), (1, 0), (0, -0.0))]
        rt = 'f32' if t == 'c64' else 'f64'
        a = c.const(t, [X.val(t, complex(*x)) for x, _, _ in pts])
        b = c.const(t, [X.val(t, complex(*y)) for _, y, _ in pts])
        r = c.instr(t, [len(pts)], '%s(%s, %s)' % (op, a, b))
        c.out(r, t, [len(pts)], [(X.val(rt, z[0]), X.val(rt, z[1])) for _, _, z in pts])
        return True
    if X.is_int(t):
        if op == 'atan2':
            return False
        G.emit_binary(c, op, t, binary_pairs(op, t))
        return True
    ps, want = [], []
    for a, b, y in BINARY_POINTS[op]:
        ea, eb, ey = exact_values(t, [a]), exact_values(t, [b]), exact_values(t, [y])
        if ea and eb and (ey or math.isnan(y)):
            ps.append((ea[0], eb[0]))
            want.append(X.val(t, y))
    if not ps:
        return False
    keep = [i for i in range(len(ps)) if not is_nan_val(t, want[i])]
    nan = [i for i in range(len(ps)) if i not in keep]
    for idx, isnan in ((keep, False), (nan, True)):
        if not idx:
            continue
        a = c.const(t, [ps[i][0] for i in idx])
        b = c.const(t, [ps[i][1] for i in idx])
        r = c.instr(t, [len(idx)], '%s(%s, %s)' % (op, a, b))
        if isnan:
            p = c.instr('pred', [len(idx)], 'compare(%s, %s), direction=NE' % (r, r), 'isnan')
            c.out(p, 'pred', [len(idx)], [True] * len(idx))
        else:
            c.out(r, t, [len(idx)], [want[i] for i in idx])
    return True


# complex unary ops computed on exact points (C99 Annex G / exact arithmetic)
COMPLEX_EXACT_POINTS = {
    'abs': [((3, 4), 5.0), ((0, 0), 0.0), ((-0.0, 1), 1.0), ((INF, NAN), INF), ((-1.5, 0), 1.5)],
    'sign': [((3, 4), (0.6, 0.8)), ((0, 0), (0, 0)), ((0, -2), (0, -1)), ((-5, 0), (-1, 0))],
    'sqrt': [((-4, 0), (0, 2)), ((-4, -0.0), (0, -2)), ((0, 2), (1, 1)), ((9, 0), (3, 0)), ((0, 0), (0, 0))],
}


def emit_complex_exact_unary(c, op, t):
    rt = 'f32' if t == 'c64' else 'f64'
    if op in COMPLEX_EXACT_POINTS:
        pts = COMPLEX_EXACT_POINTS[op]
        xs = [X.val(t, complex(*x)) for x, _ in pts]
        a = c.const(t, xs)
        if op == 'abs':
            r = c.instr(rt, [len(xs)], 'abs(%s)' % a)
            c.out(r, rt, [len(xs)], [X.val(rt, y) for _, y in pts])
        else:
            r = c.instr(t, [len(xs)], '%s(%s)' % (op, a))
            c.out(r, t, [len(xs)], [(X.val(rt, y[0]), X.val(rt, y[1])) for _, y in pts])
        return
    xs = complex_edges(t)
    ot = unary_rtype(op, t)
    a = c.const(t, xs)
    r = c.instr(ot, [len(xs)], '%s(%s)' % (op, a))
    c.out(r, ot, [len(xs)], [unary_model(op, t, v) for v in xs])


def emit_rank0_and_empty(c, op, cls, t):
    """op on a T[0] array and, where the oracle has the value, on a rank-0 T[]."""
    nargs = 1 if cls == 'OPC_UNARY' else 2
    rt = unary_rtype(op, t) if cls == 'OPC_UNARY' else ('c64' if t == 'f32' else 'c128') if op == 'complex' else t
    extra = ''
    if op == 'reduce-precision':
        extra = ', exponent_bits=%d, mantissa_bits=%d' % ((11, 52) if t == 'f64' else (8, 23))
    e = c.instr(t, [0], 'constant({})', 'v')
    r = c.instr(rt, [0], '%s(%s)%s' % (op, ', '.join([e] * nargs), extra))
    c.out(r, rt, [0], [])
    # rank 0: one edge value (pair) with an exactly known, non-fresh-NaN result
    how = (UNARY if cls == 'OPC_UNARY' else BINARY)[op][1]
    if how == 'points' or (X.is_complex(t) and (op in COMPLEX_EXACT_POINTS or op in ('multiply', 'divide'))):
        return
    if cls == 'OPC_UNARY':
        x = edges(t)[min(1, len(edges(t)) - 1)]
        want = x if op == 'reduce-precision' else unary_model(op, t, x)
        args = [x]
    else:
        ps = binary_pairs(op, t)
        args = list(ps[min(1, len(ps) - 1)])
        want = (args[0], args[1]) if op == 'complex' else binary_model(op, t, *args)
    if X.is_float(rt) and is_nan_val(rt, want) and not any(is_nan_val(t, a) for a in args):
        return
    names = [c.const(t, [a], []) for a in args]
    r = c.instr(rt, [], '%s(%s)%s' % (op, ', '.join(names), extra))
    c.out(r, rt, [], [cnorm(rt, want) if X.is_complex(rt) else want])


# ------------------------------------------------------------ verdicts

def verdict(op, t, k, rule):
    """('computed' | 'verify-rejected' | 'refused', note)."""
    dev = DEVIATIONS.get(op)
    if op == 'complex' and t in ('f32', 'f64'):
        return 'computed', ''
    if dev and k in dev[0]:
        return 'verify-rejected', dev[1]
    if (op, k) in REFUSED:
        return 'refused', REFUSED[(op, k)]
    return ('computed', '') if k in rule else ('verify-rejected', '')


def op_words(op):
    """The verifier's 'expected ...' wording (parser/infer_elementwise.c)."""
    table = {
        'abs': 'signed or complex', 'sign': 'signed or complex', 'negate': 'integral, floating or complex',
        'not': 'pred or integral', 'popcnt': 'integral', 'count-leading-zeros': 'integral',
        'and': 'pred or integral', 'or': 'pred or integral', 'xor': 'pred or integral',
        'shift-left': 'integral', 'shift-right-arithmetic': 'integral', 'shift-right-logical': 'integral',
        'subtract': 'arithmetic', 'divide': 'arithmetic', 'remainder': 'arithmetic', 'power': 'arithmetic',
        'atan2': 'floating or complex', 'real': 'floating or complex', 'imag': 'floating or complex',
    }
    if op in table:
        return table[op]
    if op in ('floor', 'ceil', 'round-nearest-afz', 'round-nearest-even', 'is-finite', 'erf', 'reduce-precision'):
        return 'floating'
    return 'floating or complex'


class ErrCase(G.Case):
    """A module the verifier must reject: one error per rejected instruction, in order."""

    def __init__(self, name, doc):
        super().__init__(name, doc)
        self.errs = []  # (instruction name, message)

    def bad(self, t, dims, text, msg):
        nm = self.instr(t, dims, text)
        self.errs.append((nm, msg))
        self.out(nm, t, dims, [])

    def write(self):
        shapes = ', '.join(X.shape_str(t, d) for _, t, d, _ in self.outs)
        names = ', '.join(nm for nm, _, _, _ in self.outs)
        hlo = ['HloModule %s' % self.name.replace('-', '_').replace('.', '_'), '', '// ' + self.doc]
        hlo += getattr(self, 'comps', []) + ['ENTRY main {'] + self.lines
        hlo.append('  ROOT result = (%s) tuple(%s)' % (shapes, names))
        hlo.append('}')
        fname = self.name + '.hlo'
        err = []
        for nm, msg in self.errs:
            start = 0
            if '@' in nm:  # the ROOT of reducer computation `body`
                body, _ = nm.split('@')
                start = hlo.index('%s {' % body)
                nm = 'r'
            for i, line in enumerate(hlo[start:], start):
                m = re.match(r'  (?:ROOT )?%s = \S+ ([a-z0-9-]+)\(' % re.escape(nm), line)
                if m:
                    col = m.start(1) + 1
                    err.append('%s:%d:%d: error: %s' % (fname, i + 1, col, msg))
                    err.append(line)
                    err.append(' ' * (col - 1) + '^')
                    break
        base = os.path.join(OUT_DIR, self.name)
        with open(base + '.hlo', 'w') as f:
            f.write('\n'.join(hlo) + '\n')
        with open(base + '.err', 'w') as f:
            f.write('\n'.join(err) + '\n')
        with open(base + '.yaml', 'w') as f:
            f.write("command: hlorun\nargs: ['%s.hlo']\nexit: 3\nstderr: %s.err\ntimeout: 20\n" % (self.name, self.name))
        G.CASES.append(self.name)


class ErrPool:
    """ErrCases of at most MAX_ERRORS rejected instructions each: hlorun
    prints the first 50 verifier errors of a module."""
    MAX_ERRORS = 50

    def __init__(self, stem, doc):
        self.stem, self.doc, self.cases = stem, doc, []

    def next(self):
        """The case the next rejected pair goes into."""
        if not self.cases or len(self.cases[-1].errs) >= self.MAX_ERRORS:
            self.cases.append(ErrCase('%s.rejected%d' % (self.stem, len(self.cases) + 1), self.doc))
        return self.cases[-1]

    def write(self):
        for c in self.cases:
            write_with_comps(c)


def write_refused(name, doc, hlo_lines, message):
    base = os.path.join(OUT_DIR, name)
    with open(base + '.hlo', 'w') as f:
        f.write('\n'.join(['HloModule %s' % name.replace('-', '_').replace('.', '_'), '', '// ' + doc,
                           'ENTRY main {'] + hlo_lines + ['}']) + '\n')
    with open(base + '.yaml', 'w') as f:
        f.write("command: hlorun\nargs: ['%s.hlo']\nexit: 1\nstderr_contains: \"%s\"\ntimeout: 20\n" % (name, message))
    G.CASES.append(name)


# ------------------------------------------------------------ the sweep

MATRIX = {}  # op -> {type: (verdict, note, case)}


def fname(op):
    return op.replace('-', '_')


def record(op, t, v, note, case):
    MATRIX.setdefault(op, {})[t] = (v, note, case)


def sweep_unary_binary(op, cls, types, pool):
    rule, how = (UNARY if cls == 'OPC_UNARY' else BINARY)[op]
    comp = Module(fname(op), '%s on every element type it is computed for (edge values; exact points for transcendental functions)' % op)
    for t, k in types:
        v, note = verdict(op, t, k, rule)
        if v == 'computed':
            if cls == 'OPC_UNARY':
                if X.is_complex(t):
                    if how == 'points':
                        emit_complex_points(comp, op, t, COMPLEX_POINTS[op])
                    else:
                        emit_complex_exact_unary(comp, op, t)
                elif how == 'points':
                    if not emit_points_unary(comp, op, t, POINTS[op]):
                        sys.exit('no exact point of %s fits %s' % (op, t))
                else:
                    emit_exact_unary(comp, op, t)
            elif how == 'points':
                if not emit_binary_points(comp, op, t):
                    sys.exit('no exact point of %s fits %s' % (op, t))
            else:
                emit_binary_exact(comp, op, t)
            emit_rank0_and_empty(comp, op, cls, t)
            record(op, t, v, note, op)
        elif v == 'verify-rejected':
            xs = edges(t)[:2]
            rc = pool.next()
            a = rc.const(t, xs)
            rt = 'pred' if op == 'is-finite' else t
            if cls == 'OPC_UNARY':
                extra = ', exponent_bits=8, mantissa_bits=23' if op == 'reduce-precision' else ''
                rc.bad(rt, [2], '%s(%s)%s' % (op, a, extra), '%s: expected %s element type, got %s' % (op, op_words(op), t))
            else:
                if op == 'complex':
                    msg = ('complex: complex needs two f32 or two f64 operands, got %s and %s' % (t, t)
                           if k == 'F' else 'complex: expected floating element type, got %s' % t)
                    rt = 'c64'
                else:
                    msg = '%s: expected %s element type, got %s' % (op, op_words(op), t)
                rc.bad(rt, [2], '%s(%s, %s)' % (op, a, a), msg)
            record(op, t, v, note, rc.name)
        else:
            name = '%s.refused.%s' % (fname(op), t)
            xs = edges(t)[:2]
            lines = ['  a = %s constant(%s)' % (X.shape_str(t, [2]), X.const_text(t, [2], xs)),
                     '  ROOT r = %s %s(%s)' % (X.shape_str(t, [2]), op, 'a' if cls == 'OPC_UNARY' else 'a, a')]
            write_refused(name, '%s on %s: accepted by the verifier, refused at run time (%s)' % (op, t, note),
                          lines, '%s is not defined for element type %s' % (op, t))
            record(op, t, v, note, name)
    if comp.outs:
        comp.write()


def sweep_compare(types):
    dirs = ('EQ', 'NE', 'LT', 'LE', 'GT', 'GE')
    for ctype in (None, 'TOTALORDER'):
        key = 'compare' if ctype is None else 'compare-totalorder'
        comp = Module(fname(key), 'compare, every direction%s, on every element type' %
                      (' with type=TOTALORDER' if ctype else ''))
        for t, k in types:
            if ctype and k != 'F':
                # the verifier takes any comparison type; the evaluator refuses a
                # TOTALORDER compare of a non-float type (XLA: float types only)
                name = 'compare_totalorder.refused.%s' % t
                xs = edges(t)[:2]
                write_refused(name, 'compare type=TOTALORDER on %s: refused at run time' % t,
                              ['  a = %s constant(%s)' % (X.shape_str(t, [2]), X.const_text(t, [2], xs)),
                               '  ROOT r = pred[2] compare(a, a), direction=LT, type=TOTALORDER'],
                              'compare of element type %s with this direction/type is not defined' % t)
                for d in dirs:
                    record('%s-%s' % (key, d), t, 'refused', 'TOTALORDER is for floating types', name)
                continue
            if k == 'C':
                GM.emit_compare(comp, t, binary_pairs('compare', t), ctype, dirs=('EQ', 'NE'))
                for d in dirs[:2]:
                    record('%s-%s' % (key, d), t, 'computed', '', comp.name)
                for d in dirs[2:]:
                    name = 'compare_%s.refused.%s' % (d, t)
                    xs = edges(t)[:2]
                    write_refused(name, 'compare direction=%s on %s: complex numbers are not ordered' % (d, t),
                                  ['  a = %s constant(%s)' % (X.shape_str(t, [2]), X.const_text(t, [2], xs)),
                                   '  ROOT r = pred[2] compare(a, a), direction=%s' % d],
                                  'compare of element type %s with this direction/type is not defined' % t)
                    record('%s-%s' % (key, d), t, 'refused', 'complex numbers are not ordered (EQ/NE only)', name)
                continue
            GM.emit_compare(comp, t, binary_pairs('compare', t), ctype, dirs=dirs)
            for d in dirs:
                record('%s-%s' % (key, d), t, 'computed', '', comp.name)
        comp.write()


def sweep_select(types):
    comp = Module('select', 'select(pred, a, b) on every element type, elementwise and with a scalar pred')
    for t, k in types:
        xs = edges(t)
        ys = list(reversed(xs))
        n = len(xs)
        pr = [i % 3 == 0 for i in range(n)]
        p = comp.const('pred', pr)
        a, b = comp.const(t, xs), comp.const(t, ys)
        r = comp.instr(t, [n], 'select(%s, %s, %s)' % (p, a, b))
        comp.out(r, t, [n], [xs[i] if pr[i] else ys[i] for i in range(n)])
        s = comp.const('pred', [False], [])
        r = comp.instr(t, [n], 'select(%s, %s, %s)' % (s, a, b))
        comp.out(r, t, [n], ys)
        record('select', t, 'computed', '', comp.name)
    comp.write()


def clamp_model(t, lo, x, hi):
    if t == 'pred':
        return min(hi, max(x, lo))
    return GM.clamp_model(t, lo, x, hi)


def sweep_clamp(types):
    comp = Module('clamp', 'clamp(lo, x, hi) on every element type: NaN bounds, lo > hi, scalar bounds')
    for t, k in types:
        if k == 'C':
            # XLA's evaluator has no complex clamp and StableHLO's clamp has no
            # order on complex numbers: refused at run time
            name = 'clamp.refused.%s' % t
            xs = edges(t)[:2]
            write_refused(name, 'clamp on %s: complex numbers are not ordered' % t,
                          ['  a = %s constant(%s)' % (X.shape_str(t, [2]), X.const_text(t, [2], xs)),
                           '  ROOT r = %s clamp(a, a, a)' % X.shape_str(t, [2])],
                          'clamp is not defined for element type %s' % t)
            record('clamp', t, 'refused', 'complex numbers are not ordered', name)
            continue
        xs = edges(t)
        n = len(xs)
        lo = [xs[(i * 5 + 1) % n] for i in range(n)]
        hi = [xs[(i * 7 + 2) % n] for i in range(n)]
        L, A, H = comp.const(t, lo), comp.const(t, xs), comp.const(t, hi)
        r = comp.instr(t, [n], 'clamp(%s, %s, %s)' % (L, A, H))
        comp.out(r, t, [n], [clamp_model(t, lo[i], xs[i], hi[i]) for i in range(n)])
        sl, sh = comp.const(t, [xs[0]], []), comp.const(t, [xs[-1]], [])
        r = comp.instr(t, [n], 'clamp(%s, %s, %s)' % (sl, A, sh))
        comp.out(r, t, [n], [clamp_model(t, xs[0], v, xs[-1]) for v in xs])
        record('clamp', t, 'computed', '', comp.name)
    comp.write()


def sweep_convert(types):
    comp = Module('convert', 'convert from every element type to every element type')
    pool = ErrPool('convert', 'convert between the types the verifier rejects (complex to real)')
    for s, sk in types:
        xs = edges(s)
        a = comp.const(s, xs)  # one source vector, converted to every type
        for d, dk in types:
            if sk == 'C' and dk != 'C':
                # InferConvertShape: complex -> real is rejected (use real())
                rc = pool.next()
                ra = rc.const(s, xs[:2])
                rc.bad(d, [2], 'convert(%s)' % ra,
                       'convert: conversion from complex to real type %s[2] => %s is not implemented' % (s, d))
                record('convert-to-%s' % d, s, 'verify-rejected', 'complex to real: use real()', rc.name)
                continue
            r = comp.instr(d, [len(xs)], 'convert(%s)' % a)
            comp.out(r, d, [len(xs)], [GM.convert_model(s, d, v) for v in xs])
            record('convert-to-%s' % d, s, 'computed', '', comp.name)
    comp.write()
    pool.write()


def reduce_inputs(t, op):
    """1-D inputs: exact values (so any order of the reduction gives the same
    result), wrap-around, NaN/inf, one-ulp ties and the empty array."""
    if t == 'pred':
        return [[True, False, True], [True, True], []]
    if X.is_int(t):
        return [[X.imax(t), X.wrap(t, 1), X.wrap(t, 3) if X.INT_BITS[t] > 2 else X.wrap(t, 1)],
                [X.imin(t), X.wrap(t, -1) if X.is_sint(t) else X.wrap(t, 2), X.wrap(t, 2)], []]
    if X.is_complex(t):
        zs = [X.val(t, complex(1, 2)), X.val(t, complex(-0.5, 0.25)), X.val(t, complex(2, -1))]
        return [zs, zs[::-1], []]
    small = exact_values(t, [1.0, -2.5, 1.5, 0.5, -0.0, 2.0])
    special = exact_values(t, [1.0, INF, NAN]) if len(exact_values(t, [INF])) else exact_values(t, [1.0, NAN])
    out = [small, special, []]
    if X.is_narrow(t) and X.FMTS[t].nan != 'e8m0':
        # 1 + ulp(1)/2 + ulp(1)/2: known reducers on narrow floats run in f32
        # and round once at the end (kernels/README.md), giving 1 + ulp(1); XLA's
        # evaluator would round every step (1)
        half = 2.0 ** -(X.FMTS[t].m + 1)
        out.append([X.val(t, 1.0), X.FMTS[t].encode(half), X.FMTS[t].encode(half)])
    return out


def fold(op, t, init, vals):
    if X.is_complex(t) and op in ('add', 'multiply'):
        acc = init
        for v in vals:
            acc = complex_fold(op, t, acc, v)
        return acc
    if X.is_narrow(t):  # in f32, rounded once
        acc = X.to_f32(t, init)
        for v in vals:
            acc = binary_model(op, 'f32', acc, X.to_f32(t, v))
        return X.from_f32(t, acc)
    acc = init
    for v in vals:
        acc = binary_model(op, t, acc, v)
    return acc


def complex_fold(op, t, a, b):
    if op == 'add':
        return cnorm(t, (a[0] + b[0], a[1] + b[1]))
    z = complex(float(a[0]), float(a[1])) * complex(float(b[0]), float(b[1]))
    return cnorm(t, (z.real, z.imag))


IDENTITY = {'add': 0, 'multiply': 1, 'maximum': -INF, 'minimum': INF, 'and': -1, 'or': 0, 'xor': 0}


def reduce_init(op, t):
    if t == 'pred':
        return {'add': False, 'multiply': True, 'maximum': False, 'minimum': True, 'and': True, 'or': False,
                'xor': False}[op]
    if X.is_int(t):
        if op == 'maximum':
            return X.imin(t)
        if op == 'minimum':
            return X.imax(t)
        return X.wrap(t, IDENTITY[op])
    if X.is_complex(t):
        return X.val(t, complex(IDENTITY[op], 0)) if op in ('add', 'multiply') else X.val(t, complex(0, 0))
    e = exact_values(t, [IDENTITY[op]])
    if e:
        return e[0]
    f = X.FMTS[t]  # no infinity: the largest value is the identity of max/min
    return X.val(t, -f.max_value if op == 'maximum' else f.max_value) if op in ('maximum', 'minimum') else \
        X.val(t, IDENTITY[op])


def sweep_reduce(types):
    comp = Module('reduce', 'reduce with each known reducer on every element type it is computed for')
    pool = ErrPool('reduce', 'reduce with the reducers the verifier rejects for a type')
    for op in REDUCERS:
        rule = BINARY[op][0]
        key = 'reduce-' + op
        for t, k in types:
            v, note = verdict(op, t, k, rule)
            c = comp if v == 'computed' else pool.next()
            body = '%s_%s' % (fname(op), t)
            c.lines.append('  // reducer: %s' % body)
            # the reducer computation goes before ENTRY: keep it in a separate list
            c.comps = getattr(c, 'comps', [])
            c.comps += ['%s {' % body, '  a = %s[] parameter(0)' % t, '  b = %s[] parameter(1)' % t,
                        '  ROOT r = %s[] %s(a, b)' % (t, op), '}', '']
            if v == 'computed':
                init = reduce_init(op, t)
                i = comp.const(t, [init], [])
                for vals in reduce_inputs(t, op):
                    a = comp.const(t, vals) if vals else comp.instr(t, [0], 'constant({})', 'v')
                    r = comp.instr(t, [], 'reduce(%s, %s), dimensions={0}, to_apply=%s' % (a, i, body))
                    want = fold(op, t, init, vals)
                    if X.is_float(t) and is_nan_val(t, want):  # NaN sign: reduction order
                        p = comp.instr('pred', [], 'compare(%s, %s), direction=NE' % (r, r), 'isnan')
                        comp.out(p, 'pred', [], [True])
                    else:
                        comp.out(r, t, [], [want])
                record(key, t, v, note, comp.name)
            elif v == 'verify-rejected':
                c.errs.append(('%s@%s' % (body, op), '%s: expected %s element type, got %s' % (op, op_words(op), t)))
                a = c.const(t, edges(t)[:2])
                i = c.const(t, edges(t)[:1], [])
                nm = c.instr(t, [], 'reduce(%s, %s), dimensions={0}, to_apply=%s' % (a, i, body))
                c.out(nm, t, [], [])
                record(key, t, v, note, c.name)
            else:
                sys.exit('refused reducer pair %s %s not handled' % (op, t))
    for c in [comp] + pool.cases:
        c.lines = [l for l in c.lines if not l.startswith('  // reducer')]
    write_with_comps(comp)
    pool.write()


def write_with_comps(c):
    if isinstance(c, ErrCase):
        c.write()
        return
    c.write()
    path = os.path.join(OUT_DIR, c.name + '.hlo')
    with open(path) as f:
        text = f.read()
    text = text.replace('ENTRY main {', '\n'.join(c.comps) + 'ENTRY main {', 1)
    with open(path, 'w') as f:
        f.write(text)


# ------------------------------------------------------------ MATRIX.md

def write_matrix(types, excluded):
    short = {'computed': 'ok', 'verify-rejected': 'V', 'refused': 'R'}
    lines = ['# Op x element type matrix', '',
             'Generated by `scripts/gen-op-type-matrix.py` (do not edit): every elementwise op',
             'of `parser/opcodes.def` against every element type of `layout/etypes.def`.',
             'Each cell is one (op, type) pair and its verdict, each checked by a golden case',
             'in this directory:', '',
             '* `ok` computed: the output equals the oracle\'s (`<op>.out`);',
             '* `V` verify-rejected: exit 3, an error naming the op and the type (`<op>.rejected.err`);',
             '* `R` refused at run time: exit 1, a message naming the op and the type',
             '  (`<op>.refused.<type>`): the verifier accepts the pair (as XLA\'s shape',
             '  inference does) but there is no defined result to compute.', '',
             'Not array element types (no values, so no pairs): %s.' % ', '.join(excluded), '',
             'Rows are ops (compare per direction, with and without type=TOTALORDER;',
             '`convert-to-D` per destination type D, its columns the source types;',
             '`reduce-R` per known reducer R), columns are element types.', '',
             'Transcendental functions (exponential, log, sine, ..., power, atan2) are checked',
             'at points with an exact result (0, 1, inf, NaN, ...) only; their libm values on',
             'f32/f64/bf16/f16 are in `testdata/elementwise/*_transcendental`.', '']
    tn = [t for t, _ in types]
    lines.append('| op | ' + ' | '.join(tn) + ' |')
    lines.append('|---|' + '---|' * len(tn))
    counts = {}
    for op in MATRIX:
        row = MATRIX[op]
        missing = [t for t in tn if t not in row]
        if missing:
            sys.exit('pair(s) %s x %s have no verdict' % (op, missing))
        lines.append('| %s | ' % op + ' | '.join(short[row[t][0]] for t in tn) + ' |')
        for t in tn:
            counts[row[t][0]] = counts.get(row[t][0], 0) + 1
    lines += ['', 'Totals: %s.' % ', '.join('%d %s' % (n, v) for v, n in sorted(counts.items())), '']
    notes = {}
    for op in MATRIX:
        for t in tn:
            v, note, case = MATRIX[op][t]
            if note:
                notes.setdefault((op, v, note), []).append(t)
    grouped = {}  # the same types, verdict and reason: one row for all those ops
    for (op, v, note), ts in notes.items():
        grouped.setdefault((tuple(ts), v, note), []).append(op)
    lines += ['## Notes', '', '| ops | types | verdict | why |', '|---|---|---|---|']
    for (ts, v, note), ops in grouped.items():
        lines.append('| %s | %s | %s | %s |' % (', '.join(ops), ', '.join(ts), v, note))
    lines += ['', 'Known reducers on narrow floats (bf16, f16, f8, f6, f4) accumulate in f32 and',
              'round once at the end (kernels/README.md); XLA\'s HloEvaluator rounds after every',
              'step.  `reduce` pins the f32 accumulation with 1 + ulp(1)/2 + ulp(1)/2.']
    with open(os.path.join(OUT_DIR, 'MATRIX.md'), 'w') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    os.makedirs(OUT_DIR, exist_ok=True)
    for f in os.listdir(OUT_DIR):
        if f.endswith(('.hlo', '.out', '.yaml', '.err')):
            os.remove(os.path.join(OUT_DIR, f))
    types, excluded = [], []
    for t, kind in read_etypes():
        if kind in NOT_ARRAY_KINDS:
            excluded.append(t)
        elif kind in KIND_LETTER:
            types.append((t, KIND_LETTER[kind]))
        else:
            sys.exit('element type %s has kind %s, which this script does not know' % (t, kind))
    seen_other = set()
    rejected = {'OPC_UNARY': ErrPool('unary', 'unary ops on the element types the verifier must reject'),
                'OPC_BINARY': ErrPool('binary', 'binary ops on the element types the verifier must reject')}
    for op, cls in read_opcodes():
        if cls in ('OPC_UNARY', 'OPC_BINARY'):
            if op not in (UNARY if cls == 'OPC_UNARY' else BINARY):
                sys.exit('opcode %s (%s) is not classified: add it to UNARY/BINARY' % (op, cls))
            sweep_unary_binary(op, cls, types, rejected[cls])
        elif cls == 'OPC_OTHER':
            if op in OTHER_OPS:
                seen_other.add(op)
        else:
            sys.exit('opcode %s has class %s, which this script does not know' % (op, cls))
    for rej in rejected.values():
        rej.write()
    if seen_other != set(OTHER_OPS):
        sys.exit('opcodes.def lacks %s' % sorted(set(OTHER_OPS) - seen_other))
    sweep_compare(types)
    sweep_select(types)
    sweep_clamp(types)
    sweep_convert(types)
    sweep_reduce(types)
    write_matrix(types, excluded)
    print('%d cases, %d pairs' % (len(G.CASES), sum(len(r) for r in MATRIX.values())))


if __name__ == '__main__':
    main()
