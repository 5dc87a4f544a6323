#!/usr/bin/python3
"""Generates the elementwise golden cases (<case>.hlo, .yaml, .out).

Run from anywhere:  /usr/bin/python3 testdata/elementwise/gen.py
Expected outputs come from xla_model.py (an independent model of XLA's
semantics and literal printing), never from hlorun.  Each case is one module
whose ROOT is a tuple of many results over edge-value vectors.

Semantic choices (see README.md in this directory for the XLA references):
- narrow floats (bf16, f16, f8*, f6*, f4*) compute in f32 and round back
  after every op (HloEvaluatorTypedVisitor<T, float>);
- maximum/minimum propagate NaN (lhs NaN first) and order -0 < +0
  (the CPU backend's llvm.maximum/minimum);
- clamp(lo, x, hi): NaN of lo, then x, then hi wins, else min(max(x, lo), hi);
- results that are a NaN *created* by the op (0/0, inf-inf, log(-1)) are
  checked with compare(r, r, NE) instead of printed: their sign is the
  CPU's default NaN (negative on x86, positive on ARM);
- integer x/0 = -1 (signed) / all ones (unsigned), x%0 = x, INT_MIN/-1 =
  INT_MIN, INT_MIN%-1 = 0, shifts by >= width (amount read as unsigned):
  0 / sign fill.
"""
import ctypes
import ctypes.util
import math
import os
import sys

import numpy as np

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from xla_model import *  # noqa: E402,F401,F403

OUT_DIR = os.path.dirname(os.path.abspath(__file__))
np.seterr(all='ignore')


class Case:
    def __init__(self, name, doc):
        self.name, self.doc = name, doc
        self.lines, self.outs, self.n = [], [], 0
        self.params = []

    def fresh(self, stem):
        self.n += 1
        return '%s%d' % (stem, self.n)

    def param(self, t, dims, array):
        """Entry parameter bound from inputs/<case>_p<N>.npy (written with numpy)."""
        k = len(self.params)
        nm = 'p%d' % k
        rel = 'inputs/%s_p%d.npy' % (self.name, k)
        os.makedirs(os.path.join(OUT_DIR, 'inputs'), exist_ok=True)
        np.save(os.path.join(OUT_DIR, rel), array)
        self.params.append(rel)
        self.lines.append('  %s = %s parameter(%d)' % (nm, shape_str(t, dims), k))
        return nm

    def const(self, t, flat, dims=None):
        flat = list(flat)
        dims = [len(flat)] if dims is None else dims
        nm = self.fresh('v')
        self.lines.append('  %s = %s constant(%s)' % (nm, shape_str(t, dims), const_text(t, dims, flat)))
        return nm

    def instr(self, t, dims, text, stem='r'):
        nm = self.fresh(stem)
        self.lines.append('  %s = %s %s' % (nm, shape_str(t, dims), text))
        return nm

    def out(self, nm, t, dims, flat):
        self.outs.append((nm, t, list(dims), list(flat)))

    def write(self):
        shapes = ', '.join(shape_str(t, d) for _, t, d, _ in self.outs)
        names = ', '.join(nm for nm, _, _, _ in self.outs)
        hlo = ['HloModule %s' % self.name, '', '// ' + self.doc, 'ENTRY main {']
        hlo += self.lines
        hlo.append('  ROOT result = (%s) tuple(%s)' % (shapes, names))
        hlo.append('}')
        base = os.path.join(OUT_DIR, self.name)
        with open(base + '.hlo', 'w') as f:
            f.write('\n'.join(hlo) + '\n')
        with open(base + '.out', 'w') as f:
            f.write(fmt_tuple([fmt_array(t, d, v) for _, t, d, v in self.outs]) + '\n')
        with open(base + '.yaml', 'w') as f:
            args = ''.join(", '--inputs', '%s'" % p for p in self.params)
            f.write("command: hlorun\nargs: ['%s.hlo'%s]\nstdout: %s.out\ntimeout: 20\n" % (self.name, args, self.name))
        CASES.append(self.name)


