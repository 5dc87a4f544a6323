"""reduce, reduce-window, select-and-scatter goldens (testdata/interp-reduce)."""
import numpy as np

import refs
from gen import binop_comp, module, write
from hlolit import cast, const

D = "interp-reduce"
F32MAX = float(np.finfo(np.float32).max)

ARGMAX = """argmax {
  m = f32[] parameter(0)
  i = s32[] parameter(1)
  v = f32[] parameter(2)
  k = s32[] parameter(3)
  ge = pred[] compare(v, m), direction=GE
  nm = f32[] select(ge, v, m)
  ni = s32[] select(ge, k, i)
  ROOT t = (f32[], s32[]) tuple(nm, ni)
}
"""


def reduce_line(name, et, in_name, init, dims, comp, out_dims):
    return "  %s = %s[%s] reduce(%s, %s), dimensions={%s}, to_apply=%s" % (
        name, et, ",".join(map(str, out_dims)), in_name, init, ",".join(map(str, dims)), comp)


def seed_2x3():
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    lines = [const("x", "f32", x), "  z = f32[] constant(0)",
             reduce_line("r0", "f32", "x", "z", [0], "add", [3]),
             reduce_line("r1", "f32", "x", "z", [1], "add", [2])]
    hlo = module("seed_reduce_2x3", [binop_comp("add", "add", "f32")], lines,
                 [("r0", "f32", [3]), ("r1", "f32", [2])])
    write(D, "seed_reduce_2x3", hlo, [("f32", x.sum(0)), ("f32", x.sum(1))])


def seed_4x2x3():
    x = np.tile(np.array([[1, 2, 3], [4, 5, 6]], np.float32), (4, 1, 1))
    cases = [([0], [2, 3]), ([2], [4, 2]), ([0, 1], [3]), ([1, 0], [3]), ([0, 1, 2], [])]
    lines = [const("x", "f32", x), "  z = f32[] constant(0)"]
    outs, exp = [], []
    for i, (dims, od) in enumerate(cases):
        lines.append(reduce_line("r%d" % i, "f32", "x", "z", dims, "add", od))
        outs.append(("r%d" % i, "f32", od))
        exp.append(("f32", x.sum(axis=tuple(dims))))
    # From the seed: dim 0 -> {{4,8,12},{16,20,24}}, dim 2 -> 4 x {6,15},
    # dims 0,1 -> {20,28,36}, all -> 84.
    assert exp[0][1].tolist() == [[4, 8, 12], [16, 20, 24]] and exp[4][1] == 84
    assert exp[2][1].tolist() == [20, 28, 36]
    write(D, "seed_reduce_4x2x3", module("seed_reduce_4x2x3", [binop_comp("add", "add", "f32")],
                                         lines, outs), exp)


def seed_argmax():
    v = np.array([[3, 9, 1, 9, 2], [-1, -5, -0.5, -7, -2]], np.float32)
    v1 = np.array([4, 1, 7, 7, 3, 0, 7, 2], np.float32)
    lines = [const("v", "f32", v), "  k = s32[2,5] iota(), iota_dimension=1",
             const("v1", "f32", v1), "  k1 = s32[8] iota(), iota_dimension=0",
             "  mi = f32[] constant(-inf)", "  ki = s32[] constant(-1)",
             "  r = (f32[2], s32[2]) reduce(v, k, mi, ki), dimensions={1}, to_apply=argmax",
             "  r1 = (f32[], s32[]) reduce(v1, k1, mi, ki), dimensions={0}, to_apply=argmax",
             "  m = f32[2] get-tuple-element(r), index=0", "  a = s32[2] get-tuple-element(r), index=1",
             "  m1 = f32[] get-tuple-element(r1), index=0", "  a1 = s32[] get-tuple-element(r1), index=1"]

    def f(acc, val):  # the seed's f: value >= max takes (value, index)
        return val if val[0] >= acc[0] else acc

    exp = []
    for row in v:
        exp.append(refs.fold(f, (np.float32(-np.inf), -1), zip(row, range(5))))
    e1 = refs.fold(f, (np.float32(-np.inf), -1), zip(v1, range(8)))
    hlo = module("seed_argmax", [ARGMAX], lines,
                 [("m", "f32", [2]), ("a", "s32", [2]), ("m1", "f32", []), ("a1", "s32", [])])
    write(D, "seed_reduce_argmax_variadic", hlo,
          [("f32", np.array([e[0] for e in exp], np.float32)), ("s32", np.array([e[1] for e in exp], np.int32)),
           ("f32", np.float32(e1[0])), ("s32", np.int32(e1[1]))])


