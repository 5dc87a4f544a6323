"""cuDNN convolution custom-call goldens (testdata/interp-custom-call):
__cudnn$convForward, convBackwardInput, convBackwardFilter and
convBiasActivationForward as XLA:GPU's conv runner defines them.

The forward reference is refs.conv (XLA's convolution).  The gradients are
computed here from their definition -- every (output position, filter tap)
pair of the forward convolution scatters its product back into the input
or filter gradient -- not from the convolutions hlorun rebuilds them as."""
import itertools
import os

import numpy as np
from scipy import special

import refs
from gen import ROOT, module, write
from hlolit import cast, const, shape_str

D = "interp-custom-call"
rng = np.random.default_rng(31)


def ri(*s, lo=-3, hi=4):
    return rng.integers(lo, hi, s).astype(np.float64)


def window_text(size, stride, lo, hi, wdil, rev):
    x = lambda v: "x".join(map(str, v))
    s = "size=" + x(size)
    if any(v != 1 for v in stride):
        s += " stride=" + x(stride)
    if any(lo) or any(hi):
        s += " pad=" + "x".join("%d_%d" % p for p in zip(lo, hi))
    if any(v != 1 for v in wdil):
        s += " rhs_dilate=" + x(wdil)
    if any(rev):
        s += " rhs_reversal=" + x([int(r) for r in rev])
    return "{" + s + "}"


def fwd_taps(xshape, wshape, dn, stride, lo, hi, wdil, rev, groups):
    """Yields (x index, w index, y index) for every product of the forward
    convolution (refs.conv's definition, base dilation 1)."""
    ns = len(dn["is"])
    ins = [xshape[a] for a in dn["is"]]
    ks = [wshape[a] for a in dn["ks"]]
    outs = [refs.window_out(ins[d], ks[d], stride[d], lo[d], hi[d], 1, wdil[d]) for d in range(ns)]
    B, KI, O = xshape[dn["ib"]], wshape[dn["ki"]], wshape[dn["ko"]]
    ofg = O // groups
    for b, oz in itertools.product(range(B), range(O)):
        g = oz // ofg
        for o in itertools.product(*[range(n) for n in outs]):
            for k in itertools.product(*[range(n) for n in ks]):
                u = [o[d] * stride[d] - lo[d] + k[d] * wdil[d] for d in range(ns)]
                if not all(0 <= u[d] < ins[d] for d in range(ns)):
                    continue
                kk = [ks[d] - 1 - k[d] if rev[d] else k[d] for d in range(ns)]
                for i in range(KI):
                    xi = [0] * (ns + 2)
                    xi[dn["ib"]], xi[dn["if"]] = b, g * KI + i
                    wi = [0] * (ns + 2)
                    wi[dn["ki"]], wi[dn["ko"]] = i, oz
                    yi = [0] * (ns + 2)
                    yi[dn["ob"]], yi[dn["of"]] = b, oz
                    for d in range(ns):
                        xi[dn["is"][d]], wi[dn["ks"][d]], yi[dn["os"][d]] = u[d], kk[d], o[d]
                    yield tuple(xi), tuple(wi), tuple(yi)


def out_shape(xshape, wshape, dn, stride, lo, hi, wdil):
    ns = len(dn["is"])
    y = [0] * (ns + 2)
    y[dn["ob"]], y[dn["of"]] = xshape[dn["ib"]], wshape[dn["ko"]]
    for d in range(ns):
        y[dn["os"][d]] = refs.window_out(xshape[dn["is"][d]], wshape[dn["ks"][d]], stride[d],
                                         lo[d], hi[d], 1, wdil[d])
    return y


class Mod:
    def __init__(self):
        self.lines, self.outs, self.exp, self.n = [], [], [], 0

    def call(self, target, ops, et, res, labels, w, groups, config, scratch=0, keep_scratch=False):
        """ops: list of (array, et); res: expected array (already rounded)."""
        self.n += 1
        names = []
        for j, (a, aet) in enumerate(ops):
            nm = "p%d_%d" % (self.n, j)
            self.lines.append(const(nm, aet, cast(aet, a)))
            names.append(nm)
        cc, r = "cc%d" % self.n, "r%d" % self.n
        rshape = shape_str(et, list(res.shape))
        attrs = "window=%s, dim_labels=%s" % (window_text(*w), labels)
        if groups > 1:
            attrs += ", feature_group_count=%d" % groups
        self.lines.append('  %s = (%s, u8[%d]) custom-call(%s), %s, custom_call_target="%s", '
                          "backend_config=%s" % (cc, rshape, scratch, ", ".join(names), attrs,
                                                 target, config))
        self.lines.append("  %s = %s get-tuple-element(%s), index=0" % (r, rshape, cc))
        self.outs.append((r, et, list(res.shape)))
        self.exp.append((et, res))
        if keep_scratch:
            s = "ws%d" % self.n
            self.lines.append("  %s = u8[%d] get-tuple-element(%s), index=1" % (s, scratch, cc))
            self.outs.append((s, "u8", [scratch]))
            self.exp.append(("u8", np.zeros(scratch, np.uint8)))

    def write(self, name):
        write(D, name, module(name, [], self.lines, self.outs), self.exp)


