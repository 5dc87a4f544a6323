#!/usr/bin/python3
"""Writes the golden cases of hlorun's result printing under
testdata/print-results/: summarised printing (numpy's threshold=1000,
edgeitems=3 rule as docs/cli.md 'Printing the result' describes it),
--print-full, --output with and without --print, --quiet, several replicas.

Each case is an entry module returning its parameters, bound with --inputs
from .npy files written here, so the expected text depends only on the
values.  The text is built by this script's own printer: element text from
Python's '%g' formatting ('%.6g' when it reads back as the same f32 --
decided exactly with fractions against the f32's rounding interval -- else
'%.9g'; '%.4g' for bf16), structure from XLA's literal format
(xla/literal.cc) -- never from hlorun's output.  Run with /usr/bin/python3
(numpy)."""
import os
from fractions import Fraction

import numpy as np

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "print-results")
THRESHOLD, EDGE = 1000, 3


# --- element text -----------------------------------------------------------

def f32_reads_back(text, v):
    """Does strtof(text) give v?  True when the decimal lies in v's rounding
    interval (ends included when v's significand is even)."""
    x = Fraction(text)
    f = np.float32(v)
    up = np.nextafter(f, np.float32(np.inf))
    down = np.nextafter(f, np.float32(-np.inf))
    lo = (Fraction(float(down)) + Fraction(float(f))) / 2
    hi = (Fraction(float(up)) + Fraction(float(f))) / 2 if np.isfinite(up) else \
        Fraction(float(f)) + (Fraction(float(f)) - Fraction(float(down))) / 2
    even = int(np.array(f).view(np.uint32)) % 2 == 0
    return lo <= x <= hi if even else lo < x < hi


def f32_text(v):
    v = np.float32(v)
    if np.isnan(v):
        return "-nan" if np.signbit(v) else "nan"
    if np.isinf(v):
        return "-inf" if v < 0 else "inf"
    s = "%.6g" % float(v)
    if v != 0 and not f32_reads_back(s, v):
        s = "%.9g" % float(v)
    return s


def bf16_text(v):
    v = float(v)
    if np.isnan(v):
        return "-nan" if np.signbit(v) else "nan"
    if np.isinf(v):
        return "-inf" if v < 0 else "inf"
    return "%.4g" % v


def elem_text(et, v):
    if et == "f32":
        return f32_text(v)
    if et == "bf16":
        return bf16_text(v)
    if et == "pred":
        return "1" if v else "0"
    return str(int(v))


# --- XLA literal structure, summarised -----------------------------------------

def shown(n, summarise):
    """Indices printed along a dimension of n; None marks the '...' item."""
    if summarise and n > 2 * EDGE:
        return list(range(EDGE)) + [None] + list(range(n - EDGE, n))
    return list(range(n))


def array_text(et, a, summarise_all=True):
    rank = a.ndim
    summarise = summarise_all and a.size > THRESHOLD
    out = []

    def rec(idx):
        depth = len(idx)
        left = rank - depth
        if left == 0:
            out.append(elem_text(et, a[tuple(idx)]))
            return
        n = a.shape[depth]
        if rank == 1:
            out.append("{")
        elif left == 1:
            out.append("  {" if n <= 1 else "  { ")
        elif rank > 3 and depth > 0:
            out.append("{ /*i%d=%d*/\n" % (depth - 1, idx[-1]))
        else:
            out.append("{\n")
        sep = ",\n" if left > 1 else ", "
        items = shown(n, summarise)
        for k, i in enumerate(items):
            if i is None:
                out.append("  ..." if left == 2 else "...")
            else:
                rec(idx + [i])
            if k < len(items) - 1:
                out.append(sep)
        if rank == 1:
            out.append("}")
        elif left == 1:
            out.append("}" if n <= 1 else " }")
        else:
            out.append("\n}")

    rec([])
    shape = "%s[%s]" % (et, ",".join(str(d) for d in a.shape))
    return shape + " " + "".join(out)


def result_text(leaves, summarise=True):
    """leaves: list of (et, array); one leaf prints alone, several as a tuple."""
    texts = [array_text(et, a, summarise) for et, a in leaves]
    if len(texts) == 1:
        return texts[0] + "\n"
    return "(\n" + ",\n".join(texts) + "\n)\n"


# --- cases ----------------------------------------------------------------------

def bf16_round(x):
    b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16) << 16
    out = r.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(x), np.asarray(x, np.float32), out)


def npy_dtype(et):
    return {"f32": np.float32, "bf16": np.float32, "s32": np.int32, "pred": np.bool_}[et]


