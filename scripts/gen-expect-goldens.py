#!/usr/bin/python3
"""Writes the golden cases of `hlorun --expect` into testdata/expect/.

Run with a python that has numpy (e.g. /usr/bin/python3).  For each case it
writes the module, its inputs, a reference computed here with numpy from the
same inputs (or a deliberately perturbed copy of it), the manifest and the
exact stderr expected.  The expected report lines are derived here, from the
reference and the known perturbation, with the rules of docs/cli.md
("Comparing with a reference") implemented again in Python: isclose's rule,
NaN/infinity rules, units in the last place from the bit patterns, and the
values printed as XLA literals print them (f32: %.6g, else %.9g; bf16: %.4g).
The modules are chosen so that hlorun's result is exact (small integers,
quarters), so numpy's result is hlorun's bit for bit and every statistic is
known; one case (tanh) is not exact and checks only the verdict.
"""
import io
import json
import os
import zipfile

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "expect")
os.makedirs(OUT, exist_ok=True)


def path(name):
    return os.path.join(OUT, name)


def write(name, text):
    with open(path(name), "w") as f:
        f.write(text)


def save(name, arr):
    np.save(path(name), arr)


def savez(name, **entries):
    """numpy.savez's layout (uncompressed "<entry>.npy" members), with a fixed
    member date so that running the script again writes the same bytes."""
    with zipfile.ZipFile(path(name), "w", zipfile.ZIP_STORED) as z:
        for key, arr in entries.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asanyarray(arr), allow_pickle=False)
            z.writestr(zipfile.ZipInfo(key + ".npy", date_time=(1980, 1, 1, 0, 0, 0)),
                       buf.getvalue())


def case(name, description, args, exit=0, lines=None, contains=None, stdout_contains=None,
         stdout_empty=False):
    """A manifest; `lines` is the whole expected stderr (written to NAME.err)."""
    y = ["description: " + json.dumps(description), "command: hlorun",
         "args: [" + ", ".join("'%s'" % a for a in args) + "]"]
    if exit:
        y.append("exit: %d" % exit)
    if lines is not None:
        write(name + ".err", "".join(line + "\n" for line in lines))
        y.append("stderr: %s.err" % name)
    if contains is not None:
        y.append("stderr_contains: \"%s\"" % contains)
    if stdout_contains is not None:
        y.append("stdout_contains: \"%s\"" % stdout_contains)
    if stdout_empty:
        write("empty.txt", "")
        y.append("stdout: empty.txt")
    write(name + ".yaml", "\n".join(y) + "\n")


# ---- the rules, restated ----

