#!/usr/bin/env bash
# Builds the parser's libFuzzer target with clang (ASan + UBSan) straight
# from the sources, seeds it from the conformance corpus and the golden
# error cases, and runs it.
#   scripts/fuzz-parser.sh [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=60
jobs=1
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: $0 [--seconds N] [--jobs J] [-- libFuzzer args]" >&2; exit 2 ;;
  esac
done
command -v clang >/dev/null || { echo "fuzz-parser: clang not found" >&2; exit 2; }

out=$root/build-fuzz
gen=$out/gen/parser
mkdir -p "$gen" "$out/corpus" "$out/artifacts" "$out/seeds"
re2c -W --no-generation-date -c -o "$gen/lexer.c" parser/lexer.re
bison -Wall -Werror --defines="$gen/grammar.tab.h" -o "$gen/grammar.tab.c" parser/grammar.y

# The library rooms the parser needs (no interp/kernels).
srcs=(base/*.c layout/*.c parser/*.c "$gen/lexer.c" "$gen/grammar.tab.c" tests/fuzz/fuzz_parser.c)
bin=$out/fuzz_parser
if [ ! -x "$bin" ] || [ -n "$(find parser base layout tests/fuzz -newer "$bin" -name '*.[chrey]*' | head -1)" ]; then
  echo "fuzz-parser: building $bin"
  clang -std=gnu17 -O1 -g -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root" -I"$out/gen" "${srcs[@]}" $(pkg-config --libs yaml-0.1) -lm -o "$bin"
fi

# Seeds: small corpus modules and every golden error case.
find "$root/../shared/conformance" "$root/testdata" -name '*.hlo' -size -64k \
  -exec cp -n {} "$out/seeds/" \; 2>/dev/null || true

# -jobs makes libFuzzer fork workers that log to ./fuzz-N.log; only for J > 1.
par=()
if [ "$jobs" -gt 1 ]; then par=(-jobs="$jobs" -workers="$jobs"); cd "$out"; fi

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
echo "fuzz-parser: running for ${seconds}s"
"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -dict="$root/tests/fuzz/hlo.dict" -artifact_prefix="$out/artifacts/" \
  -print_final_stats=1 "${par[@]}" ${extra[@]+"${extra[@]}"} "$out/corpus" "$out/seeds"
