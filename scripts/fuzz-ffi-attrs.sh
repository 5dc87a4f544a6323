#!/usr/bin/env bash
# Fuzzes the reader of typed-FFI custom-call attributes
# (tests/fuzz/fuzz_ffi_attrs.c, interp/custom_call/ffi_attrs.c: the
# backend_config dictionary a user's FFI handler receives); with libFuzzer,
# ASan + UBSan.  Seeds: tests/fuzz/ffi-attrs-seeds/.
#   scripts/fuzz-ffi-attrs.sh [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/ (scripts/fuzz-common.sh).
set -euo pipefail
. "$(dirname "$0")/fuzz-common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
export FUZZ_SEED_NAME='*.attrs' FUZZ_SEED_DIR="$root/tests/fuzz/ffi-attrs-seeds" FUZZ_DICT="$root/tests/fuzz/ffi-attrs.dict"
fuzz_main ffi_attrs "base/arena.c base/error.c interp/custom_call/ffi_attrs.c" "$@"
