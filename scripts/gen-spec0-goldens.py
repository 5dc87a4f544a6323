#!/usr/bin/python3
"""Writes the .out goldens of testdata/stablehlo/spec0_*.hlo from the values
the StableHLO specification states (openxla/stablehlo docs/spec.md, each op's
"Examples" section), typed in below, printed as hlorun prints literals (XLA's
form); and checks every rounded value of a transcendental example against
numpy, so that a wrong value in the spec is found rather than copied.

The spec's examples that are wrong, and what is used instead (each noted in
the .mlir file too):
  divide   17.1 / 3 is 5.7 (f32: 5.70000029), not 5.66666651 (= 17 / 3);
  power    10000^10 in f64 is 1e40, not inf (that is f32);
  while    the sum ends at 9 (nine additions to 0), not 10.

usage: gen-spec0-goldens.py [--check]   (--check: compare, write nothing)
"""
import math
import os
import struct
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DIR = os.path.join(ROOT, "testdata", "stablehlo")

NP = {"pred": np.bool_, "s8": np.int8, "s32": np.int32, "s64": np.int64,
      "f32": np.float32, "f64": np.float64, "c64": np.complex64}


def fmt_float(v, etype):
    """XLA's RoundTripFpToString: the shortest of FLT_DIG/DBL_DIG digits
    that reads back, else 9/17; NaN payloads other than the quiet bit in
    hexadecimal."""
    if math.isnan(v):
        if etype == "f64":
            bits = struct.unpack("<Q", struct.pack("<d", v))[0]
            payload, quiet = bits & ((1 << 52) - 1), 1 << 51
        else:
            bits = struct.unpack("<I", struct.pack("<f", v))[0]
            payload, quiet = bits & ((1 << 23) - 1), 1 << 22
        sign = "-" if bits >> (63 if etype == "f64" else 31) else ""
        return sign + ("nan" if payload == quiet else "nan(0x%x)" % payload)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    short, full = (15, 17) if etype == "f64" else (6, 9)
    s = "%.*g" % (short, v)
    back = float(s) if etype == "f64" else np.float32(float(s))
    if back != v:
        s = "%.*g" % (full, v)
    return s


def fmt_elem(v, etype, scalar):
    if etype == "pred":
        return ("true" if v else "false") if scalar else ("1" if v else "0")
    if etype in ("f32", "f64"):
        return fmt_float(v, etype)
    if etype == "c64":
        return "(%s, %s)" % (fmt_float(np.float32(v.real), "f32"), fmt_float(np.float32(v.imag), "f32"))
    return str(int(v))


def fmt_array(etype, a):
    a = np.asarray(a, dtype=NP[etype])
    t = "%s[%s]" % (etype, ",".join(str(d) for d in a.shape))
    if a.ndim == 0:
        return "%s %s" % (t, fmt_elem(a[()], etype, True))
    if a.ndim == 1:
        return "%s {%s}" % (t, ", ".join(fmt_elem(x, etype, False) for x in a))

    def block(sub, depth):
        if sub.ndim == 1:
            return "  { %s }" % ", ".join(fmt_elem(x, etype, False) for x in sub)
        parts = []
        for k, s in enumerate(sub):
            inner = block(s, depth + 1)
            if s.ndim == 1:
                parts.append(inner)
            else:
                note = " /*i%d=%d*/" % (depth, k) if a.ndim > 3 else ""
                parts.append("{%s\n%s\n}" % (note, inner))
        return ",\n".join(parts)

    return "%s {\n%s\n}" % (t, block(a, 0))


def fmt(v):
    if v == "token":
        return "token"
    if isinstance(v, list):  # a tuple
        return "(\n%s\n)" % ",\n".join(fmt(x) for x in v)
    return fmt_array(*v)