CASES = []

# ------------------------------------------------------------- op models


def is_nan_val(t, v):
    if t in ('f32', 'f64'):
        return math.isnan(float(v))
    if is_narrow(t):
        return FMTS[t].is_nan(v)
    return False


def xla_max(a, b):
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b == 0:
        return a if math.copysign(1, a) > 0 else b
    return a if a > b else b


def xla_min(a, b):
    if math.isnan(a):
        return a
    if math.isnan(b):
        return b
    if a == b == 0:
        return a if math.copysign(1, a) < 0 else b
    return a if a < b else b


def libm(fn, x):
    """f64 libm-like function with IEEE special values."""
    try:
        return fn(x)
    except (ValueError, OverflowError):
        return None


LIBM = ctypes.CDLL(ctypes.util.find_library('m'))
for _n in ['exp', 'expm1', 'log', 'log1p', 'sqrt', 'cbrt', 'tanh', 'sin', 'cos', 'tan', 'erf', 'pow', 'atan2']:
    for _sfx, _ty in (('', ctypes.c_double), ('f', ctypes.c_float)):
        _fn = getattr(LIBM, _n + _sfx)
        _fn.restype = _ty
        _fn.argtypes = [_ty] * (2 if _n in ('pow', 'atan2') else 1)
LIBM_NAMES = {'exponential': 'exp', 'exponential-minus-one': 'expm1', 'log': 'log', 'log-plus-one': 'log1p',
              'sqrt': 'sqrt', 'cbrt': 'cbrt', 'tanh': 'tanh', 'sine': 'sin', 'cosine': 'cos', 'tan': 'tan',
              'erf': 'erf', 'power': 'pow', 'atan2': 'atan2'}


def libm_call(op, is_f32, *args):
    """The platform C library's function, as XLA's evaluator calls std::op on
    float (f32 and narrower) or double (f64) -- e.g. expm1f, atan2f."""
    fn = getattr(LIBM, LIBM_NAMES[op] + ('f' if is_f32 else ''))
    r = fn(*[float(a) for a in args])
    return np.float32(r) if is_f32 else float(r)


def f64_unary(op, x):
    return libm_call(op, False, x)


def unary_model(op, t, v):
    """Result of a unary op on one element of type t (compute type rules)."""
    if is_float(t):
        if t == 'f64':
            x = float(v)
            F = np.float64
        else:
            x = to_f32(t, v)
            F = np.float32
        def back(r):
            return float(r) if t == 'f64' else from_f32(t, r)
        if op == 'abs': return back(abs(x))
        if op == 'negate': return back(-x)
        if op == 'sign':
            if math.isnan(float(x)): return back(x)
            return back(F(math.copysign(1.0 if x != 0 else 0.0, float(x))))
        if op == 'ceil': return back(F(np.ceil(x)))
        if op == 'floor': return back(F(np.floor(x)))
        if op == 'round-nearest-afz':
            y = float(x)
            if math.isnan(y) or math.isinf(y): return back(x)
            a = abs(y)
            r = math.floor(a)
            if a - r >= 0.5: r += 1
            return back(F(math.copysign(r, y)))
        if op == 'round-nearest-even':
            y = float(x)
            if math.isnan(y) or math.isinf(y): return back(x)
            return back(F(math.copysign(round(abs(y)), y)))
        if op == 'is-finite': return bool(np.isfinite(x))
        if op == 'real': return back(x)
        if op == 'imag': return back(F(0))
        if op == 'rsqrt':
            return back(F(1) / F(np.sqrt(x)))
        if op == 'logistic':
            e = F(libm_call('exponential', t != 'f64', -float(x)))
            return back(F(1) / (F(1) + e))
        return back(F(libm_call(op, t != 'f64', x)))
    if is_int(t):
        b = INT_BITS[t]
        if op == 'abs': return wrap(t, abs(v))
        if op == 'negate': return wrap(t, -v)
        if op == 'sign': return (v > 0) - (v < 0)
        if op == 'not': return wrap(t, ~v)
        if op == 'popcnt': return wrap(t, bin(v & ((1 << b) - 1)).count('1'))  # result has type t
        if op == 'count-leading-zeros': return wrap(t, b - (v & ((1 << b) - 1)).bit_length())
    if t == 'pred' and op == 'not':
        return not v
    raise ValueError((op, t))