def types():
    """Known reducers across element types (exact data)."""
    comps, lines, outs, exp = [], [], [], []
    rng = np.random.default_rng(5)
    specs = [  # (et, op, numpy reducer, init, dims)
        ("s32", "add", lambda a, d: a.sum(d, dtype=np.int64), 0, (1,)),
        ("s8", "add", lambda a, d: a.sum(d, dtype=np.int64), 0, (0,)),   # wraps in 8 bits
        ("u8", "multiply", lambda a, d: a.prod(d, dtype=np.int64), 1, (1,)),
        ("s64", "minimum", lambda a, d: a.min(d), 2**62, (0, 1)),
        ("f64", "add", lambda a, d: a.sum(d), 0.5, (0,)),
        ("bf16", "add", lambda a, d: a.astype(np.float64).sum(d), 0, (1,)),
        ("f16", "maximum", lambda a, d: a.max(d), -np.inf, (0,)),
        ("f32", "minimum", lambda a, d: a.min(d), np.inf, (1,)),
        ("pred", "and", lambda a, d: a.all(d), True, (1,)),
        ("pred", "or", lambda a, d: a.any(d), False, (0,)),
        ("u32", "xor", lambda a, d: np.bitwise_xor.reduce(a, d), 0, (1,)),
        ("c64", "add", lambda a, d: a.astype(np.complex128).sum(d), 0, (1,)),
    ]
    for i, (et, op, fn, init, dims) in enumerate(specs):
        shape = (4, 6)
        if et == "pred":
            a = rng.integers(0, 2, shape).astype(bool)
            a[0] = True  # one all-true row
        elif et == "s8":
            a = rng.integers(60, 127, shape).astype(np.int8)
        elif et == "u8":
            a = rng.integers(1, 5, shape).astype(np.uint8)
        elif et == "c64":
            a = (rng.integers(-9, 9, shape) + 1j * rng.integers(-9, 9, shape)).astype(np.complex64)
        elif et in ("u32",):
            a = rng.integers(0, 2**32, shape, dtype=np.uint64).astype(np.uint32)
        elif et == "s64":
            a = rng.integers(-2**62, 2**62, shape, dtype=np.int64)
        else:
            a = cast(et, rng.integers(-64, 64, shape) / 4)
        cname = "%s_%s" % (op, et)
        comps.append(binop_comp(cname, op, et))
        iv = cast(et, np.array(init))
        lines.append(const("x%d" % i, et, a))
        lines.append("  i%d = %s[] constant(%s)" % (i, et, __import__("hlolit").hlo_values(et, iv)))
        od = [shape[d] for d in range(2) if d not in dims]
        lines.append(reduce_line("r%d" % i, et, "x%d" % i, "i%d" % i, list(dims), cname, od))
        outs.append(("r%d" % i, et, od))
        r = fn(a, dims)
        if op == "add":
            r = r + iv
        elif op == "multiply":
            r = r * iv.astype(np.int64)
        elif op == "and":
            r = r & iv
        elif op == "or":
            r = r | iv
        elif op == "xor":
            r = r ^ iv
        elif op == "minimum":
            r = np.minimum(r, iv)
        elif op == "maximum":
            r = np.maximum(r, iv)
        exp.append((et, cast(et, r)))
    write(D, "reduce_known_ops_types", module("reduce_types", comps, lines, outs), exp)


