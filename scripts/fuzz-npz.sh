#!/usr/bin/env bash
# Fuzzes the .npy/.npz readers (tests/fuzz/fuzz_npz.c): stored and
# compressed (deflate, zlib) archives, zip64 fields, .npy headers; with
# libFuzzer, ASan + UBSan.  Seeds: every .npy/.npz under testdata/.
#   scripts/fuzz-npz.sh [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/ (scripts/fuzz-common.sh).
set -euo pipefail
. "$(dirname "$0")/fuzz-common.sh"
export FUZZ_SEED_NAME='*.np[yz]'
export FUZZ_DICT
FUZZ_DICT="$(cd "$(dirname "$0")/.." && pwd)/tests/fuzz/npz.dict"
fuzz_main npz "base layout interp/io/npy.c interp/io/npz.c interp/io/npz_inflate.c interp/io/atomic_file.c" "$@"
