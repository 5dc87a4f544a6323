"""jaxlib LAPACK custom-call goldens (testdata/interp-custom-call):
lapack_?potrf_ffi, lapack_?getrf_ffi and blas_?trsm_ffi as JAX's CPU
lowering emits them (column-major layouts, character attributes, info and
1-based pivots).

The matrices are built from chosen factors whose entries are small dyadic
numbers (power-of-two diagonals, subdiagonal multipliers below 1 in
magnitude), so every LAPACK computes them exactly and picks the same pivots.
Triangular solves have dyadic solutions and power-of-two diagonals.
Expected values come from scipy.linalg.lapack / .blas (scipy's own LAPACK),
checked against the chosen factors and solutions."""
import os

import numpy as np
from scipy.linalg import blas, lapack

from gen import ROOT, module, write
from hlolit import const

D = "interp-custom-call"
rng = np.random.default_rng(61)
NP = {"f32": np.float32, "f64": np.float64, "c64": np.complex64, "c128": np.complex128}
LETTER = {"f32": "s", "f64": "d", "c64": "c", "c128": "z"}


def gint(shape, cplx, lo=-3, hi=4):
    x = rng.integers(lo, hi, shape).astype(np.float64)
    if cplx:
        x = x + 1j * rng.integers(lo, hi, shape)
    return x


def layout(rank):
    return "{%s}" % ",".join(map(str, [rank - 2, rank - 1] + list(range(rank - 3, -1, -1))))


def shape(et, dims, lay=True):
    return "%s[%s]%s" % (et, ",".join(map(str, dims)), layout(len(dims)) if lay else "")


def spd(n, cplx):
    """A = L L^H with L lower, Gaussian-integer entries, diagonal 1, 2 or 4."""
    L = np.tril(gint((n, n), cplx), -1) + np.diag(rng.choice([1.0, 2.0, 4.0], n))
    return L @ L.conj().T


def lu_input(m, n, cplx):
    """A = P L U with |multipliers| in {0, 1/4, 1/2} and power-of-two pivots."""
    k = min(m, n)
    L = np.eye(m, k) + np.tril(rng.choice([-0.5, -0.25, 0.0, 0.25, 0.5], (m, k)), -1)
    U = np.triu(gint((k, n), cplx)) + 0
    U[range(k), range(k)] = rng.choice([-4.0, -2.0, 2.0, 4.0], k)
    P = np.eye(m)[rng.permutation(m)]
    return P @ L @ U