def unary_rtype(op, t):
    if op == 'is-finite':
        return 'pred'
    if op in ('abs', 'real', 'imag') and is_complex(t):
        return 'f32' if t == 'c64' else 'f64'
    return t


def binary_model(op, t, a, b):
    if is_float(t):
        if t == 'f64':
            x, y, F = float(a), float(b), np.float64
        else:
            x, y, F = to_f32(t, a), to_f32(t, b), np.float32
        x, y = F(x), F(y)
        if op == 'add': r = x + y
        elif op == 'subtract': r = x - y
        elif op == 'multiply': r = x * y
        elif op == 'divide': r = x / y
        elif op == 'remainder': r = np.fmod(x, y)
        elif op == 'maximum': r = F(xla_max(float(x), float(y)))
        elif op == 'minimum': r = F(xla_min(float(x), float(y)))
        elif op in ('power', 'atan2'): r = F(libm_call(op, t != 'f64', x, y))
        else: raise ValueError(op)
        if op in ('maximum', 'minimum') and math.isnan(float(r)):
            r = x if math.isnan(float(x)) else y  # keep the NaN's bits
        return float(r) if t == 'f64' else from_f32(t, r)
    if t == 'pred':
        if op in ('and', 'minimum', 'multiply'): return a and b
        if op in ('or', 'maximum', 'add'): return a or b
        if op == 'xor': return a != b
    if is_int(t):
        w = INT_BITS[t]
        if op == 'add': return wrap(t, a + b)
        if op == 'subtract': return wrap(t, a - b)
        if op == 'multiply': return wrap(t, a * b)
        if op == 'divide':
            if b == 0: return wrap(t, -1)
            if is_sint(t) and a == imin(t) and b == -1: return a
            q = abs(a) // abs(b)
            return wrap(t, q if (a < 0) == (b < 0) else -q)
        if op == 'remainder':
            if b == 0: return a
            if is_sint(t) and a == imin(t) and b == -1: return 0
            r = abs(a) % abs(b)
            return r if a >= 0 else -r
        if op == 'maximum': return max(a, b)
        if op == 'minimum': return min(a, b)
        if op == 'and': return wrap(t, a & b)
        if op == 'or': return wrap(t, a | b)
        if op == 'xor': return wrap(t, a ^ b)
        ub = b & ((1 << w) - 1)
        ua = a & ((1 << w) - 1)
        if op == 'shift-left': return 0 if ub >= w else wrap(t, ua << ub)
        if op == 'shift-right-logical': return 0 if ub >= w else wrap(t, ua >> ub)
        if op == 'shift-right-arithmetic':
            sa = ua - (1 << w) if ua >> (w - 1) else ua
            return wrap(t, (-1 if sa < 0 else 0) if ub >= w else sa >> ub)
        if op == 'power':
            if a == 1 or b == 0: return 1
            if is_sint(t) and b < 0: return 0
            return wrap(t, pow(a, ub if not is_sint(t) else b, 1 << w))
    raise ValueError((op, t))


# ------------------------------------------------------------ builders


