"""cuBLASLt matmul custom-call goldens (testdata/interp-custom-call):
__cublas$lt$matmul with alpha/beta, matrix bias c, vector bias and the
RELU / GELU (tanh approximation) epilogues with and without aux output, as
XLA's gemm rewriter defines them:  v = alpha * dot(a, b) + beta * c + bias,
d = act(v), aux = v.  numpy computes in f64 and rounds once (through f32
for f16/bf16 results, as cuBLASLt's f32 epilogue)."""
import os

import numpy as np

from gen import ROOT, module, write
from hlolit import cast, const, shape_str

D = "interp-custom-call"
rng = np.random.default_rng(41)


def ri(*s, lo=-3, hi=4):
    return rng.integers(lo, hi, s).astype(np.float64)


def gelu(v):
    return 0.5 * v * (1 + np.tanh(np.sqrt(2 / np.pi) * (v + 0.044715 * v ** 3)))


def held(et, v):
    """v as the GPU returns it: narrow floats pass through f32 (the epilogue's
    type) first."""
    return cast(et, np.asarray(v).astype(np.float32) if et in ("f16", "bf16") else v)


ACT = {"DEFAULT": None, "BIAS": None, "RELU": "relu", "BIAS_RELU": "relu", "GELU": "gelu",
       "GELU_AUX": "gelu", "BIAS_GELU": "gelu", "BIAS_GELU_AUX": "gelu"}


def config(epi, alpha=1, beta=0, lc=(1,), rc=(0,), lb=(), rb=(), alpha_imag=0):
    q = lambda v: "[" + ",".join('"%d"' % x for x in v) + "]"
    epi_text = str(epi) if isinstance(epi, int) else '"%s"' % epi
    return ('{"operation_queue_id":"0","wait_on_operation_queues":[],"gemm_backend_config":'
            '{"alpha_real":%s,"beta":%s,"dot_dimension_numbers":{"lhs_contracting_dimensions":%s,'
            '"rhs_contracting_dimensions":%s,"lhs_batch_dimensions":%s,"rhs_batch_dimensions":%s},'
            '"alpha_imag":%s,"precision_config":{"operand_precision":["DEFAULT","DEFAULT"],'
            '"algorithm":"ALG_UNSET"},"epilogue":%s,"grad_x":false,"grad_y":false,'
            '"damax_output":false},"force_earliest_schedule":false}'
            % (alpha, beta, q(lc), q(rc), q(lb), q(rb), alpha_imag, epi_text))


class Mod:
    def __init__(self):
        self.lines, self.outs, self.exp, self.n = [], [], [], 0

    def lt(self, et, a, b, epi, alpha=1, beta=0, c=None, bias=None, batch=0, ws=16, op_et=None,
           epi_text=None):
        """a: [batch..., M, K], b: [batch..., K, N...]: the dot contracts a's
        last and b's first non-batch dimension."""
        self.n += 1
        op_et = op_et or et
        nb = batch
        prod = np.einsum("...mk,...kn->...mn", a, b.reshape(b.shape[:nb + 1] + (-1,)))
        prod = prod.reshape(a.shape[:-1] + b.shape[nb + 1:])
        v = alpha * prod
        ops = [(a, op_et), (b, op_et)]
        if beta != 0:
            v = v + beta * c
            ops.append((c, et))
        if bias is not None:
            v = v + bias
            ops.append((bias, et))
        act = ACT[epi]
        d = v if act is None else np.maximum(v, 0) if act == "relu" else gelu(v)
        names = []
        for j, (arr, aet) in enumerate(ops):
            nm = "p%d_%d" % (self.n, j)
            self.lines.append(const(nm, aet, cast(aet, arr)))
            names.append(nm)
        dshape = shape_str(et, list(d.shape))
        aux = epi.endswith("_AUX")
        leaves = [dshape] + ([dshape] if aux else []) + (["s8[%d]" % ws] if ws else [])
        cc = "cc%d" % self.n
        rt = "(%s)" % ", ".join(leaves) if len(leaves) > 1 else dshape
        cfg = config(epi_text if epi_text is not None else epi, alpha, beta,
                     lc=(nb + 1,), rc=(nb,), lb=tuple(range(nb)), rb=tuple(range(nb)))
        self.lines.append('  %s = %s custom-call(%s), custom_call_target="__cublas$lt$matmul", '
                          "backend_config=%s" % (cc, rt, ", ".join(names), cfg))
        if len(leaves) > 1:
            self.lines.append("  d%d = %s get-tuple-element(%s), index=0" % (self.n, dshape, cc))
            self.outs.append(("d%d" % self.n, et, list(d.shape)))
        else:
            self.outs.append((cc, et, list(d.shape)))
        self.exp.append((et, held(et, d)))
        if aux:
            self.lines.append("  x%d = %s get-tuple-element(%s), index=1" % (self.n, dshape, cc))
            self.outs.append(("x%d" % self.n, et, list(d.shape)))
            self.exp.append((et, held(et, v)))

    def write(self, name):
        write(D, name, module(name, [], self.lines, self.outs), self.exp)


