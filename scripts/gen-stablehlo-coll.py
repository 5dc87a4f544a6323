#!/usr/bin/python3
"""Per-device inputs of the StableHLO collective goldens
(testdata/stablehlo/coll_*.mlir): the operands the StableHLO specification's
examples give each process, as r{R}_NAME entries of one .npz.  Run from the
repository root; rewrites the .npz files."""
import os

import numpy as np

D = "testdata/stablehlo/"


def f32(x):
    return np.array(x, dtype=np.float32)


def i64(x):
    return np.array(x, dtype=np.int64)


def spec():
    r0 = dict(ag=f32([[1, 2], [3, 4]]), ar=f32([1, 2, 3, 4]),
              a2a=f32([[1, 2, 3, 4], [5, 6, 7, 8]]), cp=f32([[1, 2], [3, 4]]),
              rs=i64([[1, 2, 3, 4], [5, 6, 7, 8]]))
    r1 = dict(ag=f32([[5, 6], [7, 8]]), ar=f32([5, 6, 7, 8]),
              a2a=f32([[9, 10, 11, 12], [13, 14, 15, 16]]), cp=f32([[5, 6], [7, 8]]),
              rs=i64([[9, 10, 11, 12], [13, 14, 15, 16]]))
    out = {f"r0_{k}": v for k, v in r0.items()}
    out.update({f"r1_{k}": v for k, v in r1.items()})
    np.savez(D + "coll_spec.npz", **out)


def broadcast():
    # collective_broadcast: 4 replicas holding [[1, 2]], [[3, 4]], [[5, 6]], [[7, 8]].
    np.savez(D + "coll_broadcast.npz",
             **{f"r{r}_operand": i64([[2 * r + 1, 2 * r + 2]]) for r in range(4)})


def feed():
    # The infeed queue of coll_feed.mlir (the spec's infeed_queue, then the
    # recv's data) and what its outfeed and send hand to the host.
    a, b, c = i64([[1, 2], [3, 4]]), i64([[5, 6], [7, 8]]), i64([9, 10])
    for name, v in (("a", a), ("b", b), ("c", c)):
        np.save(D + f"coll_feed_{name}.npy", v)
    # One directory per golden (the .mlir and .hlo runs go in parallel),
    # holding the expected files beside the ones hlorun writes.
    for run in ("mlir", "hlo"):
        os.makedirs(D + f"coll_feed_{run}.d", exist_ok=True)
        for n, v in enumerate((a, c, b)):
            np.save(D + f"coll_feed_{run}.d/want{n}.npy", v)


if __name__ == "__main__":
    spec()
    broadcast()
    feed()