def nan_bits64(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


# The returned values of each .hlo file, from the spec, in its order.
ELEMENTWISE = [
    ("s32", [2, 0, 2]),                                   # abs
    ("s32", [[6, 8], [10, 12]]),                          # add
    ("s32", [[1, 2], [3, 0]]),                            # and
    ("s8", [[0, 0, 0, 0], [0, 0, -128, 63]]),             # bitcast_convert
    ("f32", [-0.0, -0.0, 1.0, 1.0, 2.0]),                 # ceil
    ("s32", [5, 13, 20]),                                 # clamp
    ("pred", [True, False]),                              # compare
    ("c64", [1 + 2j, 3 + 4j]),                            # complex
    ("c64", [1 + 0j, 2 + 0j, 3 + 0j]),                    # convert
    ("s64", [[64, 63], [56, 0]]),                         # count_leading_zeros
    ("f32", np.float32([17.1, -17.1, 17.1, -17.1]) / np.float32([3, 3, -3, -3])),  # divide (spec wrong)
    ("s32", [5, -5, -5, 5]),                              # divide, integers
    ("f32", [-1.0, -1.0, 0.0, 0.0, 2.0]),                 # floor
    ("f32", [2.0, 4.0]),                                  # imag
    ("pred", [False, False, False, True, True, True, True]),  # is_finite
    ("s32", [[5, 6], [7, 8]]),                            # maximum
    ("s32", [[1, 2], [3, 4]]),                            # minimum
    ("s32", [[5, 12], [21, 32]]),                         # multiply
    ("s32", [0, 2]),                                      # negate
    ("c64", [complex(-2.5, -0.0)]),                       # negate, complex
    ("s32", [[-2, -3], [-4, -5]]),                        # not
    ("pred", [False, True]),                              # not, booleans
    ("s32", [[5, 6], [7, 12]]),                           # or
    ("pred", [[False, True], [True, True]]),              # or, booleans
    ("s64", [0, 1, 1, 7]),                                # popcnt
    ("f32", [1.0, 3.0]),                                  # real
    ("s64", [2, -2, 2, -2]),                              # remainder
    ("f64", [-3.0, 0.0, 1.0, 1.0, 3.0]),                  # round_nearest_afz
    ("f64", [-2.0, 0.0, 0.0, 1.0, 2.0]),                  # round_nearest_even
    ("s32", [[5, 2], [3, 8]]),                            # select
    ("s64", [-2, 0, 8]),                                  # shift_left
    ("s64", [-1, 0, 1]),                                  # shift_right_arithmetic
    ("s64", [9223372036854775807, 0, 1]),                 # shift_right_logical
    ("f64", [nan_bits64(0x7FFFFFFFFFFFFFFF), -1.0, -0.0, 0.0, 1.0]),  # sign
    ("f32", [[0.0, 1.0], [2.0, 3.0]]),                    # sqrt
    ("f32", [[1.0, 2.0], [3.0, 4.0]]),                    # subtract
    ("s32", [[4, 4], [4, 12]]),                           # xor
    ("pred", [[False, True], [True, False]]),             # xor, booleans
]

OPERAND34 = [[[1, 2], [3, 4], [5, 6], [7, 8]], [[9, 10], [11, 12], [13, 14], [15, 16]],
             [[17, 18], [19, 20], [21, 22], [23, 24]]]
BATCHED_INDICES = [[[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 9]]],
                   [[[0, 0], [2, 1], [2, 2]], [[1, 2], [0, 1], [1, 0]]]]


def gather_batched():
    """The current spec's batched gather: result[i0, i1, i2] is the 2x2 slice
    of batch i1 at the clamped start (b, a) of index (a, b)."""
    op = np.arange(1, 49).reshape(2, 3, 4, 2)
    out = np.zeros((2, 2, 3, 2, 2), np.int64)
    for i0 in range(2):
        for i1 in range(2):
            for i2 in range(3):
                a, b = BATCHED_INDICES[i0][i1][i2]
                a, b = min(max(a, 0), 4 - 2), min(max(b, 0), 3 - 1)
                out[i0, i1, i2] = op[i1, b, a:a + 2, :]
    return out


def scatter_batched():
    """The current spec's batched scatter of ones: a window out of range is
    skipped (as XLA does)."""
    out = np.arange(1, 49).reshape(2, 3, 4, 2)
    for u0 in range(2):
        for u1 in range(2):
            for u2 in range(3):
                a, b = BATCHED_INDICES[u0][u1][u2]
                if 0 <= b < 3 and 0 <= a and a + 2 <= 4:
                    out[u1, b, a:a + 2, :] += 1
    return out


