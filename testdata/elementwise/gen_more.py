"""Second half of gen.py: compare, select, clamp, convert, bitcast-convert,
reduce-precision, complex ops, literal printing and the seed examples."""
import math
import struct
from fractions import Fraction

import numpy as np

from xla_model import (FMTS, INT_BITS, f32_bits, f64_bits, fmt_array, imax, imin, is_complex,
                       is_float, is_int, is_narrow, is_sint, to_f32, val, wrap)

g = None  # the gen module (Case, emit_*, ...)
NAN, INF = math.nan, math.inf


# ------------------------------------------------------------ compare

def total_key(t, v):
    if t == 'f32':
        b, w = f32_bits(np.float32(v)), 32
    elif t == 'f64':
        b, w = f64_bits(float(v)), 64
    else:
        b, w = v, FMTS[t].width
    if b >> (w - 1):
        return -((b ^ (1 << (w - 1))) + 1)  # sign-magnitude: below every positive, reversed
    return b


def cmp_model(direction, ctype, t, a, b):
    if ctype == 'TOTALORDER':
        x, y = total_key(t, a), total_key(t, b)
    elif is_complex(t):
        eq = a[0] == b[0] and a[1] == b[1]
        return eq if direction == 'EQ' else not eq
    elif is_float(t):
        x, y = float(to_f32(t, a)) if t != 'f64' else a, float(to_f32(t, b)) if t != 'f64' else b
    else:
        x, y = int(a), int(b)
    return {'EQ': x == y, 'NE': x != y, 'LT': x < y, 'LE': x <= y, 'GT': x > y, 'GE': x >= y}[direction]


def emit_compare(c, t, pairs, ctype=None, dirs=('EQ', 'NE', 'LT', 'LE', 'GT', 'GE')):
    a = c.const(t, [p[0] for p in pairs])
    b = c.const(t, [p[1] for p in pairs])
    n = len(pairs)
    eff = ctype or ('FLOAT' if is_float(t) or is_complex(t) else 'SIGNED' if is_sint(t) else 'UNSIGNED')
    for d in dirs:
        attr = 'direction=%s' % d + (', type=%s' % ctype if ctype else '')
        r = c.instr('pred', [n], 'compare(%s, %s), %s' % (a, b, attr), 'cmp')
        c.out(r, 'pred', [n], [cmp_model(d, eff, t, x, y) for x, y in pairs])


def cross(xs):
    return [(a, b) for a in xs for b in xs]


def case_compare_float():
    c = g.Case('compare_f32_f64', 'compare FLOAT (default) and TOTALORDER, every direction, f32 and f64')
    for t in ['f32', 'f64']:
        xs = [val(t, v) for v in [NAN, -INF, -1.0, -0.0, 0.0, 1.0, INF]]
        if t == 'f32':
            xs.append(np.float32(-np.float32(NAN)))  # -nan
        else:
            xs.append(-NAN)
        emit_compare(c, t, cross(xs))
        emit_compare(c, t, cross(xs), 'TOTALORDER')
    c.write()


def case_compare_narrow():
    c = g.Case('compare_narrow_floats', 'compare FLOAT and TOTALORDER on bf16, f16 and every f8/f6/f4 type')
    for t in g.NARROW:
        f = FMTS[t]
        raw = [0.0, 1.0, -1.0, 0.5, f.max_value, -f.max_value]
        xs = [val(t, v) for v in raw]
        if g.has_negzero(t):
            xs.append(val(t, -0.0))
        if g.has_nan(t):
            xs.append(f.qnan())
            if f.nan in ('ieee', 'fn'):
                xs.append(f.neg(f.qnan()))
        if g.has_inf(t):
            xs += [val(t, INF), val(t, -INF)]
        if t == 'f8e8m0fnu':
            xs = [val(t, v) for v in [1.0, 0.5, 2.0 ** 127]] + [0xff]
        xs = list(dict.fromkeys(xs))
        pairs = cross(xs) if len(xs) <= 9 else [p for i, p in enumerate(cross(xs)) if i % 2 == 0]
        emit_compare(c, t, pairs, dirs=('EQ', 'NE', 'LT', 'GE'))
        if t != 'f8e8m0fnu':
            emit_compare(c, t, pairs, 'TOTALORDER', dirs=('EQ', 'LT', 'GE'))
    c.write()


def case_compare_int():
    c = g.Case('compare_int_pred_complex', 'compare SIGNED/UNSIGNED (default) on every integer width, pred, '
               'and EQ/NE on c64/c128')
    for t in ['s2', 's4', 's8', 's16', 's32', 's64', 'u2', 'u4', 'u8', 'u16', 'u32', 'u64']:
        xs = list(dict.fromkeys(wrap(t, v) for v in [imin(t), -1, 0, 1, imax(t)]))
        emit_compare(c, t, cross(xs))
    emit_compare(c, 'pred', cross([False, True]))
    for t in ['c64', 'c128']:
        xs = [val(t, z) for z in [complex(1, 2), complex(1, -2), complex(-0.0, 0), complex(0, 0)]]
        xs.append(val(t, complex(NAN, 0)))
        emit_compare(c, t, cross(xs), dirs=('EQ', 'NE'))
    c.write()


# ------------------------------------------------------- select, clamp

