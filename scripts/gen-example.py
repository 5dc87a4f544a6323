#!/usr/bin/python3
"""Generates the bundled example's inputs and its expected output.

testdata/examples/mlp.hlo computes softmax(relu(x . w1 + b1) . w2 + b2) along
dim 1.  This script writes deterministic inputs (x.npy, w1.npy, b1.npy,
w2.npy, b2.npy, and all of them as inputs.npz) and computes the expected
result independently with numpy (float64, then rounded to float32), saved as
mlp.expected.npy and, printed with numpy, mlp.expected.txt.

Run with /usr/bin/python3 (which has numpy) from anywhere:
    /usr/bin/python3 scripts/gen-example.py
"""
import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "examples")


def main():
    rng = np.random.default_rng(20240611)
    x = rng.standard_normal((8, 64)).astype(np.float32)
    w1 = (rng.standard_normal((64, 128)) / 8).astype(np.float32)
    b1 = (rng.standard_normal(128) / 10).astype(np.float32)
    w2 = (rng.standard_normal((128, 16)) / 11).astype(np.float32)
    b2 = (rng.standard_normal(16) / 10).astype(np.float32)
    arrays = {"x": x, "w1": w1, "b1": b1, "w2": w2, "b2": b2}
    for name, a in arrays.items():
        np.save(os.path.join(HERE, name + ".npy"), a)
    np.savez(os.path.join(HERE, "mlp.inputs.npz"), arg0=x, arg1=w1, arg2=b1, arg3=w2, arg4=b2)

    h = np.maximum(x.astype(np.float64) @ w1 + b1, 0.0)
    logits = h @ w2 + b2
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    soft = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    np.save(os.path.join(HERE, "mlp.expected.npy"), soft)
    with open(os.path.join(HERE, "mlp.expected.txt"), "w") as f:
        f.write("# softmax(relu(x . w1 + b1) . w2 + b2), computed by numpy in float64\n")
        f.write("# rows sum to 1; compare with tolerance (rtol 1e-5), not text\n")
        np.savetxt(f, soft, fmt="%.8g")


if __name__ == "__main__":
    main()
