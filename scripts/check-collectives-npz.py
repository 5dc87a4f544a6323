#!/usr/bin/python3
"""Checks the entry names and values hlorun --output FILE.npz writes for a
multi-device run: r{R}_out{i} with replicas only, r{R}p{P}_out{i} with
partitions.  Values are the hand-derived ones of the goldens in
testdata/interp-collectives/ (see the comments in those .hlo files).

usage: check-collectives-npz.py BINDIR
"""
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
CASES = os.path.join(ROOT, "testdata", "interp-collectives")


def run(bindir, hlo, out, extra=()):
    cmd = [os.path.join(bindir, "hlorun"), os.path.join(CASES, hlo), "--quiet", "--output", out]
    cmd += list(extra)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if p.returncode != 0:
        sys.exit("FAIL: %s exited %d\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    with np.load(out) as z:
        return {k: z[k] for k in z.files}


def expect(got, want):
    if sorted(got) != sorted(want):
        sys.exit("FAIL: entries %s, expected %s" % (sorted(got), sorted(want)))
    for k, v in want.items():
        if got[k].dtype != v.dtype or not np.array_equal(got[k], v):
            sys.exit("FAIL: %s = %r, expected %r" % (k, got[k], v))


def main():
    bindir = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "out.npz")
        # 4 replicas, one result each: the sum [6, 10, 14].
        got = run(bindir, "all_reduce_sum_4_replicas.hlo", out)
        expect(got, {"r%d_out0" % r: np.array([6, 10, 14], np.int32) for r in range(4)})
        # 2 replicas x 2 partitions, a 7-element tuple each.
        x = {(0, 0): 0, (0, 1): 1, (1, 0): 100, (1, 1): 101}
        want = {}
        for (r, p), v in x.items():
            crp = x[(r, 0)] + x[(r, 1)]
            cr = x[(0, p)] + x[(1, p)]
            flat = max(0, 101) if (2 * r + p) in (0, 3) else max(1, 100)
            cp = x[(r, 1 - p)]
            a2a = [x[(r, 0)] + 1000 * p, x[(r, 1)] + 1000 * p]
            vals = [np.uint32(r), np.uint32(p), np.int32(crp), np.int32(cr), np.int32(flat),
                    np.int32(cp), np.array(a2a, np.int32)]
            for i, a in enumerate(vals):
                want["r%dp%d_out%d" % (r, p, i)] = np.asarray(a)
        expect(run(bindir, "partitions.hlo", out), want)
    print("ok")


if __name__ == "__main__":
    main()
