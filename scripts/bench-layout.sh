#!/usr/bin/env bash
# Benchmarks layout_convert (f32[4096,4096] default <-> {1,0:T(8,128)})
# against memcpy of the same bytes, in an optimised build of its own.
#   scripts/bench-layout.sh [N] [REPEATS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-bench
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target bench_layout -- --no-print-directory >/dev/null
"$build/bin/bench_layout" "${1:-4096}" "${2:-5}"