def case_select():
    c = g.Case('select_types', 'select over every element type class (pred operand of the same shape)')
    pred = [True, False, False, True, True]
    for t, a, b in [('f32', [1.5, -0.0, NAN, INF, 2.0], [7.0, 8.0, 9.0, 0.0, -1.0]),
                    ('f64', [1.5, -0.0, NAN, INF, 2.0], [7.0, 8.0, 9.0, 0.0, -1.0]),
                    ('s32', [1, 2, 3, 4, 5], [-1, -2, -3, -4, -5]),
                    ('u64', [2 ** 64 - 1, 2, 3, 4, 5], [0, 0, 0, 0, 2 ** 63]),
                    ('s4', [-8, 7, 1, 2, 3], [0, -1, -2, -3, -4]),
                    ('u4', [15, 1, 2, 3, 4], [0, 9, 10, 11, 12]),
                    ('pred', [True, True, True, False, False], [False, False, True, True, True]),
                    ('bf16', [1.0, 2.0, 3.0, 4.0, 5.0], [-1.0, -2.0, -3.0, -4.0, -5.0]),
                    ('f8e4m3fn', [448.0, -0.0, NAN, 1.0, 2.0], [-448.0, 0.25, 0.5, 1.5, 3.0]),
                    ('f4e2m1fn', [6.0, 0.5, 1.0, 1.5, 2.0], [-6.0, -0.5, -1.0, -1.5, -2.0]),
                    ('c64', [complex(1, 2), 3, 4j, 5, 6], [complex(-1, -2), -3, -4j, -5, -6]),
                    ('c128', [complex(1, 2), 3, 4j, 5, 6], [complex(-1, -2), -3, -4j, -5, -6])]:
        p = c.const('pred', pred)
        x = c.const(t, [val(t, v) for v in a])
        y = c.const(t, [val(t, v) for v in b])
        r = c.instr(t, [5], 'select(%s, %s, %s)' % (p, x, y))
        c.out(r, t, [5], [val(t, a[i] if pred[i] else b[i]) for i in range(5)])
    c.write()


def clamp_model(t, lo, x, hi):
    if is_int(t):
        return min(hi, max(x, lo))
    F = float
    l, v, h = (F(to_f32(t, e)) if t != 'f64' else e for e in (lo, x, hi))
    for e, raw in ((l, lo), (v, x), (h, hi)):
        if math.isnan(e):
            return raw if t == 'f64' or is_narrow(t) else np.float32(raw)
    r = g.xla_min(g.xla_max(v, l), h)
    if t == 'f64':
        return r
    return g.from_f32(t, np.float32(r))


def case_clamp():
    c = g.Case('clamp_types', 'clamp with array and scalar bounds, NaN in each operand, lo > hi, -0/+0')
    specs = [
        ('f32', [NAN, -1.0, 0.5, 2.0, -0.0, 0.0, 5.0, 1.0, 1.0, -NAN], [0.0, 0.0, 0.0, 0.0, 0.0, -0.0, 3.0, NAN, -NAN, 0.0],
         [1.0, NAN, 1.0, 1.0, 0.0, 0.0, 1.0, 2.0, NAN, NAN]),
        ('f64', [NAN, -1.0, 0.5, 2.0, -0.0, 0.0, 5.0, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0, -0.0, 3.0, NAN],
         [1.0, NAN, 1.0, 1.0, 0.0, 0.0, 1.0, 2.0]),
        ('bf16', [1.0, -3.0, 300.0, NAN, 0.25, 1.0], [0.5, 0.5, 0.5, 0.5, 0.5, -NAN], [2.0, 2.0, 256.0, 2.0, 2.0, NAN]),
        ('f8e4m3fn', [448.0, -448.0, 1.0, NAN, 0.5], [-2.0, -2.0, -2.0, -2.0, 1.0], [2.0, 2.0, 2.0, 2.0, 0.75]),
        ('s32', [-5, 5, 50, 2 ** 31 - 1, -2 ** 31], [0, 0, 0, 10, 0], [10, 10, 10, 5, 10]),
        ('u8', [0, 100, 255, 7, 3], [5, 5, 5, 9, 5], [200, 200, 200, 2, 200]),
        ('s4', [-8, 7, 0, -1, 3], [-2, -2, -2, 1, -2], [2, 2, 2, 0, 2]),
    ]
    for t, x, lo, hi in specs:
        n = len(x)
        X = [val(t, v) for v in x]
        L = [val(t, v) for v in lo]
        H = [val(t, v) for v in hi]
        a, l, h = c.const(t, L), c.const(t, X), c.const(t, H)
        r = c.instr(t, [n], 'clamp(%s, %s, %s)' % (a, l, h))
        c.out(r, t, [n], [clamp_model(t, L[i], X[i], H[i]) for i in range(n)])
    # scalar bounds
    for t, x, lo, hi in [('f32', [-3.0, 0.5, 9.0, NAN, -INF, INF], -1.0, 1.0),
                         ('s64', [-2 ** 63, -5, 0, 5, 2 ** 63 - 1], -3, 3),
                         ('f16', [-70000.0 if False else -65504.0, 0.1, 2.0], 0.0, 1.0),
                         ('u32', [0, 4, 2 ** 32 - 1], 1, 3)]:
        n = len(x)
        X = [val(t, v) for v in x]
        L, H = val(t, lo), val(t, hi)
        l = c.const(t, [L], [])
        h = c.const(t, [H], [])
        a = c.const(t, X)
        r = c.instr(t, [n], 'clamp(%s, %s, %s)' % (l, a, h))
        c.out(r, t, [n], [clamp_model(t, L, X[i], H) for i in range(n)])
        # scalar lo, array hi
        ha = c.const(t, [H] * n)
        r2 = c.instr(t, [n], 'clamp(%s, %s, %s)' % (l, a, ha))
        c.out(r2, t, [n], [clamp_model(t, L, X[i], H) for i in range(n)])
    c.write()


# ------------------------------------------------------------ convert

def int_to_f32(n):
    """Exact round-to-nearest-even of an integer to f32."""
    if n == 0:
        return np.float32(0.0)
    a = abs(n)
    bl = a.bit_length()
    if bl > 24:
        sh = bl - 24
        q, r = a >> sh, a & ((1 << sh) - 1)
        half = 1 << (sh - 1)
        if r > half or (r == half and q & 1):
            q += 1
        a = q << sh
    v = np.float32(float(a))
    return -v if n < 0 else v