def edge():
    """Empty dims, rank 0, no reduced dims, NaN/Inf, -0 ordering."""
    comps = [binop_comp("add", "add", "f32"), binop_comp("max", "maximum", "f32"),
             binop_comp("min", "minimum", "f32")]
    x = np.array([[1, np.nan, 3], [-np.inf, 2, np.inf], [0.0, -0.0, 0.0]], np.float32)
    lines = ["  one = f32[] constant(1)", "  e = f32[0,3] broadcast(one), dimensions={}",
             "  e2 = f32[3,0] broadcast(one), dimensions={}",
             "  init = f32[] constant(10)", "  s = f32[] constant(2.5)",
             const("x", "f32", x), "  n = f32[] constant(-inf)",
             reduce_line("r0", "f32", "e", "init", [0], "add", [3]),
             reduce_line("r1", "f32", "e2", "init", [1], "add", [3]),
             reduce_line("r2", "f32", "e", "init", [0, 1], "add", []),
             reduce_line("r3", "f32", "s", "init", [], "add", []),
             reduce_line("r4", "f32", "x", "init", [], "add", [3, 3]),
             reduce_line("r5", "f32", "x", "n", [1], "max", [3]),
             reduce_line("r6", "f32", "x", "init", [0], "min", [3])]
    outs = [("r0", "f32", [3]), ("r1", "f32", [3]), ("r2", "f32", []), ("r3", "f32", []),
            ("r4", "f32", [3, 3]), ("r5", "f32", [3]), ("r6", "f32", [3])]
    exp = [("f32", np.full(3, 10, np.float32)), ("f32", np.full(3, 10, np.float32)),
           ("f32", np.float32(10)), ("f32", np.float32(12.5)), ("f32", x + np.float32(10)),
           # max propagates NaN; max(-0, 0) is +0 (llvm.maximum)
           ("f32", np.array([np.nan, np.inf, 0.0], np.float32)),
           ("f32", np.array([-np.inf, np.nan, 0.0], np.float32))]
    write(D, "reduce_empty_rank0_nan_inf", module("reduce_edge", comps, lines, outs), exp)


def seed_window_1d():
    x = np.array([10000, 1000, 100, 10, 1], np.float32)
    lines = [const("x", "f32", x), "  init = f32[] constant(%r)" % F32MAX,
             "  valid = f32[2] reduce-window(x, init), window={size=3 stride=2}, to_apply=min",
             "  same = f32[3] reduce-window(x, init), window={size=3 stride=2 pad=1_1}, to_apply=min"]
    mn = lambda a, v: (min(a[0], v[0]),)
    valid = refs.reduce_window([x], [np.float32(F32MAX)], mn, [3], [2])[0]
    same = refs.reduce_window([x], [np.float32(F32MAX)], mn, [3], [2], [1], [1])[0]
    assert valid.tolist() == [100, 1] and same.tolist() == [1000, 10, 1]  # the seed's values
    write(D, "seed_reduce_window_min_valid_same",
          module("rw1", [binop_comp("min", "minimum", "f32")], lines,
                 [("valid", "f32", [2]), ("same", "f32", [3])]), [("f32", valid), ("f32", same)])


def seed_window_2d():
    """The seed's 4x6 max with 2x3 windows and strides (VALID), plus stride 1
    overlapping windows with SAME padding."""
    x = np.array([[7, 2, 5, 3, 10, 2], [3, 8, 9, 3, 4, 2], [1, 5, 7, 5, 6, 1], [0, 6, 2, 10, 2, 4]],
                 np.float32)
    mx = lambda a, v: (max(a[0], v[0]),)
    ninf = np.float32(-np.inf)
    r0 = refs.reduce_window([x], [ninf], mx, [2, 3], [2, 3])[0]
    r1 = refs.reduce_window([x], [ninf], mx, [2, 3], [1, 1], [0, 1], [1, 1])[0]
    lines = [const("x", "f32", x), "  init = f32[] constant(-inf)",
             "  r0 = f32[2,2] reduce-window(x, init), window={size=2x3 stride=2x3}, to_apply=max",
             "  r1 = f32[4,6] reduce-window(x, init), window={size=2x3 pad=0_1x1_1}, to_apply=max"]
    assert r1.shape == (4, 6)
    write(D, "seed_reduce_window_2d_max", module("rw2", [binop_comp("max", "maximum", "f32")], lines,
                                                 [("r0", "f32", [2, 2]), ("r1", "f32", [4, 6])]),
          [("f32", r0), ("f32", r1)])


