"""Independent model of XLA element types, ops and literal printing, used by
gen.py to derive the expected outputs of the elementwise golden cases.

Nothing here calls hlotools: float formats are decoded/encoded with exact
rational arithmetic following ml_dtypes' ConvertImpl (round to nearest even
on the significand with its implicit bit; overflow to the type's "infinity",
which is NaN for *fn/*fnuz types, the largest value for the MX f6/f4 types);
f32 arithmetic is numpy.float32 (IEEE, this machine), f64 is Python float.
Printing follows xla/literal.cc (DenseArrayToStringHelper) and xla/util.cc
(RoundTripFpToString: %.{digits10}g if it round-trips else
%.{max_digits10}g for f32/f64, %.{max_digits10}g for narrower floats, NaN
payload suffix only for types with signalling NaNs).
"""
import math
import struct
from fractions import Fraction

import numpy as np

# ---------------------------------------------------------------- types


class FloatFmt:
    def __init__(self, name, e, m, bias, signed, nan, digits10max):
        self.name, self.e, self.m, self.bias = name, e, m, bias
        self.signed, self.nan, self.maxd = signed, nan, digits10max
        self.width = e + m + (1 if signed else 0)
        self.sign_bit = (1 << (e + m)) if signed else 0
        # largest finite magnitude bits
        top = ((1 << e) - 1) << m
        if nan == 'ieee':
            self.max_bits = top - 1
        elif nan == 'fn':
            self.max_bits = top | ((1 << m) - 2)
        elif nan in ('fnuz', 'none'):
            self.max_bits = top | ((1 << m) - 1)
        elif nan == 'e8m0':
            self.max_bits = 0xfe
        self.max_value = self.decode(self.max_bits)

    def is_nan(self, b):
        mag = b & ((1 << (self.e + self.m)) - 1)
        if self.nan == 'ieee':
            return (mag >> self.m) == (1 << self.e) - 1 and (mag & ((1 << self.m) - 1)) != 0
        if self.nan == 'fn':
            return mag == (1 << (self.e + self.m)) - 1
        if self.nan == 'fnuz':
            return b == self.sign_bit
        if self.nan == 'e8m0':
            return b == 0xff
        return False

    def decode(self, b):
        """Exact value as a Python float (NaN keeps the sign bit)."""
        neg = bool(b & self.sign_bit)
        if self.is_nan(b):
            return -math.nan if neg else math.nan
        if self.nan == 'e8m0':
            return math.ldexp(1.0, b - 127)
        mag = b & ((1 << (self.e + self.m)) - 1)
        ex, man = mag >> self.m, mag & ((1 << self.m) - 1)
        if self.nan == 'ieee' and ex == (1 << self.e) - 1:
            return -math.inf if neg else math.inf
        if ex == 0:
            v = math.ldexp(man, 1 - self.bias - self.m)
        else:
            v = math.ldexp((1 << self.m) | man, ex - self.bias - self.m)
        return -v if neg else v

    def neg(self, b):
        if self.nan == 'fnuz' and (b & ~self.sign_bit) == 0:
            return b
        return b ^ self.sign_bit

    def qnan(self):
        if self.nan == 'ieee':
            return (((1 << self.e) - 1) << self.m) | (1 << (self.m - 1))
        if self.nan == 'fn':
            return (1 << (self.e + self.m)) - 1
        if self.nan == 'fnuz':
            return self.sign_bit
        if self.nan == 'e8m0':
            return 0xff
        return self.sign_bit  # MX: "NaN" converts to the -0 pattern

    def inf(self):
        if self.nan == 'ieee':
            return ((1 << self.e) - 1) << self.m
        if self.nan == 'none':
            return self.max_bits
        return self.qnan()

    def encode(self, x):
        """Rounds a Python float (exact double) to the format."""
        x = float(x)
        neg = math.copysign(1.0, x) < 0
        if math.isnan(x):
            q = self.qnan()
            return self.neg(q) if neg else q
        if not self.signed and neg and x != 0:
            return self.qnan()
        if math.isinf(x):
            r = self.inf()
            return self.neg(r) if neg else r
        if x == 0:
            if self.nan == 'e8m0':
                return self.qnan()
            return self.neg(0) if neg else 0
        a = Fraction(abs(x))
        _, e2 = math.frexp(abs(x))
        E = e2 - 1  # a in [2^E, 2^(E+1))
        emin = -127 if self.nan == 'e8m0' else 1 - self.bias
        q = max(E, emin)
        ulp = Fraction(2) ** (q - self.m)
        n = a / ulp
        fl = math.floor(n)
        rem = n - fl
        if rem > Fraction(1, 2) or (rem == Fraction(1, 2) and fl % 2 == 1):
            fl += 1
        r = fl * ulp
        if r > Fraction(self.max_value):
            bits = self.inf()
        else:
            bits = self.bits_of_exact(r)
        return self.neg(bits) if neg else bits

    def bits_of_exact(self, r):
        if r == 0:
            return 0
        if self.nan == 'e8m0':
            return int(math.log2(r)) + 127
        _, e2 = math.frexp(float(r))
        E = e2 - 1
        if E < 1 - self.bias:
            return int(r / Fraction(2) ** (1 - self.bias - self.m))
        man = int(r / Fraction(2) ** (E - self.m)) - (1 << self.m)
        return ((E + self.bias) << self.m) | man