def float_value(t, v):
    if t == 'f32':
        return float(v)
    if t == 'f64':
        return v
    return FMTS[t].decode(v)


def convert_model(src, dst, v):
    if src == dst:
        return v
    # source as exact number
    if src == 'pred':
        x = 1 if v else 0
    elif is_int(src):
        x = v
    elif is_complex(src):
        x = None
    else:
        x = float_value(src, v)
    if dst == 'pred':
        return bool(x != 0) if not isinstance(x, float) else (x != 0)
    if is_int(dst):
        if isinstance(x, int):
            return wrap(dst, x)
        if math.isnan(x):
            return 0
        if x >= imax(dst):
            return imax(dst)
        if x <= imin(dst):
            return imin(dst)
        return int(x)
    if is_complex(dst):
        if is_complex(src):
            if dst == 'c64':
                return (np.float32(v[0]), np.float32(v[1]))
            return (float(v[0]), float(v[1]))
        r = convert_model(src, 'f32' if dst == 'c64' else 'f64', v)
        return (r, np.float32(0) if dst == 'c64' else 0.0)
    # dst is a real float
    if isinstance(x, int):
        if dst == 'f64':
            return float(x)
        f = int_to_f32(x)
        return f if dst == 'f32' else FMTS[dst].encode(float(f))
    if dst == 'f64':
        return x
    if dst == 'f32':
        return np.float32(x)
    if src == 'f64' and dst in ('bf16', 'f16'):
        return FMTS[dst].encode(float(np.float32(x)))  # Eigen: through float
    return FMTS[dst].encode(x)


def emit_convert(c, src, dst, xs):
    a = c.const(src, xs)
    n = len(xs)
    r = c.instr(dst, [n], 'convert(%s)' % a)
    c.out(r, dst, [n], [convert_model(src, dst, v) for v in xs])


INTS = ['s2', 's4', 's8', 's16', 's32', 's64', 'u2', 'u4', 'u8', 'u16', 'u32', 'u64']


def case_convert_float_to_int():
    c = g.Case('convert_float_to_int', 'f32/f64/bf16/f16/f8 -> every integer type and pred: NaN -> 0, '
               'saturation, truncation toward zero')
    f32x = [NAN, -NAN, INF, -INF, 1e10, -1e10, 2.5, -2.5, -0.9, 0.9, 255.9, 256.0, -129.0, 2147483520.0,
            2147483648.0, -2147483648.0, 9.2233720368547758e18, 1.8446744073709552e19, -0.0, 7.99]
    for t in ['f32', 'f64']:
        xs = [val(t, v) for v in f32x]
        for d in INTS + ['pred']:
            emit_convert(c, t, d, xs)
    for t in ['bf16', 'f16', 'f8e4m3fn', 'f8e5m2', 'f8e4m3fnuz', 'f4e2m1fn']:
        f = FMTS[t]
        raw = [1.5, -1.5, 3.0, -0.5, f.max_value, -f.max_value]
        xs = [val(t, v) for v in raw] + ([f.qnan()] if g.has_nan(t) else []) + \
             ([val(t, INF), val(t, -INF)] if g.has_inf(t) else [])
        for d in ['s8', 'u8', 's32', 'u4', 's4', 'pred']:
            emit_convert(c, t, d, xs)
    c.write()


def case_convert_int():
    c = g.Case('convert_int_to_int_float', 'integers and pred -> every integer type (wrap), pred, f32, f64, '
               'bf16, f16, f8 (rounding and overflow)')
    srcs = {
        's32': [0, 1, -1, 127, 128, -129, 255, 256, 2 ** 31 - 1, -2 ** 31, 16777217, -16777217, 65520, 70000],
        's64': [2 ** 63 - 1, -2 ** 63, 2 ** 53 + 1, -(2 ** 53 + 1), 2 ** 32 + 5, -7],
        'u64': [2 ** 64 - 1, 2 ** 63, 2 ** 63 + 2 ** 39 + 1, 3, 300],
        'u32': [2 ** 32 - 1, 2 ** 31, 5, 0],
        's4': [-8, -1, 0, 7, 3],
        'u4': [15, 8, 0, 1],
        's8': [-128, -1, 127, 16],
        'pred': [True, False],
    }
    for s, raw in srcs.items():
        xs = [val(s, v) for v in raw]
        for d in INTS + ['pred', 'f32', 'f64', 'bf16', 'f16', 'f8e4m3fn', 'f8e5m2', 'f4e2m1fn', 'c64']:
            if d != s:
                emit_convert(c, s, d, xs)
    c.write()


def conv_sources():
    vals = [0.0, -0.0, 1.0, -1.0, NAN, INF, -INF, 0.1, 1.0 + 2 ** -8, 1.0 + 3 * 2 ** -8, 1.0 + 2 ** -8 + 2 ** -30,
            65504.0, 65519.0, 65520.0, 1e5, 448.0, 464.0, 480.0, 500.0, 57344.0, 61440.0, 2 ** -24, 2 ** -25,
            1.5 * 2 ** -25, 2 ** -9, 2 ** -10, 1e-40, 3.0e38, 6.0, 7.0, 28.0, 32.0, 0.25, 0.75, 1.75, 240.0, 256.0,
            2 ** -13, 2 ** -17, 3.0, 15.5, 31.0, 1.0 + 2 ** -4 + 2 ** -30, 1.0 + 2 ** -3 + 2 ** -30]
    return vals


def case_convert_float_to_float(dsts, name):
    c = g.Case(name, 'f32 and f64 -> %s: round to nearest even, overflow to inf/NaN/max, denormals, '
               'NaN/inf, f64 through f32 for bf16/f16 (Eigen)' % ', '.join(dsts))
    raw = conv_sources()
    for s in ['f32', 'f64']:
        xs = [val(s, v) for v in raw]
        for d in dsts:
            emit_convert(c, s, d, xs)
    c.write()


