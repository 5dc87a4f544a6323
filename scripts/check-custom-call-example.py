#!/usr/bin/env python3
"""The worked example of docs/custom-calls.md, run as a user would
(CTest example/custom-call):

  1. the FFI handler rms_norm.cc (built by CMake into LIBDIR) runs the
     module's custom call: hlorun --custom-call rms_norm=LIB:RmsNorm;
  2. the HLO reference rms_norm_ref.hlo runs in its place instead:
     hlorun --custom-call rms_norm=rms_norm_ref.hlo;
  3. without either, hlorun refuses the module (exit 1, naming the target).

Both results are compared with numpy's float64 computation of
tanh(x / sqrt(mean(x^2) + 1e-5) * w) on the same inputs.  And the code
docs/custom-calls.md shows under "<!-- file: PATH -->" must be PATH's text.

Usage: check-custom-call-example.py BINDIR LIBDIR
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

bindir, libdir = sys.argv[1], sys.argv[2]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
here = os.path.join(root, "testdata", "examples", "custom-call")


def doc_blocks_match():
    """Every fenced block after a file marker in the page equals the file."""
    lines = open(os.path.join(root, "docs", "custom-calls.md")).read().split("\n")
    ok, seen = True, 0
    for i, line in enumerate(lines):
        if not line.startswith("<!-- file: "):
            continue
        path = line[len("<!-- file: "):].split(" -->")[0]
        end = lines.index("```", i + 2)
        shown = "\n".join(lines[i + 2:end]) + "\n"
        seen += 1
        if shown != open(os.path.join(root, path)).read():
            print("docs/custom-calls.md: the code shown for %s is not the file's" % path)
            ok = False
    return ok and seen > 0


failed = not doc_blocks_match()
rng = np.random.default_rng(7)
x = rng.uniform(-2, 2, (4, 8)).astype(np.float32)
w = rng.uniform(0.5, 1.5, (8,)).astype(np.float32)
x64, w64 = x.astype(np.float64), w.astype(np.float64)
want = np.tanh(x64 / np.sqrt((x64 * x64).mean(axis=-1, keepdims=True) + np.float32(1e-5)) * w64)

with tempfile.TemporaryDirectory() as tmp:
    inputs = os.path.join(tmp, "in.npz")
    np.savez(inputs, x=x, w=w)
    hlorun = os.path.join(bindir, "hlorun")
    model = os.path.join(here, "model.hlo")
    lib = os.path.join(os.path.abspath(libdir), "librms_norm.so")
    for name, spec in [("FFI handler", "rms_norm=%s:RmsNorm" % lib),
                       ("HLO substitute", "rms_norm=%s" % os.path.join(here, "rms_norm_ref.hlo"))]:
        out = os.path.join(tmp, "y.npy")
        r = subprocess.run([hlorun, model, "--inputs", inputs, "--custom-call", spec,
                            "--output", out], capture_output=True, text=True)
        if r.returncode != 0:
            print("%s: hlorun failed (%d): %s" % (name, r.returncode, r.stderr))
            failed = True
            continue
        got = np.load(out)
        err = np.abs(got - want).max()
        ok = got.dtype == np.float32 and got.shape == want.shape and err <= 2e-6
        print("%s: max |error| %.3g vs numpy float64: %s" % (name, err, "ok" if ok else "WRONG"))
        failed |= not ok
    r = subprocess.run([hlorun, model, "--inputs", inputs], capture_output=True, text=True)
    refused = r.returncode == 1 and 'custom-call target "rms_norm" is not supported' in r.stderr
    print("without --custom-call: %s" % ("refused" if refused else "NOT refused: " + r.stderr))
    failed |= not refused
sys.exit(1 if failed else 0)