def emit_unary(c, op, t, xs, check_fresh=True):
    """op over the vector xs; fresh NaNs are checked as compare NE."""
    rt = unary_rtype(op, t)
    res = [unary_model(op, t, v) for v in xs]
    keep = [i for i, v in enumerate(xs)
            if not (check_fresh and is_float(rt) and is_nan_val(rt, res[i]) and not is_nan_val(t, v))]
    fresh = [i for i in range(len(xs)) if i not in keep]
    if keep:
        a = c.const(t, [xs[i] for i in keep])
        r = c.instr(rt, [len(keep)], '%s(%s)' % (op, a))
        c.out(r, rt, [len(keep)], [res[i] for i in keep])
    if fresh:
        a = c.const(t, [xs[i] for i in fresh])
        r = c.instr(rt, [len(fresh)], '%s(%s)' % (op, a))
        p = c.instr('pred', [len(fresh)], 'compare(%s, %s), direction=NE' % (r, r), 'isnan')
        c.out(p, 'pred', [len(fresh)], [True] * len(fresh))


def emit_binary(c, op, t, pairs):
    res = [binary_model(op, t, a, b) for a, b in pairs]
    keep = [i for i, (a, b) in enumerate(pairs)
            if not (is_float(t) and is_nan_val(t, res[i]) and not is_nan_val(t, a) and not is_nan_val(t, b))]
    fresh = [i for i in range(len(pairs)) if i not in keep]
    for idx, isfresh in ((keep, False), (fresh, True)):
        if not idx:
            continue
        a = c.const(t, [pairs[i][0] for i in idx])
        b = c.const(t, [pairs[i][1] for i in idx])
        r = c.instr(t, [len(idx)], '%s(%s, %s)' % (op, a, b))
        if isfresh:
            p = c.instr('pred', [len(idx)], 'compare(%s, %s), direction=NE' % (r, r), 'isnan')
            c.out(p, 'pred', [len(idx)], [True] * len(idx))
        else:
            c.out(r, t, [len(idx)], [res[i] for i in idx])


def V(t, xs):
    return [val(t, x) for x in xs]


NAN, INF = math.nan, math.inf
NARROW = ['bf16', 'f16', 'f8e5m2', 'f8e4m3', 'f8e4m3fn', 'f8e4m3fnuz', 'f8e5m2fnuz',
          'f8e4m3b11fnuz', 'f8e3m4', 'f8e8m0fnu', 'f6e2m3fn', 'f6e3m2fn', 'f4e2m1fn']


def has_inf(t): return t in ('f32', 'f64') or (is_narrow(t) and FMTS[t].nan == 'ieee')
def has_nan(t): return t in ('f32', 'f64') or (is_narrow(t) and FMTS[t].nan != 'none')
def has_negzero(t): return t in ('f32', 'f64') or (is_narrow(t) and FMTS[t].nan in ('ieee', 'fn', 'none'))


def edge_floats(t):
    """Edge values representable in t (as Python floats, exact)."""
    if t == 'f8e8m0fnu':
        return [val(t, v) for v in [1.0, 2.0, 0.5, 2.0 ** 127, 2.0 ** -127, 0.25, 4.0, NAN]]
    vals = [0.0, 0.5, -0.5, 1.0, -1.0, 1.5, 2.5, -2.5, 3.0, -1.75]
    if has_negzero(t):
        vals.append(-0.0)
    if has_nan(t):
        vals.append(NAN)
    if has_inf(t):
        vals += [INF, -INF]
    if is_narrow(t):
        f = FMTS[t]
        vals += [f.max_value, -f.max_value, f.decode(1), -f.decode(1), f.decode(1 << f.m)]
    elif t == 'f32':
        vals += [float(np.float32(3.4028234663852886e38)), 1.401298464324817e-45, -1.1754943508222875e-38,
                 8388609.0, -2.5e-8, 0.49999997]
    else:
        vals += [1.7976931348623157e308, 5e-324, -2.2250738585072014e-308, 4503599627370497.0,
                 0.49999999999999994, -1e300]
    out = []
    for v in vals:
        e = val(t, v)
        if e not in out or t in ('f32', 'f64'):
            out.append(e)
    return out


# ================================================================ cases

