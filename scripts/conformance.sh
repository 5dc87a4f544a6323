#!/usr/bin/env bash
# Whole-corpus checks, run by CTest (tests/tests.cmake):
#   scripts/conformance.sh MODE BINDIR CORPUS_DIR
# MODE check:     hlorun --check on every *.hlo under CORPUS_DIR must exit 0.
# MODE roundtrip: print -> parse -> print must give identical text (needs
#                 hlorun --print-module; skipped while it is not available).
# MODE layout:    hlolayout --module on every file must exit 0 (and print a
#                 listing); known-invalid files must exit 3 with a diagnostic.
# Prints "N passed, M failed" and exits non-zero on any failure.
#
# Files listed in scripts/conformance-known-invalid.txt (one basename per
# line, '#' comments) are not valid HLO; they are expected to be rejected.
set -uo pipefail
mode=${1:?usage: conformance.sh check|roundtrip|layout BINDIR CORPUS_DIR}
bindir=${2:?missing BINDIR}
corpus=${3:?missing CORPUS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
hlorun="$bindir/hlorun"
hlolayout="$bindir/hlolayout"

known_invalid() {
  local base
  base=$(basename "$1")
  [ -f "$here/conformance-known-invalid.txt" ] &&
    grep -qxF "$base" <(sed 's/#.*//; s/[[:space:]]*$//' "$here/conformance-known-invalid.txt")
}

mapfile -d '' files < <(find "$corpus" -name '*.hlo' -type f -print0 | sort -z)
if [ "${#files[@]}" -eq 0 ]; then
  echo "conformance: no .hlo files under $corpus" >&2
  exit 1
fi

pass=0 fail=0
case "$mode" in
  check)
    for f in "${files[@]}"; do
      if known_invalid "$f"; then
        if "$hlorun" "$f" --check >/dev/null 2>&1; then
          echo "UNEXPECTED PASS (listed as invalid): $f"; fail=$((fail + 1))
        else
          pass=$((pass + 1))
        fi
        continue
      fi
      if err=$(timeout 60 "$hlorun" "$f" --check 2>&1 >/dev/null); then
        pass=$((pass + 1))
      else
        fail=$((fail + 1))
        echo "FAIL: $f"
        printf '%s\n' "$err" | head -n 6
      fi
    done
    ;;
  roundtrip)
    probe=$(mktemp)
    trap 'rm -f "$probe" "$probe".1 "$probe".2' EXIT
    if ! "$hlorun" "${files[0]}" --print-module >/dev/null 2>&1; then
      echo "mode roundtrip: hlorun --print-module is not available yet; skipped"
      exit 0
    fi
    for f in "${files[@]}"; do
      known_invalid "$f" && continue
      if "$hlorun" "$f" --print-module >"$probe".1 2>/dev/null &&
         "$hlorun" "$probe".1 --print-module >"$probe".2 2>/dev/null &&
         cmp -s "$probe".1 "$probe".2; then
        pass=$((pass + 1))
      else
        fail=$((fail + 1))
        echo "FAIL: $f"
        diff "$probe".1 "$probe".2 2>/dev/null | head -n 6
      fi
    done
    ;;
  layout)
    for f in "${files[@]}"; do
      out=$(timeout 60 "$hlolayout" --module "$f" 2>&1 >/dev/null)
      rc=$?
      if known_invalid "$f"; then
        if [ "$rc" -eq 3 ] && [[ "$out" == *": error: "* ]]; then
          pass=$((pass + 1))
        else
          fail=$((fail + 1))
          echo "FAIL (listed as invalid, want exit 3 with a diagnostic, got $rc): $f"
        fi
        continue
      fi
      if [ "$rc" -eq 0 ]; then
        pass=$((pass + 1))
      else
        fail=$((fail + 1))
        echo "FAIL (exit $rc): $f"
        printf '%s\n' "$out" | head -n 6
      fi
    done
    ;;
  *)
    echo "mode $mode not implemented here"
    exit 0
    ;;
esac
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