def window_attrs():
    """Strides, negative padding, base and window dilation, variadic, types."""
    rng = np.random.default_rng(7)
    comps = [binop_comp("add_s32", "add", "s32"), binop_comp("max_bf16", "maximum", "bf16"),
             binop_comp("add_f64", "add", "f64"), ARGMAX]
    a = rng.integers(-20, 20, (5, 7)).astype(np.int32)
    b = cast("bf16", rng.integers(-40, 40, (6, 5)) / 8)
    c = rng.integers(-50, 50, (4, 5)).astype(np.float64) / 2
    v = rng.permutation(12).astype(np.float32).reshape(3, 4)
    add = lambda acc, val: (acc[0] + val[0],)
    mx = lambda acc, val: (max(acc[0], val[0]),)
    am = lambda acc, val: val if val[0] >= acc[0] else acc
    r0 = refs.reduce_window([a], [np.int32(0)], add, [2, 3], [2, 1], [1, -1], [0, 2], [2, 1], [1, 2])[0]
    r1 = refs.reduce_window([b], [np.float32(-np.inf)], mx, [3, 2], [1, 2], [-1, 1], [1, 0], [1, 2], [2, 1])[0]
    r2 = refs.reduce_window([c], [np.float64(0.25)], add, [1, 1], [1, 1], [0, 0], [0, 0], [3, 2], [1, 1])[0]
    r3 = refs.reduce_window([v, np.arange(12, dtype=np.int32).reshape(3, 4)],
                            [np.float32(-np.inf), np.int32(-1)], am, [2, 2], [1, 2])
    r4 = refs.reduce_window([a], [np.int32(0)], add, [6, 1], [1, 1])[0]  # window larger: empty
    sh = lambda r: "[%s]" % ",".join(map(str, r.shape))
    lines = [const("a", "s32", a), const("b", "bf16", b), const("c", "f64", c), const("v", "f32", v),
             "  vi = s32[3,4] iota(), iota_dimension=1", "  vr = s32[3,4] iota(), iota_dimension=0",
             "  four = s32[] constant(4)", "  vf = s32[3,4] broadcast(four), dimensions={}",
             "  vm = s32[3,4] multiply(vr, vf)", "  k = s32[3,4] add(vm, vi)",
             "  z = s32[] constant(0)", "  nb = bf16[] constant(-inf)", "  q = f64[] constant(0.25)",
             "  nf = f32[] constant(-inf)", "  m1 = s32[] constant(-1)",
             "  r0 = s32%s reduce-window(a, z), window={size=2x3 stride=2x1 pad=1_0x-1_2 lhs_dilate=2x1 rhs_dilate=1x2}, to_apply=add_s32" % sh(r0),
             "  r1 = bf16%s reduce-window(b, nb), window={size=3x2 stride=1x2 pad=-1_1x1_0 lhs_dilate=1x2 rhs_dilate=2x1}, to_apply=max_bf16" % sh(r1),
             "  r2 = f64%s reduce-window(c, q), window={size=1x1 lhs_dilate=3x2}, to_apply=add_f64" % sh(r2),
             "  r3 = (f32%s, s32%s) reduce-window(v, k, nf, m1), window={size=2x2 stride=1x2}, to_apply=argmax" % (sh(r3[0]), sh(r3[1])),
             "  r3v = f32%s get-tuple-element(r3), index=0" % sh(r3[0]),
             "  r3i = s32%s get-tuple-element(r3), index=1" % sh(r3[1]),
             "  r4 = s32%s reduce-window(a, z), window={size=6x1}, to_apply=add_s32" % sh(r4)]
    outs = [("r0", "s32", r0.shape), ("r1", "bf16", r1.shape), ("r2", "f64", r2.shape),
            ("r3v", "f32", r3[0].shape), ("r3i", "s32", r3[1].shape), ("r4", "s32", r4.shape)]
    write(D, "reduce_window_dilation_padding_variadic", module("rw3", comps, lines, outs),
          [("s32", r0), ("bf16", r1), ("f64", r2), ("f32", r3[0]), ("s32", r3[1]), ("s32", r4)])


