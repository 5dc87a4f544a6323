"""convolution goldens (testdata/interp-conv): dim_labels orders, window
attributes, groups, element types, edge cases."""
import numpy as np

import refs
from gen import module, write
from hlolit import cast, const, shape_str

D = "interp-conv"


def window_text(size, stride=None, lo=None, hi=None, bdil=None, wdil=None, rev=None):
    x = lambda v: "x".join(map(str, v))
    s = "size=" + x(size)
    if stride:
        s += " stride=" + x(stride)
    if lo:
        s += " pad=" + "x".join("%d_%d" % p for p in zip(lo, hi))
    if bdil:
        s += " lhs_dilate=" + x(bdil)
    if wdil:
        s += " rhs_dilate=" + x(wdil)
    if rev:
        s += " rhs_reversal=" + x([int(r) for r in rev])
    return "{" + s + "}" if size else "{}"


class Mod:
    def __init__(self):
        self.lines, self.outs, self.exp, self.n = [], [], [], 0

    def conv(self, lhs, le, rhs, re, et, labels, size, acc=np.float64, fgc=1, bgc=1, extra="", **w):
        dn = refs.parse_labels(labels)
        exp = cast(et, refs.conv(lhs, rhs, dn, size, fgc=fgc, bgc=bgc, acc=acc, **w))
        self.n += 1
        a, b, name = "l%d" % self.n, "k%d" % self.n, "c%d" % self.n
        self.lines += [const(a, le, lhs), const(b, re, rhs)]
        attrs = ", window=%s, dim_labels=%s" % (window_text(size, **w), labels) if size else ", dim_labels=" + labels
        if fgc > 1:
            attrs += ", feature_group_count=%d" % fgc
        if bgc > 1:
            attrs += ", batch_group_count=%d" % bgc
        self.lines.append("  %s = %s convolution(%s, %s)%s%s" % (name, shape_str(et, exp.shape), a, b, attrs, extra))
        self.outs.append((name, et, list(exp.shape)))
        self.exp.append((et, exp))

    def write(self, name):
        write(D, name, module(name, [], self.lines, self.outs), self.exp)


rng = np.random.default_rng(21)


def ri(*s, lo=-4, hi=5):
    return rng.integers(lo, hi, s).astype(np.float32)


def labels_and_windows():
    m = Mod()
    # The seed's pseudocode case: 2-D, padding and strides (NHWC / HWIO).
    m.conv(ri(2, 5, 6, 3), "f32", ri(3, 3, 3, 4), "f32", "f32", "b01f_01io->b01f", [3, 3],
           stride=[2, 1], lo=[1, 1], hi=[1, 1])
    # NCHW / OIHW
    m.conv(ri(1, 2, 5, 5), "f32", ri(3, 2, 2, 3), "f32", "f32", "bf01_oi01->bf01", [2, 3],
           stride=[1, 2], lo=[0, 1], hi=[1, 0])
    # scrambled orders everywhere
    m.conv(ri(4, 3, 5, 2), "f32", ri(2, 2, 2, 3), "f32", "f32", "1f0b_o10i->f1b0", [2, 2])
    # 1-D: lhs dilation (transposed conv), rhs dilation (atrous), negative padding, reversal
    m.conv(ri(2, 7, 3), "f32", ri(3, 3, 2), "f32", "f32", "b0f_0io->b0f", [3],
           lo=[-1], hi=[2], bdil=[2], wdil=[2], rev=[True])
    # 2-D with one reversed dim and mixed dilations
    m.conv(ri(1, 6, 5, 2), "f32", ri(2, 3, 2, 2), "f32", "f32", "b01f_01io->b01f", [2, 3],
           stride=[2, 1], lo=[1, -1], hi=[0, 2], bdil=[1, 2], wdil=[2, 1], rev=[False, True])
    # 3-D
    m.conv(ri(1, 4, 3, 4, 2), "f32", ri(2, 2, 3, 2, 3), "f32", "f32", "b012f_012io->b012f", [2, 2, 3],
           lo=[0, 1, 1], hi=[1, 0, 1])
    # no spatial dimensions: a matrix product
    m.conv(ri(3, 4), "f32", ri(4, 5), "f32", "f32", "bf_io->bf", [])
    # operand_precision is ignored
    m.conv(ri(1, 4, 4, 2), "f32", ri(3, 3, 2, 2), "f32", "f32", "b01f_01io->b01f", [3, 3],
           extra=", operand_precision={highest,highest}")
    m.write("conv_dim_labels_windows")


def groups():
    m = Mod()
    # depthwise: feature_group_count = input features, channel multiplier 2
    m.conv(ri(2, 5, 5, 4), "f32", ri(3, 3, 1, 8), "f32", "f32", "b01f_01io->b01f", [3, 3],
           lo=[1, 1], hi=[1, 1], fgc=4)
    # grouped: 2 groups of 2 input features, 3 output features each
    m.conv(ri(1, 4, 4, 4), "f32", ri(2, 2, 2, 6), "f32", "f32", "b01f_01io->b01f", [2, 2], fgc=2)
    # batch groups (weight gradients): batch 4 in 2 groups of 2, 3 outputs each
    m.conv(ri(4, 4, 4, 2), "f32", ri(2, 2, 2, 6), "f32", "f32", "b01f_01io->b01f", [2, 2], bgc=2)
    # batch_group_count == batch (the usual backprop-filter shape), NCHW
    m.conv(ri(3, 2, 4, 4), "f32", ri(6, 2, 3, 3), "f32", "f32", "bf01_oi01->bf01", [3, 3],
           lo=[1, 1], hi=[1, 1], bgc=3)
    m.write("conv_feature_and_batch_groups")


