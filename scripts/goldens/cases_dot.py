"""dot / dot_general goldens (testdata/interp-dot)."""
import numpy as np

import refs
from gen import module, write
from hlolit import cast, const

D = "interp-dot"


def dot_line(name, et, dims, l, r, lb=(), rb=(), lc=(1,), rc=(0,), extra=""):
    s = "  %s = %s[%s] dot(%s, %s)" % (name, et, ",".join(map(str, dims)), l, r)
    if lb:
        s += ", lhs_batch_dims={%s}, rhs_batch_dims={%s}" % (",".join(map(str, lb)), ",".join(map(str, rb)))
    s += ", lhs_contracting_dims={%s}, rhs_contracting_dims={%s}" % (",".join(map(str, lc)), ",".join(map(str, rc)))
    return s + extra


class Mod:
    """Accumulates instructions, root outputs and expected values."""

    def __init__(self):
        self.lines, self.outs, self.exp, self.n = [], [], [], 0

    def const(self, et, arr):
        self.n += 1
        name = "c%d" % self.n
        self.lines.append(const(name, et, arr))
        return name

    def dot(self, l, le, r, re, et, lb=(), rb=(), lc=(1,), rc=(0,), acc=np.float64, extra=""):
        exp = cast(et, refs.dot_general(l, r, list(lb), list(rb), list(lc), list(rc), acc))
        a, b = self.const(le, l), self.const(re, r)
        self.n += 1
        name = "d%d" % self.n
        self.lines.append(dot_line(name, et, exp.shape, a, b, lb, rb, lc, rc, extra))
        self.outs.append((name, et, list(exp.shape)))
        self.exp.append((et, exp))

    def write(self, name):
        write(D, name, module(name, [], self.lines, self.outs), self.exp)


def seed():
    m = Mod()
    m.dot(np.array([[1, 2, 3], [4, 5, 6]], np.float32), "f32", np.array([[1, 1, 1], [2, 2, 2]], np.float32),
          "f32", "f32", lc=(1,), rc=(1,))
    assert m.exp[0][1].tolist() == [[6, 12], [15, 30]]  # the seed's result
    lhs = np.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]], np.float32)
    rhs = np.array([[[1, 0], [0, 1]], [[1, 0], [0, 1]]], np.float32)
    m.dot(lhs, "f32", rhs, "f32", "f32", lb=(0,), rb=(0,), lc=(2,), rc=(1,))
    assert (m.exp[1][1] == lhs).all()
    m.write("seed_dot_general_contracting_and_batch")


def shapes():
    rng = np.random.default_rng(11)
    ri = lambda *s: rng.integers(-8, 8, s).astype(np.float32)
    m = Mod()
    m.dot(ri(5), "f32", ri(5), "f32", "f32", lc=(0,), rc=(0,))            # vector . vector
    m.dot(ri(3, 4), "f32", ri(4), "f32", "f32")                           # matrix . vector
    m.dot(ri(4), "f32", ri(4, 3), "f32", "f32", lc=(0,), rc=(0,))         # vector . matrix
    m.dot(ri(3, 4), "f32", ri(4, 5), "f32", "f32")                        # matrix . matrix
    m.dot(ri(4, 3), "f32", ri(5, 4), "f32", "f32", lc=(0,), rc=(1,))      # both transposed
    m.dot(ri(3, 2, 4), "f32", ri(4, 2, 5), "f32", "f32", lb=(1,), rb=(1,), lc=(2,), rc=(0,))
    m.dot(ri(2, 3, 4), "f32", ri(4, 3, 5), "f32", "f32", lc=(1, 2), rc=(1, 0))  # two contracting
    m.dot(ri(2, 3, 4, 2), "f32", ri(3, 4, 2, 5), "f32", "f32", lb=(3, 1), rb=(2, 0), lc=(2,), rc=(1,))
    m.dot(ri(6, 7), "f32", ri(7, 3), "f32", "f32", extra=", operand_precision={highest,highest}")
    m.write("dot_general_dimension_numbers")


