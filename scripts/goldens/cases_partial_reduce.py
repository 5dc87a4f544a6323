"""custom-call PartialReduce goldens (testdata/interp-sort/partial_reduce_*):
expected values by plain per-bin loops over the definition -- element j of
the reduction dimension belongs to bin j mod L, and a bin is reduced with
XLA's ApproxTopK reduction computation select(cmp(acc, x), acc, x) from the
init values in index order -- independent of the vectorised evaluator."""
import os

import numpy as np

from gen import ROOT, module, write
from hlolit import bf16_round, const, shape_str

D = "interp-sort"


def partial_reduce(ops, inits, rd, bins, cmp):
    """ops: k arrays of one shape; cmp(lhs_tuple, rhs_tuple) -> bool."""
    shape = ops[0].shape
    n = shape[rd]
    out_shape = shape[:rd] + (bins,) + shape[rd + 1:]
    outs = [np.empty(out_shape, a.dtype) for a in ops]
    for idx in np.ndindex(*out_shape):
        l = idx[rd]
        acc = tuple(inits)
        for j in range(l, n, bins):
            src = idx[:rd] + (j,) + idx[rd + 1:]
            x = tuple(a[src] for a in ops)
            if not cmp(acc, x):
                acc = x
        for o, v in zip(outs, acc):
            o[idx] = v
    return outs


def call(name, types, dims, odims, operands, comp, rd, log2r=1, top_k=4):
    res = "(%s)" % ", ".join(shape_str(t, odims) for t in types)
    return ('  %s = %s custom-call(%s), custom_call_target="PartialReduce", '
            'called_computations={%s}, backend_config={"log2_reduction": %d, '
            '"reduction_dim": %d, "to_apply_type": "comparator", "top_k": %d, '
            '"recall_target": 0.95}' % (name, res, ", ".join(operands), comp, log2r, rd, top_k))


def gt_comp(name, t0, t1):
    return ("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  c = %s[] parameter(2)\n"
            "  d = %s[] parameter(3)\n  ROOT r = pred[] compare(a, b), direction=GT\n}\n"
            % (name, t0, t0, t1, t1))