FMTS = {
    'f16': FloatFmt('f16', 5, 10, 15, True, 'ieee', 5),
    'bf16': FloatFmt('bf16', 8, 7, 127, True, 'ieee', 4),
    'f8e5m2': FloatFmt('f8e5m2', 5, 2, 15, True, 'ieee', 2),
    'f8e4m3': FloatFmt('f8e4m3', 4, 3, 7, True, 'ieee', 3),
    'f8e3m4': FloatFmt('f8e3m4', 3, 4, 3, True, 'ieee', 3),
    'f8e4m3fn': FloatFmt('f8e4m3fn', 4, 3, 7, True, 'fn', 3),
    'f8e4m3fnuz': FloatFmt('f8e4m3fnuz', 4, 3, 8, True, 'fnuz', 3),
    'f8e5m2fnuz': FloatFmt('f8e5m2fnuz', 5, 2, 16, True, 'fnuz', 2),
    'f8e4m3b11fnuz': FloatFmt('f8e4m3b11fnuz', 4, 3, 11, True, 'fnuz', 3),
    'f8e8m0fnu': FloatFmt('f8e8m0fnu', 8, 0, 127, False, 'e8m0', 2),
    'f6e2m3fn': FloatFmt('f6e2m3fn', 2, 3, 1, True, 'none', 3),
    'f6e3m2fn': FloatFmt('f6e3m2fn', 3, 2, 3, True, 'none', 2),
    'f4e2m1fn': FloatFmt('f4e2m1fn', 2, 1, 1, True, 'none', 2),
}

INT_BITS = {'s2': 2, 's4': 4, 's8': 8, 's16': 16, 's32': 32, 's64': 64,
            'u2': 2, 'u4': 4, 'u8': 8, 'u16': 16, 'u32': 32, 'u64': 64}


def is_int(t): return t in INT_BITS
def is_sint(t): return is_int(t) and t[0] == 's'
def is_narrow(t): return t in FMTS
def is_float(t): return t in FMTS or t in ('f32', 'f64')
def is_complex(t): return t in ('c64', 'c128')


def wrap(t, v):
    b = INT_BITS[t]
    v &= (1 << b) - 1
    if t[0] == 's' and v >> (b - 1):
        v -= 1 << b
    return v


def imin(t): return -(1 << (INT_BITS[t] - 1)) if is_sint(t) else 0
def imax(t): return (1 << (INT_BITS[t] - 1)) - 1 if is_sint(t) else (1 << INT_BITS[t]) - 1

# ------------------------------------------------------ value helpers
# Values: ints -> int; pred -> bool; f32 -> np.float32; f64 -> float;
# narrow floats -> int bits; c64 -> (np.float32, np.float32); c128 -> (float, float)


def f32(x): return np.float32(x)


def f32_bits(v): return int(np.array([v], dtype=np.float32).view(np.uint32)[0])  # keeps sNaN bits
def f32_from_bits(b): return np.frombuffer(struct.pack('<I', b), dtype=np.float32)[0]
def f64_bits(v): return struct.unpack('<Q', struct.pack('<d', v))[0]
def f64_from_bits(b): return struct.unpack('<d', struct.pack('<Q', b))[0]


def to_f32(t, v):
    """Exact f32 value of a float element (narrow floats are exact in f32)."""
    if t == 'f32':
        return np.float32(v)
    if t == 'f64':
        return np.float32(v)
    return np.float32(FMTS[t].decode(v))


def from_f32(t, x):
    """Rounds an f32 compute result back to t (the evaluator's static_cast)."""
    x = np.float32(x)
    if t == 'f32':
        return x
    return FMTS[t].encode(float(x))


def val(t, x):
    """Element of type t from a Python number (exact for narrow floats)."""
    if t == 'pred':
        return bool(x)
    if is_int(t):
        return wrap(t, int(x))
    if t == 'f32':
        return np.float32(x)
    if t == 'f64':
        return float(x)
    if is_narrow(t):
        return FMTS[t].encode(float(x))
    if t == 'c64':
        return (np.float32(x.real), np.float32(x.imag))
    if t == 'c128':
        return (float(x.real), float(x.imag))
    raise ValueError(t)


def as_float(t, v):
    """Python float value of a real float element."""
    if t in ('f32', 'f64'):
        return float(v)
    return FMTS[t].decode(v)


# ---------------------------------------------------------- printing


def _g(v, digits):
    if math.isinf(v):
        return '-inf' if v < 0 else 'inf'
    return '%.*g' % (digits, v)


def fmt_f32(v):
    v = np.float32(v)
    b = f32_bits(v)
    if np.isnan(v):
        s = '-nan' if b >> 31 else 'nan'
        p = b & 0x7fffff
        return s + ('(0x%x)' % p if p != 0x400000 else '')
    s = _g(float(v), 6)
    if not math.isinf(float(v)) and np.float32(float(s)) != v:
        s = _g(float(v), 9)
    return s


