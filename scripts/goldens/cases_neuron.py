"""AWS Neuron custom calls (testdata/interp-neuron): GELU, its tanh
approximation and derivative, softmax and its gradient, from the reference
formulas torch-neuronx documents (torch_neuronx/xla_impl/ops.py), computed
here in float64 with Python's math.erf -- independently of hlotools.
Results are scaled by 1e4 and rounded (Mod.quant) so the goldens do not
depend on the last bits."""
import math

import numpy as np

from cases_linalg import Mod
from hlolit import cast, const, shape_str

X = np.array([[-3.0, -1.0, -0.25, 0.0, 0.5], [1.0, 2.0, 3.5, -0.0, 10.0]])
G = np.array([[0.5, -1.0, 2.0, 0.25, 1.0], [-0.5, 0.0, 1.5, -2.0, 3.0]])


def phi_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def gelu(x):
    return x * phi_cdf(x)


def gelu_tanh(x):
    return 0.5 * x * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_grad(x):
    return phi_cdf(x) + x * math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_grad(g, y, axis):
    return y * (g - np.sum(g * y, axis=axis, keepdims=True))


def main():
    m = Mod("interp-neuron")
    for et in ("f32", "f64"):
        dims = list(X.shape)
        s = shape_str(et, dims)
        x, g = m.name("x"), m.name("g")
        m.lines += [const(x, et, cast(et, X)), const(g, et, cast(et, G))]
        xv = cast(et, X).astype(np.float64)
        gv = cast(et, G).astype(np.float64)
        for target, fn in (("AwsNeuronGelu", gelu), ("AwsNeuronGeluApprxTanh", gelu_tanh),
                           ("AwsNeuronGeluBackward", gelu_grad)):
            r = m.name("u")
            m.lines.append('  %s = %s custom-call(%s), custom_call_target="%s"' % (r, s, x, target))
            m.quant(r, et, dims, np.vectorize(fn)(xv))
        for axis in (1, 0):
            r = m.name("sm")
            m.lines.append('  %s = %s custom-call(%s), custom_call_target="AwsNeuronSoftmax", '
                           'backend_config="%d"' % (r, s, x, axis))
            m.quant(r, et, dims, softmax(xv, axis))
            y = softmax(xv, axis)
            yc, b = m.name("y"), m.name("smb")
            m.lines += [const(yc, et, cast(et, y)),
                        '  %s = %s custom-call(%s, %s), custom_call_target="AwsNeuronSoftmaxBackward", '
                        'backend_config="%d"' % (b, s, g, yc, axis)]
            m.quant(b, et, dims, softmax_grad(gv, cast(et, y).astype(np.float64), axis))
        # The parameter transfer torch-neuronx inserts is an identity.
        t = m.name("t")
        m.lines.append('  %s = %s custom-call(%s), custom_call_target="AwsNeuronTransferWithStaticRing"'
                       % (t, s, x))
        m.out(t, et, cast(et, X))
    m.write("neuron_custom_calls")
