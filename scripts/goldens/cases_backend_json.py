"""backend_config spelling goldens (testdata/interp-custom-call/backend_json_*):
every custom call whose config is protobuf JSON, with its config written the
ways protobuf's JSON parser takes -- proto (snake_case) and JSON
(lowerCamelCase) field names, enums by name, number and quoted number, int64
bare and quoted, floats quoted, null for the default, GpuBackendConfig's
wrapper fields that cannot change a result -- plus refusals: unknown fields,
values hlotools does not implement, malformed JSON, a field given twice.

Expected values are numpy's, from the targets' definitions (a dot, a
convolution, a triangular product, a sort, PartialReduce's bins), on small
integer or dyadic data so every result is exact."""
import json
import os

import numpy as np

from cases_partial_reduce import partial_reduce
from gen import ROOT, module, write
from hlolit import const, shape_str

D = "interp-custom-call"
rng = np.random.default_rng(97)


def ri(*s, lo=-3, hi=4):
    return rng.integers(lo, hi, s).astype(np.float64)


def raw(cfg):
    """cfg as a raw {...} backend_config (HLO takes JSON there unquoted)."""
    return json.dumps(cfg)


class Mod:
    def __init__(self):
        self.lines, self.outs, self.exp, self.comps, self.n = [], [], [], [], 0

    def consts(self, *arrs):
        names = []
        for arr, et in arrs:
            self.n += 1
            nm = "p%d" % self.n
            self.lines.append(const(nm, et, arr))
            names.append(nm)
        return names

    def call(self, target, ops, leaves, cfg, extra="", keep=(0,), exp=()):
        """leaves: result leaf shapes (a tuple when more than one); keep:
        the leaves that are outputs, exp their (et, value)."""
        self.n += 1
        cc = "c%d" % self.n
        rt = "(%s)" % ", ".join(leaves) if len(leaves) > 1 else leaves[0]
        self.lines.append('  %s = %s custom-call(%s), %scustom_call_target="%s", backend_config=%s'
                          % (cc, rt, ", ".join(ops), extra, target, cfg))
        for i, (et, v) in zip(keep, exp):
            if len(leaves) > 1:
                g = "g%d_%d" % (self.n, i)
                self.lines.append("  %s = %s get-tuple-element(%s), index=%d"
                                  % (g, leaves[i], cc, i))
            else:
                g = cc
            self.outs.append((g, et, list(np.shape(v))))
            self.exp.append((et, v))

    def write(self, name):
        write(D, name, module(name, self.comps, self.lines, self.outs), self.exp)


def gemm():
    m = Mod()
    a, b, c = ri(2, 3), ri(3, 4), ri(2, 4)
    na, nb, nc = m.consts((a, "f32"), (b, "f32"), (c, "f32"))
    dn = {"lhs_contracting_dimensions": ["1"], "rhs_contracting_dimensions": ["0"],
          "lhs_batch_dimensions": [], "rhs_batch_dimensions": []}
    dn_camel = {"lhsContractingDimensions": [1], "rhsContractingDimensions": ["0"],
                "lhsBatchDimensions": [], "rhsBatchDimensions": []}
    out = ["f32[2,4]", "s8[16]"]
    # bare GemmBackendConfig, proto names, enum by name, int64 quoted
    m.call("__cublas$gemm", [na, nb], out, raw(
        {"alpha_real": 2, "alpha_imag": 0, "beta": 0, "dot_dimension_numbers": dn,
         "precision_config": {"operand_precision": ["DEFAULT", "DEFAULT"],
                              "algorithm": "ALG_UNSET"},
         "epilogue": "DEFAULT", "selected_algorithm": "-1", "lhs_stride": "6",
         "rhs_stride": "12", "grad_x": False, "grad_y": False, "damax_output": False,
         "is_fp8": False}), exp=[("f32", 2 * a @ b)])
    # GpuBackendConfig in JSON names, alpha and beta quoted, enums by number,
    # a c operand (beta != 0), nulls for defaults
    m.call("__cublas$gemm", [na, nb, nc], out, raw(
        {"operationQueueId": "2", "waitOnOperationQueues": ["0", 1],
         "gemmBackendConfig": {"alphaReal": "0.5", "alphaImag": None, "beta": "-1.5",
                               "dotDimensionNumbers": dn_camel,
                               "precisionConfig": {"operandPrecision": [2, "1"], "algorithm": 11},
                               "epilogue": 0, "selectedAlgorithm": 3, "gradX": None},
         "forceEarliestSchedule": True,
         "reificationCost": [{"endToEndCycles": 10, "execTimeUs": "1.5", "name": "m"}]}),
        exp=[("f32", 0.5 * a @ b - 1.5 * c)])
    # the alpa dumps' older GemmBackendConfig: batch_size, bare, batched
    ab, bb = ri(2, 2, 3), ri(2, 3, 2)
    nab, nbb = m.consts((ab, "f32"), (bb, "f32"))
    m.call("__cublas$gemm", [nab, nbb], ["f32[2,2,2]"], raw(
        {"alpha_real": 1, "alpha_imag": 0, "beta": 0,
         "dot_dimension_numbers": {"lhs_contracting_dimensions": ["2"],
                                   "rhs_contracting_dimensions": ["1"],
                                   "lhs_batch_dimensions": ["0"], "rhs_batch_dimensions": ["0"]},
         "batch_size": "2", "lhs_stride": "6", "rhs_stride": "6", "selected_algorithm": "-1"}),
        exp=[("f32", np.einsum("bmk,bkn->bmn", ab, bb))])
    # cuBLASLt: epilogue by number (2 = RELU), by quoted number ("3" =
    # BIAS_RELU), and by name in JSON names
    bias = ri(4) / 2
    (nbias,) = m.consts((bias, "f32"))
    m.call("__cublas$lt$matmul", [na, nb], out, raw(
        {"gemm_backend_config": {"alpha_real": 1, "beta": 0, "dot_dimension_numbers": dn,
                                 "epilogue": 2}}), exp=[("f32", np.maximum(a @ b, 0))])
    m.call("__cublas$lt$matmul", [na, nb, nbias], out, raw(
        {"gemmBackendConfig": {"alphaReal": 1, "beta": 0, "dotDimensionNumbers": dn_camel,
                               "epilogue": "3"}}), exp=[("f32", np.maximum(a @ b + bias, 0))])
    m.call("__cublas$lt$matmul", [na, nb, nbias], out, raw(
        {"gemmBackendConfig": {"alphaReal": -1, "beta": 0, "dotDimensionNumbers": dn_camel,
                               "epilogue": "BIAS"}}), exp=[("f32", -(a @ b) + bias)])
    m.write("backend_json_gemm")