def bf16_bits(a):
    """float32 values -> bf16 bits, rounding to nearest even."""
    u = np.asarray(a, dtype=np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_values(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


class Typed:
    """An array of a declared type: float64 values, the bit patterns, the
    sign bit of the encoding, and how one value prints."""

    def __init__(self, etype, values):
        self.etype = etype
        if etype == "f32":
            v = np.asarray(values, dtype=np.float32)
            self.bits, self.sign = v.view(np.uint32).astype(np.uint64), 1 << 31
        elif etype == "bf16":
            self.bits = np.asarray(values, dtype=np.uint16).astype(np.uint64)  # given as bits
            v = bf16_values(values)
            self.sign = 1 << 15
        elif etype == "f8e4m3fn":
            self.bits = np.asarray(values, dtype=np.uint8).astype(np.uint64)  # given as bits
            v = np.vectorize(e4m3fn_value)(np.asarray(values, dtype=np.uint8))
            self.sign = 0x80
        elif etype == "c64":
            v = np.asarray(values, dtype=np.complex64)
            self.bits = None
        else:  # integers and pred
            v = np.asarray(values)
            self.bits = None
        self.values = v
        self.dims = v.shape

    def kind(self):
        return "float" if self.etype in ("f32", "bf16", "f8e4m3fn") else "complex" if self.etype == "c64" else "int"

    def fmt(self, idx):
        v = self.values[idx]
        if self.etype == "pred":
            return "true" if v else "false"
        if self.etype == "bf16":
            return fmt_float(float(v), "%.4g", lambda s: True)
        if self.etype == "f8e4m3fn":
            return fmt_float(float(v), "%.3g", None)
        if self.etype == "f32":
            return fmt_f32(v)
        if self.etype == "c64":
            return "(%s, %s)" % (fmt_f32(np.float32(v.real)), fmt_f32(np.float32(v.imag)))
        return str(int(v))

    def typestr(self):
        return "%s[%s]" % (self.etype, ",".join(str(d) for d in self.dims))


def e4m3fn_value(b):
    """f8e4m3fn: 1 sign, 4 exponent (bias 7), 3 mantissa bits; no inf;
    S.1111.111 is NaN."""
    b = int(b)
    sign = -1.0 if b & 0x80 else 1.0
    e, m = (b >> 3) & 0xF, b & 7
    if e == 0xF and m == 7:
        return np.nan
    if e == 0:
        return sign * m * 2.0 ** -9  # subnormal: m/8 * 2^(1-7)
    return sign * (1 + m / 8.0) * 2.0 ** (e - 7)


def fmt_float(v, spec, roundtrips):
    if np.isnan(v):
        return "-nan" if np.signbit(v) else "nan"
    if np.isinf(v):
        return "-inf" if v < 0 else "inf"
    return spec % v


def fmt_f32(v):
    v = np.float32(v)
    if np.isnan(v) or np.isinf(v):
        return fmt_float(float(v), "", None)
    s = "%.6g" % float(v)
    if np.float32(float(s)) != v:
        s = "%.9g" % float(v)
    return s


def ulp(sign, a, b):
    """Steps between two sign-magnitude encodings (+0 and -0 the same)."""
    a, b = int(a), int(b)
    ma, mb = a & ~sign, b & ~sign
    if (a & sign) == (b & sign):
        return abs(ma - mb)
    return ma + mb


def element_ok(g, w, rtol, atol, kind):
    if kind == "int":
        return int(g) == int(w)
    if kind == "complex":
        parts = [(g.real, w.real), (g.imag, w.imag)]
        if all(np.isfinite(p) for pair in parts for p in pair):
            return abs(complex(g) - complex(w)) <= atol + rtol * abs(complex(w))
        return all(element_ok(x, y, 0, 0, "float") for x, y in parts)
    g, w = float(g), float(w)
    if np.isnan(g) or np.isnan(w):
        return np.isnan(g) and np.isnan(w)
    if np.isinf(g) or np.isinf(w):
        return g == w
    return abs(g - w) <= atol + rtol * abs(w)


def report(name, got, want, rtol, atol):
    """The line hlorun prints for one output (same type and shape)."""
    kind = got.kind()
    max_abs = max_rel = 0.0
    max_ulp = 0
    mism, first = 0, None
    for idx in np.ndindex(*got.dims):
        g, w = got.values[idx], want.values[idx]
        if kind == "complex":
            finite = all(np.isfinite([g.real, g.imag, w.real, w.imag]))
            d, m = abs(complex(g) - complex(w)), abs(complex(w))
        elif kind == "float":
            finite = np.isfinite(g) and np.isfinite(w)
            d, m = abs(float(g) - float(w)), abs(float(w))
        else:
            finite = True
            d, m = abs(int(g) - int(w)), abs(int(w))
        if finite:
            max_abs = max(max_abs, d)
            if m != 0:
                max_rel = max(max_rel, d / m)
            if kind == "float":
                max_ulp = max(max_ulp, ulp(got.sign, got.bits[idx], want.bits[idx]))
            elif kind == "complex":
                for part in ("real", "imag"):
                    gb = np.float32(getattr(g, part)).view(np.uint32)
                    wb = np.float32(getattr(w, part)).view(np.uint32)
                    max_ulp = max(max_ulp, ulp(1 << 31, gb, wb))
        if not element_ok(g, w, rtol, atol, kind):
            mism += 1
            if first is None:
                first = idx
    total = int(np.prod(got.dims, dtype=np.int64))
    s = "%s: %s  %s  max abs %.3g" % (name, "MISMATCH" if mism else "ok", got.typestr(), max_abs)
    if kind != "int":
        s += "  max rel %.3g  max ulp %d" % (max_rel, max_ulp)
    s += "  mismatches %d/%d" % (mism, total)
    if first is not None:
        s += ", first at [%s]: got %s want %s" % (",".join(str(i) for i in first), got.fmt(first),
                                                  want.fmt(first))
    return s


F32_TOL = (1e-5, 1e-8)      # numpy.isclose's defaults
BF16_TOL = (2.0 ** -6, 1e-8)  # two bf16 steps, relative, at the bottom of a binade
EXACT = (0.0, 0.0)

# ---- f32 affine: x @ w + b, every value a multiple of 1/4 (exact) ----
write("affine.hlo", """HloModule affine

ENTRY main {
  x = f32[4,4] parameter(0)
  w = f32[4,4] parameter(1)
  b = f32[4,4] parameter(2)
  d = f32[4,4] dot(x, w), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT y = f32[4,4] add(d, b)
}
""")
x = ((np.arange(16) - 5) / 4.0).reshape(4, 4).astype(np.float32)
w = np.array([[1, -2, 0, 3], [2, 1, -1, 0], [0, 3, 1, -2], [-1, 0, 2, 1]], dtype=np.float32)
b = (np.arange(16).reshape(4, 4) / 2.0).astype(np.float32)
xw = x.astype(np.float64) @ w.astype(np.float64)
b[2, 1] = -xw[2, 1]                    # one zero in the result, for the atol case
affine = (xw + b).astype(np.float32)   # exact: quarters of small integers
assert affine[2, 1] == 0 and affine[1, 1] != 0
save("affine_x.npy", x)
save("affine_w.npy", w)
save("affine_b.npy", b)
INPUTS = ["--inputs", "affine_x.npy,affine_w.npy,affine_b.npy"]
got = Typed("f32", affine)

save("affine_ref.npy", affine)
case("pass_f32", "a result equal to numpy's passes; --quiet still compares", [
    "affine.hlo"] + INPUTS + ["--quiet", "--expect", "affine_ref.npy"],
     lines=[report("out0", got, got, *F32_TOL)])
savez("affine_ref.npz", out0=affine)
case("pass_f32_npz_prints_result", "--expect does not suppress the printed result; npz entry out0",
     ["affine.hlo"] + INPUTS + ["--expect", "affine_ref.npz"],
     lines=[report("out0", got, got, *F32_TOL)], stdout_contains="f32[4,4] {")

bad = affine.copy()
bad[0, 2] += 0.25
bad[1, 3] *= 1.5
bad[3, 0] = -bad[3, 0]
assert bad[3, 0] != affine[3, 0]
save("affine_perturbed.npy", bad)
case("mismatch_f32", "three perturbed elements: exit 4, first at [0,2]",
     ["affine.hlo"] + INPUTS + ["-q", "--expect", "affine_perturbed.npy"], exit=4,
     lines=[report("out0", got, Typed("f32", bad), *F32_TOL)])

rel = affine.copy()
rel[1, 1] = np.float32(affine[1, 1] * (1 + 1e-4))  # 1e-4 relative: over 1e-5, under 1e-3
save("affine_rel_1e-4.npy", rel)
case("rtol_default_fails", "a relative error of 1e-4 fails the default rtol 1e-5",
     ["affine.hlo"] + INPUTS + ["-q", "--expect", "affine_rel_1e-4.npy"], exit=4,
     lines=[report("out0", got, Typed("f32", rel), *F32_TOL)])
case("rtol_flag_passes", "--rtol 1e-3 accepts it",
     ["affine.hlo"] + INPUTS + ["-q", "--expect", "affine_rel_1e-4.npy", "--rtol", "1e-3"],
     lines=[report("out0", got, Typed("f32", rel), 1e-3, F32_TOL[1])])

near0 = affine.copy()
near0[2, 1] = np.float32(1e-6)  # the result is 0 there: only atol can accept it
save("affine_near_zero.npy", near0)
case("atol_default_fails", "1e-6 against a zero result fails the default atol 1e-8",
     ["affine.hlo"] + INPUTS + ["-q", "--expect", "affine_near_zero.npy"], exit=4,
     lines=[report("out0", got, Typed("f32", near0), *F32_TOL)])
case("atol_flag_passes", "--atol=1e-5 accepts it",
     ["affine.hlo"] + INPUTS + ["-q", "--expect=affine_near_zero.npy", "--atol=1e-5"],
     lines=[report("out0", got, Typed("f32", near0), F32_TOL[0], 1e-5)])

save("affine_4x5.npy", np.zeros((4, 5), dtype=np.float32))
case("shape_mismatch", "a reference of another shape is a mismatch",
     ["affine.hlo"] + INPUTS + ["-q", "--expect", "affine_4x5.npy"], exit=4,
     lines=["out0: MISMATCH  f32[4,4]  shape differs: the reference holds float32[4,5]"])
save("affine_f64.npy", affine.astype(np.float64))
case("dtype_mismatch", "float64 does not stand for f32 (no silent narrowing)",
     ["affine.hlo"] + INPUTS + ["-q", "--expect", "affine_f64.npy"], exit=4,
     lines=["out0: MISMATCH  f32[4,4]  dtype differs: expects f32 (numpy '<f4'), the file holds "
            "float64[4,4]"])
case("missing_file", "a missing reference fails with exit 1 before the run (nothing printed)",
     ["affine.hlo"] + INPUTS + ["--expect", "no_such_reference.npy"], exit=1,
     lines=["hlorun: error: --expect: no_such_reference.npy: cannot open: No such file or directory"],
     stdout_empty=True)
write("not_a_reference.npy", "this is not a .npy file\n")
case("bad_file", "a malformed reference fails with exit 1 before the run",
     ["affine.hlo"] + INPUTS + ["--expect", "not_a_reference.npy"], exit=1,
     contains="hlorun: error: --expect: not_a_reference.npy", stdout_empty=True)
case("usage_not_npy", "--expect needs a .npy or .npz name",
     ["affine.hlo"] + INPUTS + ["--expect", "affine.txt"], exit=2,
     lines=["hlorun: error: --expect must name a .npy or .npz file, got 'affine.txt'",
            "Try 'hlorun --help' for more information."])
case("usage_bad_rtol", "--rtol takes a number >= 0",
     ["affine.hlo"] + INPUTS + ["--expect", "affine_ref.npy", "--rtol", "-1"], exit=2,
     lines=["hlorun: error: --rtol needs a number >= 0, got '-1'",
            "Try 'hlorun --help' for more information."])
case("usage_atol_without_expect", "--atol without --expect is a usage error",
     ["affine.hlo"] + INPUTS + ["--atol", "1"], exit=2, stdout_empty=True,
     lines=["hlorun: error: --rtol and --atol apply to --expect, which is not given",
            "Try 'hlorun --help' for more information."])

# ---- tanh: not exact, numpy in float64 rounded to f32; only the verdict ----
write("tanh.hlo", """HloModule tanh

ENTRY main {
  x = f32[8] parameter(0)
  ROOT y = f32[8] tanh(x)
}
""")
tx = np.linspace(-3, 3, 8).astype(np.float32)
save("tanh_x.npy", tx)
save("tanh_ref.npy", np.tanh(tx.astype(np.float64)).astype(np.float32))
case("pass_f32_tanh", "tanh within the default tolerance of numpy's",
     ["tanh.hlo", "--inputs", "tanh_x.npy", "-q", "--expect", "tanh_ref.npy"],
     contains="out0: ok  f32[8]  max abs ")

# ---- NaN and infinities: x * 2 with x = [nan, inf, -inf, 1.5] ----
write("nonfinite.hlo", """HloModule nonfinite

ENTRY main {
  x = f32[4] parameter(0)
  two = f32[] constant(2)
  t = f32[4] broadcast(two), dimensions={}
  ROOT y = f32[4] multiply(x, t)
}
""")
save("nonfinite_x.npy", np.array([np.nan, np.inf, -np.inf, 1.5], dtype=np.float32))
nf = np.array([np.nan, np.inf, -np.inf, 3.0], dtype=np.float32)
got_nf = Typed("f32", nf)
NF_IN = ["nonfinite.hlo", "--inputs", "nonfinite_x.npy", "-q", "--expect"]
# a NaN of the other sign with a payload still matches
other_nan = np.array([0xFFC00123], dtype=np.uint32).view(np.float32)[0]
ref = nf.copy()
ref[0] = other_nan
save("nonfinite_ref.npy", ref)
case("nan_inf_pass", "NaN matches NaN of any sign and payload; inf inf, -inf -inf",
     NF_IN + ["nonfinite_ref.npy"], lines=[report("out0", got_nf, Typed("f32", ref), *F32_TOL)])
ref = nf.copy()
ref[1] = -np.inf
save("nonfinite_inf_vs_neg_inf.npy", ref)
case("inf_vs_neg_inf", "inf against -inf fails",
     NF_IN + ["nonfinite_inf_vs_neg_inf.npy"], exit=4,
     lines=[report("out0", got_nf, Typed("f32", ref), *F32_TOL)])
ref = nf.copy()
ref[1] = np.finfo(np.float32).max
save("nonfinite_inf_vs_max.npy", ref)
case("inf_vs_big_finite", "inf against the largest f32 fails, whatever the tolerance",
     NF_IN + ["nonfinite_inf_vs_max.npy", "--rtol", "1e30", "--atol", "1e30"], exit=4,
     lines=[report("out0", got_nf, Typed("f32", ref), 1e30, 1e30)])
ref = nf.copy()
ref[3] = np.nan
save("nonfinite_number_vs_nan.npy", ref)
case("number_vs_nan", "a number against NaN fails",
     NF_IN + ["nonfinite_number_vs_nan.npy"], exit=4,
     lines=[report("out0", got_nf, Typed("f32", ref), *F32_TOL)])

# ---- integers: x * 3 - 7, exact whatever --rtol/--atol say ----
write("ints.hlo", """HloModule ints

ENTRY main {
  x = s32[2,3] parameter(0)
  three = s32[] constant(3)
  seven = s32[] constant(7)
  t = s32[2,3] broadcast(three), dimensions={}
  s = s32[2,3] broadcast(seven), dimensions={}
  m = s32[2,3] multiply(x, t)
  ROOT y = s32[2,3] subtract(m, s)
}
""")
ix = np.arange(6, dtype=np.int32).reshape(2, 3)
save("ints_x.npy", ix)
iy = ix * 3 - 7
save("ints_ref.npy", iy)
case("ints_pass", "integers equal", ["ints.hlo", "--inputs", "ints_x.npy", "-q", "--expect",
                                     "ints_ref.npy"],
     lines=[report("out0", Typed("s32", iy), Typed("s32", iy), *EXACT)])
ibad = iy.copy()
ibad[1, 0] += 1
save("ints_off_by_one.npy", ibad)
case("ints_exact", "integers compare exactly: --rtol/--atol do not apply",
     ["ints.hlo", "--inputs", "ints_x.npy", "-q", "--expect", "ints_off_by_one.npy",
      "--rtol", "1", "--atol", "100"], exit=4,
     lines=[report("out0", Typed("s32", iy), Typed("s32", ibad), *EXACT)])

# ---- a tuple result against npz entries out0..out2 ----
write("tuple.hlo", """HloModule tuple

ENTRY main {
  x = f32[2,2] parameter(0)
  n = s32[3] parameter(1)
  sq = f32[2,2] multiply(x, x)
  one = s32[] constant(1)
  ones = s32[3] broadcast(one), dimensions={}
  inc = s32[3] add(n, ones)
  zero = s32[] constant(0)
  zeros = s32[3] broadcast(zero), dimensions={}
  pos = pred[3] compare(n, zeros), direction=GT
  ROOT t = (f32[2,2], s32[3], pred[3]) tuple(sq, inc, pos)
}
""")
tx2 = np.array([[0.5, -1.5], [2.0, 3.25]], dtype=np.float32)
tn = np.array([-1, 0, 2], dtype=np.int32)
save("tuple_x.npy", tx2)
save("tuple_n.npy", tn)
t0, t1, t2 = tx2 * tx2, tn + 1, tn > 0
T_IN = ["tuple.hlo", "--inputs", "tuple_x.npy,tuple_n.npy", "-q", "--expect"]
g0, g1, g2 = Typed("f32", t0), Typed("s32", t1), Typed("pred", t2)
ok_lines = [report("out0", g0, g0, *F32_TOL), report("out1", g1, g1, *EXACT),
            report("out2", g2, g2, *EXACT)]
savez("tuple_ref.npz", out0=t0, out1=t1, out2=t2)
case("tuple_pass", "a tuple result against npz entries out0, out1, out2", T_IN + ["tuple_ref.npz"],
     lines=ok_lines)
p2 = t2.copy()
p2[0] = True
savez("tuple_pred_differs.npz", out0=t0, out1=t1, out2=p2)
case("tuple_pred_mismatch", "pred compares exactly", T_IN + ["tuple_pred_differs.npz"], exit=4,
     lines=ok_lines[:2] + [report("out2", g2, Typed("pred", p2), *EXACT)])
savez("tuple_no_out2.npz", out0=t0, out1=t1)
case("tuple_missing_entry", "an output without its entry is a mismatch",
     T_IN + ["tuple_no_out2.npz"], exit=4,
     lines=ok_lines[:2] + ["out2: MISMATCH  pred[3]  missing: tuple_no_out2.npz has no entry out2"])
savez("tuple_extra.npz", out0=t0, out1=t1, out2=t2, out3=t1)
case("tuple_extra_entry", "an entry without its output is a mismatch",
     T_IN + ["tuple_extra.npz"], exit=4,
     lines=ok_lines + ["out3: MISMATCH  extra: tuple_extra.npz has entry out3, the result has no "
                       "output of that name"])
save("tuple_out0.npy", t0)
case("tuple_vs_npy", "a .npy reference stands for out0 only",
     T_IN + ["tuple_out0.npy"], exit=4,
     lines=ok_lines[:1] + [
         "out1: MISMATCH  s32[3]  missing: tuple_out0.npy has no entry out1 (a .npy holds one "
         "array, out0; give a .npz)",
         "out2: MISMATCH  pred[3]  missing: tuple_out0.npy has no entry out2 (a .npy holds one "
         "array, out0; give a .npz)"])

# ---- rank 0 and an empty array ----
write("edge.hlo", """HloModule edge

ENTRY main {
  s = f32[] parameter(0)
  e = f32[0,3] parameter(1)
  ns = f32[] negate(s)
  ne = f32[0,3] negate(e)
  ROOT t = (f32[], f32[0,3]) tuple(ns, ne)
}
""")
save("edge_s.npy", np.array(1.25, dtype=np.float32))
save("edge_e.npy", np.zeros((0, 3), dtype=np.float32))
es = np.array(-1.25, dtype=np.float32)
ee = np.zeros((0, 3), dtype=np.float32)
savez("edge_scalar_differs.npz", out0=np.array(-1.5, dtype=np.float32), out1=ee)
case("scalar_and_empty", "a scalar mismatch is 'first at []'; an empty array is 0/0",
     ["edge.hlo", "--inputs", "edge_s.npy,edge_e.npy", "-q", "--expect", "edge_scalar_differs.npz"],
     exit=4, lines=[report("out0", Typed("f32", es), Typed("f32", np.array(-1.5, np.float32)),
                           *F32_TOL),
                    report("out1", Typed("f32", ee), Typed("f32", ee), *F32_TOL)])

# ---- complex: x * x ----
write("complex.hlo", """HloModule complex

ENTRY main {
  x = c64[2] parameter(0)
  ROOT y = c64[2] multiply(x, x)
}
""")
cx = np.array([1 + 2j, 0.5 - 1j], dtype=np.complex64)
save("complex_x.npy", cx)
cy = cx * cx  # (-3, 4), (-0.75, -1): exact
cbad = cy.copy()
cbad[1] = -0.75 - 0.5j
save("complex_imag_differs.npy", cbad)
case("complex_mismatch", "complex values compare as complex numbers (imaginary part off)",
     ["complex.hlo", "--inputs", "complex_x.npy", "-q", "--expect", "complex_imag_differs.npy"],
     exit=4, lines=[report("out0", Typed("c64", cy), Typed("c64", cbad), *F32_TOL)])

# ---- several devices: r{R}_out0 ----
write("allreduce.hlo", """HloModule allreduce, replica_count=2

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

// replica r sends x * (r + 1); the sum over both is 3x; each adds r.
ENTRY main {
  x = f32[4] parameter(0)
  id = u32[] replica-id()
  r = f32[] convert(id)
  one = f32[] constant(1)
  k = f32[] add(r, one)
  kb = f32[4] broadcast(k), dimensions={}
  scaled = f32[4] multiply(x, kb)
  sum = f32[4] all-reduce(scaled), replica_groups={{0,1}}, to_apply=add
  rb = f32[4] broadcast(r), dimensions={}
  ROOT y = f32[4] add(sum, rb)
}
""")
ax = np.array([1, -2, 0.5, 4], dtype=np.float32)
save("allreduce_x.npy", ax)
r0, r1 = 3 * ax, 3 * ax + 1
A_IN = ["allreduce.hlo", "--inputs", "allreduce_x.npy", "-q", "--expect"]
savez("allreduce_ref.npz", r0_out0=r0, r1_out0=r1)
case("multi_device_pass", "two replicas against entries r0_out0 and r1_out0",
     A_IN + ["allreduce_ref.npz"],
     lines=[report("r0_out0", Typed("f32", r0), Typed("f32", r0), *F32_TOL),
            report("r1_out0", Typed("f32", r1), Typed("f32", r1), *F32_TOL)])
savez("allreduce_same.npz", r0_out0=r0, r1_out0=r0)
case("multi_device_mismatch", "replica 1's result differs from the reference (3x, not 3x + 1)",
     A_IN + ["allreduce_same.npz"], exit=4,
     lines=[report("r0_out0", Typed("f32", r0), Typed("f32", r0), *F32_TOL),
            report("r1_out0", Typed("f32", r1), Typed("f32", r0), *F32_TOL)])
savez("allreduce_single_names.npz", out0=r0)
case("multi_device_entry_names", "a single-device reference (out0) for two devices",
     A_IN + ["allreduce_single_names.npz"], exit=4,
     lines=["r0_out0: MISMATCH  f32[4]  missing: allreduce_single_names.npz has no entry r0_out0",
            "r1_out0: MISMATCH  f32[4]  missing: allreduce_single_names.npz has no entry r1_out0",
            "out0: MISMATCH  extra: allreduce_single_names.npz has entry out0, the result has no "
            "output of that name"])
save("allreduce_r0.npy", r0)
case("multi_device_npy", "a .npy reference for two devices is a usage error, before the run",
     A_IN + ["allreduce_r0.npy"], exit=2, stdout_empty=True,
     lines=["hlorun: error: --expect allreduce_r0.npy: the run has 2 devices, each with its own "
            "result; give the reference as .npz (entries r{R}_out{i})",
            "Try 'hlorun --help' for more information."])

# ---- bf16: compared in bf16 ----
write("bf16.hlo", """HloModule bf16_product

ENTRY main {
  x = bf16[4] parameter(0)
  y = bf16[4] parameter(1)
  ROOT p = bf16[4] multiply(x, y)
}
""")
# bf16-exact inputs (float32 files, as for any bf16 parameter); the products
# have up to 16 significant bits, so they are exact in float32 and round
# once to bf16.
bx = np.array([1 + 2 ** -7, 3, 1.5, -2.5], dtype=np.float32)
by = np.array([1 + 2 ** -7, 1 + 2 ** -7, 1.3359375, 0.1015625], dtype=np.float32)
assert (bf16_values(bf16_bits(bx)) == bx).all() and (bf16_values(bf16_bits(by)) == by).all()
save("bf16_x.npy", bx)
save("bf16_y.npy", by)
exact = bx.astype(np.float64) * by.astype(np.float64)
assert (exact.astype(np.float32).astype(np.float64) == exact).all()
bits = bf16_bits(exact.astype(np.float32))
assert (bf16_values(bits) != exact.astype(np.float32)).any()  # some products do round
B_IN = ["bf16.hlo", "--inputs", "bf16_x.npy,bf16_y.npy", "-q", "--expect"]
gb = Typed("bf16", bits)
save("bf16_ref_raw.npy", bits.view("V2"))  # as --output-raw writes bf16
case("bf16_pass_raw", "bf16 against raw '<V2' bits (hlorun --output-raw's form)",
     B_IN + ["bf16_ref_raw.npy"], lines=[report("out0", gb, gb, *BF16_TOL)])
save("bf16_ref_f32_unrounded.npy", exact.astype(np.float32))
case("bf16_pass_f32_unrounded", "a float32 reference is rounded to bf16 first: exact match",
     B_IN + ["bf16_ref_f32_unrounded.npy", "--rtol", "0", "--atol", "0"],
     lines=[report("out0", gb, gb, *EXACT)])
step = bits.copy()
step[0] += 1  # one bf16 step up
save("bf16_one_step.npy", step.view("V2"))
case("bf16_one_step_default", "one bf16 step is within the default bf16 tolerance (max ulp 1)",
     B_IN + ["bf16_one_step.npy"], lines=[report("out0", gb, Typed("bf16", step), *BF16_TOL)])
case("bf16_one_step_exact", "... and a mismatch with --rtol 0 --atol 0",
     B_IN + ["bf16_one_step.npy", "--rtol", "0", "--atol", "0"], exit=4,
     lines=[report("out0", gb, Typed("bf16", step), *EXACT)])

# ---- f8e4m3fn: compared in f8 ----
write("f8.hlo", """HloModule f8_negate

ENTRY main {
  x = f8e4m3fn[4] parameter(0)
  ROOT y = f8e4m3fn[4] negate(x)
}
""")
# 1 = 0x38, 0.5 = 0x30, -2 = 0xc0, 448 = 0x7e (the largest); negate flips bit 7
f8x = np.array([1, 0.5, -2, 448], dtype=np.float32)
f8y_bits = np.array([0xB8, 0xB0, 0x40, 0xFE], dtype=np.uint8)
assert [e4m3fn_value(b) for b in f8y_bits] == list(-f8x)
save("f8_x.npy", f8x)  # float32 for an f8 parameter, as docs/cli.md allows
save("f8_ref_f32.npy", -f8x)
gf8 = Typed("f8e4m3fn", f8y_bits)
F8_TOL = (0.25, 2.0 ** -9)
case("f8_pass_f32", "f8e4m3fn against a float32 reference",
     ["f8.hlo", "--inputs", "f8_x.npy", "-q", "--expect", "f8_ref_f32.npy"],
     lines=[report("out0", gf8, gf8, *F8_TOL)])
f8step = f8y_bits.copy()
f8step[3] = 0xFD  # -416: one f8 step from -448
save("f8_one_step_raw.npy", f8step)  # raw bits, one uint8 each
case("f8_one_step_default", "one f8 step (raw uint8 bits) is within the default f8 tolerance",
     ["f8.hlo", "--inputs", "f8_x.npy", "-q", "--expect", "f8_one_step_raw.npy"],
     lines=[report("out0", gf8, Typed("f8e4m3fn", f8step), *F8_TOL)])
case("f8_one_step_exact", "... and a mismatch with --rtol 0",
     ["f8.hlo", "--inputs", "f8_x.npy", "-q", "--expect", "f8_one_step_raw.npy", "--rtol", "0"],
     exit=4, lines=[report("out0", gf8, Typed("f8e4m3fn", f8step), 0.0, F8_TOL[1])])

# ---- partitions: r{R}p{P}_out0 ----
write("partitions.hlo", """HloModule partitions, num_partitions=2

ENTRY main {
  p = u32[] partition-id()
  ROOT y = s32[] convert(p)
}
""")
savez("partitions_ref.npz", r0p0_out0=np.int32(0), r0p1_out0=np.int32(1))
case("partitions_pass", "two partitions against entries r0p0_out0 and r0p1_out0",
     ["partitions.hlo", "-q", "--expect", "partitions_ref.npz"],
     lines=[report("r0p0_out0", Typed("s32", np.int32(0)), Typed("s32", np.int32(0)), *EXACT),
            report("r0p1_out0", Typed("s32", np.int32(1)), Typed("s32", np.int32(1)), *EXACT)])

case("help_exit_4", "hlorun --help lists exit status 4 and --expect", ["--help"],
     stdout_contains="  4  --expect: the result differs from the reference")

print("wrote", OUT)