def cfg(act="kNone", scale=1, side=0, alpha=0, wrapped=True):
    inner = ('{"conv_result_scale":%s,"activation_mode":%s,"side_input_scale":%s,'
             '"leakyrelu_alpha":%s}' % (scale, act if isinstance(act, int) or act.startswith('"')
                                        else '"%s"' % act,
                                        side, alpha))
    if not wrapped:
        return inner
    return ('{"operation_queue_id":"0","wait_on_operation_queues":[],'
            '"cudnn_conv_backend_config":%s,"force_earliest_schedule":false}' % inner)


def geometry(xs, ws, labels, size, stride=None, lo=None, hi=None, wdil=None, rev=None):
    ns = len(size)
    stride = stride or [1] * ns
    lo = lo or [0] * ns
    hi = hi or list(lo)
    wdil = wdil or [1] * ns
    rev = rev or [False] * ns
    return refs.parse_labels(labels), (size, stride, lo, hi, wdil, rev)


def forward_cases():
    m = Mod()
    specs = [
        # (x shape, w shape, labels, size, extra window, groups, type)
        ((2, 5, 6, 3), (3, 3, 3, 4), "b01f_01io->b01f", [3, 3], dict(stride=[2, 1], lo=[1, 1]), 1, "f32"),
        ((1, 4, 6, 6), (6, 2, 3, 3), "bf01_oi01->bf01", [3, 3], dict(lo=[2, 2], wdil=[2, 1]), 2, "f32"),
        ((2, 7, 3), (3, 3, 2), "b0f_0io->b0f", [3], dict(rev=[True]), 1, "f32"),
        ((1, 5, 5, 2), (2, 2, 2, 3), "b01f_01io->b01f", [2, 2], dict(lo=[1, 0], hi=[0, 1]), 1, "f16"),
        ((1, 4, 4, 2), (3, 3, 2, 2), "b01f_01io->b01f", [3, 3], dict(lo=[1, 1]), 1, "bf16"),
        ((1, 4, 4, 2), (3, 3, 2, 2), "b01f_01io->b01f", [3, 3], dict(lo=[1, 1]), 1, "f64"),
    ]
    for xs, ws, labels, size, wext, g, et in specs:
        dn, w = geometry(xs, ws, labels, size, **wext)
        x, k = ri(*xs), ri(*ws)
        y = refs.conv(x, k, dn, size, stride=w[1], lo=w[2], hi=w[3], wdil=w[4], rev=w[5], fgc=g)
        m.call("__cudnn$convForward", [(x, et), (k, et)], et, cast(et, y), labels, w, g, cfg(),
               scratch=16 if et == "f32" else 0, keep_scratch=et == "f32" and g == 2)
    # int8 x int8 -> f32, the config bare (older dumps)
    dn, w = geometry(None, None, "b01f_01io->b01f", [2, 2])
    x8, k8 = rng.integers(-128, 128, (1, 3, 3, 4)), rng.integers(-128, 128, (2, 2, 4, 2))
    y = refs.conv(x8.astype(np.float64), k8.astype(np.float64), dn, [2, 2])
    m.call("__cudnn$convForward", [(x8, "s8"), (k8, "s8")], "f32", cast("f32", y),
           "b01f_01io->b01f", w, 1, cfg(wrapped=False))
    m.write("cudnn_conv_forward")