def conv2d(x, k):
    """b01f input, 01io filter, stride 1, no padding."""
    kh, kw = k.shape[:2]
    oh, ow = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    y = np.zeros((x.shape[0], oh, ow, k.shape[3]))
    for i in range(oh):
        for j in range(ow):
            y[:, i, j, :] = np.einsum("bhwc,hwco->bo", x[:, i:i + kh, j:j + kw, :], k)
    return y


def cudnn():
    m = Mod()
    x, k, bias = ri(1, 3, 3, 2), ri(2, 2, 2, 2), ri(2)
    nx, nk, nbias = m.consts((x, "f32"), (k, "f32"), (bias, "f32"))
    y = conv2d(x, k)
    win = "window={size=2x2}, dim_labels=b01f_01io->b01f, "
    out = ["f32[1,2,2,2]", "u8[0]"]
    algorithm = {"algoId": "14", "mathType": "TENSOR_OP_MATH", "tuningKnobs": {"2": "1", "3": "0"},
                 "isCudnnFrontend": True, "workspaceSize": "1024"}
    # JSON names, autotuning's algorithm, enum by name, null for a default
    m.call("__cudnn$convForward", [nx, nk], out, raw(
        {"operationQueueId": "0", "waitOnOperationQueues": [],
         "cudnnConvBackendConfig": {"algorithm": algorithm, "convResultScale": 1,
                                    "activationMode": "kNone", "sideInputScale": 0,
                                    "leakyreluAlpha": None, "reorderedInt8NchwVect": False},
         "forceEarliestSchedule": False}), extra=win, exp=[("f32", y)])
    # bare CudnnConvBackendConfig, proto names, quoted floats, enum by number
    # (2 = kRelu)
    m.call("__cudnn$convBiasActivationForward", [nx, nk, nbias], out, raw(
        {"algorithm": {"algo_id": 1, "math_type": 0, "is_cudnn_frontend": False},
         "conv_result_scale": "0.5", "activation_mode": 2, "side_input_scale": "0",
         "leakyrelu_alpha": 0}), extra=win,
        exp=[("f32", np.maximum(0.5 * y + bias, 0))])
    m.write("backend_json_cudnn")


def triangular_solve():
    """__cublas$triangularSolve: b = op(a) x (left_side) or x op(a); x known."""
    m = Mod()
    # a power-of-two diagonal: substitution divides exactly
    a = np.tril(ri(3, 3), -1) + np.diag([1.0, 2.0, 4.0])
    x = ri(3, 2) / 4
    (na,) = m.consts((a, "f32"))
    for opts, op, left in [
            ({"leftSide": True, "lower": True, "unitDiagonal": False, "transposeA": 1}, a, True),
            ({"left_side": True, "lower": True, "transpose_a": "2"}, a.T, True),
            ({"leftSide": None, "lower": True, "transposeA": "ADJOINT"}, a.T, False)]:
        xx = x if left else x.T
        b = op @ xx if left else xx @ op
        (nb,) = m.consts((b, "f32"))
        shp = shape_str("f32", xx.shape)
        m.call("__cublas$triangularSolve", [na, nb], [shp, "s8[0]"], raw(opts),
               exp=[("f32", xx)])
    m.write("backend_json_triangular_solve")


