#!/usr/bin/python3
"""Writes the expected files of testdata/unknown-calls/random_leaf*.yaml:
the data --unknown-custom-calls=random makes, computed here from its
definition (docs/cli.md), never from hlorun's output.

The stream is splitmix64 seeded with SEED ^ 0x6c62272e07bb0142 (SEED from
--random-inputs=SEED, default 0), restarted for each --repeat evaluation;
array leaves draw in order, one draw per element: floats
(r >> 11) * 2^-52 - 1 rounded to the type, 32-bit signed integers
r % 201 - 100.

    /usr/bin/python3 scripts/gen-unknown-call-goldens.py
"""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata",
                   "unknown-calls", "expected")
MASK = (1 << 64) - 1


def splitmix64(seed):
    x = seed
    while True:
        x = (x + 0x9E3779B97F4A7C15) & MASK
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def leaves(seed):
    g = splitmix64(seed ^ 0x6C62272E07BB0142)
    f = np.array([(next(g) >> 11) * 2.0**-52 - 1.0 for _ in range(4)]).astype(np.float32)
    s = np.array([next(g) % 201 - 100 for _ in range(3)], dtype=np.int32)
    return f.reshape(2, 2), s


os.makedirs(OUT, exist_ok=True)
np.save(os.path.join(OUT, "random_leaf0.npy"), leaves(7)[0], allow_pickle=False)
np.save(os.path.join(OUT, "random_leaf1.npy"), leaves(0)[1], allow_pickle=False)
