#!/usr/bin/env bash
# Fuzzes the StableHLO (MLIR text) reader (tests/fuzz/fuzz_mlir.c: convert,
# then parse and verify the HLO it gives, diagnostics mapped back); with
# libFuzzer, ASan + UBSan.  Seeds: every .mlir under testdata/ and
# tests/fuzz/mlir-seeds/.
#   scripts/fuzz-mlir.sh [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/ (scripts/fuzz-common.sh).
set -euo pipefail
. "$(dirname "$0")/fuzz-common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
export FUZZ_SEED_NAME='*.mlir' FUZZ_SEED_DIR="$root/tests/fuzz/mlir-seeds" FUZZ_DICT="$root/tests/fuzz/mlir.dict"
fuzz_main mlir "base layout parser" "$@"