def sort_and_cholesky():
    m = Mod()
    keys = np.array([3, -1, 2, 0, -4, 5], np.float32)
    (nk,) = m.consts((keys, "f32"))
    # null, an empty object and an empty string all read as the default
    for cfg, desc in [(raw({"descending": None}), False), (raw({}), False), ('""', False),
                      (raw({"descending": True}), True)]:
        m.call("__cub$DeviceRadixSort", [nk], ["f32[6]", "u8[8]"], cfg,
               exp=[("f32", np.sort(keys)[::-1] if desc else np.sort(keys))])
    # Cholesky of l l^T with l dyadic: the factor is exact
    low = np.array([[2, 0, 0], [1, 1, 0], [-1, 0.5, 2]])
    a = (low @ low.T)[None]
    (na,) = m.consts((a, "f64"))
    # the factor's other triangle keeps a's values, as LAPACK's potrf leaves it
    for cfg, fac in [({"lower": True}, low + np.triu(a[0], 1)),
                     ({"lower": None}, low.T + np.tril(a[0], -1))]:
        m.call("__cusolver$cholesky", [na], ["f64[1,3,3]{1,2,0}", "f64[16]", "s32[1]"],
               raw(cfg), extra="operand_layout_constraints={f64[1,3,3]{1,2,0}}, ",
               keep=(0, 2), exp=[("f64", fac[None]), ("s32", np.zeros(1, np.int32))])
    m.write("backend_json_sort_cholesky")


def partial_reduce_case():
    m = Mod()
    m.comps.append("gt {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n"
                   "  c = s32[] parameter(2)\n  d = s32[] parameter(3)\n"
                   "  ROOT r = pred[] compare(a, b), direction=GT\n}\n")
    x = ri(2, 6)
    iota = np.broadcast_to(np.arange(6, dtype=np.int32), (2, 6)).copy()
    (nx,) = m.consts((x, "f32"))
    m.lines += ["  i = s32[2,6] iota(), iota_dimension=1", "  ninf = f32[] constant(-inf)",
                "  m1 = s32[] constant(-1)"]
    v, j = partial_reduce([x.astype(np.float32), iota], [np.float32(-np.inf), np.int32(-1)], 1, 3,
                          lambda p, q: p[0] > q[0])
    for cfg in [{"log2Reduction": "1", "reductionDim": "1", "toApplyType": "comparator",
                 "topK": "2", "recallTarget": "0.95"},
                {"log2_reduction": 1, "reduction_dim": 1, "to_apply_type": None, "top_k": 2,
                 "recall_target": "NaN"}]:
        m.call("PartialReduce", [nx, "i", "ninf", "m1"], ["f32[2,3]", "s32[2,3]"], raw(cfg),
               extra="called_computations={gt}, ", keep=(0, 1), exp=[("f32", v), ("s32", j)])
    m.write("backend_json_partial_reduce")


GEMM_DN = {"lhs_contracting_dimensions": ["1"], "rhs_contracting_dimensions": ["0"],
           "lhs_batch_dimensions": [], "rhs_batch_dimensions": []}


