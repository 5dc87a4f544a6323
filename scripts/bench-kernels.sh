#!/usr/bin/env bash
# Kernel benchmarks against numpy in the same run: dot f32 1024^3, a 3x3 NHWC
# convolution (N x 56 x 56 x 64 -> 64 features), sum of f32[4096,4096] over
# rows and columns, sort of 1M f32.  Prints times and ratio = ours / numpy
# (below 1 means faster than numpy).
# Both sides run ROUNDS times, alternating, and the best time per case is
# kept: the cores are shared, so single runs are noisy.
#   scripts/bench-kernels.sh [BUILD_DIR] [CONV_BATCH] [ROUNDS]   (defaults: build, 8, 3)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
conv_n=${2:-8}
rounds=${3:-3}
py=/usr/bin/python3
cmake --build "$build" --target bench_kernels -j2 >/dev/null
ours=$(mktemp) theirs=$(mktemp)
trap 'rm -f "$ours" "$theirs"' EXIT
numpy_bench=$(mktemp)
trap 'rm -f "$ours" "$theirs" "$numpy_bench"' EXIT
cat >"$numpy_bench" <<'PY'
import sys, time
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
conv_n = int(sys.argv[1])
rng = np.random.default_rng(0)
def best(name, reps, f):
    t = 1e30
    for _ in range(reps):
        t0 = time.perf_counter(); f(); t = min(t, time.perf_counter() - t0)
    print(f"{name} {t:.6f}", flush=True)
a = rng.random((1024, 1024), dtype=np.float32); b = rng.random((1024, 1024), dtype=np.float32)
best("dot_f32_1024", 5, lambda: np.dot(a, b))
x = rng.random((conv_n, 56, 56, 64), dtype=np.float32); k = rng.random((3, 3, 64, 64), dtype=np.float32)
def conv():
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    win = sliding_window_view(xp, (3, 3), axis=(1, 2))  # [N, 56, 56, C, 3, 3]
    return np.einsum("nhwcij,ijcf->nhwf", win, k, optimize=True)
best("conv_nhwc_3x3_64", 3, conv)
m = rng.random((4096, 4096), dtype=np.float32)
best("reduce_sum_rows_4096", 5, lambda: m.sum(axis=1))
best("reduce_sum_cols_4096", 5, lambda: m.sum(axis=0))
s = rng.random(1 << 20, dtype=np.float32)
best("sort_f32_1m", 5, lambda: np.sort(s))
PY
for _ in $(seq "$rounds"); do
  "$build/bin/bench_kernels" "$conv_n" >>"$ours"
  "$py" "$numpy_bench" "$conv_n" >>"$theirs"
done
minimum() { awk '{ if (!($1 in m) || $2 < m[$1]) m[$1] = $2 } END { for (k in m) print k, m[k] }' "$1" | sort; }
printf '%-24s %12s %12s %8s\n' case ours_s numpy_s ratio
join <(minimum "$ours") <(minimum "$theirs") | while read -r name o t; do
  printf '%-24s %12.6f %12.6f %8.2f\n' "$name" "$o" "$t" "$(echo "$o / $t" | bc -l)"
done
