#!/usr/bin/python3
"""Writes the golden cases of the XlaBuilder library custom calls
(xla_builder.matrix.Einsum, .matrix.GetMatrixDiagonalViaGather,
.prng.ScramblePhiloxKey, .tridiagonal.TridiagonalSolver) under
testdata/interp-builder-lib/.

Expected values come from numpy (np.einsum, np.diagonal, a dense
np.linalg.solve of each tridiagonal system) and from a Python Philox-4x32
checked against Random123's known-answer vectors -- never from hlorun.
Run with /usr/bin/python3 (numpy)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens"))

from cases_linalg import Mod  # noqa: E402
from gen import write, written  # noqa: E402
from hlolit import cast, const, shape_str  # noqa: E402

DIR = "interp-builder-lib"
rng = np.random.default_rng(2026)


def ints(shape, lo=-4, hi=5):
    return rng.integers(lo, hi, shape).astype(np.float64)


def custom_call(m, et, dims, target, operands, config=None):
    r = m.name("cc")
    line = "  %s = %s custom-call(%s), custom_call_target=\"%s\"" % (
        r, shape_str(et, dims), ", ".join(operands), target)
    if config is not None:
        line += ", backend_config=\"%s\"" % config
    m.lines.append(line)
    return r


def constant(m, et, arr):
    c = m.name("c")
    m.lines.append(const(c, et, cast(et, arr)))
    return c


def einsum(m, et, config, arrays, expected):
    """One Einsum call on constants (1 or 2 operands); expected in float64 /
    complex128 (integer-valued data, so every type holds it exactly)."""
    names = [constant(m, et, a) for a in arrays]
    r = custom_call(m, et, np.shape(expected), "xla_builder.matrix.Einsum", names, config)
    m.out(r, et, cast(et, expected))


def inverse_diag(v, out_labels, unique_labels):
    """v (dims in unique_labels order) placed on the diagonals named by the
    repeated letters of out_labels, zeros elsewhere (numpy's einsum has no
    repeated output letters)."""
    sizes = [v.shape[unique_labels.index(c)] for c in out_labels]
    out = np.zeros(sizes, v.dtype)
    for idx in np.ndindex(*v.shape):
        out[tuple(idx[unique_labels.index(c)] for c in out_labels)] = v[idx]
    return out


def einsum_cases():
    for et in ("f32", "f64", "s32", "c64"):
        m = Mod(DIR)
        cplx = et == "c64"

        def data(shape):
            a = ints(shape)
            return a + 1j * ints(shape) if cplx else a

        a, b = data((2, 3)), data((3, 4))
        einsum(m, et, "ab,bc->ac", [a, b], np.einsum("ab,bc->ac", a, b))
        einsum(m, et, "ij,jk", [a, b], np.einsum("ij,jk", a, b))  # implicit output
        x, y = data((2, 2, 3)), data((2, 3, 4))
        einsum(m, et, "bij,bjk->kbi", [x, y], np.einsum("bij,bjk->kbi", x, y))
        s, t = data((3, 3)), data((3, 3))
        einsum(m, et, "ii,ii->i", [s, t], np.einsum("ii,ii->i", s, t))
        v = data((3,))
        einsum(m, et, "i,ij->ii", [v, s], inverse_diag(np.einsum("i,ij->i", v, s), "ii", "i"))
        einsum(m, et, "i->ii", [v], np.diag(v))
        einsum(m, et, "ii->", [s], np.einsum("ii->", s))
        einsum(m, et, "ii->i", [s], np.einsum("ii->i", s))
        einsum(m, et, "ij->ji", [a], a.T)
        w = data((4,))
        einsum(m, et, "i,j->ij", [v, w], np.einsum("i,j->ij", v, w))
        if et in ("f32", "s32"):
            e, f = data((2, 1, 2, 3)), data((4, 3, 2))
            einsum(m, et, "...ij,...jk->...ik", [e, f], np.einsum("...ij,...jk->...ik", e, f))
            g = data((2, 2, 3))
            einsum(m, et, "...ij,jk", [g, b], np.einsum("...ij,jk", g, b))
            c4 = data((4, 3))
            einsum(m, et, "ij,kj->ik", [a, c4], np.einsum("ij,kj->ik", a, c4))
            p, q = data((2, 3)), data((4,))
            einsum(m, et, "ij,k->i", [p, q], np.einsum("ij,k->i", p, q))
            h = data((3, 3, 2))
            b2 = data((2, 4))
            einsum(m, et, "iij,jk->ki", [h, b2], np.einsum("iij,jk->ki", h, b2))
            c3 = data((2, 2, 2))
            einsum(m, et, "iii->i", [c3], np.einsum("iii->i", c3))
            k1, k2 = data((2, 3, 4)), data((3, 4, 2))
            einsum(m, et, "abc,bca->", [k1, k2], np.einsum("abc,bca->", k1, k2))
            einsum(m, et, "ij,jk->iki", [a, b],
                   inverse_diag(np.einsum("ij,jk->ik", a, b), "iki", "ik"))
        m.write("einsum_%s" % et)


def einsum_errors():
    cases = [
        ("einsum_bad_config", "ab.c,cd->ad", "f32[2,3]", "f32[3,4]", "f32[2,4]",
         'unsupported "."'),
        ("einsum_label_count", "abc,cd->ad", "f32[2,3]", "f32[3,4]", "f32[2,4]",
         "names 3 and 2 dimensions"),
        ("einsum_output_only_label", "ab,bc->acd", "f32[2,3]", "f32[3,4]", "f32[2,4,1]",
         "output label d is in neither operand"),
        ("einsum_declared_shape", "ab,bc->ac", "f32[2,3]", "f32[3,4]", "f32[4,2]",
         "gives f32[2,4] here, but the instruction declares f32[4,2]"),
    ]
    for name, config, xs, ys, rs, msg in cases:
        hlo = ("HloModule %s\n\nENTRY main {\n  x = %s parameter(0)\n  y = %s parameter(1)\n"
               "  ROOT r = %s custom-call(x, y), custom_call_target=\"xla_builder.matrix.Einsum\", "
               "backend_config=\"%s\"\n}\n" % (name, xs, ys, rs, config))
        error_case(name, hlo, msg)


def error_case(name, hlo, msg):
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", DIR)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name + ".hlo"), "w") as f:
        f.write(hlo)
    with open(os.path.join(path, name + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                "stderr_contains: '%s'\n" % (name, msg))
    written.append(os.path.join(DIR, name))


def diagonal_cases():
    m = Mod(DIR)
    for et, shape in (("f32", (2, 3, 4)), ("s32", (4, 2)), ("f64", (3, 3)), ("c64", (1, 2, 2))):
        x = ints(shape)
        if et == "c64":
            x = x + 1j * ints(shape)
        c = constant(m, et, x)
        d = np.diagonal(x, axis1=-2, axis2=-1)
        r = custom_call(m, et, d.shape, "xla_builder.matrix.GetMatrixDiagonalViaGather", [c])
        m.out(r, et, cast(et, d))
    m.write("get_matrix_diagonal_via_gather")
    error_case("get_matrix_diagonal_declared_shape",
               "HloModule d\n\nENTRY main {\n  x = f32[2,2] parameter(0)\n  ROOT r = f32[2,2] "
               "custom-call(x), custom_call_target=\"xla_builder.matrix.GetMatrixDiagonalViaGather\"\n}\n",
               "gives f32[2] here, but the instruction declares f32[2,2]")


M32 = 0xFFFFFFFF


def philox4x32_10(key, ctr):
    """Random123 Philox-4x32 with 10 rounds (Salmon et al., SC 2011)."""
    k0, k1 = key
    x = list(ctr)
    for _ in range(10):
        p0 = x[0] * 0xD2511F53
        p1 = x[2] * 0xCD9E8D57
        x = [((p1 >> 32) ^ x[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ x[3] ^ k1) & M32, p0 & M32]
        k0 = (k0 + 0x9E3779B9) & M32
        k1 = (k1 + 0xBB67AE85) & M32
    return x


# Random123's kat_vectors for philox4x32 (10 rounds).
assert philox4x32_10((0, 0), (0, 0, 0, 0)) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]
assert philox4x32_10((M32, M32), (M32, M32, M32, M32)) == [0x408f276d, 0x41c83b0e, 0xa20bc7c6,
                                                            0x6d5451fd]
assert philox4x32_10((0xa4093822, 0x299f31d0), (0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344)) == [
    0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1]


def scramble(key64):
    """prng.cc ScramblePhiloxKey: counter {lo, 0, hi, 0} (each 32-bit half is
    widened to u64 and its upper word, always 0, taken next) under the key
    {0x3ec8f720, 0x02461e29}; the new key is words 0 (low) and 1 (high)."""
    lo, hi = key64 & M32, key64 >> 32
    o = philox4x32_10((0x3ec8f720, 0x02461e29), (lo, 0, hi, 0))
    return o[0] | (o[1] << 32)


def scramble_cases():
    m = Mod(DIR)
    keys = np.array([[0, 1], [0xFFFFFFFFFFFFFFFF, 0x123456789ABCDEF0]], np.uint64)
    c = constant(m, "u64", keys)
    r = custom_call(m, "u64", keys.shape, "xla_builder.prng.ScramblePhiloxKey", [c])
    m.out(r, "u64", np.array([[scramble(int(k)) for k in row] for row in keys], np.uint64))
    # Narrower keys: the low word is the key converted to u32, the high word
    # the key shifted right by 32 bits, which is 0 for 32-bit types.
    skeys = np.array([-1, 7, -2147483648], np.int32)
    c = constant(m, "s32", skeys)
    r = custom_call(m, "u64", skeys.shape, "xla_builder.prng.ScramblePhiloxKey", [c])
    m.out(r, "u64", np.array([scramble(int(k) & M32) for k in skeys], np.uint64))
    c = m.name("c")
    m.lines.append("  %s = u64[] constant(42)" % c)
    r = custom_call(m, "u64", (), "xla_builder.prng.ScramblePhiloxKey", [c])
    m.out(r, "u64", np.uint64(scramble(42)))
    m.write("scramble_philox_key")


def dense(lower, main, upper):
    """The M x M matrix of one system (lower[0], upper[M-1] unused)."""
    n = len(main)
    a = np.diag(main).astype(np.result_type(main, np.float64))
    for i in range(1, n):
        a[i, i - 1] = lower[i]
        a[i - 1, i] = upper[i - 1]
    return a


def tridiagonal_cases():
    """Diagonally dominant systems with integer solutions x (rhs = A x, exact
    in every type); np.linalg.solve cross-checks x.  The results are scaled
    by 1e4 and rounded so they do not depend on the last bits."""
    for et in ("f32", "f64", "c64"):
        cplx = et == "c64"
        m = Mod(DIR)

        def data(shape, lo=-3, hi=4):
            a = rng.integers(lo, hi, shape).astype(np.float64)
            return a + 1j * rng.integers(lo, hi, shape) if cplx else a

        def quant_out(name, dims, arr):
            if cplx:
                m.quant_complex(name, et, dims, arr)
            else:
                m.quant(name, et, dims, arr)

        # Four operands: lower/main/upper [B, 1, M], rhs [B, R, M]; the
        # lower diagonal has batch dim 1 (XLA broadcasts it).
        B, R, M = 2, 3, 5
        lower = data((1, 1, M))
        main = data((B, 1, M), 8, 12)
        upper = data((B, 1, M))
        x = data((B, R, M), -9, 10)
        rhs = np.zeros(x.shape, x.dtype)
        for b in range(B):
            a = dense(lower[0, 0], main[b, 0], upper[b, 0])
            rhs[b] = (a @ x[b].T).T
            assert np.allclose(np.linalg.solve(a, rhs[b].T).T, x[b])
        lower[..., 0] = 99  # never read
        upper[..., M - 1] = -99  # never read
        names = [constant(m, et, v) for v in (lower, main, upper, rhs)]
        r = custom_call(m, et, rhs.shape, "xla_builder.tridiagonal.TridiagonalSolver", names)
        quant_out(r, rhs.shape, x)

        # Two operands: diagonals [B, 3, M] (rows upper, main, lower), rhs
        # [B, M, R] (equations major).
        diags = np.concatenate([data((B, 1, M)), data((B, 1, M), 8, 12), data((B, 1, M))], axis=1)
        x2 = data((B, M, R), -9, 10)
        rhs2 = np.zeros(x2.shape, x2.dtype)
        for b in range(B):
            a = dense(diags[b, 2], diags[b, 1], diags[b, 0])
            rhs2[b] = a @ x2[b]
            assert np.allclose(np.linalg.solve(a, rhs2[b]), x2[b])
        names = [constant(m, et, diags), constant(m, et, rhs2)]
        r = custom_call(m, et, rhs2.shape, "xla_builder.tridiagonal.TridiagonalSolver", names)
        quant_out(r, rhs2.shape, x2)

        # One equation: x = rhs / main.
        one = [np.array([[7.0]]), np.array([[4.0]]), np.array([[5.0]]), np.array([[1.0], [-2.0], [6.0]])]
        names = [constant(m, et, v) for v in one]
        r = custom_call(m, et, (3, 1), "xla_builder.tridiagonal.TridiagonalSolver", names)
        quant_out(r, (3, 1), one[3] / 4.0)
        m.write("tridiagonal_solve_%s" % et)
    error_case("tridiagonal_three_operands",
               "HloModule t\n\nENTRY main {\n  a = f32[1,3] parameter(0)\n  b = f32[3,3] parameter(1)\n"
               "  ROOT r = f32[3,3] custom-call(a, a, b), "
               "custom_call_target=\"xla_builder.tridiagonal.TridiagonalSolver\"\n}\n",
               "takes 2 or 4 array operand(s)")
    error_case("tridiagonal_bad_diagonal",
               "HloModule t\n\nENTRY main {\n  a = f32[2,3] parameter(0)\n  b = f32[3,3] parameter(1)\n"
               "  ROOT r = f32[3,3] custom-call(a, a, a, b), "
               "custom_call_target=\"xla_builder.tridiagonal.TridiagonalSolver\"\n}\n",
               "second to last dimension of lower diagonal should be 1 but is 2")


def main():
    einsum_cases()
    einsum_errors()
    diagonal_cases()
    scramble_cases()
    tridiagonal_cases()
    print("%d cases written" % len(written))


if __name__ == "__main__":
    main()