def case_convert_narrow_to_narrow():
    c = g.Case('convert_narrow_to_narrow', 'narrow float -> narrow float and -> f32/f64/c64 (exact source value, '
               'single rounding)')
    pairs = [('f16', 'bf16'), ('bf16', 'f16'), ('f8e5m2', 'f8e4m3fn'), ('f8e4m3fn', 'f8e5m2'),
             ('f16', 'f8e5m2'), ('f8e4m3fnuz', 'f8e5m2fnuz'), ('f8e5m2fnuz', 'f8e4m3fnuz'),
             ('bf16', 'f8e4m3b11fnuz'), ('f8e3m4', 'f8e4m3'), ('f8e4m3', 'f8e3m4'), ('f16', 'f8e8m0fnu'),
             ('f8e8m0fnu', 'bf16'), ('bf16', 'f6e2m3fn'), ('f6e3m2fn', 'f4e2m1fn'), ('f4e2m1fn', 'f6e2m3fn'),
             ('bf16', 'f32'), ('f8e4m3fnuz', 'f64'), ('f8e5m2', 'c64'), ('f6e2m3fn', 'f16')]
    for s, d in pairs:
        f = FMTS[s]
        # every encoding of 8-bit-or-less types is cheap: use a spread of them
        if f.width <= 8:
            xs = list(range(0, 1 << f.width, 1 if f.width <= 6 else 5))
        else:
            xs = [val(s, v) for v in conv_sources() if not (math.isinf(v) and not g.has_inf(s))]
            xs = list(dict.fromkeys(xs))
        emit_convert(c, s, d, xs)
    c.write()


def case_convert_complex():
    c = g.Case('convert_complex', 'real -> complex and complex <-> complex converts')
    xs64 = [val('c64', z) for z in [complex(1, 2), complex(-0.0, NAN), complex(INF, -INF), complex(0.1, 1e-40)]]
    xs128 = [val('c128', z) for z in [complex(1, 2), complex(0.1, 1e-300), complex(1e300, -3)]]
    emit_convert(c, 'c64', 'c128', xs64)
    emit_convert(c, 'c128', 'c64', xs128)
    emit_convert(c, 'f32', 'c64', [val('f32', v) for v in [1.5, -0.0, NAN]])
    emit_convert(c, 'f64', 'c64', [val('f64', v) for v in [0.1, 1e300]])
    emit_convert(c, 's64', 'c128', [val('s64', v) for v in [2 ** 63 - 1, -3]])
    emit_convert(c, 'pred', 'c128', [True, False])
    c.write()


# --------------------------------------------------------- bitcast-convert

NP = {'f32': np.float32, 'f64': np.float64, 's8': np.int8, 'u8': np.uint8, 's16': np.int16, 'u16': np.uint16,
      's32': np.int32, 'u32': np.uint32, 's64': np.int64, 'u64': np.uint64, 'f16': np.float16}


def to_np_bytes(t, xs):
    if t in NP and t != 'f16':
        return np.array([x for x in xs], dtype=NP[t]).tobytes()
    if t in ('bf16', 'f16'):
        return np.array(xs, dtype=np.uint16).tobytes()
    if is_narrow(t) or t in ('s8', 'u8'):
        return bytes([x & 0xff for x in xs])
    raise ValueError(t)


def from_np_bytes(t, data):
    if t == 'f32':
        return list(np.frombuffer(data, dtype=np.float32))
    if t == 'f64':
        return [float(v) for v in np.frombuffer(data, dtype=np.float64)]
    if t in ('bf16', 'f16'):
        return [int(v) for v in np.frombuffer(data, dtype=np.uint16)]
    if is_narrow(t):
        return list(data)
    return [int(v) for v in np.frombuffer(data, dtype=NP[t])]


