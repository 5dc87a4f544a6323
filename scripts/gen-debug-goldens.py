#!/usr/bin/python3
"""Writes the expected files of the testdata/debug/ golden cases
(--dump-values, --find-nonfinite), computed here with numpy from the
modules' definitions, never from hlorun's output.

Run with a python that has numpy (e.g. /usr/bin/python3):
    /usr/bin/python3 scripts/gen-debug-goldens.py
"""
import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "debug")
OUT = os.path.join(HERE, "expected")
os.makedirs(OUT, exist_ok=True)


def save(name, arr):
    np.save(os.path.join(OUT, name), arr, allow_pickle=False)


# dump_all.hlo: every instruction of the entry.  bf16 is written widened to
# float32 (docs/cli.md); 0.5, -1.5 and 3 are exact in bf16.
x = np.array([[1, 2], [3, 4]], dtype=np.float32)
h = np.array([0.5, -1.5, 3], dtype=np.float32)
y = x * x
save("dump_all.main.x.npy", x)
save("dump_all.main.h.npy", h)
save("dump_all.main.t.0.npy", x)  # the tuple's leaves, in order
save("dump_all.main.t.1.npy", h)
save("dump_all.main.y.npy", y)
save("dump_all.main.r.npy", y + x)

# dump_while.hlo: x0 = [1, -0.5, 0.25]; iteration k (from 0) of the body
# doubles x in the fusion (double.m) and adds k + 1 (body.nx).
xk = np.array([1, -0.5, 0.25], dtype=np.float32)
save("dump_while.main.x0.npy", xk)
for k in range(3):
    m = xk * np.float32(2)
    save("dump_while.double.m.iter%d.npy" % k, m)
    xk = m + np.float32(k + 1)
    save("dump_while.body.nx.iter%d.npy" % k, xk)

# nan_input: an input holding a NaN; --find-nonfinite does not blame the
# instructions that only carry it on (exit 0).
np.save(os.path.join(HERE, "nan_input.npy"),
        np.array([[1, np.nan, 2], [0, 1, -1]], dtype=np.float32), allow_pickle=False)
# all_finite: x = [[1,2,3],[4,5,6]] (row maxima {3, 6}, squares, all finite).
np.save(os.path.join(HERE, "finite_input.npy"),
        np.arange(1, 7, dtype=np.float32).reshape(2, 3), allow_pickle=False)

# nested_while.hlo: x = 4.5; the outer loop runs 3 times, the inner loop 2
# times per outer iteration, each inner iteration subtracting 1, so ibody's
# y at outer iteration k, inner iteration j is 4.5 - 2k - (j + 1).
for k in range(3):
    for j in range(2):
        save("nested_while.ibody.y.iter%d.iter%d.npy" % (k, j),
             np.array(4.5 - 2 * k - (j + 1), dtype=np.float32))
# ... and obody's y (the inner loop's result) at outer iteration k is
# 4.5 - 2(k + 1).
for k in range(3):
    save("nested_while.obody.y.iter%d.npy" % k, np.array(4.5 - 2 * (k + 1), dtype=np.float32))

# dump_while.hlo's condition i < 3 runs before each of the 3 iterations and
# once more to stop: true, true, true, false (pred is written as bool).
for k in range(4):
    save("dump_while.cond.lt.iter%d.npy" % k, np.array(k < 3, dtype=np.bool_))
