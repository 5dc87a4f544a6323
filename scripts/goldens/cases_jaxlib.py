"""jaxlib custom-call goldens (testdata/interp-custom-call): the GPU
threefry2x32 kernel behind jax.random, element by element over
(key0, key1, x0, x1) -- the reference is Threefry-2x32 with 20 rounds written
here from the algorithm and checked against Random123's known answers -- and
lu_pivots_to_permutation (transpositions applied to the identity)."""
import os

import numpy as np

from gen import ROOT, module, write
from hlolit import const

D = "interp-custom-call"
rng = np.random.default_rng(51)
M = 0xFFFFFFFF


def threefry2x32(key, ctr):
    rot = (13, 15, 26, 6, 17, 29, 16, 24)
    ks = [key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]]
    x = [(ctr[0] + ks[0]) & M, (ctr[1] + ks[1]) & M]
    for blk in range(5):
        for r in rot[(blk % 2) * 4:(blk % 2) * 4 + 4]:
            x[0] = (x[0] + x[1]) & M
            x[1] = ((x[1] << r) | (x[1] >> (32 - r))) & M
            x[1] ^= x[0]
        x[0] = (x[0] + ks[(blk + 1) % 3]) & M
        x[1] = (x[1] + ks[(blk + 2) % 3] + blk + 1) & M
    return x


# Random123's known-answer vectors for threefry2x32_20.
assert threefry2x32((0, 0), (0, 0)) == [0x6B200159, 0x99BA4EFE]
assert threefry2x32((M, M), (M, M)) == [0x1CB996FC, 0xBB002BE7]
assert threefry2x32((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3)) == [0xC4923A9C, 0x483DF7A0]


def threefry_cases():
    lines, outs, exp = [], [], []
    for n, (target, dims) in enumerate([("cu_threefry2x32_ffi", (2, 3)),
                                        ("cu_threefry2x32", (5,)),
                                        ("hip_threefry2x32_ffi", (2, 1, 2))]):
        ops = [rng.integers(0, 1 << 32, dims, dtype=np.uint64).astype(np.uint32) for _ in range(4)]
        if n == 0:  # the known-answer inputs in the first elements
            for i, v in enumerate((0x13198A2E, 0x03707344, 0x243F6A88, 0x85A308D3)):
                ops[i].flat[0] = v
            for i in range(4):
                ops[i].flat[1] = M
        o0, o1 = np.zeros(dims, np.uint32), np.zeros(dims, np.uint32)
        for i in range(int(np.prod(dims))):
            o0.flat[i], o1.flat[i] = threefry2x32((int(ops[0].flat[i]), int(ops[1].flat[i])),
                                                  (int(ops[2].flat[i]), int(ops[3].flat[i])))
        names = []
        for j, a in enumerate(ops):
            names.append("a%d_%d" % (n, j))
            lines.append(const(names[-1], "u32", a))
        sh = "u32[%s]" % ",".join(map(str, dims))
        extra = (', backend_config="\\005\\000\\000\\000\\000\\000\\000\\000"' if target == "cu_threefry2x32"
                 else ", operand_layout_constraints={%s}, api_version=API_VERSION_TYPED_FFI"
                 % ", ".join([sh] * 4))
        lines.append('  t%d = (%s, %s) custom-call(%s), custom_call_target="%s"%s'
                     % (n, sh, sh, ", ".join(names), target, extra))
        for k, o in enumerate((o0, o1)):
            lines.append("  o%d_%d = %s get-tuple-element(t%d), index=%d" % (n, k, sh, n, k))
            outs.append(("o%d_%d" % (n, k), "u32", list(dims)))
            exp.append(("u32", o))
    write(D, "jaxlib_threefry2x32", module("jaxlib_threefry2x32", [], lines, outs), exp)

    bad = "jaxlib_threefry2x32_bad_type"
    with open(os.path.join(ROOT, D, bad + ".hlo"), "w") as f:
        f.write("HloModule %s\n\nENTRY main {\n  k = u32[3] parameter(0)\n  x = s32[3] parameter(1)\n"
                '  ROOT t = (u32[3], u32[3]) custom-call(k, k, x, x), custom_call_target="cu_threefry2x32_ffi"\n}\n'
                % bad)
    with open(os.path.join(ROOT, D, bad + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                "stderr_contains: 'cu_threefry2x32_ffi takes key0, key1, x0, x1 and returns (out0, out1)'\n"
                % bad)


def pivots_to_permutation(piv, p):
    perm = list(range(p))
    for i, q in enumerate(piv):
        if 0 <= q < p:
            perm[i], perm[q] = perm[q], perm[i]
    return perm


def pivot_cases():
    lines, outs, exp = [], [], []
    specs = [("cu_lu_pivots_to_permutation", np.array([2, 2, 3, 3], np.int32), 4),
             ("cu_lu_pivots_to_permutation", rng.integers(0, 5, (2, 3, 3)).astype(np.int32), 5),
             # out-of-range pivots are skipped
             ("hip_lu_pivots_to_permutation", np.array([[-1, 7, 0], [1, 0, 2]], np.int32), 3)]
    for n, (target, piv, p) in enumerate(specs):
        batch = piv.shape[:-1]
        perm = np.zeros(batch + (p,), np.int32)
        for idx in np.ndindex(*batch):
            perm[idx] = pivots_to_permutation([int(v) for v in piv[idx]], p)
        pn, rn = "pv%d" % n, "pm%d" % n
        lines.append(const(pn, "s32", piv))
        rsh = "s32[%s]" % ",".join(map(str, perm.shape))
        lines.append('  %s = %s custom-call(%s), custom_call_target="%s", api_version=API_VERSION_TYPED_FFI, '
                     "backend_config={batch_size = %d : i64, permutation_size = %d : i32, pivot_size = %d : i32}"
                     % (rn, rsh, pn, target, int(np.prod(batch)), p, piv.shape[-1]))
        outs.append((rn, "s32", list(perm.shape)))
        exp.append(("s32", perm))
    write(D, "jaxlib_lu_pivots_to_permutation",
          module("jaxlib_lu_pivots_to_permutation", [], lines, outs), exp)


def main():
    threefry_cases()
    pivot_cases()
