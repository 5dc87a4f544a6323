#!/usr/bin/python3
"""Runs the bundled example through hlorun and compares its --output with the
numpy result that scripts/gen-example.py computed (rtol 1e-5, atol 1e-7).

usage: check-example.py BINDIR
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
EX = os.path.join(ROOT, "testdata", "examples")


def run(bindir, args, out):
    cmd = [os.path.join(bindir, "hlorun"), os.path.join(EX, "mlp.hlo")] + args + ["--output", out, "--quiet"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("FAIL: %s exited %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    return np.load(out)


def main():
    bindir = sys.argv[1]
    want = np.load(os.path.join(EX, "mlp.expected.npy"))
    inputs = ",".join(os.path.join(EX, n + ".npy") for n in ["x", "w1", "b1", "w2", "b2"])
    with tempfile.TemporaryDirectory() as d:
        for args in (["--inputs", inputs],
                     ["--inputs", os.path.join(EX, "mlp.inputs.npz")],
                     ["--inputs", inputs, "--device", "tpu-v5e"]):
            got = run(bindir, args, os.path.join(d, "out.npy"))
            if got.dtype != np.float32 or got.shape != want.shape:
                sys.exit("FAIL: got %s%s, want float32%s" % (got.dtype, got.shape, want.shape))
            if not np.allclose(got, want, rtol=1e-5, atol=1e-7):
                sys.exit("FAIL: max abs error %g\n%s\n%s" % (np.abs(got - want).max(), got, want))
    print("ok: mlp example matches numpy")


if __name__ == "__main__":
    main()
