#!/usr/bin/python3
"""Writes the testdata/stablehlo/jax_resource* and jax_mlp* goldens.

jax_resource: a StableHLO module whose
constants are dense_resource blobs (and hex dense<"0x..."> blobs) of every
element type, the equivalent hand-spelled HLO module, and the expected
results as an .npz computed here with numpy (independently of hlotools).

Blob bytes come from numpy's tobytes() (little-endian); bf16 and f8 bytes are
encoded here from the exponent/mantissa definitions; the expected values are
the plain numbers the bytes were made from.

jax_mlp: a small MLP in the exact form jax.jit(mlp).lower(x, w1, b1).as_text()
prints it (module attributes, mhlo.layout_mode, loc names on arguments,
jax.result_info, #loc lines at the end, the closed-over second layer as a
dense_resource blob and a hex dense<"0x...">), the equivalent HLO as
JAX's compiler_ir("hlo") spells it, and numpy's result.

    /usr/bin/python3 scripts/gen-stablehlo-jax.py
"""
import os
import struct

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "stablehlo")


def enc_float(v, ebits, mbits, bias):
    """Bits of an exactly representable normal value in a small float format."""
    if v == 0:
        return 0
    sign = 1 if v < 0 else 0
    m, e = np.frexp(abs(v))  # abs(v) = m * 2**e, 0.5 <= m < 1
    exp = int(e) - 1 + bias
    frac = (m * 2 - 1) * (1 << mbits)
    assert frac == int(frac) and 0 < exp < (1 << ebits), v
    return sign << (ebits + mbits) | exp << mbits | int(frac)


def bf16_bytes(vals):
    bits = np.array(vals, dtype=np.float32).view(np.uint32)
    assert np.all(bits & 0xFFFF == 0)
    return (bits >> 16).astype("<u2").tobytes()


def resource_hex(raw):
    # 4 bytes of alignment (little-endian), then the data
    return '"0x' + (struct.pack("<I", 4) + raw).hex().upper() + '"'


# name: (mlir type, hlo type, values, raw bytes, expected array for --expect)
f32 = np.array([[1.5, -2.0, 3.25], [0.0, 1e-3, -7.0]], dtype=np.float32)
bf16 = [1.0, -2.5, 0.15625, 384.0]
f16 = np.array([0.5, -65504.0, 6.103515625e-05], dtype=np.float16)
i1 = np.array([True, False, False, True, True])
c64 = np.array([1 + 2j, -0.5 - 4j], dtype=np.complex64)
e4m3 = [1.0, -2.0, 0.5, 448.0]
i8 = np.array([-128, 0, 127], dtype=np.int8)
u16 = np.array([0, 65535], dtype=np.uint16)
s4 = np.array([-8, -1, 0, 7], dtype=np.int8)
e5m2 = [1.0, 1.5, -4.0, 0.25]

res = {
    "r_f32": ("tensor<2x3xf32>", "f32[2,3]", f32.astype("<f4").tobytes(), f32),
    "r_bf16": ("tensor<4xbf16>", "bf16[4]", bf16_bytes(bf16), np.array(bf16, np.float32)),
    "r_f16": ("tensor<3xf16>", "f16[3]", f16.astype("<f2").tobytes(), f16),
    "r_i1": ("tensor<5xi1>", "pred[5]", i1.astype(np.uint8).tobytes(), i1),
    "r_c64": ("tensor<2xcomplex<f32>>", "c64[2]", c64.astype("<c8").tobytes(), c64),
    "r_e4m3": ("tensor<4xf8E4M3FN>", "f8e4m3fn[4]", bytes(enc_float(v, 4, 3, 7) for v in e4m3),
               np.array(e4m3, np.float32)),
    "r_i8": ("tensor<3xi8>", "s8[3]", i8.tobytes(), i8),
    "r_u16": ("tensor<2xui16>", "u16[2]", u16.astype("<u2").tobytes(), u16),
    "r_s4": ("tensor<4xi4>", "s4[4]", bytes(int(v) & 0xF for v in s4), s4),
}


def hlo_lit(arr, htype):
    a = np.asarray(arr)
    if htype.startswith("pred"):
        items = ["true" if v else "false" for v in a.ravel()]
    elif htype.startswith("c64"):
        items = ["(%r, %r)" % (float(v.real), float(v.imag)) for v in a.ravel()]
    elif a.dtype.kind == "f":
        items = [repr(float(v)) for v in a.ravel()]
    else:
        items = [str(int(v)) for v in a.ravel()]
    if a.ndim == 2:
        n = a.shape[1]
        return "{" + ", ".join("{" + ", ".join(items[r * n:(r + 1) * n]) + "}" for r in range(a.shape[0])) + "}"
    return "{" + ", ".join(items) + "}"


