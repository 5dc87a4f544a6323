#!/usr/bin/python3
"""Writes the .npy/.npz inputs of the interpreter's golden tests
(testdata/interp/inputs/), including deliberately broken files.
Run with /usr/bin/python3 (numpy)."""
import os

import numpy as np

D = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "interp", "inputs")


def main():
    os.makedirs(D, exist_ok=True)
    x = np.array([[1, 2, 3], [4, 5, 6]], np.float32)
    y = np.array([7, 8, 9], np.int32)
    np.save(os.path.join(D, "x23.npy"), x)
    np.save(os.path.join(D, "y3.npy"), y)
    np.save(os.path.join(D, "x23_f64.npy"), x.astype(np.float64))
    np.save(os.path.join(D, "x32.npy"), x.reshape(3, 2))
    np.save(os.path.join(D, "x23_fortran.npy"), np.asfortranarray(x))
    np.savez(os.path.join(D, "xy.npz"), arg0=x, arg1=y)
    # 1 + 2^-8 is halfway between bf16 1 and 1 + 2^-7: rounds to even (1);
    # 1 + 3*2^-8 rounds up to 1 + 2^-6 (halfway, even mantissa).
    np.save(os.path.join(D, "bf_widened.npy"), np.array([1 + 2**-8, 1 + 3 * 2**-8, -2.5], np.float32))
    with open(os.path.join(D, "x23.npy"), "rb") as f:
        whole = f.read()
    with open(os.path.join(D, "trunc.npy"), "wb") as f:
        f.write(whole[:-5])  # header intact, data 5 bytes short
    with open(os.path.join(D, "corrupt.npy"), "wb") as f:
        f.write(b"NOTNUMPY" + whole[8:])


if __name__ == "__main__":
    main()
