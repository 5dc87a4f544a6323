#!/usr/bin/env bash
# The scaling table of docs/mpi.md:
#   scripts/mpi-scaling.sh BINDIR MODULE.hlo...
# For each module: the in-process run, then mpirun -np 1, 2, 4, 8
# (--oversubscribe; ranks dividing the device count), each with --random-inputs
# --quiet --stats=yaml.  Prints one markdown row per run: wall time of the
# whole command (mpirun start-up included) and bytes the ranks sent to each
# other in total (sum over ranks and collectives of bytes_sent).
set -uo pipefail
bindir=${1:?usage: mpi-scaling.sh BINDIR MODULE.hlo...}
shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| module | devices | ranks | wall time (s) | bytes moved between ranks |"
echo "|---|---:|---:|---:|---:|"
for f in "$@"; do
  base=$(basename "$f" .hlo)
  t0=$(date +%s.%N)
  "$bindir/hlorun" "$f" --random-inputs --quiet --stats="$tmp/s.yaml" --stats-format yaml || continue
  t1=$(date +%s.%N)
  n=$(grep -c '^device:' "$tmp/s.yaml")
  [ "$n" -gt 0 ] || n=1
  printf '| %s | %s | in-process | %.2f | 0 |\n' "$base" "$n" "$(echo "$t1 - $t0" | bc)"
  for k in 1 2 4 8; do
    [ $((n % k)) -eq 0 ] || continue
    t0=$(date +%s.%N)
    mpirun -np "$k" "$bindir/hlorun" "$f" --random-inputs --quiet --stats="$tmp/s.yaml" \
      --stats-format yaml >/dev/null 2>"$tmp/err" || { echo "| $base | $n | $k | failed | |"; continue; }
    t1=$(date +%s.%N)
    bytes=$(awk -F'bytes_sent: ' '/bytes_sent/ { split($2, a, ","); s += a[1] } END { print s + 0 }' "$tmp/s.yaml")
    printf '| %s | %s | %s | %.2f | %s |\n' "$base" "$n" "$k" "$(echo "$t1 - $t0" | bc)" "$bytes"
  done
done