def case_bitcast_convert():
    c = g.Case('bitcast_convert', 'bitcast-convert between same-width and different-width types (bytes '
               'little-endian, the minor dimension grows/shrinks)')
    f32s = [val('f32', v) for v in [1.0, -0.0, NAN, -INF, 1.401298464324817e-45, -2.5]]
    same = [('f32', 's32', f32s), ('f32', 'u32', f32s), ('s32', 'f32', [0x7f800001, -1, 0x3f800000, -2 ** 31]),
            ('f64', 's64', [val('f64', v) for v in [1.0, -0.0, 5e-324]]),
            ('u64', 'f64', [0x7ff0000000000000, 0xfff8000000000000, 0x3ff0000000000000 + 1]),
            ('f16', 'u16', [val('f16', v) for v in [1.0, -2.0, 65504.0, NAN]]),
            ('bf16', 's16', [val('bf16', v) for v in [1.0, -2.0, 3.0e38, -INF]]),
            ('u16', 'bf16', [0x3f80, 0x7fc1, 0xff80, 0x0001]),
            ('u8', 'f8e4m3fn', [0x7e, 0x7f, 0xff, 0x80, 0x01, 0x38]),
            ('s8', 'f8e5m2', [0x7c, -1, 0x7e, 0x3c, 0x01]),
            ('f8e4m3fnuz', 'u8', [0x80, 0x00, 0x7f, 0xff]),
            ('u8', 'f8e8m0fnu', [0x00, 0x7f, 0xfe, 0xff])]
    for s, d, xs in same:
        n = len(xs)
        xs = [val(s, v) if is_int(s) else v for v in xs]
        a = c.const(s, xs)
        r = c.instr(d, [n], 'bitcast-convert(%s)' % a)
        c.out(r, d, [n], from_np_bytes(d, to_np_bytes(s, xs)))
    # sub-byte same width
    a = c.const('s4', [-8, -1, 7, 0])
    r = c.instr('u4', [4], 'bitcast-convert(%s)' % a)
    c.out(r, 'u4', [4], [8, 15, 7, 0])
    a = c.const('u4', [15, 8, 1])
    r = c.instr('s4', [3], 'bitcast-convert(%s)' % a)
    c.out(r, 's4', [3], [-1, -8, 1])
    # different widths
    xs = [val('f32', v) for v in [1.0, -2.0, 0.15625]]
    a = c.const('f32', xs)
    r = c.instr('u8', [3, 4], 'bitcast-convert(%s)' % a)
    c.out(r, 'u8', [3, 4], list(to_np_bytes('f32', xs)))
    r = c.instr('f16', [3, 2], 'bitcast-convert(%s)' % a)
    c.out(r, 'f16', [3, 2], from_np_bytes('f16', to_np_bytes('f32', xs)))
    b = c.const('u8', [0x00, 0x00, 0x80, 0x3f, 0x01, 0x00, 0x00, 0x80], [2, 4])
    r = c.instr('s32', [2], 'bitcast-convert(%s)' % b)
    c.out(r, 's32', [2], [0x3f800000, -2 ** 31 + 1])
    d = c.const('f64', [val('f64', -1.5)])
    r = c.instr('f32', [1, 2], 'bitcast-convert(%s)' % d)
    c.out(r, 'f32', [1, 2], from_np_bytes('f32', to_np_bytes('f64', [-1.5])))
    e = c.const('s32', [0x12345678, -2], [1, 2])
    r = c.instr('s64', [1], 'bitcast-convert(%s)' % e)
    c.out(r, 's64', [1], [(-2 << 32) | 0x12345678])
    # 8 -> 4 bits and back: element 0 takes the low nibble
    h = c.const('u8', [0x21, 0xf8])
    r = c.instr('s4', [2, 2], 'bitcast-convert(%s)' % h)
    c.out(r, 's4', [2, 2], [1, 2, -8, -1])
    k = c.const('u4', [0x3, 0xa, 0xf, 0x0], [2, 2])
    r = c.instr('u8', [2], 'bitcast-convert(%s)' % k)
    c.out(r, 'u8', [2], [0xa3, 0x0f])
    m = c.const('u16', [0x3c00, 0xbc00], [1, 2])
    r = c.instr('f32', [1], 'bitcast-convert(%s)' % m)
    c.out(r, 'f32', [1], from_np_bytes('f32', to_np_bytes('bf16', [0x3c00, 0xbc00])))
    c.write()


def case_seed_bitcast():
    c = g.Case('seed_bitcast_convert', 'operation-semantics BitcastConvertType examples: f32[10] -> f16[10,2], '
               'f32[] -> f16[2], f16[10,2] -> f32[10]')
    xs = [val('f32', v) for v in [0.0, 1.0, -1.0, 0.5, 2.0, 3.14159274, -0.0, 1e-8, 65504.0, NAN]]
    a = c.const('f32', xs)
    r = c.instr('f16', [10, 2], 'bitcast-convert(%s)' % a)
    halves = from_np_bytes('f16', to_np_bytes('f32', xs))
    c.out(r, 'f16', [10, 2], halves)
    s = c.const('f32', [val('f32', 1.0)], [])
    r2 = c.instr('f16', [2], 'bitcast-convert(%s)' % s)
    c.out(r2, 'f16', [2], from_np_bytes('f16', to_np_bytes('f32', [val('f32', 1.0)])))
    hv = [val('f16', v) for v in [1.0, 2.0, -1.0, 0.5, 0.0, -0.0, 65504.0, 1.0, 3.0, 7.0] * 2]
    h = c.const('f16', hv, [10, 2])
    r3 = c.instr('f32', [10], 'bitcast-convert(%s)' % h)
    c.out(r3, 'f32', [10], from_np_bytes('f32', to_np_bytes('f16', hv)))
    c.write()


# --------------------------------------------------------- reduce-precision

def rp_model(t, v, eb, mb):
    if t == 'f64':
        x, se, sm = float(v), 11, 52
    else:
        x, se, sm = float(to_f32(t, v)), 8, 23
    if math.isnan(x):
        r = x if mb > 0 else INF
        if t == 'f64':
            return r
        if mb > 0:
            return v if t != 'f32' else np.float32(v)
        return g.from_f32(t, np.float32(INF)) if t != 'f32' else np.float32(INF)
    r = x
    if mb < sm and x != 0 and not math.isinf(x):
        # round the significand to mb bits (ties to even), exponent unbounded
        _, e2 = math.frexp(abs(x))
        ulp = Fraction(2) ** (e2 - 1 - mb)
        n = Fraction(abs(x)) / ulp
        fl = math.floor(n)
        rem = n - fl
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1):
            fl += 1
        r = math.copysign(float(fl * ulp), x)
    if eb < se and r != 0 and not math.isinf(r):
        rb = (1 << (eb - 1)) - 1
        if abs(r) >= 2.0 ** (rb + 1):
            r = math.copysign(INF, r)
        elif abs(r) < 2.0 ** (1 - rb):
            r = math.copysign(0.0, r)
    if t == 'f64':
        return r
    r32 = np.float32(r)
    return r32 if t == 'f32' else g.from_f32(t, r32)


