#!/usr/bin/python3
"""Writes the .npy/.npz fixtures of tests/test_npy.c into testdata/npy/.

Run with a python that has numpy (e.g. /usr/bin/python3).  The values are
simple and restated in the tests; corrupt files are derived from good ones.
"""
import io
import os
import struct
import zipfile

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "npy")
os.makedirs(OUT, exist_ok=True)


def save(name, arr, version=None):
    path = os.path.join(OUT, name)
    with open(path, "wb") as f:
        np.lib.format.write_array(f, arr, version=version, allow_pickle=False)


def raw(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def header(d, version=1):
    h = d.encode("latin1")
    pad = 64 - (10 + len(h) + 1) % 64
    h = h + b" " * pad + b"\n"
    return b"\x93NUMPY" + bytes([version, 0]) + struct.pack("<H", len(h)) + h


# --- good arrays ---
m = np.arange(1, 7, dtype=np.float32).reshape(2, 3)     # [[1,2,3],[4,5,6]]
save("f32_2x3.npy", m)
save("f32_2x3_fortran.npy", np.asfortranarray(m))
save("f64_be.npy", np.array([1.5, -2.25, 1e300], dtype=">f8"))
save("i4_v2.npy", np.array([-1, 2, 2147483647], dtype="<i4"), version=(2, 0))
save("u2_v3.npy", np.array([1, 65535], dtype="<u2"), version=(3, 0))
save("bool.npy", np.array([True, False, True]))
save("i1.npy", np.array([-8, 7, 100, -128], dtype=np.int8))
save("u1.npy", np.array([0, 15, 16, 255], dtype=np.uint8))
save("i2_be.npy", np.array([-2, 258], dtype=">i2"))
save("i8.npy", np.array([-(2**63), 2**63 - 1], dtype="<i8"))
save("u8.npy", np.array([2**64 - 1], dtype="<u8"))
save("f2.npy", np.array([1.0, 65504.0, -0.5], dtype="<f2"))
save("c8_be.npy", np.array([1 + 2j, -3.5 - 4j], dtype=">c8"))
save("c16.npy", np.array([0.5 - 1j], dtype="<c16"))
save("scalar.npy", np.float32(2.5).reshape(()))
save("empty_0x3.npy", np.zeros((0, 3), dtype=np.float32))
# bf16 bits as ml_dtypes saves them: a '<V2' array of raw 2-byte values
save("bf16_raw.npy", np.array([0x3F80, 0xC040], dtype="<u2").view("V2"))
save("f8_raw.npy", np.array([0x7E, 0x38], dtype="<u1").view("V1"))
# f32 values for bf16 parameters: 1 + 2^-8 rounds to even (1.0)
save("f32_for_bf16.npy", np.array([1.0 + 2.0**-8, 3.0], dtype=np.float32))

# --- npz (uncompressed, as numpy.savez writes) ---
np.savez(os.path.join(OUT, "two.npz"), arg0=m, arg1=np.array([7, 8], dtype=np.int32))
np.savez_compressed(os.path.join(OUT, "compressed.npz"), a=m)

# --- corrupt files ---
good = open(os.path.join(OUT, "f32_2x3.npy"), "rb").read()
raw("bad_magic.npy", b"\x93NUMPX" + good[6:])
raw("truncated_header.npy", good[:40])
raw("garbage_dict.npy", header("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2,), }") + b"\0" * 8)
raw("missing_key.npy", header("{'descr': '<f4', 'shape': (2,), }") + b"\0" * 8)
raw("shape_overflow.npy", header("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296, 4), }"))
raw("data_short.npy", good[:-4])
raw("huge_declared.npy", header("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }") + b"\0" * 16)
raw("structured.npy", header("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }") + b"\0" * 4)
raw("bad_dtype.npy", header("{'descr': '<U3', 'fortran_order': False, 'shape': (1,), }") + b"\0" * 12)
raw("bad_version.npy", b"\x93NUMPY\x09\x00" + good[8:])
raw("header_len_past_end.npy", b"\x93NUMPY\x01\x00\xff\xff{'descr'")
npz = open(os.path.join(OUT, "two.npz"), "rb").read()
raw("truncated.npz", npz[: len(npz) // 2])
raw("not_zip.npz", b"PK\x03\x04 this is not really a zip file at all......")
buf = bytearray(npz)
idx = buf.find(b"\x00\x00\x80\x3f")  # arg0's first element (1.0f): flip a byte
assert idx > 0
buf[idx + 3] ^= 0xFF
raw("bad_crc.npz", bytes(buf))
