"""Sparse dot goldens (testdata/interp-dot/sparse_dot_*), built the way XLA's
own test does (xla/service/gpu/tests/gpu_sparse_dot_test.cc): pick 2 of
every 4 logical elements along the sparse dimension, write their positions
as 2-bit fields (4 per group nibble, 4 groups per u16, lowest first), keep
the picked values in order as the compressed operand, and expect the dense
dot of the operand with the other elements zeroed (numpy)."""
import os

import numpy as np

from gen import ROOT, module, write
from hlolit import const

D = "interp-dot"
# Increasing position pairs of 2 out of 4 (first position in the low bits).
PAIRS = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]


def sparsify(dense, dim, rng):
    """dense: logical operand; returns (zeroed dense, packed, u16 metadata)."""
    x = np.moveaxis(dense, dim, -1)
    lead, k = x.shape[:-1], x.shape[-1]
    groups = k // 4
    zeroed = np.zeros_like(x)
    packed = np.zeros(lead + (2 * groups,), x.dtype)
    meta = np.zeros(lead + ((2 * groups + 7) // 8,), np.uint16)
    for idx in np.ndindex(*lead):
        for g in range(groups):
            a, b = PAIRS[rng.integers(0, 6)]
            zeroed[idx + (4 * g + a,)] = x[idx + (4 * g + a,)]
            zeroed[idx + (4 * g + b,)] = x[idx + (4 * g + b,)]
            packed[idx + (2 * g,)] = x[idx + (4 * g + a,)]
            packed[idx + (2 * g + 1,)] = x[idx + (4 * g + b,)]
            meta[idx + (g // 4,)] |= (a | (b << 2)) << (4 * (g % 4))
    back = lambda a: np.moveaxis(a, -1, dim)
    return back(zeroed), back(packed), back(meta)


def ints(rng, et, *shape):
    return rng.integers(-4, 5, shape).astype(np.float32 if et in ("f32", "bf16") else np.int32)


def dims_str(a):
    return "[%s]" % ",".join(str(d) for d in a.shape)


def main():
    rng = np.random.default_rng(53)
    lines, outs, exp = [], [], []

    # Sparse lhs, contracting dim 1 (the conformance module's form), bf16 -> f32.
    dl = ints(rng, "bf16", 4, 32)
    r = ints(rng, "bf16", 32, 5)
    z, p, m = sparsify(dl, 1, rng)
    lines += [const("l1", "bf16", p), const("r1", "bf16", r), const("m1", "u16", m),
              "  d1 = f32[4,5] dot(l1, r1, m1), lhs_contracting_dims={1}, "
              "rhs_contracting_dims={0}, sparsity=L.1@2:4"]
    outs.append(("d1", "f32", [4, 5]))
    exp.append(("f32", z @ r))

    # Sparse rhs along its contracting dim 0 (metadata words run down dim 0).
    l2 = ints(rng, "f32", 3, 16)
    dr = ints(rng, "f32", 16, 4)
    z, p, m = sparsify(dr, 0, rng)
    lines += [const("l2", "f32", l2), const("r2", "f32", p), const("m2", "u16", m),
              "  d2 = f32[3,4] dot(l2, r2, m2), lhs_contracting_dims={1}, "
              "rhs_contracting_dims={0}, sparsity=R.0@2:4"]
    outs.append(("d2", "f32", [3, 4]))
    exp.append(("f32", l2 @ z))

    # Batched integer dot, the sparse contracting dim in the middle (dims after it).
    dl = ints(rng, "s32", 2, 16, 3)
    r = ints(rng, "s32", 2, 16, 4)
    z, p, m = sparsify(dl, 1, rng)
    lines += [const("l3", "s32", p), const("r3", "s32", r), const("m3", "u16", m),
              "  d3 = s32[2,3,4] dot(l3, r3, m3), lhs_batch_dims={0}, rhs_batch_dims={0}, "
              "lhs_contracting_dims={1}, rhs_contracting_dims={1}, sparsity=L.1@2:4"]
    outs.append(("d3", "s32", [2, 3, 4]))
    exp.append(("s32", np.einsum("bkm,bkn->bmn", z, r)))

    # Both operands sparse; 24 logical = 12 stored: a half-used last metadata word.
    dl = ints(rng, "f32", 2, 24)
    dr = ints(rng, "f32", 24, 3)
    zl, pl, ml = sparsify(dl, 1, rng)
    zr, pr, mr = sparsify(dr, 0, rng)
    lines += [const("l4", "f32", pl), const("r4", "f32", pr), const("ml4", "u16", ml),
              const("mr4", "u16", mr),
              "  d4 = f32[2,3] dot(l4, r4, ml4, mr4), lhs_contracting_dims={1}, "
              "rhs_contracting_dims={0}, sparsity=L.1@2:4_R.0@2:4"]
    outs.append(("d4", "f32", [2, 3]))
    exp.append(("f32", zl @ zr))

    # A group whose two positions coincide (undefined for the GPU's mma.sp):
    # each stored value still multiplies the element at its own position.
    pv = np.array([[1.0, 2.0, 3.0, 4.0]], np.float32)    # groups (1,1) and (0,3)
    mv = np.array([[0b0101 | (0b1100 << 4)]], np.uint16)
    rv = ints(rng, "f32", 8, 2)
    want = pv[0, 0] * rv[1] + pv[0, 1] * rv[1] + pv[0, 2] * rv[4] + pv[0, 3] * rv[7]
    lines += [const("l5", "f32", pv), const("r5", "f32", rv), const("m5", "u16", mv),
              "  d5 = f32[1,2] dot(l5, r5, m5), lhs_contracting_dims={1}, "
              "rhs_contracting_dims={0}, sparsity=L.1@2:4"]
    outs.append(("d5", "f32", [1, 2]))
    exp.append(("f32", want.reshape(1, 2)))

    write(D, "sparse_dot_2_4", module("sparse_dot_2_4", [], lines, outs), exp)

    # Ratios other than 2:4 have no metadata format to read.
    path = os.path.join(ROOT, D)
    bad = "sparse_dot_bad_ratio"
    with open(os.path.join(path, bad + ".hlo"), "w") as f:
        f.write("HloModule %s\n\nENTRY main {\n  l = f32[2,4] parameter(0)\n"
                "  r = f32[8,3] parameter(1)\n  m = u16[2,1] parameter(2)\n"
                "  ROOT d = f32[2,3] dot(l, r, m), lhs_contracting_dims={1}, "
                "rhs_contracting_dims={0}, sparsity=L.1@1:2\n}\n" % bad)
    with open(os.path.join(path, bad + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                "stderr_contains: '1:2 sparsity has no defined metadata format'\n" % bad)