SHAPE = [
    ("s32", [[[1, 1], [2, 2], [3, 3]], [[1, 1], [2, 2], [3, 3]]]),  # broadcast_in_dim
    ("s64", [[1, 2], [3, 4], [5, 6], [7, 8]]),            # concatenate
    ("f32", [[0.0, 1.0], [2.0, 3.0]]),                    # constant
    ("s32", [[1, 1], [1, 1]]),                            # dynamic_slice
    ("s32", [[1] * 4] * 4),                               # dynamic_update_slice
    ("s32", [[[[1, 2], [3, 4]], [[3, 4], [5, 6]], [[13, 14], [15, 16]]],
             [[[9, 10], [11, 12]], [[11, 12], [13, 14]], [[17, 18], [19, 20]]]]),  # gather
    ("s64", gather_batched()),                            # gather, batched (numpy)
    ("s32", [[i] * 5 for i in range(4)]),                 # iota, dimension 0
    ("s32", [list(range(5))] * 4),                        # iota, dimension 1
    ("s32", [[0, 1, 0, 0, 2, 0, 0, 3, 0], [0] * 9, [0, 4, 0, 0, 5, 0, 0, 6, 0], [0] * 9, [0] * 9]),  # pad
    ("s32", [[1, 2], [3, 4], [5, 6]]),                    # reshape
    ("s32", [[2, 1], [4, 3], [6, 5]]),                    # reverse
    ("s32", [[[1, 2], [5, 6], [8, 9], [8, 9]], [[10, 11], [12, 13], [14, 15], [16, 17]],
             [[18, 19], [20, 21], [21, 22], [23, 24]]]),  # scatter
    ("s64", scatter_batched()),                           # scatter, batched (numpy)
    ("s64", [[1, 1], [1, 1]]),                            # slice
    ("s32", [[[1, 7], [3, 9], [5, 11]], [[2, 8], [4, 10], [6, 12]]]),  # transpose
]

CONTROL = [
    ("s64", [1, 1]), ("s64", [1, 1]),                     # case
    ("s32", 10),                                          # if
    ("s64", 10), ("s64", 9),                              # while (the spec's 10 is wrong)
    ("s32", 10), ("s32", 10),                             # while, the earlier spec's example
    ("f32", 0.0), ("f32", 1.0),                           # optimization_barrier
    "token",                                              # after_all
    [("f32", [1.0, 2.0]), [("s32", 3)]],                  # tuple
    ("f32", [1.0, 2.0]),                                  # get_tuple_element
]

REDUCE = [
    ("s32", [15]),                                        # reduce
    ("s32", [[0, 0], [3, 4]]),                            # reduce_window
    ("s32", [[[1, 2], [3, 4]], [[5, 6], [7, 8]]]),        # dot_general
    ("s64", [[0, 5], [12, 21]]),                          # map
    ("s64", [[3, 2, 3], [1, 2, 1]]), ("s64", [[1, 2, 1], [3, 2, 3]]),  # sort
]

GOLDENS = {"spec0_elementwise_hlo.out": ELEMENTWISE, "spec0_shape_hlo.out": SHAPE,
           "spec0_control_hlo.out": CONTROL, "spec0_reduce_hlo.out": REDUCE}


