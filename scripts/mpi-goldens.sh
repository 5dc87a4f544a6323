#!/usr/bin/env bash
# Goldens of runs under mpirun (docs/mpi.md; run by CTest):
#   scripts/mpi-goldens.sh BINDIR
# Each case: ranks, the expectation and a file, the directory, module and
# options.  0: exit 0 and stdout equals the file; fail: non-zero exit and
# every line of the file occurs in stderr; stats: exit 0 and every line of
# the file occurs in stderr (the --stats report).  Every case has 60 s: a hang fails it.
set -uo pipefail
bindir=$(cd "${1:?usage: mpi-goldens.sh BINDIR}" && pwd)
cd "$(dirname "$0")/../testdata"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0

# case NP EXPECT FILE DIR ARGS...
case_() {
  local np=$1 expect=$2 file=$3 dir=$4 rc
  shift 4
  (cd "$dir" && timeout 60 mpirun -np "$np" "$bindir/hlorun" "$@") >"$tmp/out" 2>"$tmp/err"
  rc=$?
  local what="-np $np $dir/$*"
  if [ "$rc" -eq 124 ]; then
    echo "FAIL $what: timed out (a hang)"; failed=$((failed + 1)); return
  fi
  if [ "$expect" = 0 ]; then
    if [ "$rc" -ne 0 ] || ! cmp -s "$tmp/out" "$file"; then
      echo "FAIL $what: exit $rc, stdout differs from $file"; head -5 "$tmp/err"
      failed=$((failed + 1)); return
    fi
  else
    if [ "$expect" = stats ] && [ "$rc" -ne 0 ]; then
      echo "FAIL $what: exit $rc"; failed=$((failed + 1)); return
    fi
    if [ "$expect" = fail ] && [ "$rc" -eq 0 ]; then echo "FAIL $what: exit 0"; failed=$((failed + 1)); return; fi
    while IFS= read -r line; do
      if ! grep -qF -- "$line" "$tmp/err"; then
        echo "FAIL $what: stderr lacks: $line"; head -5 "$tmp/err"
        failed=$((failed + 1)); return
      fi
    done <"$file"
  fi
  passed=$((passed + 1))
}

# Per-device .npz entries bind on their devices whatever rank runs them.
case_ 2 0 npz-inputs/per_device.out npz-inputs per_device.hlo --inputs per_device.npz
case_ 4 0 npz-inputs/per_device.out npz-inputs per_device.hlo --inputs per_device.npz
# A failing device: its rank names it, the others repeat it, all exit non-zero.
case_ 2 fail mpi/failing_rank_np2.err mpi failing_rank.hlo
case_ 4 fail mpi/failing_rank_np4.err mpi failing_rank.hlo
# --stats: per rank, the bytes each collective moved (2 x 2 devices, two
# per rank: a s32[] all-reduce sends 2 x 4 B to the other rank, the s32[2]
# all-to-all 2 x 8 B).  Checked as "fail" lines but the run must pass.
case_ 2 stats mpi/stats_np2.err interp-collectives partitions.hlo -q --stats \
  --stats-format yaml
# The same in JSON: {"devices": [...], "ranks": [...]}.
case_ 2 stats mpi/stats_json_np2.err interp-collectives partitions.hlo -q --stats \
  --stats-format json
# Ranks that do not divide the devices are refused on every rank.
case_ 3 fail mpi/uneven_np3.err mpi failing_rank.hlo
# --output-dir: each rank writes its own devices' files, the same bytes as
# the in-process run's.
dir_case() {
  local np=$1 f
  rm -rf "$tmp/in" "$tmp/np"; mkdir "$tmp/in" "$tmp/np"
  (cd npz-inputs && "$bindir/hlorun" per_device.hlo --inputs per_device.npz -q --output-dir "$tmp/in" &&
    timeout 60 mpirun -np "$np" "$bindir/hlorun" per_device.hlo --inputs per_device.npz -q \
      --output-dir "$tmp/np") >/dev/null 2>&1 || { echo "FAIL --output-dir -np $np: exit non-zero"; failed=$((failed + 1)); return; }
  for f in r0p0 r0p1 r1p0 r1p1; do
    if ! cmp -s "$tmp/in/$f.npz" "$tmp/np/$f.npz"; then
      echo "FAIL --output-dir -np $np: $f.npz differs or is missing"; failed=$((failed + 1)); return
    fi
  done
  passed=$((passed + 1))
}
dir_case 2
dir_case 4
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
