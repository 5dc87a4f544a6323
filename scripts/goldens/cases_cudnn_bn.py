"""cuDNN batch-norm custom-call goldens (testdata/interp-custom-call):
__cudnn$batchNormalizationForwardInference, ForwardTraining and Backward
as XLA:GPU's CudnnBatchNormRewriter emits them (epsilon an f32[] constant
and feature_index an s64[] constant as the last two operands; training
returns (output, mean, 1/sqrt(variance + epsilon)), backward takes that
inverse standard deviation; f16 data keeps f32 per-feature vectors).

References are the textbook formulas in float64 numpy, rounded once to the
result type.  Data are small integers and every feature averages over a
power of two elements, so means and sums are exact and only the divisions
and square roots round -- the same IEEE operations whatever the order."""
import numpy as np

from gen import module, write, write_error
from hlolit import cast, const, shape_str

D = "interp-custom-call"
PREFIX = "__cudnn$batchNormalization"
rng = np.random.default_rng(14)
EPS = float(np.float32(0.001))  # the f32 constant, as the runner widens it


def ri(*s, lo=-4, hi=5):
    return rng.integers(lo, hi, s).astype(np.float64)


def axes_but(x, fi):
    return tuple(d for d in range(x.ndim) if d != fi)


def per_feature(v, x, fi):
    """v [C] shaped to broadcast along dimension fi of x."""
    s = [1] * x.ndim
    s[fi] = x.shape[fi]
    return np.reshape(v, s)


def ref_training(x, scale, offset, fi):
    ax = axes_but(x, fi)
    mean = x.mean(axis=ax)
    var = ((x - per_feature(mean, x, fi)) ** 2).mean(axis=ax)
    out = ((x - per_feature(mean, x, fi)) / per_feature(np.sqrt(var + EPS), x, fi)
           * per_feature(scale, x, fi) + per_feature(offset, x, fi))
    return out, mean, 1 / np.sqrt(var + EPS)


def ref_inference(x, scale, offset, mean, var, fi):
    pf = lambda v: per_feature(v, x, fi)
    return (x - pf(mean)) / pf(np.sqrt(var + EPS)) * pf(scale) + pf(offset)


def ref_backward(x, scale, mean, inv, dy, fi):
    """d/dx, d/dscale, d/doffset of sum(dy * y) for y = xhat * scale + offset,
    xhat = (x - mean) * inv with mean and inv the batch's own statistics."""
    ax = axes_but(x, fi)
    pf = lambda v: per_feature(v, x, fi)
    xc = x - pf(mean)
    dscale = (dy * xc).sum(axis=ax) * inv
    doffset = dy.sum(axis=ax)
    n = x.size // x.shape[fi]
    dx = pf(scale * inv) * (dy - pf(doffset / n) - xc * pf((dy * xc).sum(axis=ax) / n * inv * inv))
    return dx, dscale, doffset


class Mod:
    def __init__(self):
        self.lines, self.outs, self.exp, self.n = [], [], [], 0

    def call(self, kind, ops, fi, results):
        """ops: (array, et) operands before epsilon and feature_index;
        results: (et, expected array) of the call, one or a tuple of three."""
        self.n += 1
        names = []
        for j, (a, et) in enumerate(ops):
            nm = "p%d_%d" % (self.n, j)
            self.lines.append(const(nm, et, cast(et, a)))
            names.append(nm)
        self.lines.append("  eps%d = f32[] constant(%r)" % (self.n, EPS))
        self.lines.append("  fi%d = s64[] constant(%d)" % (self.n, fi))
        names += ["eps%d" % self.n, "fi%d" % self.n]
        shapes = [shape_str(et, list(np.shape(r))) for et, r in results]
        cc = "cc%d" % self.n
        rshape = shapes[0] if len(results) == 1 else "(%s)" % ", ".join(shapes)
        self.lines.append('  %s = %s custom-call(%s), custom_call_target="%s%s"'
                          % (cc, rshape, ", ".join(names), PREFIX, kind))
        for i, (et, r) in enumerate(results):
            nm = cc
            if len(results) > 1:
                nm = "r%d_%d" % (self.n, i)
                self.lines.append("  %s = %s get-tuple-element(%s), index=%d" % (nm, shapes[i], cc, i))
            self.outs.append((nm, et, list(np.shape(r))))
            self.exp.append((et, cast(et, r)))

    def write(self, name):
        write(D, name, module(name, [], self.lines, self.outs), self.exp)


# (shape, feature_index): NHWC, NCHW and [N, C]; 8, 8 and 4 elements a feature
LAYOUTS = [((2, 2, 2, 3), 3), ((2, 3, 2, 2), 1), ((4, 2), 1)]


def training_cases():
    m = Mod()
    for shape, fi in LAYOUTS:
        c = shape[fi]
        x, scale, offset = ri(*shape), ri(c) / 2 + 0.25, ri(c) / 4
        out, mean, inv = ref_training(x, scale, offset, fi)
        m.call("ForwardTraining", [(x, "f32"), (scale, "f32"), (offset, "f32")], fi,
               [("f32", out), ("f32", mean), ("f32", inv)])
    m.write("cudnn_bn_forward_training")