def module(name, leaves):
    shapes = ["%s[%s]" % (et, ",".join(str(d) for d in a.shape)) for et, a in leaves]
    lines = ["  p%d = %s parameter(%d)" % (i, s, i) for i, s in enumerate(shapes)]
    if len(leaves) == 1:
        lines[0] = "  ROOT" + lines[0][1:]
    else:
        lines.append("  ROOT t = (%s) tuple(%s)"
                     % (", ".join(shapes), ", ".join("p%d" % i for i in range(len(leaves)))))
    return "HloModule %s\n\nENTRY main {\n%s\n}\n" % (name, "\n".join(lines))


written = []


def case(name, leaves, extra_args=(), stdout=None, exists=()):
    """stdout: expected text (default: the summarised result)."""
    with open(os.path.join(D, name + ".hlo"), "w") as f:
        f.write(module(name, leaves))
    os.makedirs(os.path.join(D, "inputs"), exist_ok=True)
    files = []
    for i, (et, a) in enumerate(leaves):
        fn = "inputs/%s_%d.npy" % (name, i)
        np.save(os.path.join(D, fn), np.asarray(a, npy_dtype(et)))
        files.append(fn)
    if stdout is None:
        stdout = result_text(leaves)
    with open(os.path.join(D, name + ".out"), "w") as f:
        f.write(stdout)
    args = ["%s.hlo" % name, "--inputs", ",".join(files)] + list(extra_args)
    with open(os.path.join(D, name + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: [%s]\nstdout: %s.out\n"
                % (", ".join("'%s'" % a for a in args), name))
        if exists:
            f.write("exists: [%s]\n" % ", ".join(exists))
    written.append(name)


def main():
    os.makedirs(D, exist_ok=True)
    rng = np.random.default_rng(20261127)

    def ramp(shape, dtype=np.int32):
        return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)

    def floats(shape):
        return (rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)).astype(np.float32)

    # threshold: 1000 elements print whole, 1001 summarised; ranks 1 to 4
    case("rank1_1000", [("f32", floats((1000,)))])
    case("rank1_1001", [("f32", floats((1001,)))])
    case("rank2_1000", [("s32", ramp((8, 125)))])
    case("rank2_1001", [("s32", ramp((7, 143)))])
    case("rank3_1000", [("s32", ramp((10, 10, 10)))])
    case("rank3_1001", [("s32", ramp((7, 11, 13)))])
    case("rank4_1000", [("s32", ramp((2, 5, 10, 10)))])
    case("rank4_1001", [("s32", ramp((7, 1, 11, 13)))])
    # a dimension of exactly 6 entries prints whole, 7 is elided
    case("dim6_kept", [("s32", ramp((6, 200)))])
    case("dim7_elided", [("s32", ramp((7, 200)))])
    # a dimension of 0 or 1 beside a long one
    case("rank2_one_row", [("s32", ramp((1, 1500)))])
    # a tuple: each leaf judged on its own
    case("tuple_mixed", [("f32", np.array([1.5, -2, 0.25], np.float32)),
                         ("s32", ramp((2000,)) * 3 - 1000),
                         ("pred", np.array([[1, 0, 1], [0, 0, 1]], bool)),
                         ("f32", floats((40, 30)))])
    # element types, with NaN, Inf and -0 at the ends that are shown
    special = np.array([np.nan, -np.inf, -0.0], np.float32)
    f = floats((40, 30))
    f[0, :3] = special
    f[-1, -3:] = [np.inf, -np.nan, 0.0]
    case("f32_special", [("f32", f)])
    b = bf16_round(floats((30, 40)))
    b[0, :3] = special
    b[-1, -3:] = [np.inf, -np.nan, -0.0]
    case("bf16_special", [("bf16", b)])
    case("pred_big", [("pred", rng.integers(0, 2, (1500,)).astype(bool))])
    case("s32_big", [("s32", rng.integers(-2**31, 2**31, (40, 40), dtype=np.int64).astype(np.int32))])
    # --print-full: every element
    full = [("f32", floats((30, 50)))]
    case("print_full", full, ["--print-full"], stdout=result_text(full, summarise=False))
    # --output writes instead of printing; --print prints as well
    out = [("f32", floats((1100,)))]
    case("output_no_print", out, ["--output", "output_no_print.result.npy"], stdout="",
         exists=["output_no_print.result.npy"])
    case("output_and_print", out, ["--output", "output_and_print.result.npy", "--print"],
         exists=["output_and_print.result.npy"])
    case("output_and_print_full", out,
         ["--output", "output_and_print_full.result.npy", "--print-full"],
         stdout=result_text(out, summarise=False), exists=["output_and_print_full.result.npy"])
    case("quiet_wins", out, ["--print", "--quiet"], stdout="")
    # several replicas: each result after its header
    rep = [("s32", ramp((3, 400)))]
    one = result_text(rep)
    case("replicas", rep, ["--replicas", "2"], stdout="replica 0:\n" + one + "replica 1:\n" + one)
    print("wrote %d cases under %s" % (len(written), os.path.normpath(D)))


if __name__ == "__main__":
    main()