def select_scatter():
    ge = lambda a, b: a >= b
    add = lambda a, b: a + b
    # The seed's figure (2): overlapping 3x3 windows, stride 2; both windows
    # select the 9, whose result is 2 + 6 = 8.
    x = np.array([[7, 2, 5, 3, 8], [3, 8, 9, 3, 4], [1, 5, 7, 5, 6], [0, 6, 2, 10, 2]], np.float32)
    s = np.array([[2, 6]], np.float32)
    r0 = refs.select_and_scatter(x, s, np.float32(0), ge, add, [3, 3], [2, 2])
    assert r0[1, 2] == 8
    # Figure (1) style: non-overlapping 2x3 windows on 4x6 with ties (GE keeps the first).
    y = np.array([[7, 2, 5, 3, 10, 2], [3, 8, 9, 3, 4, 2], [1, 5, 7, 5, 6, 1], [0, 6, 2, 7, 2, 7]], np.float32)
    t = np.array([[2, 6], [3, 1]], np.float32)
    r1 = refs.select_and_scatter(y, t, np.float32(0), ge, add, [2, 3], [2, 3])
    # s32, LE (min) selection, padding (never selected), multiply scatter, init 1
    z = np.array([[4, 1, 3], [1, 5, 0], [2, 2, 6]], np.int32)
    u = np.array([[2, 3], [5, 7]], np.int32)
    r2 = refs.select_and_scatter(z, u, np.int32(1), lambda a, b: a <= b, lambda a, b: a * b,
                                 [2, 2], [2, 2], [1, 0], [0, 1])
    sel = lambda n, et, d: ("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n"
                            "  ROOT r = pred[] compare(a, b), direction=%s\n}\n" % (n, et, et, d))
    comps = [sel("ge_f32", "f32", "GE"), sel("le_s32", "s32", "LE"), binop_comp("add", "add", "f32"),
             binop_comp("mul", "multiply", "s32")]
    lines = [const("x", "f32", x), const("s", "f32", s), const("y", "f32", y), const("t", "f32", t),
             const("z", "s32", z), const("u", "s32", u), "  zero = f32[] constant(0)",
             "  one = s32[] constant(1)",
             "  r0 = f32[4,5] select-and-scatter(x, s, zero), window={size=3x3 stride=2x2}, select=ge_f32, scatter=add",
             "  r1 = f32[4,6] select-and-scatter(y, t, zero), window={size=2x3 stride=2x3}, select=ge_f32, scatter=add",
             "  r2 = s32[3,3] select-and-scatter(z, u, one), window={size=2x2 stride=2x2 pad=1_0x0_1}, select=le_s32, scatter=mul"]
    write(D, "seed_select_and_scatter_overlapping", module("sas", comps, lines,
                                                          [("r0", "f32", [4, 5]), ("r1", "f32", [4, 6]), ("r2", "s32", [3, 3])]),
          [("f32", r0), ("f32", r1), ("s32", r2)])


def main():
    seed_2x3()
    seed_4x2x3()
    seed_argmax()
    types()
    edge()
    seed_window_1d()
    seed_window_2d()
    window_attrs()
    select_scatter()