def epilogues():
    m = Mod()
    a, b = ri(3, 4), ri(4, 5)
    bias, c = ri(5) / 2, ri(3, 5)
    m.lt("f32", a, b, "DEFAULT", alpha=2)
    m.lt("f32", a, b, "DEFAULT", alpha=0.5, beta=-1.5, c=c, ws=0)
    m.lt("f32", a, b, "BIAS", bias=bias)
    m.lt("f32", a, b, "RELU", beta=1, c=c)
    m.lt("f32", a, b, "BIAS_RELU", alpha=0.5, bias=bias)
    m.lt("f32", a / 4, b / 4, "GELU")
    m.lt("f32", a / 4, b / 4, "GELU_AUX", beta=0.5, c=c)
    m.lt("f32", a / 4, b / 4, "BIAS_GELU", bias=bias)
    m.lt("f32", a / 4, b / 4, "BIAS_GELU_AUX", bias=bias, ws=0)
    # the epilogue given by its enum number (3 = BIAS_RELU)
    m.lt("f32", a, b, "BIAS_RELU", bias=bias, epi_text=3)
    m.write("cublas_lt_matmul_epilogues")


def shapes_and_types():
    m = Mod()
    # batched, and b with two non-contracting dimensions: the bias covers both
    a, b = ri(2, 3, 4), ri(2, 4, 2, 3)
    m.lt("f32", a, b, "BIAS_RELU", bias=ri(2, 3), batch=1)
    # half precision: one rounding of the f32 accumulation and epilogue
    a, b = ri(4, 6), ri(6, 3)
    m.lt("f16", a / 2, b, "BIAS_RELU", alpha=0.75, bias=ri(3) / 4)
    m.lt("bf16", a, b, "BIAS_GELU_AUX", alpha=0.25, bias=ri(3) / 4)
    # f64 (dyadic values: exact whatever the summation order)
    m.lt("f64", a / 4, b / 8, "BIAS_RELU", alpha=-3, beta=2, c=ri(4, 3) / 16, bias=ri(3) / 2)
    m.write("cublas_lt_matmul_shapes_types")


def complex_default():
    m = Mod()
    a = ri(2, 3) + 1j * ri(2, 3)
    b = ri(3, 2) + 1j * ri(3, 2)
    m.lt("c64", a, b, "DEFAULT", alpha=2)
    m.write("cublas_lt_matmul_c64")


def error_cases():
    path = os.path.join(ROOT, D)
    params = "  a = f32[2,3] parameter(0)\n  b = f32[3,4] parameter(1)\n  z = f32[4] parameter(2)\n"
    cases = {
        "cublas_lt_missing_bias": ("(a, b)", "f32[2,4]", config("BIAS_RELU"),
                                   "takes a, b, bias (beta 0, epilogue BIAS_RELU), not 2 operands"),
        "cublas_lt_unknown_epilogue": ("(a, b)", "f32[2,4]", config("SILU"),
                                       'backend_config field "gemm_backend_config.epilogue": '
                                       'value "SILU" is not supported'),
        "cublas_lt_aux_missing": ("(a, b)", "f32[2,4]", config("GELU_AUX"),
                                  "with epilogue GELU_AUX returns (d, aux[, workspace])"),
        "cublas_lt_bad_bias": ("(a, b, a)", "f32[2,4]", config("BIAS"),
                               "the bias must be a float array of b's non-contracting"),
    }
    for name, (ops, rt, cfg, msg) in cases.items():
        with open(os.path.join(path, name + ".hlo"), "w") as f:
            f.write("HloModule %s\n\nENTRY main {\n%s  ROOT c = %s custom-call%s, "
                    'custom_call_target="__cublas$lt$matmul", backend_config=%s\n}\n'
                    % (name, params, rt, ops, cfg))
        with open(os.path.join(path, name + ".yaml"), "w") as f:
            f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                    "stderr_contains: \"%s\"\n" % (name, msg.replace('"', '\\"')))


def main():
    epilogues()
    shapes_and_types()
    complex_default()
    error_cases()