def grad_cases(which):
    """which: 'input' or 'filter'."""
    m = Mod()
    specs = [
        # stride 2 with a remainder (the last input row reaches no output)
        ((2, 6, 5, 3), (3, 3, 3, 4), "b01f_01io->b01f", [3, 3], dict(stride=[2, 2], lo=[1, 1], hi=[1, 0]), 1, "f32"),
        # NCHW / OIHW, window dilation, two groups
        ((1, 4, 7, 6), (6, 2, 2, 3), "bf01_oi01->bf01", [2, 3], dict(lo=[1, 1], wdil=[2, 1]), 2, "f32"),
        # depthwise (groups = input features), stride and padding
        ((2, 6, 4), (3, 1, 8), "b0f_0io->b0f", [3], dict(stride=[2], lo=[1], hi=[2]), 4, "f32"),
        # reversed window (true convolution), scrambled orders
        ((2, 5, 3, 4), (2, 3, 2, 2), "f0b1_i0o1->1fb0", [3, 2], dict(lo=[1, 0], rev=[True, True]), 1, "f32"),
        # 3-D, half precision
        ((1, 4, 3, 4, 2), (2, 2, 3, 2, 2), "b012f_012io->b012f", [2, 2, 3], dict(lo=[0, 1, 1]), 1, "f16"),
        ((1, 5, 5, 2), (3, 3, 2, 2), "b01f_01io->b01f", [3, 3], dict(stride=[2, 2], lo=[1, 1]), 1, "bf16"),
    ]
    for xs, ws, labels, size, wext, g, et in specs:
        dn, w = geometry(xs, ws, labels, size, **wext)
        size, stride, lo, hi, wdil, rev = w
        x, k = ri(*xs), ri(*ws)
        ys = out_shape(xs, ws, dn, stride, lo, hi, wdil)
        dy = ri(*ys)
        if which == "input":
            dx = np.zeros(xs)
            for xi, wi, yi in fwd_taps(xs, ws, dn, stride, lo, hi, wdil, rev, g):
                dx[xi] += dy[yi] * k[wi]
            m.call("__cudnn$convBackwardInput", [(dy, et), (k, et)], et, cast(et, dx), labels, w, g,
                   cfg())
        else:
            dw = np.zeros(ws)
            for xi, wi, yi in fwd_taps(xs, ws, dn, stride, lo, hi, wdil, rev, g):
                dw[wi] += x[xi] * dy[yi]
            m.call("__cudnn$convBackwardFilter", [(x, et), (dy, et)], et, cast(et, dw), labels, w,
                   g, cfg())
    m.write("cudnn_conv_backward_" + which)


ACTS = {
    "kNone": lambda v, a: v,
    "kSigmoid": lambda v, a: 1 / (1 + np.exp(-v)),
    "kRelu": lambda v, a: np.maximum(v, 0),
    "kRelu6": lambda v, a: np.minimum(np.maximum(v, 0), 6),
    "kTanh": lambda v, a: np.tanh(v),
    "kElu": lambda v, a: np.where(v < 0, np.expm1(np.minimum(v, 0)), v),
    "kLeakyRelu": lambda v, a: np.where(v < 0, a * v, v),
    "kGeluExact": lambda v, a: 0.5 * v * (1 + special.erf(v / np.sqrt(2))),
}