def fmt_f64(v):
    b = f64_bits(v)
    if math.isnan(v):
        s = '-nan' if b >> 63 else 'nan'
        p = b & ((1 << 52) - 1)
        return s + ('(0x%x)' % p if p != (1 << 51) else '')
    s = _g(v, 15)
    if not math.isinf(v) and float(s) != v:
        s = _g(v, 17)
    return s


def fmt_narrow(t, b):
    f = FMTS[t]
    if f.is_nan(b):
        s = '-nan' if (b & f.sign_bit) else 'nan'
        if f.nan == 'ieee':
            p = b & ((1 << f.m) - 1)
            if p != 1 << (f.m - 1):
                s += '(0x%x)' % p
        return s
    return _g(f.decode(b), f.maxd)


def fmt_elem(t, v, scalar=False):
    if t == 'pred':
        return ('true' if v else 'false') if scalar else ('1' if v else '0')
    if is_int(t):
        return str(v)
    if t == 'f32':
        return fmt_f32(v)
    if t == 'f64':
        return fmt_f64(v)
    if is_narrow(t):
        return fmt_narrow(t, v)
    if t == 'c64':
        return '(%s, %s)' % (fmt_f32(v[0]), fmt_f32(v[1]))
    if t == 'c128':
        return '(%s, %s)' % (fmt_f64(v[0]), fmt_f64(v[1]))
    raise ValueError(t)


def shape_str(t, dims):
    return '%s[%s]' % (t, ','.join(str(d) for d in dims))


def fmt_array(t, dims, flat):
    """xla::LiteralBase::ToString() of a dense array (DenseArrayToStringHelper)."""
    rank = len(dims)
    pieces = []
    it = iter(flat)

    def brace(b, dims_left, acc):
        if rank == 1:
            return b
        if len(dims_left) == 1 and b == '{':
            return '  {' + ('' if dims_left[0] <= 1 else ' ')
        if len(dims_left) == 1 and b == '}':
            return ('' if dims_left[0] <= 1 else ' ') + '}'
        if b == '{':
            if rank > 3 and acc and len(acc) < rank:
                return '{ /*i%d=%d*/\n' % (len(acc) - 1, acc[-1])
            return '{\n'
        return '\n}'

    def rec(dims_left, acc):
        if not dims_left:
            pieces.append(fmt_elem(t, next(it), scalar=(rank == 0)))
            return
        pieces.append(brace('{', dims_left, acc))
        for i in range(dims_left[0]):
            rec(dims_left[1:], acc + [i])
            if i < dims_left[0] - 1:
                pieces.append(',')
                pieces.append('\n' if len(dims_left) > 1 else ' ')
        pieces.append(brace('}', dims_left, acc))

    rec(list(dims), [])
    return shape_str(t, dims) + ' ' + ''.join(pieces)


def fmt_tuple(parts):
    return '(\n' + ',\n'.join(parts) + '\n)'


# ------------------------------------------------------ HLO constants


def const_elem(t, v):
    """Text of one element in an HLO constant (exact value, no rounding)."""
    if t == 'pred':
        return 'true' if v else 'false'
    if is_int(t):
        return str(v)
    if t in ('f32', 'f64'):
        x = float(v)
        b = f32_bits(np.float32(v)) if t == 'f32' else f64_bits(x)
        if math.isnan(x):
            if t == 'f32':
                s, p, q = b >> 31, b & 0x7fffff, 0x400000
            else:
                s, p, q = b >> 63, b & ((1 << 52) - 1), 1 << 51
            return ('-nan' if s else 'nan') + ('(0x%x)' % p if p != q else '')
        if math.isinf(x):
            return '-inf' if x < 0 else 'inf'
        if x == 0:
            return '-0.0' if math.copysign(1, x) < 0 else '0'  # '-0' is an INT: +0
        return repr(x)
    if is_narrow(t):
        f = FMTS[t]
        if f.is_nan(v):
            s = '-nan' if (v & f.sign_bit) and f.nan in ('ieee', 'fn') else 'nan'
            if f.nan == 'ieee':
                p = v & ((1 << f.m) - 1)
                if p != 1 << (f.m - 1):
                    s += '(0x%x)' % p
            return s
        x = f.decode(v)
        if math.isinf(x):
            return '-inf' if x < 0 else 'inf'
        if x == 0:
            return '-0.0' if (v & f.sign_bit) else '0'
        return repr(x)
    if is_complex(t):
        tt = 'f32' if t == 'c64' else 'f64'
        return '(%s, %s)' % (const_elem(tt, v[0]), const_elem(tt, v[1]))
    raise ValueError(t)


def const_text(t, dims, flat):
    flat = list(flat)
    if not dims:
        return const_elem(t, flat[0])
    if len(dims) == 1:
        return '{' + ', '.join(const_elem(t, v) for v in flat) + '}'
    inner = int(np.prod(dims[1:]))
    return '{' + ', '.join(const_text(t, dims[1:], flat[i * inner:(i + 1) * inner])
                           for i in range(dims[0])) + '}'
