#!/usr/bin/python3
"""Writes the .npy/.npz fixtures of tests/test_npy.c into testdata/npy/.

Run with a python that has numpy (e.g. /usr/bin/python3).  The values are
simple and restated in the tests; corrupt files are derived from good ones.
"""
import io
import os
import struct
import zipfile
import zlib

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

# --- compressed npz (numpy.savez_compressed, and hand-made archives) ---
np.savez_compressed(os.path.join(OUT, "compressed_two.npz"), arg0=m,
                    zeros=np.zeros(3000, dtype=np.float64))


def npy_bytes(arr):
    f = io.BytesIO()
    np.lib.format.write_array(f, arr, allow_pickle=False)
    return f.getvalue()


def deflate(data):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zip_bytes(name, comp, usize, crc, method=8, zip64=False):
    """One-member zip; comp/usize/crc are written as given (corrupt on purpose)."""
    fname = name.encode()
    csize = len(comp)
    extra = b""
    cs, us = csize, usize
    if zip64:  # sizes and offset only in the zip64 extra field, as for > 4 GiB
        extra = struct.pack("<HHQQQ", 1, 24, usize, csize, 0)
        cs = us = 0xFFFFFFFF
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 45 if zip64 else 20, 0, method, 0, 0x21, crc,
                        cs, us, len(fname), len(extra)) + fname + extra
    cd = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 45 if zip64 else 20, 45 if zip64 else 20, 0,
                     method, 0, 0x21, crc, cs, us, len(fname), len(extra), 0, 0, 0, 0,
                     0xFFFFFFFF if zip64 else 0) + fname + extra
    body = local + comp
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(cd), len(body), 0)
    return body + cd + eocd


v = np.array([1.5, -2.0, 0.25], dtype=np.float32)
img = npy_bytes(v)
comp = deflate(img)
crc = zlib.crc32(img)
raw("deflate_ok.npz", zip_bytes("v.npy", comp, len(img), crc))
raw("deflate_zip64.npz", zip_bytes("v.npy", comp, len(img), crc, zip64=True))
raw("deflate_bad_crc.npz", zip_bytes("v.npy", comp, len(img), crc ^ 1))
raw("deflate_truncated.npz", zip_bytes("v.npy", comp[: len(comp) // 2], len(img), crc))
raw("deflate_corrupt.npz", zip_bytes("v.npy", b"\xff" * 40, len(img), crc))
raw("deflate_size_mismatch.npz", zip_bytes("v.npy", deflate(img + b"\0" * 8), len(img) + 8,
                                            zlib.crc32(img + b"\0" * 8)))
raw("deflate_bomb_declared.npz", zip_bytes("v.npy", comp, 1 << 40, crc, zip64=True))
# A header for 3 floats followed by 4 MiB of zeros, declared as the 3 floats.
bomb = img + b"\0" * (4 << 20)
raw("deflate_bomb_actual.npz", zip_bytes("v.npy", deflate(bomb), len(img), zlib.crc32(img)))
raw("deflate_method_12.npz", zip_bytes("v.npy", comp, len(img), crc, method=12))
# Edge cases through deflate: rank 0, an empty array, NaN/Inf/-0, bool, int8,
# complex64, big-endian float64.
np.savez_compressed(os.path.join(OUT, "compressed_edges.npz"),
                    scalar=np.float32(2.5), empty=np.zeros((0, 3), dtype=np.float32),
                    special=np.array([np.nan, np.inf, -np.inf, -0.0], dtype=np.float64),
                    flags=np.array([True, False, True]), small=np.array([-128, 127], dtype=np.int8),
                    cplx=np.array([1 + 2j], dtype=np.complex64),
                    be=np.array([1.5, -3.0], dtype=">f8"))
