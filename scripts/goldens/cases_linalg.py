"""cholesky, triangular-solve, batch norm (testdata/interp-linalg) and fft
(testdata/interp-fft) goldens.  Exact data where the answer is exact;
otherwise the module scales by 1e4 and rounds (round-nearest-even, then
+0 to drop -0) so the golden does not depend on the last bits."""
import itertools

import numpy as np

from gen import module, write
from hlolit import cast, const, shape_str

rng = np.random.default_rng(31)


class Mod:
    def __init__(self, d):
        self.d, self.lines, self.outs, self.exp, self.n = d, [], [], [], 0

    def name(self, p):
        self.n += 1
        return "%s_%d" % (p, self.n)  # never a type name such as s2

    def out(self, name, et, arr):
        self.outs.append((name, et, list(np.shape(arr))))
        self.exp.append((et, arr))

    def quant(self, src, et, dims, arr):
        """Root output round(src * 1e4) + 0 in f32 / f64 (real et)."""
        s = shape_str(et, dims)
        q = self.name("q")
        self.lines += ["  %s_s = %s[] constant(10000)" % (q, et),
                       "  %s_b = %s broadcast(%s_s), dimensions={}" % (q, s, q),
                       "  %s_m = %s multiply(%s, %s_b)" % (q, s, src, q),
                       "  %s_r = %s round-nearest-even(%s_m)" % (q, s, q),
                       "  %s_z = %s[] constant(0)" % (q, et),
                       "  %s_zb = %s broadcast(%s_z), dimensions={}" % (q, s, q),
                       "  %s = %s add(%s_r, %s_zb)" % (q, s, q, q)]
        t = np.float32 if et == "f32" else np.float64
        self.out(q, et, np.round(np.asarray(arr).astype(t) * t(10000)) + t(0))

    def quant_complex(self, src, et, dims, arr):
        pt = "f32" if et == "c64" else "f64"
        for part, fn in (("real", np.real), ("imag", np.imag)):
            n = self.name(part[0])
            self.lines.append("  %s = %s %s(%s)" % (n, shape_str(pt, dims), part, src))
            self.quant(n, pt, dims, fn(arr))

    def write(self, name):
        write(self.d, name, module(name, [], self.lines, self.outs), self.exp)


def tri_junk(a, lower, unit=False, junk=99):
    """a with the triangle that is not read (and the diagonal when unit)
    overwritten by junk."""
    a = a.copy()
    n = a.shape[-1]
    for i in range(n):
        for j in range(n):
            if (j > i if lower else j < i) or (unit and i == j):
                a[..., i, j] = junk
    return a


def cholesky():
    m = Mod("interp-linalg")
    L = np.array([[[2, 0, 0], [1, 3, 0], [-1, 2, 4]], [[1, 0, 0], [-2, 2, 0], [3, 1, 1]]], np.float64)
    A = L @ np.swapaxes(L, -1, -2)
    for et in ("f32", "f64", "bf16", "f16"):
        for lower in (True, False):
            c = m.name("a")
            m.lines.append(const(c, et, cast(et, tri_junk(A, lower))))
            r = m.name("ch")
            m.lines.append("  %s = %s cholesky(%s), lower=%s" % (r, shape_str(et, A.shape), c, str(lower).lower()))
            m.out(r, et, cast(et, L if lower else np.swapaxes(L, -1, -2)) + 0)  # other triangle +0
    # Hermitian c64: a = L L^H with complex L
    Lc = np.array([[2, 0], [1 + 1j, 3]], np.complex128)
    Ac = Lc @ Lc.conj().T
    for lower in (True, False):
        c = m.name("a")
        m.lines.append(const(c, "c64", tri_junk(Ac, lower, junk=7 - 7j)))
        r = m.name("ch")
        m.lines.append("  %s = c64[2,2] cholesky(%s), lower=%s" % (r, c, str(lower).lower()))
        # upper: XLA factors transpose(a) and transposes back (no conjugation)
        m.out(r, "c64", (Lc if lower else Lc.conj().T).astype(np.complex64) + 0)
    # Not positive definite: XLA's expander returns an all-NaN matrix (per batch element).
    bad = np.array([[[1, 2], [2, 1]], [[4, 2], [2, 5]]], np.float32)
    c = m.name("a")
    m.lines.append(const(c, "f32", bad))
    r = m.name("ch")
    m.lines.append("  %s = f32[2,2,2] cholesky(%s), lower=true" % (r, c))
    m.out(r, "f32", np.array([[[np.nan] * 2] * 2, [[2, 0], [1, 2]]], np.float32))
    # A random SPD matrix (inexact): quantized.
    X = rng.standard_normal((5, 5))
    S = (X @ X.T + 5 * np.eye(5)).astype(np.float32)
    c = m.name("a")
    m.lines.append(const(c, "f32", S))
    r = m.name("ch")
    m.lines.append("  %s = f32[5,5] cholesky(%s), lower=true" % (r, c))
    m.quant(r, "f32", [5, 5], np.linalg.cholesky(S.astype(np.float64)))
    m.write("cholesky_lower_upper_types_nan")


