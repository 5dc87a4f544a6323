#!/usr/bin/env bash
# Our .npz reader/writer (interp/io/npz.c) against libzip on a 1 GiB archive of
# four 256 MiB float32 members, stored (numpy.savez) and deflated
# (numpy.savez_compressed); best wall and best CPU time of N runs each
# (docs/zip.md).  Needs libzip-dev and python3 with numpy.
#   scripts/bench-zip.sh [--runs N] [--dir DIR]   (default 5, /tmp/bench-zip)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5 dir=/tmp/bench-zip
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--dir DIR]" >&2; exit 2 ;;
  esac
done
mkdir -p "$dir"
if [ ! -f "$dir/deflated.npz" ] || [ ! -f "$dir/stored.npz" ]; then
  PY=${PYTHON:-/usr/bin/python3}
  "$PY" - "$dir" <<'PYEOF'
import sys, numpy as np
n = 256 * 2**20 // 4
rng = np.random.default_rng(0)
arrs = {
    'normal': rng.standard_normal(n, dtype=np.float32),
    'ramp': np.linspace(0, 1, n, dtype=np.float32),
    'quantized': rng.integers(0, 16, n).astype(np.float32) / 4,
    'sparse': np.where(rng.random(n, dtype=np.float32) < 0.1,
                       rng.standard_normal(n, dtype=np.float32), 0).astype(np.float32),
}
np.savez(sys.argv[1] + '/stored.npz', **arrs)
np.savez_compressed(sys.argv[1] + '/deflated.npz', **arrs)
PYEOF
fi
bin=$dir/bench-zip
cc -std=gnu17 -O2 -g -I. -o "$bin" scripts/bench-zip.c base/*.c layout/*.c interp/io/npy.c interp/io/npz.c \
  interp/io/npz_inflate.c interp/io/atomic_file.c $(pkg-config --cflags --libs libzip yaml-0.1) -lz -lm
for f in stored deflated; do
  "$bin" read-ours "$runs" "$dir/$f.npz"
  "$bin" read-libzip "$runs" "$dir/$f.npz"
  "$bin" read-direct "$runs" "$dir/$f.npz"
  [ "$f" = deflated ] || "$bin" read-pread "$runs" "$dir/$f.npz"
done
"$bin" write-ours "$runs" "$dir/stored.npz" "$dir/out-ours.npz"
"$bin" write-libzip "$runs" "$dir/stored.npz" "$dir/out-libzip.npz"
rm -f "$dir/out-ours.npz" "$dir/out-libzip.npz"