def main():
    names = list(res)
    mlir_types = [res[n][0] for n in names] + ["tensor<4xf8E5M2>", "tensor<2x3xf32>"]
    lines = []
    lines.append("// Constants as JAX and torch-mlir write large ones: dense_resource blobs in the")
    lines.append("// {-# dialect_resources #-} section (4 bytes of alignment, then the raw")
    lines.append("// little-endian elements; i1 and i4 one byte each), and a hex dense<\"0x...\">")
    lines.append("// of an f8 type.  Written by scripts/gen-stablehlo-jax.py; expected values in")
    lines.append("// jax_resource.expected.npz (numpy).")
    lines.append("module @jax_resource attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {")
    lines.append("  func.func public @main(%%arg0: tensor<2x3xf32>) -> (%s) {" % ", ".join(mlir_types))
    for i, n in enumerate(names):
        lines.append("    %%c%d = stablehlo.constant dense_resource<%s> : %s" % (i, n, res[n][0]))
    e5 = "".join("%02X" % enc_float(v, 5, 2, 15) for v in e5m2)
    lines.append('    %%c%d = stablehlo.constant dense<"0x%s"> : tensor<4xf8E5M2>' % (len(names), e5))
    # generic form of a resource constant, used by an op so the data is computed with
    lines.append('    %g = "stablehlo.constant"() <{value = dense_resource<r_f32> : tensor<2x3xf32>}> : () -> tensor<2x3xf32>')
    lines.append("    %sum = stablehlo.add %g, %arg0 : tensor<2x3xf32>")
    outs = ["%%c%d" % i for i in range(len(names) + 1)] + ["%sum"]
    lines.append("    return %s : %s" % (", ".join(outs), ", ".join(mlir_types)))
    lines.append("  }")
    lines.append("}")
    lines.append("")
    lines.append("{-#")
    lines.append("  dialect_resources: {")
    lines.append("    builtin: {")
    for k, n in enumerate(names):
        lines.append("      %s: %s%s" % (n, resource_hex(res[n][2]), "," if k + 1 < len(names) else ""))
    lines.append("    }")
    lines.append("  }")
    lines.append("#-}")
    open(os.path.join(ROOT, "jax_resource.mlir"), "w").write("\n".join(lines) + "\n")

    hlo_types = [res[n][1] for n in names] + ["f8e5m2[4]", "f32[2,3]"]
    h = ["// The same module as jax_resource.mlir, its constants spelled as HLO literals.",
         "HloModule jax_resource", "", "ENTRY main {", "  arg0 = f32[2,3] parameter(0)"]
    for i, n in enumerate(names):
        h.append("  c%d = %s constant(%s)" % (i, res[n][1], hlo_lit(res[n][3], res[n][1])))
    h.append("  c%d = f8e5m2[4] constant(%s)" % (len(names), hlo_lit(np.array(e5m2, np.float32), "f8e5m2")))
    h.append("  sum = f32[2,3] add(c0, arg0)")
    h.append("  ROOT t = (%s) tuple(%s)" % (", ".join(hlo_types),
                                             ", ".join(["c%d" % i for i in range(len(names) + 1)] + ["sum"])))
    h.append("}")
    open(os.path.join(ROOT, "jax_resource.hlo"), "w").write("\n".join(h) + "\n")

    x = np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float32)
    np.save(os.path.join(ROOT, "jax_resource_x.npy"), x)
    exp = {}
    for i, n in enumerate(names):
        exp["out%d" % i] = res[n][3]
    exp["out%d" % len(names)] = np.array(e5m2, np.float32)
    exp["out%d" % (len(names) + 1)] = f32 + x
    np.savez(os.path.join(ROOT, "jax_resource.expected.npz"), **exp)
    for kind, src in (("mlir", "jax_resource.mlir"), ("hlo", "jax_resource.hlo")):
        open(os.path.join(ROOT, "jax_resource_%s.yaml" % kind), "w").write(
            "# dense_resource and hex blobs of every element type (scripts/gen-stablehlo-jax.py):\n"
            "# the %s module gives numpy's values.\n"
            "command: hlorun\n"
            "args: ['%s', '--inputs', 'jax_resource_x.npy', '--quiet', '--expect', 'jax_resource.expected.npz',"
            " '--rtol', '0', '--atol', '0']\n"
            "stderr_contains: 'out10: ok'\n" % (kind, src))