def main():
    rng = np.random.default_rng(43)
    comps, lines, outs, exp = [], [], [], []

    # ApproxTopK's own shape: f32[3,300] + iota, top_k 4 -> L = 256 (log2 1):
    # bins 0..43 hold two elements, the rest one.
    x = rng.standard_normal((3, 300)).astype(np.float32)
    x[1, 7] = x[1, 263] = 2.5  # a tie: the later element (263) is kept
    iota = np.broadcast_to(np.arange(300, dtype=np.int32), (3, 300)).copy()
    comps.append(gt_comp("gt_f32", "f32", "s32"))
    lines += [const("x1", "f32", x), "  i1 = s32[3,300] iota(), iota_dimension=1",
              "  n1 = f32[] constant(-inf)", "  m1 = s32[] constant(-1)",
              call("p1", ["f32", "s32"], [3, 300], [3, 256], ["x1", "i1", "n1", "m1"], "gt_f32", 1),
              "  v1 = f32[3,256] get-tuple-element(p1), index=0",
              "  j1 = s32[3,256] get-tuple-element(p1), index=1"]
    v, j = partial_reduce([x, iota], [np.float32(-np.inf), np.int32(-1)], 1, 256,
                          lambda a, b: a[0] > b[0])
    outs += [("v1", "f32", [3, 256]), ("j1", "s32", [3, 256])]
    exp += [("f32", v), ("s32", j)]

    # Reduction over dimension 0 with inner dimensions, smallest first (LT),
    # integer keys with repeats, L = 4 over N = 10.
    y = rng.integers(0, 4, (10, 2, 3)).astype(np.int32)
    yi = np.arange(60, dtype=np.int32).reshape(10, 2, 3)
    comps.append("lt_s32 {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n"
                 "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
                 "  ROOT r = pred[] compare(a, b), direction=LT\n}\n")
    lines += [const("y2", "s32", y), const("k2", "s32", yi), "  n2 = s32[] constant(100)",
              "  m2 = s32[] constant(-1)",
              call("p2", ["s32", "s32"], [10, 2, 3], [4, 2, 3], ["y2", "k2", "n2", "m2"], "lt_s32", 0,
                   log2r=2),
              "  v2 = s32[4,2,3] get-tuple-element(p2), index=0",
              "  j2 = s32[4,2,3] get-tuple-element(p2), index=1"]
    v, j = partial_reduce([y, yi], [np.int32(100), np.int32(-1)], 0, 4, lambda a, b: a[0] < b[0])
    outs += [("v2", "s32", [4, 2, 3]), ("j2", "s32", [4, 2, 3])]
    exp += [("s32", v), ("s32", j)]

    # Three operand pairs (bf16 key, s32 index, u8 tag carried along), a
    # comparator with a tie-break: larger key, then smaller index.
    z = bf16_round(rng.integers(-3, 4, (2, 12)).astype(np.float32))
    zi = rng.permutation(24).astype(np.int32).reshape(2, 12)
    zt = rng.integers(0, 256, (2, 12)).astype(np.uint8)
    comps.append("gt_then_lt {\n  a = bf16[] parameter(0)\n  b = bf16[] parameter(1)\n"
                 "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
                 "  e = u8[] parameter(4)\n  f = u8[] parameter(5)\n"
                 "  gt = pred[] compare(a, b), direction=GT\n"
                 "  eq = pred[] compare(a, b), direction=EQ\n"
                 "  lt = pred[] compare(c, d), direction=LT\n"
                 "  tie = pred[] and(eq, lt)\n  ROOT r = pred[] or(gt, tie)\n}\n")
    lines += [const("z3", "bf16", z), const("i3", "s32", zi), const("t3", "u8", zt),
              "  n3 = bf16[] constant(-inf)", "  m3 = s32[] constant(2147483647)",
              "  u3 = u8[] constant(0)",
              call("p3", ["bf16", "s32", "u8"], [2, 12], [2, 5],
                   ["z3", "i3", "t3", "n3", "m3", "u3"], "gt_then_lt", 1, log2r=2),
              "  v3 = bf16[2,5] get-tuple-element(p3), index=0",
              "  j3 = s32[2,5] get-tuple-element(p3), index=1",
              "  w3 = u8[2,5] get-tuple-element(p3), index=2"]
    v, j, w = partial_reduce([z, zi, zt], [np.float32(-np.inf), np.int32(2**31 - 1), np.uint8(0)], 1,
                             5, lambda a, b: a[0] > b[0] or (a[0] == b[0] and a[1] < b[1]))
    outs += [("v3", "bf16", [2, 5]), ("j3", "s32", [2, 5]), ("w3", "u8", [2, 5])]
    exp += [("bf16", v), ("s32", j), ("u8", w)]

    # More bins than elements: bins 3 and 4 keep the init values.
    q = np.array([[1.5, -2.0, 0.25], [3.0, 3.0, -1.0]], np.float32)
    qi = np.array([[0, 1, 2], [0, 1, 2]], np.int32)
    lines += [const("q4", "f32", q), const("i4", "s32", qi), "  n4 = f32[] constant(-inf)",
              "  m4 = s32[] constant(-1)",
              call("p4", ["f32", "s32"], [2, 3], [2, 5], ["q4", "i4", "n4", "m4"], "gt_f32", 1, log2r=0),
              "  v4 = f32[2,5] get-tuple-element(p4), index=0",
              "  j4 = s32[2,5] get-tuple-element(p4), index=1"]
    v, j = partial_reduce([q, qi], [np.float32(-np.inf), np.int32(-1)], 1, 5, lambda a, b: a[0] > b[0])
    outs += [("v4", "f32", [2, 5]), ("j4", "s32", [2, 5])]
    exp += [("f32", v), ("s32", j)]

    name = "partial_reduce_bins"
    write(D, name, module(name, comps, lines, outs), exp)

    # A reduction_dim that names no dimension is an error.
    path = os.path.join(ROOT, D)
    bad = "partial_reduce_bad_dim"
    with open(os.path.join(path, bad + ".hlo"), "w") as f:
        f.write("HloModule %s\n\n%s\nENTRY main {\n%s\n%s\n%s\n%s\n  ROOT %s\n}\n" % (
            bad, gt_comp("gt_f32", "f32", "s32"), const("x", "f32", q), const("i", "s32", qi),
            "  n = f32[] constant(-inf)", "  m = s32[] constant(-1)",
            call("p", ["f32", "s32"], [2, 3], [2, 2], ["x", "i", "n", "m"], "gt_f32", 2).strip()))
    with open(os.path.join(path, bad + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: ['%s.hlo']\nexit: 1\n"
                "stderr_contains: 'reduction_dim must name a dimension'\n" % bad)
