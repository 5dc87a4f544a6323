#!/usr/bin/env bash
# Devices as MPI processes, bit for bit (docs/mpi.md; run by CTest):
#   scripts/mpi-compare.sh BINDIR MODULE.hlo...
#   scripts/mpi-compare.sh BINDIR --corpus CONFORMANCE_DIR
#     (its xla-hlo/ and real-dumps/ modules that name a collective, a device
#     id or more than one replica or partition)
# For every multi-device module: the in-process run's --output x.npz, then
# the same run under `mpirun -np K` for K = 1, 2, 4 (those dividing the
# device count); every npz must equal the in-process one byte for byte.
# Modules whose in-process run fails (error goldens) or that have one
# device are skipped.  Modules run with --random-inputs on their own grid.
# MPI_COMPARE_SKIP (space-separated basenames) names modules not run (CTest
# leaves out the three real dumps that take 10-16 s per run; docs/mpi.md).
# Runs two modules at a time; prints "N compared, M failed".
set -uo pipefail
bindir=${1:?usage: mpi-compare.sh BINDIR MODULE.hlo...}
shift
hlorun="$bindir/hlorun"
if [ "${1:-}" = "--corpus" ]; then
  corpus=${2:?missing CONFORMANCE_DIR}
  mapfile -t modules < <(grep -lE 'replica_count=[2-9]|num_partitions=[2-9]|all-reduce|all-gather|all-to-all|collective-permute|reduce-scatter|collective-broadcast|send\(|recv\(|replica-id|partition-id' \
    "$corpus"/xla-hlo/*.hlo "$corpus"/real-dumps/*.hlo 2>/dev/null)
  set -- "${modules[@]}"
fi
command -v mpirun >/dev/null || { echo "mpi-compare: no mpirun (install openmpi-bin)"; exit 1; }
# As root Open MPI wants an explicit yes; the machine has fewer cores than ranks.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Keep Open MPI quiet and local: shared memory and loopback only.
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The devices of an npz written by a multi-device run: its r{R}[p{P}]_ prefixes.
devices_of() {
  /usr/bin/python3 -c '
import sys, zipfile, re
names = zipfile.ZipFile(sys.argv[1]).namelist()
print(len({m.group(1) for m in (re.match(r"(r\d+(p\d+)?)_", n) for n in names) if m}))' "$1"
}

one() {
  local f=$1 base dir ref n k out rc
  base=$(basename "$f" .hlo)
  case " ${MPI_COMPARE_SKIP:-} " in
    *" $base.hlo "*) printf 'SKIP\t%s\tMPI_COMPARE_SKIP\n' "$f"; return ;;
  esac
  dir=$(mktemp -d "$tmp/$base.XXXX")
  ref="$dir/ref.npz"
  if ! "$hlorun" "$f" --random-inputs --quiet --output "$ref" >/dev/null 2>&1; then
    printf 'SKIP\t%s\tthe in-process run fails\n' "$f"
    return
  fi
  n=$(devices_of "$ref")
  if [ "${n:-0}" -lt 2 ]; then
    printf 'SKIP\t%s\tone device\n' "$f"
    return
  fi
  for k in 1 2 4; do
    [ $((n % k)) -eq 0 ] || continue
    out="$dir/np$k.npz"
    # Its own session directory: two mpiruns (xargs -P 2) creating the same
    # one race and fail with "File exists".
    OMPI_MCA_orte_tmpdir_base="$dir" timeout 120 mpirun -np "$k" "$hlorun" "$f" \
      --random-inputs --quiet --output "$out" \
      >"$dir/log" 2>&1
    rc=$?
    if [ "$rc" -ne 0 ]; then
      printf 'FAIL\t%s\t-np %s exit %s: %s\n' "$f" "$k" "$rc" "$(grep -m1 -i error "$dir/log" | cut -c1-200)"
      return
    fi
    if ! cmp -s "$ref" "$out"; then
      printf 'FAIL\t%s\t-np %s: the npz differs from the in-process run\n' "$f" "$k"
      return
    fi
  done
  printf 'PASS\t%s\t%s devices\n' "$f" "$n"
}
export -f one devices_of
export hlorun tmp

printf '%s\n' "$@" | xargs -P 2 -I{} bash -c 'one "$@"' _ {} >"$tmp/results"
sort "$tmp/results" | grep -v '^SKIP' || true
pass=$(grep -c '^PASS' "$tmp/results")
fail=$(grep -c '^FAIL' "$tmp/results")
skip=$(grep -c '^SKIP' "$tmp/results")
echo "$pass compared, $fail failed, $skip skipped (one device, or failing in-process)"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