class Mod:
    def __init__(self):
        self.lines, self.outs, self.exp, self.n = [], [], [], 0

    def potrf(self, et, a, lower, info_only=False):
        self.n += 1
        fn = getattr(lapack, LETTER[et] + "potrf")
        batch = a.shape[:-2]
        fac, info = np.zeros(a.shape, NP[et]), np.zeros(batch, np.int32)
        for idx in np.ndindex(*batch):
            x = a[idx].astype(NP[et])
            c, i = fn(x, lower=lower, clean=False)
            fac[idx], info[idx] = c, i
            if i == 0:
                f = np.tril(c) if lower else np.triu(c)
                g = f @ f.conj().T if lower else f.conj().T @ f
                assert np.array_equal(g, x), "not exact"
        self.call("potrf", et, a, [(a.shape, et), (batch, "s32")], [fac, info],
                  ", backend_config={uplo = %d : ui8}" % (76 if lower else 85), info_only)

    def getrf(self, et, a, target=None, workspace=0):
        self.n += 1
        fn = getattr(lapack, LETTER[et] + "getrf")
        batch, (m, n) = a.shape[:-2], a.shape[-2:]
        k = min(m, n)
        lu, piv, info = np.zeros(a.shape, NP[et]), np.zeros(batch + (k,), np.int32), np.zeros(batch, np.int32)
        for idx in np.ndindex(*batch):
            x = a[idx].astype(NP[et])
            f, p, i = fn(x)
            lu[idx], piv[idx], info[idx] = f, p + 1, i  # scipy reports 0-based pivots
            L = np.tril(f, -1)[:, :k] + np.eye(m, k)
            U = np.triu(f)[:k, :]
            y = x.copy()
            for r, q in enumerate(p):
                y[[r, q]] = y[[q, r]]
            assert np.array_equal(L @ U, y), "not exact"
        leaves = [(a.shape, et), (batch + (k,), "s32"), (batch, "s32")]
        values = [lu, piv, info]
        if workspace:
            leaves.append(((workspace,), "s8"))
            values.append(np.zeros(workspace, np.int8))
        self.call("getrf", et, a, leaves, values, "", target=target)

    def trsm(self, et, a, x, alpha, left, lower, trans, unit, target="blas"):
        """a: [..., k, k] with junk in the unread triangle (and diagonal when
        unit); x: the dyadic solution; b = op(a) x / alpha (or x op(a))."""
        self.n += 1
        cplx = et.startswith("c")
        tri = np.tril if lower else np.triu
        batch = a.shape[:-2]
        b = np.zeros(x.shape, NP[et])
        res = np.zeros(x.shape, NP[et])
        fn = getattr(blas, LETTER[et] + "trsm")
        for idx in np.ndindex(*batch):
            t = tri(a[idx])
            if unit:
                t = t - np.diag(np.diag(t)) + np.eye(t.shape[0])
            op = {"N": t, "T": t.T, "C": t.conj().T}[trans]
            bi = (op @ x[idx] if left else x[idx] @ op) / alpha
            b[idx] = bi
            r = fn(alpha, a[idx].astype(NP[et]), bi.astype(NP[et]), side=0 if left else 1,
                   lower=int(lower), trans_a={"N": 0, "T": 1, "C": 2}[trans], diag=int(unit))
            assert np.array_equal(r, x[idx]), "not exact"
            res[idx] = r
        an, bn, aln, cc = "a%d" % self.n, "b%d" % self.n, "al%d" % self.n, "x%d" % self.n
        self.lines += [const(an, et, a.astype(NP[et])), const(bn, et, b),
                       "  %s = %s[] constant(%s)" % (aln, et, "(%s, 0)" % alpha if cplx else alpha)]
        attrs = "{diag = %d : ui8, side = %d : ui8, trans_x = %d : ui8, uplo = %d : ui8}" % (
            ord("U" if unit else "N"), ord("L" if left else "R"), ord(trans), ord("L" if lower else "U"))
        self.lines.append('  %s = %s custom-call(%s, %s, %s), custom_call_target="%s_%strsm_ffi", '
                          "operand_layout_constraints={%s, %s, %s[]}, api_version=API_VERSION_TYPED_FFI, "
                          "backend_config=%s" % (cc, shape(et, x.shape), an, bn, aln, target, LETTER[et],
                                                 shape(et, a.shape), shape(et, x.shape), et, attrs))
        self.outs.append((cc, et, list(x.shape)))
        self.exp.append((et, res))

    def call(self, kind, et, a, leaves, values, attrs, info_only=False, target=None):
        an, cc = "a%d" % self.n, "f%d" % self.n
        self.lines.append(const(an, et, a.astype(NP[et])))
        ls = [shape(t, d) if len(d) >= 2 else "%s[%s]" % (t, ",".join(map(str, d))) for d, t in leaves]
        target = target or "lapack_%s%s_ffi" % (LETTER[et], kind)
        self.lines.append('  %s = (%s) custom-call(%s), custom_call_target="%s", '
                          "operand_layout_constraints={%s}, api_version=API_VERSION_TYPED_FFI%s"
                          % (cc, ", ".join(ls), an, target, shape(et, a.shape), attrs))
        for j, ((d, t), v) in enumerate(zip(leaves, values)):
            if info_only and j == 0:
                continue
            g = "g%d_%d" % (self.n, j)
            self.lines.append("  %s = %s get-tuple-element(%s), index=%d" % (g, ls[j], cc, j))
            self.outs.append((g, t, list(d)))
            self.exp.append((t, v))

    def write(self, name):
        write(D, name, module(name, [], self.lines, self.outs), self.exp)


def potrf_cases():
    m = Mod()
    m.potrf("f32", spd(4, False), lower=True)
    m.potrf("f64", spd(3, False), lower=False)
    m.potrf("c64", np.stack([spd(3, True), spd(3, True)]), lower=True)
    m.potrf("c128", spd(3, True), lower=False)
    # not positive definite: info names the first bad leading minor
    m.potrf("f64", np.array([[[4.0, 2, 0], [2, 1, 0], [0, 0, 1]], [[1, 0, 0], [0, -1, 0], [0, 0, 1]]]),
            lower=True, info_only=True)
    m.write("lapack_potrf")