def trsm():
    """All 24 flag combinations, batched; a's unread triangle (and diagonal
    when unit_diagonal) hold junk; b = op(a) x for integer x, so x is exact
    (diagonals are powers of two)."""
    for et in ("f32", "c64"):
        m = Mod("interp-linalg")
        cplx = et == "c64"
        for left, lower, unit, tr in itertools.product((True, False), (True, False), (False, True),
                                                       ("NO_TRANSPOSE", "TRANSPOSE", "ADJOINT")):
            if not cplx and tr == "ADJOINT" and not (left and lower):
                continue  # real ADJOINT == TRANSPOSE: one combination is enough for f32
            a = rng.integers(-3, 4, (2, 3, 3)).astype(np.float64)
            if cplx:
                a = a + 1j * rng.integers(-3, 4, (2, 3, 3))
            for b_ in range(2):
                for i in range(3):
                    a[b_, i, i] = [1, 2, 4, -2][rng.integers(0, 4)]
            T = np.tril(a) if lower else np.triu(a)
            if unit:
                for i in range(3):
                    T[:, i, i] = 1
            opT = T if tr == "NO_TRANSPOSE" else np.swapaxes(T, -1, -2)
            if tr == "ADJOINT":
                opT = opT.conj()
            nz = lambda sh: rng.choice([-5, -4, -3, -2, -1, 1, 2, 3, 4, 5], sh)  # no signed-zero ambiguity
            x = nz((2, 3, 2) if left else (2, 2, 3)).astype(np.float64)
            if cplx:
                x = x + 1j * nz(x.shape)
            b = opT @ x if left else x @ opT
            ca, cb, r = m.name("a"), m.name("b"), m.name("x")
            m.lines += [const(ca, et, cast(et, tri_junk(a, lower, unit, 99 if not cplx else 9 + 9j))),
                        const(cb, et, cast(et, b)),
                        "  %s = %s triangular-solve(%s, %s), left_side=%s, lower=%s, unit_diagonal=%s, transpose_a=%s"
                        % (r, shape_str(et, b.shape), ca, cb, str(left).lower(), str(lower).lower(),
                           str(unit).lower(), tr)]
            m.out(r, et, cast(et, x))
        m.write("triangular_solve_all_flags_%s" % et)


def batch_norm():
    m = Mod("interp-linalg")
    for et, shape, fi in (("f32", (2, 3, 4), 1), ("f32", (5, 3), 0), ("f64", (2, 2, 3), 2)):
        x = rng.standard_normal(shape) * 3 + 1
        C = shape[fi]
        scale, offset = rng.standard_normal(C), rng.standard_normal(C)
        mean_i, var_i = rng.standard_normal(C), rng.random(C) + 0.5
        gy = rng.standard_normal(shape)
        eps = 0.001
        eps_eff = float(np.float32(eps))  # epsilon is an f32 attribute
        t = np.float32 if et == "f32" else np.float64
        x, scale, offset, mean_i, var_i, gy = (v.astype(t) for v in (x, scale, offset, mean_i, var_i, gy))
        X = x.astype(np.float64)
        axes = tuple(d for d in range(len(shape)) if d != fi)
        bshape = [1] * len(shape)
        bshape[fi] = C
        bc = lambda v: v.astype(np.float64).reshape(bshape)
        mean = X.mean(axes)
        var = X.var(axes)
        norm = (X - bc(mean)) / np.sqrt(bc(var) + eps_eff) * bc(scale) + bc(offset)
        inf = (X - bc(mean_i)) / np.sqrt(bc(var_i) + eps_eff) * bc(scale) + bc(offset)
        # gradients per the seed's formulas
        n = X.size / C
        rs = 1 / np.sqrt(bc(var_i) + eps_eff)
        sgx = (gy.astype(np.float64) * (X - bc(mean_i))).sum(axes)
        sg = gy.astype(np.float64).sum(axes)
        gx = bc(scale) * rs * (gy - sg.reshape(bshape) / n - (X - bc(mean_i)) * sgx.reshape(bshape) / (n * (bc(var_i) + eps_eff)))
        gscale = sgx / np.sqrt(var_i.astype(np.float64) + eps_eff)
        names = {}
        for k, v in (("x", x), ("s", scale), ("o", offset), ("m", mean_i), ("v", var_i), ("g", gy)):
            names[k] = m.name(k)
            m.lines.append(const(names[k], et, v))
        xs, cs = shape_str(et, shape), shape_str(et, [C])
        bt, bi, bg = m.name("bt"), m.name("bi"), m.name("bg")
        attrs = "epsilon=%r, feature_index=%d" % (eps, fi)
        m.lines += ["  %s = (%s, %s, %s) batch-norm-training(%s, %s, %s), %s" % (bt, xs, cs, cs, names["x"], names["s"], names["o"], attrs),
                    "  %s = %s batch-norm-inference(%s, %s, %s, %s, %s), %s" % (bi, xs, names["x"], names["s"], names["o"], names["m"], names["v"], attrs),
                    "  %s = (%s, %s, %s) batch-norm-grad(%s, %s, %s, %s, %s), %s" % (bg, xs, cs, cs, names["x"], names["s"], names["m"], names["v"], names["g"], attrs)]
        for tup, vals in ((bt, (norm, mean, var)), (bg, (gx, gscale, sg))):
            for i, v in enumerate(vals):
                g = m.name("e")
                s = xs if i == 0 else cs
                m.lines.append("  %s = %s get-tuple-element(%s), index=%d" % (g, s, tup, i))
                m.quant(g, et, list(np.shape(v)), v)
            if tup == bt:
                m.quant(bi, et, list(shape), inf)
    m.write("batch_norm_training_inference_grad")


