#!/usr/bin/env bash
# A digest of what every corpus module computes, to prove a refactor changed
# no result:
#   scripts/conformance-digest.sh BINDIR CORPUS_DIR > digest.txt
# For each *.hlo under CORPUS_DIR/xla-hlo and CORPUS_DIR/real-dumps (sorted),
# one line: file, exit status, SHA-256 of the results written by
# `hlorun --random-inputs --output out.npz` (the same seeded inputs on every
# run), and the first line of its diagnostics.  Compare two digests with
# diff: any changed line is a changed behaviour.  Modules listed as "slow:"
# in conformance-run-exceptions.txt are not run.  DIGEST_THREADS=N runs
# hlorun with --threads N (two digests at different N must be identical:
# results do not depend on the thread count).
set -uo pipefail
bindir=$(cd "${1:?usage: conformance-digest.sh BINDIR CORPUS_DIR}" && pwd)
corpus=${2:?missing CORPUS_DIR}
here=$(cd "$(dirname "$0")" && pwd)
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
export hlorun="$bindir/hlorun" here
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export work

digest_one() {
  local f=$1 rel=${1#"$corpus"/} out rc sum msg
  if awk -v f="$(basename "$f")" '$1 == f && /# *slow:/ { found = 1 } END { exit !found }' \
       "$here/conformance-run-exceptions.txt"; then
    printf '%s\tskipped\n' "$rel"; return
  fi
  out="$work/$(printf '%s' "$rel" | tr '/' '_').npz"
  timeout 120 "$hlorun" "$f" ${DIGEST_THREADS:+--threads "$DIGEST_THREADS"} --random-inputs --quiet --output "$out" >/dev/null 2>"$out.err"
  rc=$?
  msg=$(head -n 1 "$out.err" | cut -c1-200)
  rm -f "$out.err"
  sum=-
  [ -f "$out" ] && sum=$(sha256sum "$out" | cut -c1-16)
  rm -f "$out"
  printf '%s\t%s\t%s\t%s\n' "$rel" "$rc" "$sum" "$msg"
}
export corpus DIGEST_THREADS=${DIGEST_THREADS:-}
export -f digest_one
find "$corpus/xla-hlo" "$corpus/real-dumps" -name '*.hlo' 2>/dev/null | sort |
  tr '\n' '\0' | xargs -0 -P 2 -n 1 bash -c 'digest_one "$1"' _ | sort
