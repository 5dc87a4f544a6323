#!/usr/bin/env bash
# Parser throughput and memory:
#   scripts/bench-parse.sh [--instructions N] [--build DIR]
# 1. generates a module of N (default 150000) instructions (parameter, add,
#    multiply, dot, reduce, broadcast, constant; realistic metadata) into a
#    temp file and measures parse and parse+verify time, MB/s, the arena as
#    a multiple of the text size, and peak RSS of a whole `hlorun --check`;
# 2. does the same over every file of ../shared/conformance;
# 3. generates a StableHLO module of the same ops (N/5 rounds, as JAX prints
#    them, with #loc aliases) and times `hlorun --check --no-verify` on it
#    (read + convert to HLO + parse), best of 3 by CPU time (user + sys), in
#    MB/s of MLIR text.
# Targets: >= 50 MB/s, memory <= 10x the text size; StableHLO >= 30 MB/s.
set -euo pipefail
cd "$(dirname "$0")/.."
n=150000
build=build-bench
while [ $# -gt 0 ]; do
  case "$1" in
    --instructions) n=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "usage: $0 [--instructions N] [--build DIR]" >&2; exit 2 ;;
  esac
done
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j2 --target bench_parse hlorun >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gen=$tmp/bench.hlo
awk -v n="$n" 'BEGIN {
  print "HloModule bench, entry_computation_layout={(f32[128,256]{1,0}, f32[256,256]{1,0})->f32[128,256]{1,0}}"
  print ""
  print "%add (x: f32[], y: f32[]) -> f32[] {"
  print "  %x = f32[] parameter(0)"
  print "  %y = f32[] parameter(1)"
  print "  ROOT %s = f32[] add(f32[] %x, f32[] %y)"
  print "}"
  print ""
  print "ENTRY %main (p0: f32[128,256], p1: f32[256,256]) -> f32[128,256] {"
  print "  %p0 = f32[128,256]{1,0} parameter(0)"
  print "  %p1 = f32[256,256]{1,0} parameter(1)"
  print "  %zero = f32[] constant(0)"
  md = "source_file=\"/home/user/project/models/transformer.py\""
  x = "p0"; k = 3
  for (i = 0; k < n - 1; i++) {
    pre = "jit(train_step)/jvp(transformer)/layer_" i
    printf "  %%a.%d = f32[128,256]{1,0} add(f32[128,256]{1,0} %%%s, f32[128,256]{1,0} %%p0), metadata={op_type=\"add\" op_name=\"%s/add\" %s source_line=%d}\n", i, x, pre, md, 100 + i % 900
    printf "  %%m.%d = f32[128,256]{1,0} multiply(f32[128,256]{1,0} %%a.%d, f32[128,256]{1,0} %%%s), metadata={op_type=\"mul\" op_name=\"%s/mul\" %s source_line=%d}\n", i, i, x, pre, md, 100 + i % 900
    printf "  %%d.%d = f32[128,256]{1,0} dot(f32[128,256]{1,0} %%m.%d, f32[256,256]{1,0} %%p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}, metadata={op_type=\"dot_general\" op_name=\"%s/dot_general\" %s source_line=%d}\n", i, i, pre, md, 100 + i % 900
    printf "  %%r.%d = f32[128]{0} reduce(f32[128,256]{1,0} %%d.%d, f32[] %%zero), dimensions={1}, to_apply=%%add, metadata={op_type=\"reduce_sum\" op_name=\"%s/reduce_sum\" %s source_line=%d}\n", i, i, pre, md, 100 + i % 900
    printf "  %%b.%d = f32[128,256]{1,0} broadcast(f32[128]{0} %%r.%d), dimensions={0}, metadata={op_type=\"broadcast_in_dim\" op_name=\"%s/broadcast_in_dim\" %s source_line=%d}\n", i, i, pre, md, 100 + i % 900
    x = "b." i; k += 5
  }
  printf "  ROOT %%out = f32[128,256]{1,0} copy(f32[128,256]{1,0} %%%s)\n", x
  print "}"
}' > "$gen"
count=$(grep -c ' = ' "$gen")
echo "generated module: $count instructions, $(du -h "$gen" | cut -f1)"
"$build/bin/bench_parse" --repeat 3 "$gen"
"$build/bin/bench_parse" --repeat 3 --verify "$gen"
/usr/bin/time -f "hlorun --check: %e s, peak RSS %M KB" "$build/bin/hlorun" "$gen" --check

corpus=../shared/conformance
if [ -d "$corpus" ]; then
  echo "conformance corpus:"
  mapfile -t files < <(find "$corpus" -name '*.hlo' | sort)
  "$build/bin/bench_parse" --quiet --repeat 3 "${files[@]}" || true
  "$build/bin/bench_parse" --quiet --repeat 3 --verify "${files[@]}" || true
fi

# 3. StableHLO: read, convert and parse (parser/mlir_*.c).
mlir=$tmp/bench.mlir
awk -v n="$((n / 5))" 'BEGIN {
  print "module @bench attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {"
  print "  func.func public @main(%arg0: tensor<128x256xf32> loc(\"x\"), %arg1: tensor<256x256xf32> loc(\"w\")) -> (tensor<128x256xf32> {jax.result_info = \"\"}) {"
  print "    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>"
  x = "%arg0"
  for (i = 0; i < n; i++) {
    l = i % 50
    printf "    %%a%d = stablehlo.add %s, %%arg0 : tensor<128x256xf32> loc(#loc%d)\n", i, x, l
    printf "    %%m%d = stablehlo.multiply %%a%d, %s : tensor<128x256xf32> loc(#loc%d)\n", i, i, x, l
    printf "    %%d%d = stablehlo.dot_general %%m%d, %%arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<128x256xf32>, tensor<256x256xf32>) -> tensor<128x256xf32> loc(#loc%d)\n", i, i, l
    printf "    %%r%d = stablehlo.reduce(%%d%d init: %%cst) applies stablehlo.add across dimensions = [1] : (tensor<128x256xf32>, tensor<f32>) -> tensor<128xf32> loc(#loc%d)\n", i, i, l
    printf "    %%b%d = stablehlo.broadcast_in_dim %%r%d, dims = [0] : (tensor<128xf32>) -> tensor<128x256xf32> loc(#loc%d)\n", i, i, l
    x = "%b" i
  }
  printf "    return %s : tensor<128x256xf32>\n  }\n}\n", x
  for (j = 0; j < 50; j++) printf "#loc%d = loc(\"/home/user/model.py\":%d:4)\n", j, 100 + j
}' > "$mlir"
bytes=$(stat -c %s "$mlir")
# CPU time (user + sys) as for the HLO parser above: on a shared machine wall
# time measures the neighbours; best of 3, wall time beside it.
best=""
for _ in 1 2 3; do
  t=$( { /usr/bin/time -f "%U %S %e" "$build/bin/hlorun" "$mlir" --check --no-verify; } 2>&1 | tail -1)
  best=$(echo "$t $best" | awk '{ c = $1 + $2; if ($4 == "" || c < $4) print c, $3; else print $4, $5 }')
done
echo "$bytes $best" | awk '{ printf "StableHLO module: %.1f MB, read+convert+parse: cpu %.3f s = %.1f MB/s (wall %.3f s = %.1f MB/s)\n", $1 / 1e6, $2, $1 / 1e6 / $2, $3, $1 / 1e6 / $3 }'
/usr/bin/time -f "hlorun --check (StableHLO): %e s, peak RSS %M KB" "$build/bin/hlorun" "$mlir" --check