def case_unary_float(t):
    c = Case('unary_%s_rounding_sign' % t,
             'abs, negate, sign, ceil, floor, round-nearest-afz/even, is-finite, real, imag on %s edge values' % t)
    xs = edge_floats(t)
    ops = ['abs', 'negate', 'sign', 'ceil', 'floor', 'round-nearest-afz', 'round-nearest-even', 'is-finite',
           'real', 'imag']
    if t == 'f8e8m0fnu':
        ops = ['abs', 'ceil', 'floor', 'round-nearest-afz', 'round-nearest-even', 'is-finite', 'real', 'imag']
    for op in ops:
        emit_unary(c, op, t, xs)
    c.write()


TRANS_OPS = ['exponential', 'exponential-minus-one', 'log', 'log-plus-one', 'sqrt', 'rsqrt', 'cbrt', 'tanh',
             'logistic', 'sine', 'cosine', 'tan', 'erf']


def case_unary_transcendental(t, xs):
    c = Case('unary_%s_transcendental' % t,
             'exp, expm1, log, log1p, sqrt, rsqrt, cbrt, tanh, logistic, sin, cos, tan, erf on %s' % t)
    for op in TRANS_OPS:
        emit_unary(c, op, t, V(t, xs))
    c.write()


def case_unary_int(types, name):
    c = Case(name, 'abs, negate, sign, not, popcnt, count-leading-zeros on integer edge values')
    for t in types:
        w = INT_BITS[t]
        raw = [0, 1, 2, 3, imax(t), imin(t), imax(t) - 1, imin(t) + 1, (1 << (w - 1)) // 3]
        if is_sint(t):
            raw += [-1, -2, -3]
        xs = []
        for v in raw:
            v = wrap(t, v)
            if v not in xs:
                xs.append(v)
        ops = ['abs', 'negate', 'sign', 'not', 'popcnt', 'count-leading-zeros']
        if not is_sint(t):
            ops = ops[1:2] + ops[3:]  # abs/sign need a signed type (verifier)
        for op in ops:
            emit_unary(c, op, t, xs)
    c.write()


def pairs_float(t):
    vals = edge_floats(t)
    return vals


def case_binary_float(t, extra=()):
    c = Case('binary_%s' % t, 'add, subtract, multiply, divide, remainder, maximum, minimum, power, atan2 on %s '
             'edge pairs (NaN, +-inf, -0, denormals, overflow, rounding)' % t)
    xs = edge_floats(t)
    core = [v for v in xs]
    pairs = [(a, b) for a in core for b in core]
    # a cross product is large for f32/f64; keep a structured subset
    sel = []
    for i, (a, b) in enumerate(pairs):
        if len(core) <= 12 or i % 3 == 0 or a == b:
            sel.append((a, b))
    sel += [(val(t, a), val(t, b)) for a, b in extra]
    ops = ['add', 'subtract', 'multiply', 'divide', 'remainder', 'maximum', 'minimum', 'power', 'atan2']
    if t == 'f8e8m0fnu':
        ops = ['multiply', 'divide', 'maximum', 'minimum']
    for op in ops:
        emit_binary(c, op, t, sel)
    c.write()


INT_BIN_OPS = ['add', 'subtract', 'multiply', 'divide', 'remainder', 'maximum', 'minimum', 'power', 'and', 'or',
               'xor', 'shift-left', 'shift-right-arithmetic', 'shift-right-logical']


def int_pairs(t):
    w = INT_BITS[t]
    mx, mn = imax(t), imin(t)
    ps = [(mx, 1), (mn, -1), (mn, 1), (7, 0), (-7, 0), (0, 0), (7, 2), (-7, 2), (7, -2), (-7, -2), (mx, mx),
          (mn, mn), (mx, 2), (3, 5), (-1, 1), (2, w - 1), (1, w), (5, w + 3), (-5, 1), (-5, w), (-5, -1),
          (mn, w - 1), (3, 0), (-3, 3), (2, 62), (6, 3)]
    out = []
    for a, b in ps:
        p = (wrap(t, a), wrap(t, b))
        if p not in out:
            out.append(p)
    return out


def case_binary_int(types, name):
    c = Case(name, 'integer binary ops: wrap-around, x/0, x%0, INT_MIN/-1, shifts >= width, power')
    for t in types:
        for op in INT_BIN_OPS:
            emit_binary(c, op, t, int_pairs(t))
    c.write()


def case_binary_pred():
    c = Case('binary_pred', 'and, or, xor, maximum, minimum on pred; not on pred')
    ps = [(False, False), (False, True), (True, False), (True, True)]
    for op in ['and', 'or', 'xor', 'maximum', 'minimum']:
        emit_binary(c, op, 'pred', ps)
    emit_unary(c, 'not', 'pred', [False, True])
    c.write()


def main():
    for d in (OUT_DIR, os.path.join(OUT_DIR, 'inputs')):
        for f in os.listdir(d) if os.path.isdir(d) else []:
            if f.endswith(('.hlo', '.out', '.yaml', '.npy')):
                os.remove(os.path.join(d, f))
    for t in ['f32', 'f64'] + NARROW:
        case_unary_float(t)
    xs32 = [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 10.0, -10.0, 100.0, -100.0, INF, -INF, NAN, 1e-30, 0.125, 3.0, 64.0]
    case_unary_transcendental('f32', xs32)
    case_unary_transcendental('f64', xs32 + [1e-300, 700.0])
    case_unary_transcendental('bf16', [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 10.0, -10.0, INF, -INF, NAN, 0.125, 3.0])
    case_unary_transcendental('f16', [0.0, -0.0, 1.0, -1.0, 2.0, 0.5, 10.0, -10.0, 12.0, INF, -INF, NAN, 0.125])
    case_unary_int(['s8', 's16', 's32', 's64'], 'unary_int_signed')
    case_unary_int(['u8', 'u16', 'u32', 'u64'], 'unary_int_unsigned')
    case_unary_int(['s2', 's4', 'u2', 'u4'], 'unary_int_subbyte')
    case_binary_float('f32', [(1.0, 2 ** -24), (1.0, 2 ** -23), (3.4028234663852886e38, 3.4028234663852886e38),
                              (2 ** -149, 0.5), (3 * 2 ** -149, 0.5), (-8.0, 1 / 3), (2.0, 10.0), (0.1, 0.2),
                              (5.0, 3.0), (-5.0, 3.0), (5.0, -3.0), (1.0, NAN), (NAN, 0.0), (-1.0, INF)])
    case_binary_float('f64', [(1.0, 2 ** -53), (2 ** -1074, 0.5), (0.1, 0.2), (5.0, 3.0), (-5.0, 3.0),
                              (1.0, NAN), (NAN, 0.0)])
    case_binary_float('bf16', [(1.0, 2 ** -8), (1.0, 3 * 2 ** -8), (1.0, 2 ** -7), (256.0, 1.0), (257.0 - 1, 3.0)])
    case_binary_float('f16', [(2048.0, 1.0), (2048.0, 3.0), (65504.0, 16.0), (65504.0, 15.0), (2 ** -24, 0.5),
                              (3 * 2 ** -24, 0.5)])
    for t in NARROW[2:]:
        case_binary_float(t)
    case_binary_int(['s8', 's16'], 'binary_int_s8_s16')
    case_binary_int(['s32'], 'binary_int_s32')
    case_binary_int(['s64'], 'binary_int_s64')
    case_binary_int(['u8', 'u16'], 'binary_int_u8_u16')
    case_binary_int(['u32', 'u64'], 'binary_int_u32_u64')
    case_binary_int(['s2', 's4', 'u2', 'u4'], 'binary_int_subbyte')
    case_binary_pred()
    import gen_more
    gen_more.main(sys.modules[__name__])
    print('%d cases' % len(CASES))


if __name__ == '__main__':
    main()