def fft():
    m = Mod("interp-fft")
    # exact: small power-of-two transforms of integers
    x = np.array([1, 2, 3, 4], np.complex64)
    c = m.name("x")
    m.lines.append(const(c, "c64", x))
    for t, fn in (("FFT", np.fft.fft), ("IFFT", np.fft.ifft)):
        r = m.name("f")
        m.lines.append("  %s = c64[4] fft(%s), fft_type=%s, fft_length={4}" % (r, c, t))
        m.out(r, "c64", fn(x.astype(np.complex128)).astype(np.complex64))
    xr = np.array([[1, 2, 3, 4], [0, 1, 0, -1]], np.float32)
    c = m.name("x")
    m.lines += [const(c, "f32", xr)]
    r = m.name("f")
    m.lines.append("  %s = c64[2,3] fft(%s), fft_type=RFFT, fft_length={4}" % (r, c))
    m.out(r, "c64", np.fft.rfft(xr.astype(np.float64)).astype(np.complex64))
    # inexact: any lengths (Bluestein), 1-3 dims, RFFT/IRFFT, c128 -- quantized
    cases = [("FFT", (3, 5), [5]), ("IFFT", (2, 6), [6]), ("FFT", (2, 3, 4), [3, 4]),
             ("IFFT", (2, 3, 5, 4), [3, 5, 4]), ("RFFT", (2, 7), [7]), ("RFFT", (3, 6), [3, 6]),
             ("IRFFT", (2, 5), [8]), ("IRFFT", (3, 4), [3, 7]), ("FFT", (1, 8), [8])]
    for i, (t, shape, ln) in enumerate(cases):
        real_in = t == "RFFT"
        et = "c128" if i == len(cases) - 1 else "c64"
        if real_in:
            v = rng.standard_normal(shape).astype(np.float32)
            ie = "f32"
        else:
            v = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape))
            v = v.astype(np.complex128 if et == "c128" else np.complex64)
            ie = et
        axes = tuple(range(len(shape) - len(ln), len(shape)))
        V = v.astype(np.complex128) if not real_in else v.astype(np.float64)
        if t == "FFT":
            out = np.fft.fftn(V, axes=axes)
        elif t == "IFFT":
            out = np.fft.ifftn(V, axes=axes)
        elif t == "RFFT":
            out = np.fft.rfftn(V, s=ln, axes=axes)
        else:
            out = np.fft.irfftn(V, s=ln, axes=axes)
        c = m.name("x")
        m.lines.append(const(c, ie, v))
        oe = "f32" if t == "IRFFT" else et
        r = m.name("f")
        m.lines.append("  %s = %s fft(%s), fft_type=%s, fft_length={%s}" % (r, shape_str(oe, out.shape), c, t, ",".join(map(str, ln))))
        if oe in ("c64", "c128"):
            m.quant_complex(r, oe, list(out.shape), out)
        else:
            m.quant(r, oe, list(out.shape), out)
    m.write("fft_types_lengths_dims")


def main():
    cholesky()
    trsm()
    batch_norm()
    fft()