def case_reduce_precision():
    c = g.Case('reduce_precision', 'reduce-precision to f16/bf16/f8-like formats on f32, f64, bf16, f16: RNE '
               'mantissa, overflow to inf, underflow (incl. denormals) to signed zero, NaN kept (inf when '
               'mantissa_bits=0), no-op when the format is wider')
    raw = [0.0, -0.0, 1.0, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, 65504.0, 65519.0, 65520.0, 1e5, 6.1e-5, 6.0e-5,
           -1e-7, INF, -INF, NAN, 3.14159, -2.71828, 1e-30, 3.0e38, 0.1]
    for t, specs in [('f32', [(5, 10), (8, 7), (5, 2), (4, 3), (8, 23), (11, 52), (1, 0), (3, 0)]),
                     ('f64', [(5, 10), (8, 23), (11, 52), (2, 1)]),
                     ('bf16', [(5, 10), (5, 2), (4, 3)]),
                     ('f16', [(5, 2), (8, 7), (4, 0)])]:
        xs = list(dict.fromkeys(val(t, v) for v in raw)) if is_narrow(t) else [val(t, v) for v in raw]
        a = c.const(t, xs)
        for eb, mb in specs:
            r = c.instr(t, [len(xs)], 'reduce-precision(%s), exponent_bits=%d, mantissa_bits=%d' % (a, eb, mb))
            c.out(r, t, [len(xs)], [rp_model(t, v, eb, mb) for v in xs])
    c.write()


# -------------------------------------------------------------- complex

def cround(t, z):
    if t == 'c64':
        return (np.float32(z.real), np.float32(z.imag))
    return (float(z.real), float(z.imag))


def case_complex_ops():
    c = g.Case('complex_ops', 'complex(), real, imag, abs, negate, sign, exp, log, sqrt and c64/c128 add, '
               'subtract, multiply, divide on exactly representable results')
    for t, rt in [('c64', 'f32'), ('c128', 'f64')]:
        zs = [complex(3, 4), complex(-3, -4), complex(0, 0), complex(-0.0, 2), complex(1.5, -0.0), complex(0, -5)]
        xs = [val(t, z) for z in zs]
        a = c.const(t, xs)
        n = len(xs)
        for op, fn, ot in [('real', lambda z: z.real, rt), ('imag', lambda z: z.imag, rt),
                           ('abs', abs, rt), ('negate', lambda z: -z, t)]:
            r = c.instr(ot, [n], '%s(%s)' % (op, a))
            if ot == t:
                c.out(r, ot, [n], [(-x[0], -x[1]) for x in xs])
            else:
                c.out(r, ot, [n], [val(ot, fn(z)) for z in zs])
        sg = [val(t, z) for z in [complex(3, 4), complex(0, 0), complex(0, -2), complex(-5, 0)]]
        a2 = c.const(t, sg)
        r = c.instr(t, [4], 'sign(%s)' % a2)
        c.out(r, t, [4], [val(t, z) for z in [complex(0.6, 0.8), 0, complex(0, -1), complex(-1, 0)]])
        ex = c.const(t, [val(t, z) for z in [0, complex(0, 0)]])
        r = c.instr(t, [2], 'exponential(%s)' % ex)
        c.out(r, t, [2], [val(t, 1), val(t, 1)])
        lg = c.const(t, [val(t, z) for z in [1, complex(-1, 0)]])
        r = c.instr(t, [2], 'log(%s)' % lg)
        c.out(r, t, [2], [val(t, 0), val(t, complex(0, math.pi))])
        sq = c.const(t, [val(t, z) for z in [complex(-4, 0), complex(-4, -0.0), complex(0, 2), 9]])
        r = c.instr(t, [4], 'sqrt(%s)' % sq)
        c.out(r, t, [4], [val(t, z) for z in [complex(0, 2), complex(0, -2), complex(1, 1), 3]])
        ps = [(complex(1, 2), complex(3, -4)), (complex(0.5, 0), complex(0, 0.25)), (complex(-1, 1), complex(2, 2))]
        pa = c.const(t, [val(t, p[0]) for p in ps])
        pb = c.const(t, [val(t, p[1]) for p in ps])
        for op, fn in [('add', lambda x, y: x + y), ('subtract', lambda x, y: x - y),
                       ('multiply', lambda x, y: x * y)]:
            r = c.instr(t, [3], '%s(%s, %s)' % (op, pa, pb))
            c.out(r, t, [3], [val(t, fn(x, y)) for x, y in ps])
        dv = [(complex(5, 10), complex(1, 2)), (complex(4, 0), complex(0, 2)), (complex(-6, 8), complex(2, 0))]
        da = c.const(t, [val(t, p[0]) for p in dv])
        db = c.const(t, [val(t, p[1]) for p in dv])
        r = c.instr(t, [3], 'divide(%s, %s)' % (da, db))
        c.out(r, t, [3], [val(t, x / y) for x, y in dv])
        # complex(re, im) from reals
        re = c.const(rt, [val(rt, v) for v in [1.0, -0.0, NAN, INF]])
        im = c.const(rt, [val(rt, v) for v in [2.0, -1.0, 0.5, -0.0]])
        r = c.instr(t, [4], 'complex(%s, %s)' % (re, im))
        c.out(r, t, [4], [(val(rt, a), val(rt, b)) for a, b in zip([1.0, -0.0, NAN, INF], [2.0, -1.0, 0.5, -0.0])])
    c.write()


# -------------------------------------------------------------- seeds, printing

def case_seed_examples():
    c = g.Case('seed_elementwise_examples', 'operation-semantics examples: Clamp (scalar bounds), Select (array '
               'and broadcast scalar predicate), ConvertElementType s32 -> f32')
    x = c.const('s32', [-1, 5, 9])
    lo = c.const('s32', [0], [])
    hi = c.const('s32', [6], [])
    r = c.instr('s32', [3], 'clamp(%s, %s, %s)' % (lo, x, hi))
    c.out(r, 's32', [3], [0, 5, 6])
    p = c.const('pred', [True, False, False, True])
    v1 = c.const('s32', [1, 2, 3, 4])
    v2 = c.const('s32', [100, 200, 300, 400])
    r = c.instr('s32', [4], 'select(%s, %s, %s)' % (p, v1, v2))
    c.out(r, 's32', [4], [1, 200, 300, 4])
    ps = c.const('pred', [True], [])
    pb = c.instr('pred', [4], 'broadcast(%s), dimensions={}' % ps)
    r = c.instr('s32', [4], 'select(%s, %s, %s)' % (pb, v1, v2))
    c.out(r, 's32', [4], [1, 2, 3, 4])
    a = c.const('s32', [0, 1, 2])
    r = c.instr('f32', [3], 'convert(%s)' % a)
    c.out(r, 'f32', [3], [np.float32(0), np.float32(1), np.float32(2)])
    c.write()


