# Shared by scripts/fuzz-parser.sh and scripts/fuzz-run.sh (sourced, not
# run): builds one libFuzzer target tests/fuzz/fuzz_$target.c with clang
# (ASan + UBSan) straight from the sources of the given library rooms, seeds
# it from the conformance corpus and the golden cases, and runs it.
#   fuzz_main TARGET "ROOMS" [--seconds N] [--jobs J] [-- extra libFuzzer args]
# Exits non-zero on any crash, leak, timeout or out-of-memory; the input
# that triggered it is left in build-fuzz/artifacts/.
fuzz_main() {
  local target=$1 rooms=$2
  shift 2
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  local root seconds=60 jobs=1 extra=()
  root=$(pwd)
  while [ $# -gt 0 ]; do
    case "$1" in
      --seconds) seconds=$2; shift 2 ;;
      --jobs) jobs=$2; shift 2 ;;
      --) shift; extra=("$@"); break ;;
      *) echo "usage: $0 [--seconds N] [--jobs J] [-- libFuzzer args]" >&2; exit 2 ;;
    esac
  done
  command -v clang >/dev/null || { echo "fuzz-$target: clang not found" >&2; exit 2; }

  local out=$root/build-fuzz
  local gen=$out/gen/parser
  mkdir -p "$gen" "$out/corpus-$target" "$out/artifacts" "$out/seeds"
  # Generated sources are replaced only when they change (no needless rebuilds).
  re2c -W --no-generation-date -c -o "$gen/lexer.c.new" parser/lexer.re
  bison -Wall -Werror --defines="$gen/grammar.tab.h.new" -o "$gen/grammar.tab.c.new" parser/grammar.y
  sed -i 's/\(lexer\.c\|grammar\.tab\.[ch]\)\.new/\1/g' "$gen"/*.new
  local f
  for f in lexer.c grammar.tab.h grammar.tab.c; do
    if cmp -s "$gen/$f.new" "$gen/$f"; then rm "$gen/$f.new"; else mv "$gen/$f.new" "$gen/$f"; fi
  done

  # A room is a directory (all its .c files) or one .c file; the generated
  # parser comes with the parser room.
  local srcs=() dirs=() r
  for r in $rooms; do
    if [ -f "$r" ]; then srcs+=("$r"); dirs+=("$(dirname "$r")"); else srcs+=("$r"/*.c); dirs+=("$r"); fi
  done
  case " $rooms " in *" parser "*) srcs+=("$gen/lexer.c" "$gen/grammar.tab.c") ;; esac
  # The interp room's report page (interp/report_page.html) as the C array
  # CMake makes of it (cmake/embed.cmake), regenerated when the page changes.
  case " $rooms " in *" interp "*)
    local page=$out/gen/interp/report_page.c
    if [ ! -f "$page" ] || [ interp/report_page.html -nt "$page" ]; then
      mkdir -p "$out/gen/interp"
      cmake -DIN="$root/interp/report_page.html" -DOUT="$page" -DNAME=report_page_html -P cmake/embed.cmake
    fi
    srcs+=("$page") ;;
  esac
  srcs+=("tests/fuzz/fuzz_$target.c")
  # One object per source (in parallel), rebuilt when its source is newer,
  # or all of them when a header or the generated parser changed.
  local bin=$out/fuzz_$target obj=$out/obj-$target
  mkdir -p "$obj"
  local all=0 todo=() objs=() src o
  if [ ! -x "$bin" ] || [ -n "$(find "${dirs[@]}" -newer "$bin" -name '*.h' -o -newer "$bin" -name '*.def' | head -1)" ]; then all=1; fi
  for src in "${srcs[@]}"; do
    o=$obj/$(basename "$(dirname "$src")")_$(basename "$src" .c).o
    objs+=("$o")
    if [ "$all" = 1 ] || [ "$src" -nt "$o" ]; then todo+=("$src"); fi
  done
  if [ ${#todo[@]} -gt 0 ] || [ ! -x "$bin" ]; then
    echo "fuzz-$target: building $bin (${#todo[@]} sources)"
    local flags=(-std=gnu17 -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined
                 -fno-sanitize-recover=undefined -I"$root" -I"$root/include" -I"$out/gen")
    [ ${#todo[@]} -eq 0 ] || printf '%s\n' "${todo[@]}" | xargs -P "$(nproc)" -I{} sh -c \
      'src=$1 dir=$2; shift 2; exec clang "$@" -c "$src" -o "$dir/$(basename "$(dirname "$src")")_$(basename "$src" .c).o"' \
      sh {} "$obj" "${flags[@]}"
    clang "${flags[@]}" "${objs[@]}" $(pkg-config --libs yaml-0.1) -lz -lm -o "$bin"
  fi

  # Seeds: small corpus modules and every golden case (FUZZ_SEED_NAME picks
  # other files from testdata, FUZZ_SEED_DIR adds a directory of seeds,
  # FUZZ_DICT another dictionary).
  local seeds=$out/seeds dict=${FUZZ_DICT:-$root/tests/fuzz/hlo.dict}
  if [ -n "${FUZZ_SEED_NAME:-}" ]; then
    seeds=$out/seeds-$target
    mkdir -p "$seeds"
    find "$root/testdata" -name "$FUZZ_SEED_NAME" -size -64k -exec cp -n {} "$seeds/" \; 2>/dev/null || true
    [ -z "${FUZZ_SEED_DIR:-}" ] || cp -n "$FUZZ_SEED_DIR"/* "$seeds/"
  else
    # (not the 64-device MPI scaling workload: 64 threads over f32[65536]
    # each take longer than a fuzz run's timeout under the sanitizers)
    find "$root/../shared/conformance" "$root/testdata" -name '*.hlo' -size -64k \
      -not -name scale64.hlo -exec cp -n {} "$seeds/" \; 2>/dev/null || true
  fi

  # -jobs makes libFuzzer fork workers that log to ./fuzz-N.log; only for J > 1.
  local par=()
  if [ "$jobs" -gt 1 ]; then par=(-jobs="$jobs" -workers="$jobs"); cd "$out"; fi

  export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
  export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
  echo "fuzz-$target: running for ${seconds}s"
  "$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$dict" -artifact_prefix="$out/artifacts/" \
    -print_final_stats=1 "${par[@]}" ${extra[@]+"${extra[@]}"} "$out/corpus-$target" "$seeds"
}
