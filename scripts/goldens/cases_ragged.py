"""ragged-dot goldens (testdata/interp-dot/ragged_dot_*): expected values by
plain loops over StableHLO's chlo.ragged_dot semantics (per-group matmuls),
independent of the dense expansion hlorun uses."""
import numpy as np

from gen import module, write
from hlolit import const

D = "interp-dot"


def groups_of(sizes, n):
    """group index of each of n rows (-1: in no group)."""
    out, start = [-1] * n, 0
    for j, s in enumerate(sizes):
        for i in range(start, min(start + s, n)):
            out[i] = j
        start += s
    return out


def ints(rng, *shape):
    return rng.integers(-5, 6, shape).astype(np.float32)


def main():
    rng = np.random.default_rng(31)
    lines, outs, exp = [], [], []

    # Ragged non-contracting: lhs [a=2, m=5, k=3], rhs [g=3, k=3, n=2], sizes [a, g].
    lhs, rhs = ints(rng, 2, 5, 3), ints(rng, 3, 3, 2)
    gs = np.array([[2, 1, 2], [1, 3, 0]], np.int32)  # row a=1 covers 4 of 5 rows
    want = np.zeros((2, 5, 2), np.float32)
    for a in range(2):
        grp = groups_of(gs[a], 5)
        for m in range(5):
            if grp[m] >= 0:
                want[a, m] = lhs[a, m] @ rhs[grp[m]]
    lines += [const("l1", "f32", lhs), const("r1", "f32", rhs), const("g1", "s32", gs),
              "  d1 = f32[2,5,2] ragged-dot(l1, r1, g1), lhs_contracting_dims={2}, "
              "rhs_contracting_dims={1}, lhs_ragged_dims={1}, rhs_group_dims={0}"]
    outs.append(("d1", "f32", [2, 5, 2]))
    exp.append(("f32", want))

    # Ragged contracting: lhs [m=4, k=6], rhs [k=6, n=3], sizes [g=3] -> [g, m, n].
    lhs, rhs = ints(rng, 4, 6), ints(rng, 6, 3)
    gs = np.array([1, 3, 2], np.int64)
    want = np.zeros((3, 4, 3), np.float32)
    grp = groups_of(gs, 6)
    for j in range(3):
        ks = [k for k in range(6) if grp[k] == j]
        want[j] = lhs[:, ks] @ rhs[ks, :]
    lines += [const("l2", "f32", lhs), const("r2", "f32", rhs), const("g2", "s64", gs),
              "  d2 = f32[3,4,3] ragged-dot(l2, r2, g2), lhs_contracting_dims={1}, "
              "rhs_contracting_dims={0}, lhs_ragged_dims={1}"]
    outs.append(("d2", "f32", [3, 4, 3]))
    exp.append(("f32", want))

    # Ragged batch: a plain batched dot, group sizes unused.
    lhs, rhs = ints(rng, 3, 2, 2), ints(rng, 3, 2, 4)
    want = np.einsum("bmk,bkn->bmn", lhs, rhs)
    lines += [const("l3", "f32", lhs), const("r3", "f32", rhs),
              "  g3 = s32[2] constant({1, 1})",
              "  d3 = f32[3,2,4] ragged-dot(l3, r3, g3), lhs_batch_dims={0}, rhs_batch_dims={0}, "
              "lhs_contracting_dims={2}, rhs_contracting_dims={1}, lhs_ragged_dims={0}"]
    outs.append(("d3", "f32", [3, 2, 4]))
    exp.append(("f32", want))
    write(D, "ragged_dot_modes", module("ragged_dot_modes", [], lines, outs), exp)