def getrf_cases():
    m = Mod()
    m.getrf("f32", lu_input(4, 4, False))
    m.getrf("f64", lu_input(3, 5, False))
    m.getrf("f64", lu_input(5, 3, False))
    m.getrf("c128", np.stack([lu_input(3, 3, True), lu_input(3, 3, True)]))
    m.getrf("c64", lu_input(2, 3, True))
    # singular: U has a zero pivot in the second column, so info = 2
    m.getrf("f64", np.array([[2.0, 1, 3], [4, 2, 8], [1, 0.5, 2]]))
    m.write("lapack_getrf")


def gpu_getrf_cases():
    """jaxlib's GPU LU targets: the same factorization (FFI form, and the
    older forms with a trailing workspace)."""
    m = Mod()
    m.getrf("f32", lu_input(4, 4, False), target="cusolver_getrf_ffi")
    m.getrf("c128", lu_input(3, 2, True), target="hipsolver_getrf_ffi")
    m.getrf("f64", np.stack([lu_input(3, 3, False), lu_input(3, 3, False)]),
            target="cublas_getrf_batched", workspace=16)
    m.write("gpu_solver_getrf")


def cusolver_cholesky_cases():
    """XLA:GPU's __cusolver$cholesky: (factor, workspace, info), options JSON."""
    lines, outs, exp = [], [], []
    specs = [("f32", spd(3, False)[None], True), ("c128", np.stack([spd(2, True), spd(2, True)]), False),
             ("f64", np.array([[[1.0, 2], [2, 1]]]), True)]
    for n, (et, a, lower) in enumerate(specs):
        fn = getattr(lapack, LETTER[et] + "potrf")
        fac, info = np.zeros(a.shape, NP[et]), np.zeros(a.shape[:1], np.int32)
        for b in range(a.shape[0]):
            fac[b], info[b] = fn(a[b].astype(NP[et]), lower=lower, clean=False)
        an = "a%d" % n
        lines.append(const(an, et, a.astype(NP[et])))
        sh = shape(et, a.shape)
        lines.append('  c%d = (%s, %s[16]{0}, s32[%d]{0}) custom-call(%s), custom_call_target="__cusolver$cholesky", '
                     "operand_layout_constraints={%s}, backend_config={\"lower\":%s}"
                     % (n, sh, et, a.shape[0], an, sh, "true" if lower else "false"))
        for j, (t, v, dims) in enumerate([(et, fac, a.shape), (et, np.zeros(16, NP[et]), (16,)),
                                          ("s32", info, a.shape[:1])]):
            if n == 2 and j == 0:
                continue  # a failed factorization is partly written, as the library leaves it
            g = "g%d_%d" % (n, j)
            lines.append("  %s = %s get-tuple-element(c%d), index=%d"
                         % (g, sh if j == 0 else "%s[%s]" % (t, ",".join(map(str, dims))), n, j))
            outs.append((g, t, list(dims)))
            exp.append((t, v))
    write(D, "cusolver_cholesky", module("cusolver_cholesky", [], lines, outs), exp)


def cublas_triangular_solve_cases():
    """XLA:GPU's __cublas$triangularSolve(a, b) -> (x, s8[N]) with the
    TriangularSolveOptions JSON; dyadic solutions as for trsm."""
    lines, outs, exp = [], [], []
    specs = [("f32", (3, 3), (3, 2), True, True, "NO_TRANSPOSE", False),
             ("f64", (2, 4, 4), (2, 3, 4), False, False, "TRANSPOSE", False),
             ("c64", (3, 3), (3, 3), True, False, "ADJOINT", True)]
    for n, (et, ash, xsh, left, lower, trans, unit) in enumerate(specs):
        cplx = et.startswith("c")
        a, x = tri_input(ash, cplx), dyadic(xsh, cplx)
        b = np.zeros(xsh, np.complex128 if cplx else np.float64)
        for idx in np.ndindex(*ash[:-2]):
            t = (np.tril if lower else np.triu)(a[idx])
            if unit:
                t = t - np.diag(np.diag(t)) + np.eye(t.shape[0])
            op = {"NO_TRANSPOSE": t, "TRANSPOSE": t.T, "ADJOINT": t.conj().T}[trans]
            b[idx] = op @ x[idx] if left else x[idx] @ op
        lines += [const("ta%d" % n, et, a.astype(NP[et])), const("tb%d" % n, et, b.astype(NP[et]))]
        opts = '{"left_side":%s,"lower":%s,"unit_diagonal":%s,"transpose_a":"%s"}' % (
            str(left).lower(), str(lower).lower(), str(unit).lower(), trans)
        xs = "%s[%s]" % (et, ",".join(map(str, xsh)))
        lines.append('  t%d = (%s, s8[0]) custom-call(ta%d, tb%d), custom_call_target="__cublas$triangularSolve", '
                     "backend_config=%s" % (n, xs, n, n, json_escape(opts)))
        lines.append("  x%d = %s get-tuple-element(t%d), index=0" % (n, xs, n))
        outs.append(("x%d" % n, et, list(xsh)))
        exp.append((et, x.astype(NP[et])))
    write(D, "cublas_triangular_solve", module("cublas_triangular_solve", [], lines, outs), exp)