def fused_cases():
    m = Mod()
    labels, size = "b01f_01io->b01f", [3, 3]
    dn, w = geometry(None, None, labels, size, lo=[1, 1])
    x, k = ri(1, 4, 4, 3), ri(3, 3, 3, 4)
    y = refs.conv(x, k, dn, size, lo=[1, 1], hi=[1, 1])
    bias = ri(4) / 2
    feat = (1, 1, 1, 4)
    for act in ACTS:
        alpha = 0.25 if act == "kLeakyRelu" else 0
        scale = 0.125 if act in ("kSigmoid", "kTanh", "kElu", "kGeluExact") else 1
        v = scale * y + bias.reshape(feat)
        m.call("__cudnn$convBiasActivationForward", [(x, "f32"), (k, "f32"), (bias, "f32")], "f32",
               cast("f32", ACTS[act](v, alpha)), labels, w, 1, cfg(act, scale=scale, alpha=alpha))
    # side input with both scales; the activation given by its number (2 = kRelu)
    side = ri(1, 4, 4, 4)
    v = 0.5 * y + 2 * side + bias.reshape(feat)
    m.call("__cudnn$convBiasActivationForward",
           [(x, "f32"), (k, "f32"), (bias, "f32"), (side, "f32")], "f32",
           cast("f32", np.maximum(v, 0)), labels, w, 1, cfg(2, scale=0.5, side=2))
    # the same in proto3 JSON as TF/XLA GPU dumps write it: lowerCamelCase
    # keys and the enum number as a string (protobuf's JSON parser takes both)
    m.call("__cudnn$convBiasActivationForward",
           [(x, "f32"), (k, "f32"), (bias, "f32"), (side, "f32")], "f32",
           cast("f32", np.maximum(v, 0)), labels, w, 1,
           '{"operationQueueId":"0","waitOnOperationQueues":[],"cudnnConvBackendConfig":'
           '{"convResultScale":0.5,"activationMode":"2","sideInputScale":2,"leakyreluAlpha":0},'
           '"forceEarliestSchedule":false}')
    # snake_case keys with the enum number quoted
    m.call("__cudnn$convBiasActivationForward",
           [(x, "f32"), (k, "f32"), (bias, "f32"), (side, "f32")], "f32",
           cast("f32", np.maximum(v, 0)), labels, w, 1, cfg('"2"', scale=0.5, side=2))
    # f16 with a side input and relu6, rounded once
    v = y / 4 + side / 2 + bias.reshape(feat)
    m.call("__cudnn$convBiasActivationForward",
           [(x, "f16"), (k, "f16"), (bias, "f16"), (side, "f16")], "f16",
           cast("f16", np.minimum(np.maximum(v, 0), 6)), labels, w, 1,
           cfg("kRelu6", scale=0.25, side=0.5))
    # NCHW with groups, leaky relu, bf16 (exact values: one rounding either way)
    labels2 = "bf01_oi01->bf01"
    dn2, w2 = geometry(None, None, labels2, [2, 2], stride=[2, 1])
    x2, k2 = ri(2, 4, 5, 4), ri(6, 2, 2, 2)
    y2 = refs.conv(x2, k2, dn2, [2, 2], stride=[2, 1], fgc=2)
    b2 = ri(6)
    v2 = y2 + b2.reshape(1, 6, 1, 1)
    m.call("__cudnn$convBiasActivationForward", [(x2, "bf16"), (k2, "bf16"), (b2, "bf16")], "bf16",
           cast("bf16", ACTS["kLeakyRelu"](v2, 0.5)), labels2, w2, 2, cfg("kLeakyRelu", alpha=0.5))
    # int8 x int8 -> f32 with an f32 bias
    x8, k8 = rng.integers(-128, 128, (1, 3, 3, 4)), rng.integers(-128, 128, (3, 3, 4, 2))
    y8 = refs.conv(x8.astype(np.float64), k8.astype(np.float64), dn, size, lo=[1, 1], hi=[1, 1])
    b8 = ri(2) * 100
    m.call("__cudnn$convBiasActivationForward", [(x8, "s8"), (k8, "s8"), (b8, "f32")], "f32",
           cast("f32", np.maximum(y8 + b8.reshape(1, 1, 1, 2), 0)), labels, w, 1, cfg("kRelu"))
    m.write("cudnn_conv_bias_activation")


def error_cases():
    x = "  x = f32[1,4,4,2] parameter(0)\n  k = f32[3,3,2,2] parameter(1)\n  b = f32[2] parameter(2)\n"
    win = "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f"
    cases = {
        "cudnn_bad_activation": ("(x, k, b)", "__cudnn$convBiasActivationForward", cfg("kBandPass"),
                                 'backend_config field "activation_mode": value "kBandPass" '
                                 'is not supported'),
        "cudnn_unknown_activation": ("(x, k, b)", "__cudnn$convBiasActivationForward", cfg("kSwish"),
                                     'backend_config field "cudnn_conv_backend_config.'
                                     'activation_mode": value "kSwish" is not supported'),
        "cudnn_bad_operand_count": ("(x, k, b)", "__cudnn$convForward", cfg(),
                                    "__cudnn$convForward: takes input and filter"),
        "cudnn_scaled_unfused": ("(x, k)", "__cudnn$convForward", cfg(scale=2),
                                 "conv_result_scale must be 1"),
        "cudnn_side_scale_without_side": ("(x, k, b)", "__cudnn$convBiasActivationForward",
                                          cfg("kRelu", side=1), "no side input"),
    }
    path = os.path.join(ROOT, D)
    for name, (ops, target, config, msg) in cases.items():
        with open(os.path.join(path, name + ".hlo"), "w") as f:
            f.write("HloModule %s\n\nENTRY main {\n%s  ROOT c = (f32[1,4,4,2], u8[0]) custom-call%s, "
                    '%s, custom_call_target="%s", backend_config=%s\n}\n'
                    % (name, x, ops, win, target, config))
        with open(os.path.join(path, name + ".yaml"), "w") as f:
            f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                    "stderr_contains: '%s'\n" % (name, msg))


def main():
    forward_cases()
    grad_cases("input")
    grad_cases("filter")
    fused_cases()
    error_cases()
