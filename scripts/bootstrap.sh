#!/usr/bin/env bash
# Installs what is missing (Debian packages), configures and builds.
#   scripts/bootstrap.sh            release build in build/
#   scripts/bootstrap.sh --asan     ASan+UBSan build in build-asan/
# Idempotent and quiet when everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(cmake make gcc pkg-config re2c bison libyaml-dev libcriterion-dev libopenblas-dev
          python3-numpy clang libclang-rt-14-dev)
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
  $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

build=build
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo)
case "${1:-}" in
  --asan) build=build-asan; flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHLO_SANITIZE=ON) ;;
  "") ;;
  *) echo "usage: scripts/bootstrap.sh [--asan]" >&2; exit 2 ;;
esac
[ "${CI:-}" = "true" ] && flags+=(-DHLO_WERROR=ON)
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" -- --no-print-directory >/dev/null 2>"$build/build.log" || {
  cat "$build/build.log" >&2
  exit 1
}
grep -i 'warning' "$build/build.log" >&2 || true