def types():
    rng = np.random.default_rng(12)
    m = Mod()
    ri = lambda lo, hi, *s: rng.integers(lo, hi, s)
    m.dot(ri(-9, 9, 3, 4) / 4, "f64", ri(-9, 9, 4, 2) / 8, "f64", "f64")
    bl, br = cast("bf16", ri(-9, 9, 3, 5) / 2), cast("bf16", ri(-9, 9, 5, 2))
    m.dot(bl, "bf16", br, "bf16", "bf16")
    m.dot(bl, "bf16", br, "bf16", "f32")                                  # bf16 x bf16 -> f32
    m.dot(ri(-9, 9, 2, 6).astype(np.float16), "f16", ri(-9, 9, 6, 3).astype(np.float16), "f16", "f16")
    m.dot(ri(-1000, 1000, 3, 4).astype(np.int32), "s32", ri(-1000, 1000, 4, 3).astype(np.int32), "s32", "s32",
          acc=np.int64)
    big = np.full((2, 3), 2**20, np.int32)                                # 3 * 2^40 wraps in s32
    m.dot(big, "s32", np.full((3, 2), 2**20, np.int32), "s32", "s32", acc=np.int64)
    m.dot(ri(-128, 128, 3, 7).astype(np.int8), "s8", ri(-128, 128, 7, 2).astype(np.int8), "s8", "s32",
          acc=np.int64)                                                   # s8 x s8 -> s32
    m.dot(ri(0, 256, 2, 4).astype(np.uint8), "u8", ri(0, 256, 4, 2).astype(np.uint8), "u8", "u8",
          acc=np.int64)                                                   # wraps in 8 bits
    cl = (ri(-5, 5, 2, 3) + 1j * ri(-5, 5, 2, 3)).astype(np.complex64)
    cr = (ri(-5, 5, 3, 2) + 1j * ri(-5, 5, 3, 2)).astype(np.complex64)
    m.dot(cl, "c64", cr, "c64", "c64", acc=np.complex128)
    m.dot(ri(-9, 9, 2, 2, 3).astype(np.float32), "f32", cast("bf16", ri(-9, 9, 2, 3, 2)), "bf16", "f32",
          lb=(0,), rb=(0,), lc=(2,), rc=(1,))                             # mixed operand types
    m.write("dot_element_types")


def edge():
    m = Mod()
    lines = ["  one = f32[] constant(1)", "  k0a = f32[3,0] broadcast(one), dimensions={}",
             "  k0b = f32[0,2] broadcast(one), dimensions={}", "  m0 = f32[0,4] broadcast(one), dimensions={}",
             "  m0b = f32[4,2] broadcast(one), dimensions={}",
             dot_line("e0", "f32", [3, 2], "k0a", "k0b"), dot_line("e1", "f32", [0, 2], "m0", "m0b")]
    m.lines += lines
    m.outs += [("e0", "f32", [3, 2]), ("e1", "f32", [0, 2])]
    m.exp += [("f32", np.zeros((3, 2), np.float32)), ("f32", np.zeros((0, 2), np.float32))]
    # rank 0 result from vectors; infinities (finite . inf); NaN propagation
    m.dot(np.array([1, 2, 3], np.float32), "f32", np.array([4, 5, 6], np.float32), "f32", "f32", lc=(0,), rc=(0,))
    m.dot(np.array([[1, np.inf], [2, 3], [np.nan, 1]], np.float32), "f32",
          np.array([[1, 2], [1, -1]], np.float32), "f32", "f32")
    m.write("dot_empty_rank0_nan_inf")


def with_layout(line, layout):
    """Puts a layout after the first shape's dims in an instruction line."""
    i = line.index("]") + 1
    return line[:i] + layout + line[i:]


def layouts():
    """Operands and results whose layouts only permute dims (read and written
    in place by the evaluator), and some that do not (tiles; free dims whose
    physical order differs), against numpy."""
    rng = np.random.default_rng(13)
    ri = lambda *s: rng.integers(-8, 8, s).astype(np.float32)
    m = Mod()
    cases = [  # lhs, lhs layout, rhs, rhs layout, result layout, dims
        (ri(3, 4), "{0,1}", ri(4, 5), "{1,0}", "{1,0}", {}),
        (ri(3, 4), "{1,0}", ri(4, 5), "{0,1}", "{0,1}", {}),
        (ri(3, 4), "{0,1}", ri(4, 5), "{0,1}", "{0,1}", {}),
        (ri(4, 3), "{0,1}", ri(5, 4), "{0,1}", "{0,1}", dict(lc=(0,), rc=(1,))),
        (ri(2, 3, 4), "{1,2,0}", ri(2, 4, 5), "{2,0,1}", "{1,2,0}", dict(lb=(0,), rb=(0,), lc=(2,), rc=(1,))),
        (ri(2, 3, 4), "{2,1,0}", ri(2, 4, 5), "{1,2,0}", "{0,2,1}", dict(lb=(0,), rb=(0,), lc=(2,), rc=(1,))),
        (ri(3, 2, 4), "{0,1,2}", ri(4, 5), "{0,1}", "{2,1,0}", dict(lc=(2,), rc=(0,))),
        (ri(3, 4), "{1,0:T(2,2)}", ri(4, 5), "{0,1}", "{0,1}", {}),
        (ri(3, 4), "{0,1}", ri(4, 5), "{1,0}", "{0,1:T(2,2)}", {}),
    ]
    for l, ll, r, rl, ol, dims in cases:
        m.dot(l, "f32", r, "f32", "f32", **dims)
        m.lines[-3] = with_layout(m.lines[-3], ll)
        m.lines[-2] = with_layout(m.lines[-2], rl)
        m.lines[-1] = with_layout(m.lines[-1], ol)
    bl, br = cast("bf16", rng.integers(-9, 9, (3, 5)) / 2), cast("bf16", rng.integers(-9, 9, (5, 2)))
    m.dot(bl, "bf16", br, "bf16", "bf16")
    m.lines[-3] = with_layout(m.lines[-3], "{0,1}")
    m.lines[-1] = with_layout(m.lines[-1], "{0,1}")
    m.write("dot_permuted_layouts")


def main():
    seed()
    shapes()
    types()
    edge()
    layouts()
