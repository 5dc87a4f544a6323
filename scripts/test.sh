#!/usr/bin/env bash
# Sets up (bootstrap) and runs every test: the release build, then the whole
# suite again under AddressSanitizer + UndefinedBehaviorSanitizer, then short
# fuzzing runs of the parser and of the whole pipeline.
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)

scripts/bootstrap.sh --tests
(cd build && ctest --output-on-failure -j"$jobs")

scripts/bootstrap.sh --asan
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Corpus modules too slow under the sanitizers (the release pass runs them):
# large_loop_slow_compile_time's 16k elementwise ops take ~6 s in release but
# ~90 s CPU (150 s wall) instrumented; the three real training dumps take
# 4-11 s wall and 2-5 GB in release (25-bert: 9.7k instructions over 40 MB
# bf16 arrays; 26-bert and 28-gptneox run as 2 devices).
heavy="backends__gpu__codegen__emitters__tests__loop__large_loop_slow_compile_time.hlo"
heavy+=" 25-bert-torchxla-neuron-full-train-16k-instrs.hlo 26-bert-large-torchxla-neuron-dp-tp-fwd-bwd.hlo"
heavy+=" 28-gptneox-torchxla-neuron-tp2.hlo"
(cd build-asan && CONFORMANCE_RUN_TIMEOUT=90 CONFORMANCE_RUN_SKIP="$heavy" ctest --output-on-failure -j"$jobs")

# FUZZ_SECONDS (default 60) is split between the parser, the .npy/.npz
# readers, the YAML memory configuration reader, the typed-FFI attribute
# reader, the StableHLO reader and the whole-pipeline targets.
fuzz=${FUZZ_SECONDS:-60}
scripts/fuzz-parser.sh --seconds $((fuzz / 3))
scripts/fuzz-npz.sh --seconds $((fuzz / 6))
scripts/fuzz-config.sh --seconds $((fuzz / 12))
scripts/fuzz-ffi-attrs.sh --seconds $((fuzz / 12))
scripts/fuzz-mlir.sh --seconds $((fuzz / 12))
scripts/fuzz-run.sh --seconds $((fuzz - fuzz / 3 - fuzz / 6 - 3 * (fuzz / 12)))
echo "all tests passed"