def types():
    m = Mod()
    L, K = ri(2, 4, 4, 3), ri(3, 3, 3, 2)
    lab, sz, w = "b01f_01io->b01f", [3, 3], dict(lo=[1, 0], hi=[1, 0])
    m.conv(L / 4, "f64", K / 2, "f64", "f64", lab, sz, **w)
    m.conv(cast("bf16", L), "bf16", cast("bf16", K), "bf16", "bf16", lab, sz, **w)
    m.conv(cast("bf16", L), "bf16", cast("bf16", K), "bf16", "f32", lab, sz, **w)   # bf16 -> f32
    m.conv(L.astype(np.float16), "f16", K.astype(np.float16), "f16", "f16", lab, sz, **w)
    m.conv(L.astype(np.int32) * 1000, "s32", K.astype(np.int32), "s32", "s32", lab, sz, acc=np.int64, **w)
    l8 = rng.integers(-128, 128, (1, 4, 4, 3)).astype(np.int8)
    k8 = rng.integers(-128, 128, (3, 3, 3, 2)).astype(np.int8)
    m.conv(l8, "s8", k8, "s8", "s32", lab, sz, acc=np.int64, **w)                  # s8 x s8 -> s32
    cl = (ri(1, 3, 3, 2) + 1j * ri(1, 3, 3, 2)).astype(np.complex64)
    ck = (ri(2, 2, 2, 2) + 1j * ri(2, 2, 2, 2)).astype(np.complex64)
    m.conv(cl, "c64", ck, "c64", "c64", lab, [2, 2], acc=np.complex128)
    m.write("conv_element_types")


def edge():
    m = Mod()
    # NaN / Inf in the input reach exactly the windows that cover them
    x = ri(1, 4, 4, 1)
    x[0, 0, 0, 0], x[0, 3, 3, 0] = np.nan, np.inf
    m.conv(x, "f32", np.abs(ri(2, 2, 1, 1)) + 1, "f32", "f32", "b01f_01io->b01f", [2, 2])
    # window larger than the (negatively padded) input: empty spatial result
    m.conv(ri(1, 3, 3, 2), "f32", ri(2, 2, 2, 1), "f32", "f32", "b01f_01io->b01f", [2, 2], lo=[-1, 0], hi=[-1, 0])
    one = "  one = f32[] constant(1)"
    m.lines += [one, "  eb = f32[0,3,3,2] broadcast(one), dimensions={}",
                "  ek = f32[2,2,2,4] broadcast(one), dimensions={}",
                "  e0 = f32[0,2,2,4] convolution(eb, ek), window={size=2x2}, dim_labels=b01f_01io->b01f",
                "  zf = f32[2,3,3,0] broadcast(one), dimensions={}",
                "  zk = f32[2,2,0,3] broadcast(one), dimensions={}",
                "  e1 = f32[2,2,2,3] convolution(zf, zk), window={size=2x2}, dim_labels=b01f_01io->b01f"]
    m.outs += [("e0", "f32", [0, 2, 2, 4]), ("e1", "f32", [2, 2, 2, 3])]
    m.exp += [("f32", np.zeros((0, 2, 2, 4), np.float32)), ("f32", np.zeros((2, 2, 2, 3), np.float32))]
    m.write("conv_empty_nan_inf")


def npy_inputs():
    """A ResNet-style 3x3 block on .npy inputs.  The inputs are multiples of
    1/2, so every product is a multiple of 1/4 and every partial sum is exact
    in f32: the result does not depend on summation order (random floats
    rounded to 3 decimals were not enough: a sum one ulp off flips a tie of
    the rounding, as OpenBLAS's Haswell kernels showed)."""
    x = (np.round(rng.standard_normal((2, 8, 8, 16)) * 2) / 2).astype(np.float32)
    k = (np.round(rng.standard_normal((3, 3, 16, 8)) * 2) / 2).astype(np.float32)
    y = refs.conv(x, k, refs.parse_labels("b01f_01io->b01f"), [3, 3], lo=[1, 1], hi=[1, 1])
    q = np.round(y.astype(np.float32) * np.float32(1000)) + np.float32(0)
    hlo = ("HloModule resnet_block\n\nENTRY main {\n  x = f32[2,8,8,16] parameter(0)\n"
           "  k = f32[3,3,16,8] parameter(1)\n"
           "  c = f32[2,8,8,8] convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f\n"
           "  s = f32[] constant(1000)\n  sb = f32[2,8,8,8] broadcast(s), dimensions={}\n"
           "  m = f32[2,8,8,8] multiply(c, sb)\n  r = f32[2,8,8,8] round-nearest-even(m)\n"
           "  z = f32[] constant(0)\n  zb = f32[2,8,8,8] broadcast(z), dimensions={}\n"
           "  a = f32[2,8,8,8] add(r, zb)\n  ROOT out = (f32[2,8,8,8]) tuple(a)\n}\n")
    write(D, "conv_resnet_block_npy", hlo, [("f32", q)], inputs=[("conv_x.npy", x), ("conv_k.npy", k)])


