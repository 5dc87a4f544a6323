"""__cub$DeviceRadixSort goldens (testdata/interp-custom-call): XLA:GPU's
radix-sort custom call -- each row along the minor dimension sorted stably
by key, ascending or descending, values carried along.  The reference is
Python's stable sort with the key order written out: integers by value;
floats with -0.0 == +0.0, negative NaN first and positive NaN last."""
import math
import os

import numpy as np

from gen import ROOT, module, write
from hlolit import const

D = "interp-custom-call"
rng = np.random.default_rng(71)


def order_key(v):
    if isinstance(v, float) and math.isnan(v):
        return (0, 0.0) if math.copysign(1.0, v) < 0 else (2, 0.0)
    return (1, v + 0.0 if isinstance(v, float) else v)


def sort_rows(keys, values, descending):
    ks, vs = keys.copy(), None if values is None else values.copy()
    for r in np.ndindex(*keys.shape[:-1]):
        row = [k.item() for k in keys[r]]
        perm = sorted(range(len(row)), key=lambda j: order_key(row[j]), reverse=descending)
        ks[r] = keys[r][perm]
        if values is not None:
            vs[r] = values[r][perm]
    return ks, vs


def f32_const(name, a):
    """A 1-D f32 constant keeping the sign of NaNs (hlolit.const drops it)."""
    def el(v):
        if np.isnan(v):
            return "-nan" if np.signbit(v) else "nan"
        return repr(float(v))
    return "  %s = f32[%d] constant({%s})" % (name, a.size, ", ".join(el(v) for v in a))


def shape(et, a):
    return "%s[%s]" % (et, ",".join(map(str, a.shape)))


def cases():
    lines, outs, exp = [], [], []
    neg_nan = -np.float32(np.nan)
    f = np.array([3, -0.0, 1, np.inf, np.nan, 0.0, -2, neg_nan, -np.inf, 1, -0.0, 2.5], np.float32)
    specs = [
        ("f32", f, None, None, False),
        ("f32", f, None, None, True),
        ("s32", rng.integers(-3, 4, (3, 5)).astype(np.int32), "u32",
         rng.integers(0, 1 << 32, (3, 5), dtype=np.uint64).astype(np.uint32), False),
        ("u16", rng.integers(0, 4, (2, 6)).astype(np.uint16), "f32",
         (rng.integers(-8, 9, (2, 6)) / 4).astype(np.float32), True),
        ("s8", rng.integers(-128, 128, (9,)).astype(np.int8), "u64",
         rng.integers(0, 1 << 63, (9,), dtype=np.uint64) * np.uint64(2), True),
    ]
    for n, (ket, k, vet, v, desc) in enumerate(specs):
        ks, vs = sort_rows(k, v, desc)
        names = ["k%d" % n] + (["v%d" % n] if v is not None else [])
        lines.append(f32_const(names[0], k) if ket == "f32" else const(names[0], ket, k))
        if v is not None:
            lines.append(const(names[1], vet, v))
        leaves = [shape(ket, k)] + ([shape(vet, v)] if v is not None else []) + ["u8[8]"]
        lines.append('  cs%d = (%s) custom-call(%s), custom_call_target="__cub$DeviceRadixSort", '
                     'backend_config="{\\"descending\\":%s}"'
                     % (n, ", ".join(leaves), ", ".join(names), "true" if desc else "false"))
        for j, (et, a) in enumerate([(ket, ks)] + ([(vet, vs)] if v is not None else [])):
            g = "g%d_%d" % (n, j)
            lines.append("  %s = %s get-tuple-element(cs%d), index=%d" % (g, shape(et, a), n, j))
            outs.append((g, et, list(a.shape)))
            exp.append((et, a))
    write(D, "cub_radix_sort", module("cub_radix_sort", [], lines, outs), exp)

    bad = "cub_radix_sort_bad_values"
    with open(os.path.join(ROOT, D, bad + ".hlo"), "w") as fh:
        fh.write("HloModule %s\n\nENTRY main {\n  k = f32[4] parameter(0)\n  v = s32[5] parameter(1)\n"
                 '  ROOT s = (f32[4], s32[5], u8[0]) custom-call(k, v), custom_call_target="__cub$DeviceRadixSort"\n}\n'
                 % bad)
    with open(os.path.join(ROOT, D, bad + ".yaml"), "w") as fh:
        fh.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                 "stderr_contains: '__cub$DeviceRadixSort takes integer or float keys'\n" % bad)


def main():
    cases()
