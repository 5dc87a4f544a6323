#!/usr/bin/env bash
# Fuzzes the parser (tests/fuzz/fuzz_parser.c) with libFuzzer, ASan + UBSan.
#   scripts/fuzz-parser.sh [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/ (scripts/fuzz-common.sh).
set -euo pipefail
. "$(dirname "$0")/fuzz-common.sh"
fuzz_main parser "base layout parser" "$@"