def pattern(m, name, dims, mults, mod=9):
    """An s32 -> f32 operand built in the module from iotas:
    ((sum of index[d] * mults[d]) mod `mod`) - mod // 2, small integers, so
    every sum of products is exact in f32 whatever its order.  Returns the
    same array for the reference."""
    sh = "s32[%s]" % ",".join(map(str, dims))
    terms = []
    for d, k in enumerate(mults):
        m.lines.append("  %s_i%d = %s iota(), iota_dimension=%d" % (name, d, sh, d))
        m.lines.append("  %s_k%d = s32[] constant(%d)" % (name, d, k))
        m.lines.append("  %s_b%d = %s broadcast(%s_k%d), dimensions={}" % (name, d, sh, name, d))
        m.lines.append("  %s_m%d = %s multiply(%s_i%d, %s_b%d)" % (name, d, sh, name, d, name, d))
        terms.append("%s_m%d" % (name, d))
    acc = terms[0]
    for d, t in enumerate(terms[1:], 1):
        m.lines.append("  %s_s%d = %s add(%s, %s)" % (name, d, sh, acc, t))
        acc = "%s_s%d" % (name, d)
    m.lines += ["  %s_q = s32[] constant(%d)" % (name, mod),
                "  %s_qb = %s broadcast(%s_q), dimensions={}" % (name, sh, name),
                "  %s_r = %s remainder(%s, %s_qb)" % (name, sh, acc, name),
                "  %s_h = s32[] constant(%d)" % (name, mod // 2),
                "  %s_hb = %s broadcast(%s_h), dimensions={}" % (name, sh, name),
                "  %s_c = %s subtract(%s_r, %s_hb)" % (name, sh, name, name),
                "  %s = f32[%s] convert(%s_c)" % (name, ",".join(map(str, dims)), name)]
    idx = np.indices(dims)
    return ((sum(idx[d] * k for d, k in enumerate(mults)) % mod) - mod // 2).astype(np.float32)


def direct_paths():
    """Convolutions of the sizes the f32 register tiles take (the filter
    gradient needs images x kernel positions >= 2048), on integer data made
    in the module: filter gradients NHWC and NCHW with batch groups, a
    grouped forward convolution and a strided input gradient (phases
    written in place)."""
    m = Mod()

    def conv(x, xn, k, kn, labels, size, fgc=1, bgc=1, **w):
        dn = refs.parse_labels(labels)
        exp = refs.conv(x, k, dn, size, fgc=fgc, bgc=bgc, **w).astype(np.float32)
        m.n += 1
        name = "c%d" % m.n
        attrs = ", window=%s, dim_labels=%s" % (window_text(size, **w), labels)
        if fgc > 1:
            attrs += ", feature_group_count=%d" % fgc
        if bgc > 1:
            attrs += ", batch_group_count=%d" % bgc
        m.lines.append("  %s = %s convolution(%s, %s)%s" % (name, shape_str("f32", exp.shape), xn, kn, attrs))
        m.outs.append((name, "f32", list(exp.shape)))
        m.exp.append(("f32", exp))

    x = pattern(m, "x1", [2, 32, 32, 8], [7, 3, 5, 11])
    d = pattern(m, "d1", [2, 32, 32, 16], [5, 2, 7, 3])
    conv(x, "x1", d, "d1", "f01b_i01o->01bf", [32, 32], lo=[1, 1], hi=[1, 1])
    x = pattern(m, "x2", [2, 8, 32, 32], [3, 7, 2, 5])
    d = pattern(m, "d2", [2, 8, 32, 32], [2, 5, 3, 7])
    conv(x, "x2", d, "d2", "fb01_io01->bf01", [32, 32], lo=[1, 1], hi=[1, 1], bgc=2)
    x = pattern(m, "x3", [2, 10, 10, 8], [5, 3, 7, 2])
    k = pattern(m, "k3", [3, 3, 4, 8], [2, 7, 3, 5])
    conv(x, "x3", k, "k3", "b01f_01io->b01f", [3, 3], lo=[1, 1], hi=[1, 1], fgc=2)
    x = pattern(m, "x4", [2, 6, 6, 8], [7, 2, 3, 5])
    k = pattern(m, "k4", [3, 3, 4, 8], [3, 5, 2, 7])
    conv(x, "x4", k, "k4", "b01f_01oi->b01f", [3, 3], lo=[1, 1], hi=[2, 2], bdil=[2, 2], rev=[True, True])
    m.write("conv_direct_paths")


def main():
    direct_paths()
    labels_and_windows()
    groups()
    types()
    edge()
    npy_inputs()