def write_manual(name, doc, hlo_body, out_text):
    import os
    base = os.path.join(g.OUT_DIR, name)
    with open(base + '.hlo', 'w') as f:
        f.write('HloModule %s\n\n// %s\nENTRY main {\n%s\n}\n' % (name, doc, hlo_body))
    with open(base + '.out', 'w') as f:
        f.write(out_text + '\n')
    with open(base + '.yaml', 'w') as f:
        f.write("command: hlorun\nargs: ['%s.hlo']\nstdout: %s.out\ntimeout: 20\n" % (name, name))
    g.CASES.append(name)


def case_printing():
    # ranks 0..4, empty arrays, pred words vs digits, nested tuple, token
    c = g.Case('print_ranks_and_empty', 'literal printing: rank 0 (pred true/false), ranks 1-4 (i0 comments '
               'for rank > 3), empty arrays, size-1 dimensions')
    c.out(c.const('pred', [True], []), 'pred', [], [True])
    c.out(c.const('pred', [False], []), 'pred', [], [False])
    c.out(c.const('pred', [True, False], [2]), 'pred', [2], [True, False])
    c.out(c.const('f32', [val('f32', 1.5)], []), 'f32', [], [val('f32', 1.5)])
    c.out(c.const('s32', [], [0]), 's32', [0], [])
    c.out(c.const('f32', [], [0, 3]), 'f32', [0, 3], [])
    c.out(c.const('f32', [], [2, 0]), 'f32', [2, 0], [])
    c.out(c.const('s8', [], [2, 0, 3]), 's8', [2, 0, 3], [])
    c.out(c.const('s32', list(range(6)), [2, 3]), 's32', [2, 3], list(range(6)))
    c.out(c.const('s32', [7, 8], [2, 1]), 's32', [2, 1], [7, 8])
    c.out(c.const('s32', [7, 8], [1, 2]), 's32', [1, 2], [7, 8])
    c.out(c.const('u8', list(range(12)), [2, 3, 2]), 'u8', [2, 3, 2], list(range(12)))
    c.out(c.const('pred', [True, False, True, True, False, False, True, False], [2, 2, 2]), 'pred', [2, 2, 2],
          [True, False, True, True, False, False, True, False])
    c.out(c.const('s16', list(range(16)), [2, 2, 2, 2]), 's16', [2, 2, 2, 2], list(range(16)))
    c.out(c.const('s8', list(range(8)), [1, 2, 1, 2, 2]), 's8', [1, 2, 1, 2, 2], list(range(8)))
    c.write()
    c = g.Case('print_float_digits', 'literal printing of floats: f32 %.6g/%.9g, f64 %.15g/%.17g, bf16 %.4g, '
               'f16 %.5g, f8 max_digits10, nan/-nan/payloads, inf, denormals, c64/c128')
    f32s = [0.1, 1e10, 3.14159274, 1.0 / 3, 100.0, 1e-45, 3.4028234663852886e38, 123456.0, 1234567.0, 0.5, -0.0,
            INF, -INF, NAN]
    xs = [val('f32', v) for v in f32s] + [np.float32(-np.float32(NAN))]
    from xla_model import f32_from_bits, f64_from_bits
    xs += [f32_from_bits(0x7fc00001), f32_from_bits(0xff800001)]
    c.out(c.const('f32', xs), 'f32', [len(xs)], xs)
    ds = [0.1, 0.1 + 0.2, 1e100, 5e-324, 1.0 / 3, 123456789012345.0, 1234567890123456.0, 2.0 ** 60, -NAN]
    ds = [val('f64', v) for v in ds] + [f64_from_bits(0x7ff0000000000001)]
    c.out(c.const('f64', ds), 'f64', [len(ds)], ds)
    for t, vs, extra in [('bf16', [3.140625, 1.0 / 3, 65280.0, 1e-40, 3.0e38, -0.0, NAN], [0x7fc1, 0xffc0]),
                         ('f16', [3.140625, 0.1, 65504.0, 6e-8, 1.0 / 3, NAN], [0x7e01, 0xfc00]),
                         ('f8e5m2', [1.25, 0.1, 57344.0, 1.5e-5], [0x7f, 0x7d, 0xfe]),
                         ('f8e4m3fn', [1.125, 0.1, 448.0, 0.001953125], [0x7f, 0xff]),
                         ('f8e4m3fnuz', [240.0, 0.1], [0x80]),
                         ('f8e3m4', [1.0625, 15.5, 0.015625], [0x79]),
                         ('f8e8m0fnu', [2.0 ** -127, 2.0 ** 127, 1.0], [0xff]),
                         ('f6e3m2fn', [28.0, 0.0625, 1.25], []),
                         ('f4e2m1fn', [6.0, 0.5, -1.5], [])]:
        e = [val(t, v) for v in vs] + extra
        c.out(c.const(t, e), t, [len(e)], e)
    cz = [val('c64', z) for z in [complex(0.1, -2), complex(NAN, INF)]]
    c.out(c.const('c64', cz), 'c64', [2], cz)
    cz2 = [val('c128', z) for z in [complex(0.1, 1e-300)]]
    c.out(c.const('c128', cz2, [1, 1]), 'c128', [1, 1], cz2)
    c.write()
    write_manual(
        'print_nested_tuple_token', 'literal printing of nested tuples, an empty tuple and a token',
        '  a = f32[2] constant({1, 2})\n  b = s32[] constant(-3)\n  t0 = () tuple()\n  tk = token[] after-all()\n'
        '  inner = (s32[], ()) tuple(b, t0)\n'
        '  p = pred[] constant(false)\n  ROOT t = (f32[2], (s32[], ()), token[], pred[]) tuple(a, inner, tk, p)',
        '(\nf32[2] {1, 2},\n(\ns32[] -3,\n(\n\n)\n),\ntoken,\npred[] false\n)')


