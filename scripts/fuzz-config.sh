#!/usr/bin/env bash
# Fuzzes the YAML memory configuration reader (tests/fuzz/fuzz_config.c,
# `hlorun --memory-config FILE`): libyaml's loader, the depth guard, keys,
# presets, byte sizes and bandwidths; with libFuzzer, ASan + UBSan.  Seeds:
# every .cfg under testdata/ and tests/fuzz/config-seeds/ (the documented
# example, flow style, anchors, units).
#   scripts/fuzz-config.sh [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/ (scripts/fuzz-common.sh).
set -euo pipefail
. "$(dirname "$0")/fuzz-common.sh"
root="$(cd "$(dirname "$0")/.." && pwd)"
export FUZZ_SEED_NAME='*.cfg' FUZZ_SEED_DIR="$root/tests/fuzz/config-seeds" FUZZ_DICT="$root/tests/fuzz/config.dict"
fuzz_main config "base interp/io/config.c interp/memspace.c" "$@"
