#!/usr/bin/env bash
# Runs StableHLO test files -- a checkout's stablehlo/tests/interpret/*.mlir
# (several modules per file, separated by '// -----') or JAX's
# stablehlo/testdata/*.mlir -- through hlorun, which runs their check.* ops
# (docs/stablehlo.md, "Checks"), and counts each module's outcome:
#   pass (exit 0), check failed (4), not read (3), runtime error (1), other.
#   scripts/stablehlo-tests.sh [--hlorun BIN] [--list] FILE_OR_DIR...
# --list prints every module that did not pass with its first error line.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
hlorun="$here/build/bin/hlorun"
list=false
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --hlorun) hlorun="$2"; shift 2 ;;
    --list) list=true; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -gt 0 ] || { echo "usage: $0 [--hlorun BIN] [--list] FILE_OR_DIR..." >&2; exit 2; }
[ -x "$hlorun" ] || { echo "$0: no hlorun at $hlorun (build first, or --hlorun)" >&2; exit 2; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
files=()
for a in "${args[@]}"; do
  if [ -d "$a" ]; then while IFS= read -r f; do files+=("$f"); done < <(find "$a" -name '*.mlir' | sort)
  else files+=("$a"); fi
done
declare -A count=([pass]=0 [check]=0 [read]=0 [runtime]=0 [other]=0)
for f in "${files[@]}"; do
  # One file per module, each keeping its line numbers (earlier lines blank).
  awk -v dir="$tmp" '
    BEGIN { n = 0; out = dir "/part0.mlir" }
    /^\/\/ -----/ { n++; out = dir "/part" n ".mlir"; for (i = 0; i < NR; i++) print "" > out; next }
    { print > out }' "$f"
  for p in "$tmp"/part*.mlir; do
    grep -qvE '^[[:space:]]*(//.*)?$' "$p" || { rm -f "$p"; continue; } # comments only
    "$hlorun" "$p" >/dev/null 2>"$tmp/err"
    rc=$?
    case $rc in 0) k=pass ;; 4) k=check ;; 3) k=read ;; 1) k=runtime ;; *) k=other ;; esac
    count[$k]=$((count[$k] + 1))
    if $list && [ $rc -ne 0 ]; then
      printf '%s [%s] %s\n' "$f" "$k" "$(grep -m1 'error' "$tmp/err" | sed "s|$p|part|")"
    fi
    rm -f "$p"
  done
done
total=$((count[pass] + count[check] + count[read] + count[runtime] + count[other]))
echo "modules: $total  pass: ${count[pass]}  check failed: ${count[check]}  not read: ${count[read]}  runtime error: ${count[runtime]}  other: ${count[other]}"
