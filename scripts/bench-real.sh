#!/usr/bin/env bash
# The real dumps of ../shared/conformance (or CORPUS_DIR) as whole runs:
# wall time, CPU (user, system), peak RSS, and hlorun's own peak live bytes
# (--stats) for each, so that system time and memory overhead are measured
# where they matter.  Each module runs with --random-inputs (seeded) and
# --output to a temporary .npz, as a user's run would; best of RUNS runs
# (default 1), at --threads THREADS (default: all cores).
#   scripts/bench-real.sh [BINDIR] [CORPUS_DIR] [RUNS] [THREADS]
# Columns: wall s, user s, sys s, sys/user, peak RSS MiB, --stats peak live
# MiB (all memory spaces and devices; inputs included), RSS/peak.  The
# issue-13 targets: sys/user <= 0.25, RSS/peak <= 1.2.  HLORUN_ARGS adds
# options to every run (e.g. HLORUN_ARGS=--flush-denormals: XLA:CPU's mode).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bindir=${1:-$root/build/bin}
corpus=${2:-$root/../shared/conformance}
runs=${3:-1}
threads=${4:-$(nproc)}
py=/usr/bin/python3
MODULES=(
  xla-hlo/tools__data__benchmarking__mobilenet_v2.hlo
  real-dumps/25-bert-torchxla-neuron-full-train-16k-instrs.hlo
  real-dumps/26-bert-large-torchxla-neuron-dp-tp-fwd-bwd.hlo
  real-dumps/28-gptneox-torchxla-neuron-tp2.hlo
  real-dumps/03-bert-torchxla-neuron-dp-train-step.hlo
  real-dumps/01-llama2-torchxla-neuron-sync-tensors-graph.hlo
  xla-hlo/backends__gpu__codegen__emitters__tests__loop__large_loop_slow_compile_time.hlo
)
exec $py - "$bindir/hlorun" "$corpus" "$runs" "$threads" "${MODULES[@]}" <<'PY'
import json, os, resource, subprocess, sys, tempfile, time
hlorun, corpus, runs, threads, mods = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
extra = os.environ.get("HLORUN_ARGS", "").split()
print("hlorun MODULE --random-inputs --output out.npz --stats FILE --threads %s%s; best of %d; load average %s"
      % (threads, "".join(" " + a for a in extra), runs, " ".join(open("/proc/loadavg").read().split()[:3])))
print("%-58s %8s %8s %8s %8s %9s %9s %7s" % ("module", "wall s", "user s", "sys s", "sys/usr", "RSS MiB",
                                              "peak MiB", "RSS/pk"))
with tempfile.TemporaryDirectory() as tmp:
    for rel in mods:
        path = os.path.join(corpus, rel)
        if not os.path.exists(path):
            print("%-58s missing" % rel[-58:]); continue
        best = None
        for _ in range(runs):
            stats = os.path.join(tmp, "s.json")
            cmd = [hlorun, path, "--random-inputs", "--threads", threads, "--output", os.path.join(tmp, "o.npz"),
                   "--stats=" + stats, "--stats-format", "json"] + extra
            t0 = time.perf_counter()
            # a fresh child per run: its rusage alone (wait4)
            p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            err = p.stderr.read().decode(errors="replace"); p.stderr.close()
            if os.waitstatus_to_exitcode(status) != 0:
                print("%-58s exit %d: %s" % (rel[-58:], os.waitstatus_to_exitcode(status), err.splitlines()[:1])); break
            s = json.load(open(stats))
            # one device: an object; several: a list of them (their peaks summed)
            peak = sum(sp["peak_bytes"] for d in (s if isinstance(s, list) else [s]) for sp in d["memory_spaces"])
            row = (wall, ru.ru_utime, ru.ru_stime, ru.ru_maxrss / 1024, peak / 2**20)
            if best is None or row[0] < best[0]:
                best = row
        else:
            w, u, sy, rss, pk = best
            print("%-58s %8.2f %8.2f %8.2f %8.2f %9.0f %9.0f %7.2f" % (rel[-58:], w, u, sy, sy / u if u else 0, rss, pk,
                                                                    rss / pk if pk else 0), flush=True)
PY
