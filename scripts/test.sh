#!/usr/bin/env bash
# Sets up (bootstrap) and runs every test: the release build, then the whole
# suite again under AddressSanitizer + UndefinedBehaviorSanitizer, then a short
# fuzzing run of the parser.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/bootstrap.sh
(cd build && ctest --output-on-failure -j"$jobs")

scripts/bootstrap.sh --asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
(cd build-asan && CONFORMANCE_RUN_TIMEOUT=90 ctest --output-on-failure -j"$jobs")

if [ -x scripts/fuzz-parser.sh ]; then
  scripts/fuzz-parser.sh --seconds "${FUZZ_SECONDS:-60}"
fi
echo "all tests passed"