def refusals():
    """(name, target, operands, result, extra attributes, config text, message)."""
    gemm = lambda **kw: dict({"alpha_real": 1, "beta": 0, "dot_dimension_numbers": GEMM_DN}, **kw)
    conv_extra = "window={size=2x2}, dim_labels=b01f_01io->b01f, "
    cases = [
        ("backend_json_unknown_field", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         raw({"gemm_backend_config": gemm(epilogueAux=True)}),
         'instruction c: __cublas$gemm: backend_config field "gemm_backend_config.epilogueAux": '
         "not a field of GemmBackendConfig"),
        ("backend_json_unknown_nested_field", "__cublas$lt$matmul", "(a, b)", "f32[2,4]", "",
         raw(gemm(dot_dimension_numbers=dict(GEMM_DN, lhs_ragged_dimensions=[]))),
         'backend_config field "dot_dimension_numbers.lhs_ragged_dimensions": not a field of '
         "DotDimensionNumbers"),
        ("backend_json_gemm_epilogue", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         raw(gemm(epilogue="GELU_AUX")),
         'instruction c: __cublas$gemm: backend_config field "epilogue": value "GELU_AUX" is '
         "not supported"),
        ("backend_json_gemm_epilogue_number", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         raw(gemm(epilogue="5")),
         'backend_config field "epilogue": value "GELU_AUX" is not supported'),
        ("backend_json_damax_output", "__cublas$lt$matmul", "(a, b)", "(f32[2,4], f32[])", "",
         raw({"gemmBackendConfig": gemm(damaxOutput=True)}),
         'backend_config field "gemmBackendConfig.damaxOutput": value true is not supported'),
        ("backend_json_packed_nibble", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         raw(gemm(precision_config={"operand_precision": ["PACKED_NIBBLE", "PACKED_NIBBLE"]})),
         'backend_config field "precision_config.operand_precision": value [...] is not '
         "supported; PACKED_NIBBLE"),
        ("backend_json_fusion_config", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         raw({"gemm_backend_config": gemm(), "fusion_backend_config": {"kind": "__triton"}}),
         'backend_config field "fusion_backend_config": value {...} is not supported'),
        ("backend_json_twice", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         raw(dict(gemm(), alphaReal=2)),
         'backend_config field "alphaReal": the field is given twice (also as "alpha_real")'),
        ("backend_json_bad_int", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         raw(gemm(selected_algorithm="9223372036854775808")),
         'backend_config field "selected_algorithm": expected a 64-bit integer'),
        ("backend_json_malformed", "__cublas$gemm", "(a, b)", "f32[2,4]", "",
         '"{\\"alpha_real\\":1,}"', "__cublas$gemm: backend_config: JSON: expected a key string at byte 16"),
        ("backend_json_truncated", "__cublas$lt$matmul", "(a, b)", "f32[2,4]", "",
         '"{\\"gemm_backend_config\\":{\\"beta\\":0"', "backend_config: JSON: expected ',' or '}' at byte 32"),
        ("backend_json_not_object", "__cublas$gemm", "(a, b)", "f32[2,4]", "", '"[1]"',
         "backend_config: expected an object (GemmBackendConfig), not an array"),
        ("backend_json_cudnn_unknown", "__cudnn$convForward", "(x, k)", "(f32[1,2,2,2], u8[0])",
         conv_extra, raw({"cudnn_conv_backend_config": {"conv_result_scale": 1,
                                                           "fused_activation": "kRelu"}}),
         'backend_config field "cudnn_conv_backend_config.fused_activation": not a field of '
         "CudnnConvBackendConfig"),
        ("backend_json_cudnn_graph", "__cudnn$convForward", "(x, k)", "(f32[1,2,2,2], u8[0])",
         conv_extra, raw({"conv_result_scale": 1, "serializedGraph": "g"}),
         'backend_config field "serializedGraph": value "g" is not supported'),
        ("backend_json_cudnn_reordered", "__cudnn$convForward", "(x, k)",
         "(f32[1,2,2,2], u8[0])", conv_extra,
         raw({"conv_result_scale": 1, "reordered_int8_nchw_vect": True}),
         'backend_config field "reordered_int8_nchw_vect": value true is not supported'),
        ("backend_json_trsm_invalid", "__cublas$triangularSolve", "(t, t)", "(f32[3,3], s8[0])", "",
         raw({"left_side": True, "transpose_a": "TRANSPOSE_INVALID"}),
         'backend_config field "transpose_a": value "TRANSPOSE_INVALID" is not supported'),
        ("backend_json_sort_unknown", "__cub$DeviceRadixSort", "(z)", "(f32[4], u8[8])", "",
         raw({"descending": False, "stable": True}),
         'backend_config field "stable": not a field of SortOptions'),
        ("backend_json_cholesky_type", "__cusolver$cholesky", "(t)",
         "(f32[3,3], f32[16], s32[])", "", raw({"lower": "yes"}),
         'backend_config field "lower": expected true or false, not a string'),
    ]
    params = ("  a = f32[2,3] parameter(0)\n  b = f32[3,4] parameter(1)\n"
              "  x = f32[1,3,3,2] parameter(2)\n  k = f32[2,2,2,2] parameter(3)\n"
              "  t = f32[3,3] parameter(4)\n  z = f32[4] parameter(5)\n")
    path = os.path.join(ROOT, D)
    for name, target, ops, rt, extra, cfg, msg in cases:
        with open(os.path.join(path, name + ".hlo"), "w") as f:
            f.write("HloModule %s\n\nENTRY main {\n%s  ROOT c = %s custom-call%s, %s"
                    'custom_call_target="%s", backend_config=%s\n}\n'
                    % (name, params, rt, ops, extra, target, cfg))
        with open(os.path.join(path, name + ".yaml"), "w") as f:
            f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                    "stderr_contains: %s\n" % (name, json.dumps(msg)))


def main():
    gemm()
    cudnn()
    triangular_solve()
    sort_and_cholesky()
    partial_reduce_case()
    refusals()