def independent_checks():
    """The spec's exact examples that are not simply read off, recomputed
    with numpy; and its rounded values against numpy's (tolerance 1e-4, the
    checks' default)."""
    bad = []

    def same(name, got, want):
        if not np.array_equal(np.asarray(got), np.asarray(want)):
            bad.append("%s: numpy %s, spec %s" % (name, got, want))

    op = np.array(OPERAND34)
    g = np.array([[[0, 0], [1, 0], [2, 1]], [[0, 1], [1, 1], [0, 2]]])
    same("gather", [[op[b, a:a + 2, :] for a, b in row] for row in g], SHAPE[5][1])
    s = op.copy()
    for a, b in np.array([[[0, 2], [1, 0], [2, 1]], [[0, 1], [1, 0], [2, 0]]]).reshape(-1, 2):
        s[b, a:a + 2, :] += 1
    same("scatter", s, SHAPE[12][1])
    p = np.zeros((5, 9), np.int32)
    p[0:4:2, 1:9:3] = [[1, 2, 3], [4, 5, 6]]  # low (0, 1), every (1 + 1, 2 + 1)
    same("pad", p, SHAPE[9][1])
    same("transpose", np.arange(1, 13).reshape(2, 3, 2).transpose(2, 1, 0), SHAPE[15][1])
    same("broadcast_in_dim", np.broadcast_to(np.array([1, 2, 3])[None, :, None], (2, 3, 2)), SHAPE[0][1])
    padded = np.array([0, 0, 1, 0, 3, 0, 5, 0])  # rows of the dilated, padded input (column 0)
    same("reduce_window", [padded[0] + padded[3], padded[4] + padded[7]], [0, 3])
    same("dot_general", np.einsum("bij,bjk->bik", np.arange(1, 9).reshape(2, 2, 2),
                                  np.stack([np.eye(2, dtype=int)] * 2)), REDUCE[2][1])
    i, total = 1, 0
    while i < 10:
        i, total = i + 1, total + 1
    same("while", [i, total], [10, 9])
    same("bitcast_convert", np.array([0.0, 1.0], np.float32).view(np.int8).reshape(2, 4), ELEMENTWISE[3][1])
    same("shift_right_logical", (np.array([-1, 0, 8], np.int64).view(np.uint64) >> np.uint64([1, 2, 3])).view(np.int64),
         ELEMENTWISE[32][1])

    def close(name, got, want, tol=1e-4):
        got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
        ok = np.isclose(got, want, rtol=0, atol=tol, equal_nan=True)
        if not ok.all():
            bad.append("%s: numpy %s, spec %s" % (name, got.tolist(), want.tolist()))

    f32 = np.float32
    close("atan2", np.arctan2([0.0, 1.0, -1.0], [0.0, 0.0, 0.0]), [0.0, 1.57079637, -1.57079637])
    close("cbrt", np.cbrt([0.0, 1.0, 8.0, 27.0]), [0, 1, 2, 3])
    trig = f32([[0.0, 1.57079632], [3.14159265, 4.71238898]])
    close("cosine", np.cos(trig), [[1.0, 0.0], [-1.0, 0.0]])
    close("sine", np.sin(trig), [[0.0, 1.0], [0.0, -1.0]])
    close("exponential", np.exp([[0.0, 1.0], [2.0, 3.0]]), [[1.0, 2.7182818284590451], [7.3890560989306504, 20.085536923187668]])
    close("exponential_minus_one", np.expm1(f32([0.0, 1.0])), [0.0, 1.71828187])
    close("log", np.log([[1.0, 2.0], [3.0, 4.0]]), [[0.0, 0.69314718055994529], [1.0986122886681098, 1.3862943611198906]])
    close("log_plus_one", np.log1p([0.0, -0.999, 7.0, 6.38905621, 15.0]), [0.0, -6.90776825, 2.07944155, 2.0, 2.77258873])
    close("logistic", 1 / (1 + np.exp(-np.array([[0.0, 1.0], [2.0, 3.0]]))), [[0.5, 0.73105858], [0.88079708, 0.95257413]])
    with np.errstate(invalid="ignore"):
        close("power", np.power([-2.0, -0.0, -36.0, 5.0, 3.0], [2.0, 2.0, 1.1, 2.0, -1.0]),
              [4.0, 0.0, float("nan"), 25.0, 0.333333343])
    close("rsqrt", 1 / np.sqrt(f32([[1.0, 4.0], [9.0, 25.0]])), [[1.0, 0.5], [0.33333343, 0.2]])
    close("tan", np.tan(f32([-1.0, 0.0, 1.0])), [-1.55740772465, 0.0, 1.55740772465])
    close("tanh", np.tanh(f32([-1.0, 0.0, 1.0])), [-0.76159416, 0.0, 0.76159416])
    # The known errors of the spec: these must disagree.
    if np.isclose(f32(17.1) / f32(3), 5.66666651, atol=1e-4):
        bad.append("divide: the spec's 5.66666651 agrees after all")
    if not np.isfinite(10000.0 ** 10):
        bad.append("power: 10000^10 overflows f64 after all")
    return bad


def main():
    check = sys.argv[1:] == ["--check"]
    bad = independent_checks()
    for name, values in GOLDENS.items():
        text = fmt(values) + "\n"
        path = os.path.join(DIR, name)
        if check:
            with open(path) as f:
                if f.read() != text:
                    bad.append("%s differs from the spec's values" % name)
        else:
            with open(path, "w") as f:
                f.write(text)
    for b in bad:
        print("MISMATCH " + b)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