MLP_MLIR = """\
#loc1 = loc("x")
#loc2 = loc("w1")
#loc3 = loc("b1")
module @jit_mlp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x4xf32> {mhlo.layout_mode = "default"} loc("x"), %arg1: tensor<4x8xf32> {mhlo.layout_mode = "default"} loc("w1"), %arg2: tensor<8xf32> {mhlo.layout_mode = "default"} loc("b1")) -> (tensor<2x3xf32> {jax.result_info = "", mhlo.layout_mode = "default"}) {
    %cst = stablehlo.constant dense_resource<__w2> : tensor<8x3xf32> loc(#loc)
    %cst_0 = stablehlo.constant dense<"0x@B2@"> : tensor<3xf32> loc(#loc)
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32> loc(#loc)
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32> loc(#loc11)
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<8xf32>) -> tensor<2x8xf32> loc(#loc12)
    %2 = stablehlo.add %0, %1 : tensor<2x8xf32> loc(#loc12)
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x8xf32> loc(#loc13)
    %4 = stablehlo.maximum %2, %3 : tensor<2x8xf32> loc(#loc13)
    %5 = stablehlo.dot_general %4, %cst, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32> loc(#loc14)
    %6 = stablehlo.broadcast_in_dim %cst_0, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32> loc(#loc15)
    %7 = stablehlo.add %5, %6 : tensor<2x3xf32> loc(#loc15)
    %8 = stablehlo.tanh %7 : tensor<2x3xf32> loc(#loc16)
    return %8 : tensor<2x3xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc4 = loc("/home/user/mlp.py":9:10)
#loc5 = loc("/home/user/mlp.py":10:8)
#loc6 = loc("/home/user/mlp.py":11:10)
#loc7 = loc("/home/user/mlp.py":11:9)
#loc8 = loc("/home/user/mlp.py":12:9)
#loc9 = loc("/home/user/mlp.py":15:0)
#loc10 = loc(callsite(#loc4 at #loc9))
#loc11 = loc("jit(mlp)/jit(main)/dot_general"(#loc10))
#loc12 = loc("jit(mlp)/jit(main)/add"(#loc10))
#loc13 = loc("jit(mlp)/jit(main)/max"(#loc5))
#loc14 = loc("jit(mlp)/jit(main)/dot_general"(#loc6))
#loc15 = loc("jit(mlp)/jit(main)/add"(#loc7))
#loc16 = loc("jit(mlp)/jit(main)/tanh"(#loc8))

{-#
  dialect_resources: {
    builtin: {
      __w2: @W2@
    }
  }
#-}
"""

MLP_HLO = """\
// jax_mlp.mlir as jax.jit(mlp).lower(...).compiler_ir("hlo") spells it.
HloModule jit_mlp, entry_computation_layout={(f32[2,4]{1,0}, f32[4,8]{1,0}, f32[8]{0})->f32[2,3]{1,0}}

ENTRY main.15 {
  Arg_0.1 = f32[2,4]{1,0} parameter(0), metadata={op_name="x"}
  Arg_1.2 = f32[4,8]{1,0} parameter(1), metadata={op_name="w1"}
  dot.6 = f32[2,8]{1,0} dot(Arg_0.1, Arg_1.2), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_name="jit(mlp)/jit(main)/dot_general" source_file="/home/user/mlp.py" source_line=9}
  Arg_2.3 = f32[8]{0} parameter(2), metadata={op_name="b1"}
  broadcast.7 = f32[2,8]{1,0} broadcast(Arg_2.3), dimensions={1}
  add.8 = f32[2,8]{1,0} add(dot.6, broadcast.7)
  constant.5 = f32[] constant(0)
  broadcast.9 = f32[2,8]{1,0} broadcast(constant.5), dimensions={}
  maximum.10 = f32[2,8]{1,0} maximum(add.8, broadcast.9)
  constant.4 = f32[8,3]{1,0} constant(@W2@)
  dot.11 = f32[2,3]{1,0} dot(maximum.10, constant.4), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  constant.12 = f32[3]{0} constant(@B2@)
  broadcast.13 = f32[2,3]{1,0} broadcast(constant.12), dimensions={1}
  add.14 = f32[2,3]{1,0} add(dot.11, broadcast.13)
  ROOT tanh.15 = f32[2,3]{1,0} tanh(add.14)
}
"""


def mlp():
    rng = np.random.default_rng(15)
    # quarter steps: exact in f32, varied signs so relu matters
    q = lambda *shape: (rng.integers(-8, 9, size=shape) / 4).astype(np.float32)
    x, w1, b1, w2, b2 = q(2, 4), q(4, 8), q(8), q(8, 3), q(3)
    w2 = w2 / 4  # keep tanh away from saturation
    h = np.maximum(x @ w1 + b1, 0)
    y = np.tanh(h @ w2 + b2).astype(np.float32)
    open(os.path.join(ROOT, "jax_mlp.mlir"), "w").write(
        MLP_MLIR.replace("@B2@", b2.astype("<f4").tobytes().hex().upper())
        .replace("@W2@", resource_hex(w2.astype("<f4").tobytes())))
    open(os.path.join(ROOT, "jax_mlp.hlo"), "w").write(
        MLP_HLO.replace("@W2@", hlo_lit(w2, "f32")).replace("@B2@", hlo_lit(b2, "f32")))
    np.savez(os.path.join(ROOT, "jax_mlp.inputs.npz"), x=x, w1=w1, b1=b1)
    np.savez(os.path.join(ROOT, "jax_mlp.expected.npz"), out0=y)
    for kind in ("mlir", "hlo"):
        open(os.path.join(ROOT, "jax_mlp_%s.yaml" % kind), "w").write(
            "# A small MLP as JAX prints it (scripts/gen-stablehlo-jax.py): the %s module gives\n"
            "# numpy's tanh(relu(x @ w1 + b1) @ w2 + b2); inputs bind by name.\n"
            "command: hlorun\n"
            "args: ['jax_mlp.%s', '--inputs', 'jax_mlp.inputs.npz', '--quiet', '--expect', 'jax_mlp.expected.npz']\n"
            "stderr_contains: 'out0: ok'\n" % (kind, kind))


main()
mlp()