def json_escape(s):
    return '"%s"' % s.replace('"', '\\"')


def tri_input(shape, cplx):
    """Gaussian-integer entries, power-of-two diagonal."""
    a = gint(shape, cplx)
    k = shape[-1]
    for idx in np.ndindex(*shape[:-2]):
        a[idx][range(k), range(k)] = rng.choice([-2.0, 1.0, 2.0, 4.0], k)
    return a


def dyadic(shape, cplx):
    return gint(shape, cplx, -8, 9) / 4


def trsm_cases():
    m = Mod()
    m.trsm("f32", tri_input((3, 3), False), dyadic((3, 2), False), 1, True, True, "N", False)
    m.trsm("f64", tri_input((4, 4), False), dyadic((2, 4), False), 2, False, False, "T", False)
    m.trsm("c64", tri_input((2, 3, 3), True), dyadic((2, 3, 2), True), 0.5, True, False, "C", False)
    m.trsm("c128", tri_input((3, 3), True), dyadic((2, 3), True), 1, False, True, "N", True)
    # the older jaxlib name
    m.trsm("f64", tri_input((3, 3), False), dyadic((3, 3), False), 1, True, False, "N", True,
           target="lapack")
    m.write("blas_trsm")


def error_cases():
    path = os.path.join(ROOT, D)
    cases = {
        "lapack_potrf_no_uplo": ("f32[3,3]{0,1}", "lapack_spotrf_ffi", "(f32[3,3]{0,1}, s32[])", "",
                                 "needs the attribute uplo"),
        "lapack_getrf_row_major": ("f32[3,3]{1,0}", "lapack_sgetrf_ffi", "(f32[3,3]{1,0}, s32[3], s32[])", "",
                                   "the matrices must be laid out column-major"),
        "blas_trsm_missing_attrs": ("f32[3,3]{0,1}, f32[3,3]{0,1}, f32[]", "blas_strsm_ffi", "f32[3,3]{0,1}",
                                    ", backend_config={side = 76 : ui8, uplo = 76 : ui8}",
                                    "needs the attributes side (L/R), uplo (L/U), trans_x (N/T/C) and diag"),
        "lapack_potrf_wrong_type": ("f32[3,3]{0,1}", "lapack_dpotrf_ffi", "(f32[3,3]{0,1}, s32[])",
                                    ", backend_config={uplo = 76 : ui8}", "takes a[..., n, n] of the target's type"),
    }
    for name, (op, target, rt, attrs, msg) in cases.items():
        with open(os.path.join(path, name + ".hlo"), "w") as f:
            ops = "a, a, s" if "trsm" in target else "a"
            f.write("HloModule %s\n\nENTRY main {\n  a = f32[3,3] parameter(0)\n  s = f32[] parameter(1)\n"
                    "  ROOT c = %s custom-call(%s), "
                    'custom_call_target="%s", operand_layout_constraints={%s}, '
                    "api_version=API_VERSION_TYPED_FFI%s\n}\n" % (name, rt, ops, target, op, attrs))
        with open(os.path.join(path, name + ".yaml"), "w") as f:
            f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                    "stderr_contains: \"%s\"\n" % (name, msg))


def main():
    potrf_cases()
    getrf_cases()
    trsm_cases()
    cusolver_cholesky_cases()
    cublas_triangular_solve_cases()
    gpu_getrf_cases()
    error_cases()