def case_npy_inputs():
    c = g.Case('npy_inputs_f16_s32_u64', 'elementwise ops on entry parameters read from .npy files (numpy '
               'float16/int32/uint64/bool): f16 overflow to inf, rounding, wrap, compare')
    h = np.array([65504.0, 1.0, 2048.0, -0.0, 6e-8, np.inf], dtype=np.float16)
    i = np.array([2 ** 31 - 1, -2 ** 31, 7, -7], dtype=np.int32)
    u = np.array([2 ** 64 - 1, 0, 12345678901234567890], dtype=np.uint64)
    b = np.array([True, False, True, False], dtype=np.bool_)
    ph = c.param('f16', [6], h)
    pi = c.param('s32', [4], i)
    pu = c.param('u64', [3], u)
    pb = c.param('pred', [4], b)
    H = [int(v) for v in h.view(np.uint16)]
    one = c.const('f16', [val('f16', 1.0)] * 6)
    r = c.instr('f16', [6], 'add(%s, %s)' % (ph, ph))
    c.out(r, 'f16', [6], [g.binary_model('add', 'f16', x, x) for x in H])
    r = c.instr('f16', [6], 'add(%s, %s)' % (ph, one))
    c.out(r, 'f16', [6], [g.binary_model('add', 'f16', x, val('f16', 1.0)) for x in H])
    I = [int(v) for v in i]
    r = c.instr('s32', [4], 'add(%s, %s)' % (pi, pi))
    c.out(r, 's32', [4], [wrap('s32', 2 * v) for v in I])
    r = c.instr('f16', [4], 'convert(%s)' % pi)
    c.out(r, 'f16', [4], [convert_model('s32', 'f16', v) for v in I])
    U = [int(v) for v in u]
    r = c.instr('u64', [3], 'multiply(%s, %s)' % (pu, pu))
    c.out(r, 'u64', [3], [wrap('u64', v * v) for v in U])
    r = c.instr('pred', [4], 'not(%s)' % pb)
    c.out(r, 'pred', [4], [not v for v in b])
    r = c.instr('s32', [4], 'select(%s, %s, %s)' % (pb, pi, pi))
    c.out(r, 's32', [4], I)
    c.write()


def case_fused_chain():
    # Hand-derived: 1 + 2^-8 rounds back to 1 in bf16 at every step (ties to
    # even), 1 + 2^-4 to 1 in f8e4m3fn; s4 7+1+1+1 wraps to -6.  The results are
    # >= 1 MiB so hlorun runs the chains fused, block by block.
    body = []
    for t, one, eps, n, outs in [('bf16', '1', '0.00390625', 1048576, 3), ('f8e4m3fn', '1', '0.0625', 1048576, 2),
                                 ('s4', '7', '1', 1048576, 3)]:
        k = t.replace('f8e4m3fn', 'f8')
        body.append('  %s_one = %s[] constant(%s)' % (k, t, one))
        body.append('  %s_eps = %s[] constant(%s)' % (k, t, eps))
        body.append('  %s_a = %s[%d] broadcast(%s_one), dimensions={}' % (k, t, n, k))
        body.append('  %s_b = %s[%d] broadcast(%s_eps), dimensions={}' % (k, t, n, k))
        prev = '%s_a' % k
        for j in range(outs):
            body.append('  %s_y%d = %s[%d] add(%s, %s_b)' % (k, j, t, n, prev, k))
            prev = '%s_y%d' % (k, j)
        body.append('  %s_r = %s[4] slice(%s), slice={[0:4]}' % (k, t, prev))
    body.append('  ROOT result = (bf16[4], f8e4m3fn[4], s4[4]) tuple(bf16_r, f8_r, s4_r)')
    write_manual('fused_chain_rounding', 'elementwise chains on >= 1 MiB shapes (run fused) still round bf16/f8 '
                 'and wrap s4 after every op', '\n'.join(body),
                 '(\nbf16[4] {1, 1, 1, 1},\nf8e4m3fn[4] {1, 1, 1, 1},\ns4[4] {-6, -6, -6, -6}\n)')


def main(gen):
    global g
    g = gen
    case_compare_float()
    case_compare_narrow()
    case_compare_int()
    case_select()
    case_clamp()
    case_convert_float_to_int()
    case_convert_int()
    case_convert_float_to_float(['bf16', 'f16'], 'convert_to_bf16_f16')
    case_convert_float_to_float(['f8e5m2', 'f8e4m3', 'f8e4m3fn', 'f8e3m4'], 'convert_to_f8_ieee_fn')
    case_convert_float_to_float(['f8e4m3fnuz', 'f8e5m2fnuz', 'f8e4m3b11fnuz', 'f8e8m0fnu'], 'convert_to_f8_fnuz')
    case_convert_float_to_float(['f6e2m3fn', 'f6e3m2fn', 'f4e2m1fn'], 'convert_to_f6_f4')
    case_convert_narrow_to_narrow()
    case_convert_complex()
    case_bitcast_convert()
    case_seed_bitcast()
    case_reduce_precision()
    case_complex_ops()
    case_seed_examples()
    case_printing()
    case_npy_inputs()
    case_fused_chain()
