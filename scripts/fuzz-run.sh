#!/usr/bin/env bash
# Fuzzes the whole pipeline (tests/fuzz/fuzz_run.c): parse, verify, run on
# random inputs under small memory spaces and an instruction budget, with
# libFuzzer, ASan + UBSan.
#   scripts/fuzz-run.sh [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/ (scripts/fuzz-common.sh).
set -euo pipefail
. "$(dirname "$0")/fuzz-common.sh"
fuzz_main run "base layout parser interp interp/io interp/custom_call interp/collective kernels" "$@"