def inference_cases():
    m = Mod()
    for shape, fi in LAYOUTS:
        c = shape[fi]
        x, scale, offset = ri(*shape), ri(c) / 2 + 0.25, ri(c) / 4
        mean, var = ri(c) / 8, ri(c, lo=0, hi=6) / 2
        m.call("ForwardInference", [(x, "f32"), (scale, "f32"), (offset, "f32"), (mean, "f32"),
                                    (var, "f32")], fi,
               [("f32", ref_inference(x, scale, offset, mean, var, fi))])
    m.write("cudnn_bn_forward_inference")


def backward_ops(shape, fi, et):
    """Operands as a training step has them: the batch's mean and the f32
    inverse standard deviation its forward call returned."""
    c = shape[fi]
    x, scale, dy = ri(*shape), ri(c) / 2 + 0.25, ri(*shape)
    _, mean, inv = ref_training(x, scale, np.zeros(c), fi)
    inv = np.float64(np.float32(inv))
    return [(x, et), (scale, "f32"), (mean, "f32"), (inv, "f32"), (dy, et)], \
        ref_backward(x, scale, mean, inv, dy, fi)


def backward_cases():
    m = Mod()
    for shape, fi in LAYOUTS:
        ops, (dx, ds, do) = backward_ops(shape, fi, "f32")
        m.call("Backward", ops, fi, [("f32", dx), ("f32", ds), ("f32", do)])
    m.write("cudnn_bn_backward")


def f16_cases():
    """The rewriter's f16 form (batch norm of convert(f16 x)): f16 data,
    f32 vectors; each f16 result rounded once from the exact value."""
    m = Mod()
    shape, fi = (2, 2, 2, 3), 3
    c = shape[fi]
    x, scale, offset = ri(*shape), ri(c) / 2 + 0.25, ri(c) / 4
    out, mean, inv = ref_training(x, scale, offset, fi)
    m.call("ForwardTraining", [(x, "f16"), (scale, "f32"), (offset, "f32")], fi,
           [("f16", out), ("f32", mean), ("f32", inv)])
    mean2, var2 = ri(c) / 8, ri(c, lo=0, hi=6) / 2
    m.call("ForwardInference", [(x, "f16"), (scale, "f32"), (offset, "f32"), (mean2, "f32"),
                                (var2, "f32")], fi,
           [("f16", ref_inference(x, scale, offset, mean2, var2, fi))])
    ops, (dx, ds, do) = backward_ops((2, 3, 2, 2), 1, "f16")
    m.call("Backward", ops, 1, [("f16", dx), ("f32", ds), ("f32", do)])
    m.write("cudnn_bn_f16")


def error_cases():
    """Each a training call on x = f32[2,3] (features on dimension 1) with
    one thing wrong, and the message hlorun must give."""
    x = "  x = f32[2,3] parameter(0)\n  s = f32[3] parameter(1)\n  o = f32[3] parameter(2)\n"
    eps = "  e = f32[] constant(0.001)\n"
    fi = "  f = s64[] constant(1)\n"
    tgt = PREFIX + "ForwardTraining"
    res = "(f32[2,3], f32[3], f32[3])"
    cases = {
        "cudnn_bn_bad_operand_count": (x + eps, "(x, s, o, e)", res,
                                       tgt + " takes 5 operands (operand, scale, offset, "
                                       "epsilon, feature_index), got 4"),
        "cudnn_bn_epsilon_not_constant": (x + "  e = f32[] parameter(3)\n" + fi,
                                          "(x, s, o, e, f)", res,
                                          tgt + ": epsilon (operand 3) must be a f32[] constant"),
        "cudnn_bn_feature_index_s32": (x + eps + "  f = s32[] constant(1)\n", "(x, s, o, e, f)",
                                       res, "feature_index (operand 4) must be a s64[] constant"),
        "cudnn_bn_feature_index_range": (x + eps + "  f = s64[] constant(2)\n", "(x, s, o, e, f)",
                                         res, "feature_index 2 is out of range"),
        "cudnn_bn_f64_operand": ("  x = f64[2,3] parameter(0)\n  s = f32[3] parameter(1)\n"
                                 "  o = f32[3] parameter(2)\n" + eps + fi, "(x, s, o, e, f)",
                                 "(f64[2,3], f32[3], f32[3])", "must be f16 or f32"),
        "cudnn_bn_variance_result": (x + eps + fi, "(x, s, o, e, f)",
                                     "(f32[2,3], f32[3])", "must return (output of the operand"),
        "cudnn_bn_empty_operand": ("  x = f32[0,3] parameter(0)\n  s = f32[3] parameter(1)\n"
                                   "  o = f32[3] parameter(2)\n" + eps + fi, "(x, s, o, e, f)",
                                   "(f32[0,3], f32[3], f32[3])", "cuDNN refuses an empty operand"),
    }
    for name, (params, ops, rshape, msg) in cases.items():
        write_error(D, name, 'HloModule %s\n\nENTRY main {\n%s  ROOT c = %s custom-call%s, '
                    'custom_call_target="%s"\n}\n' % (name, params, rshape, ops, tgt), msg)

def main():
    training_cases()
    inference_cases()
    backward_cases()
    f16_cases()
    error_cases()
