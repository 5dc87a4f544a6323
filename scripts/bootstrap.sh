#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds.
#   scripts/bootstrap.sh            the tools (hlorun, hlolayout) in build/bin:
#                                   only what building and running them needs
#   scripts/bootstrap.sh --tests    everything in build/: tools, unit tests,
#                                   golden runner, benchmarks (adds Criterion,
#                                   numpy, clang and its sanitizer/fuzzer runtimes)
#   scripts/bootstrap.sh --asan     as --tests, under ASan+UBSan, in build-asan/
# Idempotent and quiet when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

# Building and running the tools.
PACKAGES=(cmake make gcc libc6-dev pkg-config re2c bison libyaml-dev zlib1g-dev libopenblas-dev)
# Testing: unit tests, golden/corpus scripts, sanitizers and fuzzing; g++
# builds the custom-call libraries the tests load (cmake/ffi_tests.cmake).
# chromium: the browser tests of --report pages (tests/report/, docs/report.md);
# Open MPI: the mpirun tests (docs/mpi.md).
TEST_PACKAGES=(libcriterion-dev python3-numpy clang libclang-rt-14-dev g++ chromium libopenmpi-dev openmpi-bin)
[ "${1:-}" = "" ] || PACKAGES+=("${TEST_PACKAGES[@]}")
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq >/dev/null || true
  # No recommends: the list above is all the build needs (recommends add
  # ~36 packages, ~16 MB); unsafe-io skips dpkg's fsync per file, which
  # dominates unpacking in a fresh container.
  $SUDO apt-get install -y -qq --no-install-recommends -o Dpkg::Options::=--force-unsafe-io \
    "${missing[@]}" >/dev/null
fi

build=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
targets=(--target hlorun hlolayout)
case "${1:-}" in
  --asan) build=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHLO_SANITIZE=ON); targets=() ;;
  --tests) targets=() ;;
  "") ;;
  *) echo "usage: scripts/bootstrap.sh [--tests | --asan]" >&2; exit 2 ;;
esac
[ "${CI:-}" = "true" ] && flags+=(-DHLO_WERROR=ON)
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" "${targets[@]}" -j"$(nproc)" -- --no-print-directory >/dev/null 2>"$build/build.log" || {
  cat "$build/build.log" >&2
  exit 1
}
grep -i 'warning' "$build/build.log" >&2 || true
