#!/usr/bin/python3
"""Writes the inputs and expected results of the golden cases in
testdata/npz-inputs/ (how .npz entries bind), testdata/early-errors/ and
testdata/model-kind/.

Run with a python that has numpy (e.g. /usr/bin/python3).  Inputs are written
with np.savez_compressed (deflate members, as JAX users save them) unless a
case needs np.savez; expected results are computed here with numpy and saved
with np.save, so the golden runner compares hlorun's --output byte for byte.
"""
import os

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")
NPZ = os.path.join(ROOT, "npz-inputs")
EARLY = os.path.join(ROOT, "early-errors")
KIND = os.path.join(ROOT, "model-kind")
for d in (NPZ, EARLY, KIND):
    os.makedirs(d, exist_ok=True)

# bind.hlo / bind_args.hlo compute x - y (broadcast along rows): the order
# matters, so a wrong binding gives a different result (or a shape error).
x = np.array([[1.5, -2.0, 0.25], [4.0, 5.0, -6.5]], dtype=np.float32)
y = np.array([0.5, 1.0, -0.25], dtype=np.float32)
np.save(os.path.join(NPZ, "expected_x_minus_y.npy"), x - y)


def savez(name, **arrays):
    np.savez_compressed(os.path.join(NPZ, name), **arrays)


# One case per rule, the entries deliberately in the other order (y first)
# so that position alone would bind them wrongly.
savez("by_hlo_name.npz", **{"Arg_1.2": y, "Arg_0.1": x})
savez("by_percent_name.npz", **{"%Arg_1.2": y, "%Arg_0.1": x})
savez("by_stripped_name.npz", **{"Arg_1": y, "Arg_0": x})
savez("by_op_name.npz", y=y, x=x)  # JAX: metadata={op_name="x"}
savez("by_args_index.npz", **{"args[1]": y, "args[0]": x})  # JAX: op_name="args[0]"
savez("by_arg_n.npz", arg1=y, arg0=x)
# Unnamed entries bind by position among those no name claimed.
savez("by_position.npz", first=x, second=y)
savez("mixed.npz", y=y, other=x)  # y by name, "other" takes parameter 0
np.savez(os.path.join(NPZ, "stored_by_op_name.npz"), y=y, x=x)  # np.savez: stored members
# Binding errors.
savez("only_x.npz", x=x)
savez("extra_z.npz", x=x, y=y, z=y)
savez("x_twice_a.npz", x=x)
savez("x_twice_b.npz", x=x, y=y)
savez("x_and_arg0.npz", x=x, arg0=x, y=y)
savez("shared_op_name.npz", HLO_Args=x)
np.save(os.path.join(NPZ, "x.npy"), x)

# testdata/early-errors: a result file that must survive a failed run.
with open(os.path.join(EARLY, "old_result.npy"), "wb") as f:
    np.save(f, np.array([42.0], dtype=np.float32))
np.save(os.path.join(EARLY, "x.npy"), np.array([1.0, 2.0], dtype=np.float32))

# testdata/model-kind: things that are not HLO text.
np.save(os.path.join(KIND, "array.npy"), x)
np.savez_compressed(os.path.join(KIND, "arrays.npz"), x=x)
# A serialized HloModuleProto starts with field 1 (name, a string): bytes
# 0x0a, length, name; then binary fields.
with open(os.path.join(KIND, "module.pb"), "wb") as f:
    f.write(b"\x0a\x05jit_f\x12\x04main\x18\x01\x22\x00\x2a\x03\x08\x01\x10")
with open(os.path.join(KIND, "module_pb_no_suffix.bin"), "wb") as f:
    f.write(b"\x0a\x05jit_f\x12\x04main\x18\x01\x22\x00\x2a\x03\x08\x01\x10\x00\x00\x00")

# per_device.hlo (2 replicas x 2 partitions): entries prefixed r{R}_ bind on
# replica R's devices, r{R}p{P}_ on device (R, P) only, the most specific
# entry of a name winning; unprefixed ones bind everywhere.  Each device
# returns (x - y, the sum of all four devices' x - y).
xs = np.array([1.0, 2.0, 3.0], dtype=np.float32)
x01 = np.array([10.0, 20.0, 30.0], dtype=np.float32)
y_r0 = np.array([0.5, 0.25, 0.125], dtype=np.float32)
y_r1p0 = np.array([-1.0, -2.0, -4.0], dtype=np.float32)
y_all = np.array([100.0, 200.0, 300.0], dtype=np.float32)
np.savez(os.path.join(NPZ, "per_device.npz"),
         x=xs, r0p1_x=x01, r0_y=y_r0, r1p0_y=y_r1p0, y=y_all)
per = {(0, 0): (xs, y_r0), (0, 1): (x01, y_r0), (1, 0): (xs, y_r1p0), (1, 1): (xs, y_all)}
d = {k: (a - b).astype(np.float32) for k, (a, b) in per.items()}
total = np.zeros(3, dtype=np.float32)
for k in sorted(d):  # device order r * 2 + p, as the all-reduce folds
    total = (total + d[k]).astype(np.float32)


def lit(a):
    return "{" + ", ".join(repr(float(v)).removesuffix(".0") for v in a) + "}"


with open(os.path.join(NPZ, "per_device.out"), "w") as f:
    for (r, p) in sorted(d):
        f.write(f"replica {r}, partition {p}:\n(\nf32[3] {lit(d[(r, p)])},\nf32[3] {lit(total)}\n)\n")
# A prefix naming a device the run does not have is an error.
np.savez(os.path.join(NPZ, "per_device_bad.npz"), x=xs, y=y_all, r2_y=y_all)
