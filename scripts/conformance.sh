#!/usr/bin/env bash
# Whole-corpus checks, run by CTest (tests/tests.cmake):
#   scripts/conformance.sh MODE BINDIR CORPUS_DIR
# MODE check:     hlorun --check on every *.hlo under CORPUS_DIR must exit 0.
# MODE roundtrip: print(parse(print(parse(F)))) == print(parse(F)) byte for
#                 byte, and the printed text parses and verifies again.
# MODE layout:    hlolayout --module on every file must exit 0 (and print a
#                 listing); known-invalid files must exit 3 with a diagnostic.
# MODE run:       hlorun --random-inputs --quiet on every module of
#                 CORPUS_DIR/xla-hlo and CORPUS_DIR/real-dumps (CORPUS_DIR
#                 itself if it has neither)
#                 must exit 0, two at a time, 60 s each (CONFORMANCE_RUN_TIMEOUT); the exceptions are
#                 scripts/conformance-run-exceptions.txt (FILE  # reason):
#                 they must fail, an unexpected pass is a failure; those whose
#                 reason starts with "slow:" are not run.  CONFORMANCE_RUN_SKIP
#                 (space-separated basenames) names modules this pass does
#                 not run either: scripts/test.sh sets it for the sanitizer
#                 build, where they are too slow (reported as skipped).
# Prints "N passed, M failed" and exits non-zero on any failure.
#
# Files listed in scripts/conformance-known-invalid.txt (one basename per
# line, '#' comments) are not valid HLO; they are expected to be rejected.
set -uo pipefail
mode=${1:?usage: conformance.sh check|roundtrip|layout|run BINDIR CORPUS_DIR}
bindir=${2:?missing BINDIR}
corpus=${3:?missing CORPUS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
hlorun="$bindir/hlorun"
hlolayout="$bindir/hlolayout"
# Seconds one module of the run mode may take (sanitizer builds need more).
run_timeout=${CONFORMANCE_RUN_TIMEOUT:-60}

# The reason listed for a module in conformance-run-exceptions.txt, or "".
run_exception() {
  local base
  base=$(basename "$1")
  [ -f "$here/conformance-run-exceptions.txt" ] &&
    awk -v f="$base" '$1 == f { sub(/^[^#]*#[[:space:]]*/, ""); print; exit }' \
      "$here/conformance-run-exceptions.txt"
}

# One module of the run mode: prints "PASS|FAIL|XFAIL|UNEXPECTED|SKIP<TAB>file<TAB>detail".
run_one() {
  local f=$1 reason out rc
  reason=$(run_exception "$f")
  case "$reason" in slow:*) printf 'SKIP\t%s\t%s\n' "$f" "$reason"; return ;; esac
  case " ${CONFORMANCE_RUN_SKIP:-} " in
    *" $(basename "$f") "*) printf 'SKIP\t%s\tCONFORMANCE_RUN_SKIP\n' "$f"; return ;;
  esac
  out=$(timeout "$run_timeout" "$hlorun" "$f" --random-inputs --quiet 2>&1 >/dev/null)
  rc=$?
  out=$(printf '%s' "$out" | head -n 1 | cut -c1-300)
  if [ -n "$reason" ]; then
    if [ "$rc" -eq 0 ]; then printf 'UNEXPECTED\t%s\t%s\n' "$f" "$reason"
    else printf 'XFAIL\t%s\t%s\n' "$f" "$reason"; fi
  elif [ "$rc" -eq 0 ]; then printf 'PASS\t%s\t\n' "$f"
  else printf 'FAIL\t%s\texit %s: %s\n' "$f" "$rc" "$out"; fi
}

known_invalid() {
  local base
  base=$(basename "$1")
  [ -f "$here/conformance-known-invalid.txt" ] &&
    grep -qxF "$base" <(sed 's/#.*//; s/[[:space:]]*$//' "$here/conformance-known-invalid.txt")
}

# print(parse(F)) must parse and verify again and print to the same bytes.
roundtrip_one() {
  local f=$1 tmp=$2
  if ! timeout 60 "$hlorun" "$f" --print-module >"$tmp/1.hlo" 2>"$tmp/err"; then
    echo "first print failed:"; cat "$tmp/err"; return 1
  fi
  if ! timeout 60 "$hlorun" "$tmp/1.hlo" --print-module >"$tmp/2.hlo" 2>"$tmp/err"; then
    echo "the printed module does not parse/verify:"; cat "$tmp/err"; return 1
  fi
  if ! cmp -s "$tmp/1.hlo" "$tmp/2.hlo"; then
    echo "not a fixed point:"; diff "$tmp/1.hlo" "$tmp/2.hlo"; return 1
  fi
}

roots=("$corpus")
if [ "$mode" = run ] && [ -d "$corpus/xla-hlo" -o -d "$corpus/real-dumps" ]; then
  roots=()
  for d in xla-hlo real-dumps; do [ -d "$corpus/$d" ] && roots+=("$corpus/$d"); done
fi
mapfile -d '' files < <(find "${roots[@]}" -name '*.hlo' -type f -print0 | sort -z)
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
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    for f in "${files[@]}"; do
      known_invalid "$f" && continue
      if err=$(roundtrip_one "$f" "$tmp"); then
        pass=$((pass + 1))
      else
        fail=$((fail + 1))
        echo "FAIL: $f"
        printf '%s\n' "$err" | head -n 8
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
  run)
    export -f run_one run_exception
    export hlorun here run_timeout
    # Two modules run at a time on what is usually two cores: one BLAS
    # thread each (unless set), else idle OpenBLAS workers spin in
    # sched_yield between calls, taking the other module's core (a fifth of
    # sharded_computation's CPU samples).
    export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
    results=$(for f in "${files[@]}"; do known_invalid "$f" || printf '%s\0' "$f"; done |
              xargs -0 -P 2 -n 1 bash -c 'run_one "$1"' _)
    pass=$(grep -c '^PASS' <<<"$results")
    xfail=$(grep -c '^XFAIL' <<<"$results")
    skip=$(grep -c '^SKIP' <<<"$results")
    grep -E '^(FAIL|UNEXPECTED)' <<<"$results" | sort |
      awk -F'\t' '$1 == "FAIL" { print "FAIL: " $2; print "  " $3 }
                  $1 == "UNEXPECTED" { print "UNEXPECTED PASS (listed: " $3 "): " $2 }'
    fail=$(grep -cE '^(FAIL|UNEXPECTED)' <<<"$results")
    echo "$xfail listed exceptions failed as expected, $skip listed as slow or in CONFORMANCE_RUN_SKIP were not run"
    ;;
  *)
    echo "mode $mode not implemented here"
    exit 0
    ;;
esac
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
