#!/usr/bin/env bash
# Compares hlorun with numpy on this machine, in one run:
#   - an elementwise chain ((a*b)+c)*a-b on f32[4096,4096]
#   - a transpose of f32[4096,4096]
#   - a broadcast f32[4096] -> f32[4096,4096]
#   - a 1000-iteration while loop (counter + f32[16] accumulator): the
#     per-iteration overhead in microseconds
#   - issue 5's compute ops: dot 512 and 1024 (f32), a batched dot, an
#     attention-shaped dot (bqhd,bkhd->bhqk; numpy: matmul on transposed
#     views), a ResNet-style 3x3 convolution (NHWC 8x56x56x64 -> 64, numpy:
#     im2col + matmul), a 4096x4096 row reduction, a softmax over
#     f32[4096,1024], a 2-layer MLP and an embedding gather
# hlorun's time is its evaluation time (--stats eval_ns: inputs already
# bound, parsing excluded) with --repeat RUNS: the best of RUNS warm
# evaluations in one process, each reusing the memory the previous result
# released; numpy's is the best of RUNS warm calls on arrays already in
# memory.  Ratio = hlorun / numpy (< 1: faster).  The compute ops also
# report CPU-time ratios (hlorun --stats eval_cpu_ns against numpy's
# time.process_time, both counting every thread of the process, the BLAS's
# included): other load on the machine stretches wall time but hardly the
# CPU time, so on a busy machine the CPU columns are the ones to compare.  The "numpy cold" column
# times numpy's first call in a fresh process (ratio/cold), for reference.
# Both sides run without OPENBLAS_CORETYPE/OPENBLAS_L2_SIZE (an old core
# type makes OpenBLAS pick slower kernels: Sandybridge's sgemm is ~15%
# slower than this CPU's, Prescott's 2.6x).  The compute ops alternate
# hlorun and numpy op by op for BENCH_ROUNDS rounds (default 3; each side's
# best over all rounds, so that load changes hit both alike), once with
# OpenBLAS's default thread count and once with OPENBLAS_NUM_THREADS=1 on
# both sides; the table names each side's BLAS library and the load average.
# The compute ops take the best of BENCH_REPEATS (default 20) warm calls
# per round on both sides: on this class of 2-vCPU machine a 1.4 ms
# 2-thread sgemm takes anywhere from 1.3 to 3 ms from call to call (the
# BLAS worker thread is not always running beside the caller), in numpy as
# in hlorun and in a bare C loop over cblas_sgemm, so the best of 5 was
# mostly luck; 20 is where both sides' best settles.
# On a loaded machine single runs of the same binary vary by 1.5x: compare
# ratios across several runs, and the 1-thread columns first.
#   usage: [BENCH_ROUNDS=N] [BENCH_REPEATS=M] scripts/bench.sh [BINDIR] [RUNS]
#
# scripts/bench.sh --process [BINDIR] [RUNS] times instead, for each of the
# rows above, the user's command as a whole process, from start to exit:
#   hlorun MODEL.hlo --inputs in.npz --output out.npy --quiet   (stdout to /dev/null)
# (--quiet because --output used to print the result as text as well: 40 s
# of formatting for a 4096x4096 result; now that --output alone prints
# nothing, --quiet changes nothing)
# against the same job as one numpy process:
#   python3 -c 'import numpy as np; ...np.load("in.npz")...; np.save("out.npy", ...)'
# so start-up, reading the inputs and writing the result count on both
# sides (parsing and verifying the module on hlorun's).  The two commands
# alternate, one warm-up pair then RUNS pairs (default 5); each side's time
# is its fastest run.  Ratio = hlorun / numpy (< 1: faster); the cpu
# columns compare user + system time, which a busy machine hardly moves.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=eval
if [ "${1:-}" = "--process" ]; then mode=process; shift; fi
bindir=${1:-build/bin}
runs=${2:-5}
py=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/chain.hlo" <<'HLO'
HloModule chain
ENTRY main {
  a = f32[4096,4096]{1,0} parameter(0)
  b = f32[4096,4096]{1,0} parameter(1)
  c = f32[4096,4096]{1,0} parameter(2)
  t1 = f32[4096,4096]{1,0} multiply(a, b)
  t2 = f32[4096,4096]{1,0} add(t1, c)
  t3 = f32[4096,4096]{1,0} multiply(t2, a)
  ROOT t4 = f32[4096,4096]{1,0} subtract(t3, b)
}
HLO
cat >"$tmp/transpose.hlo" <<'HLO'
HloModule transpose
ENTRY main {
  a = f32[4096,4096]{1,0} parameter(0)
  ROOT t = f32[4096,4096]{1,0} transpose(a), dimensions={1,0}
}
HLO
cat >"$tmp/broadcast.hlo" <<'HLO'
HloModule broadcast
ENTRY main {
  v = f32[4096]{0} parameter(0)
  ROOT b = f32[4096,4096]{1,0} broadcast(v), dimensions={1}
}
HLO
cat >"$tmp/while.hlo" <<'HLO'
HloModule loop
cond {
  s = (s32[], f32[16]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  n = s32[] constant(1000)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  s = (s32[], f32[16]{0}) parameter(0)
  i = s32[] get-tuple-element(s), index=0
  acc = f32[16]{0} get-tuple-element(s), index=1
  one = s32[] constant(1)
  half = f32[] constant(0.5)
  h = f32[16]{0} broadcast(half), dimensions={}
  ni = s32[] add(i, one)
  na = f32[16]{0} add(acc, h)
  ROOT t = (s32[], f32[16]{0}) tuple(ni, na)
}
ENTRY main {
  acc0 = f32[16]{0} parameter(0)
  zero = s32[] constant(0)
  init = (s32[], f32[16]{0}) tuple(zero, acc0)
  w = (s32[], f32[16]{0}) while(init), condition=cond, body=body
  ROOT r = f32[16]{0} get-tuple-element(w), index=1
}
HLO

cat >"$tmp/dot512.hlo" <<'HLO'
HloModule dot512
ENTRY main {
  a = f32[512,512]{1,0} parameter(0)
  b = f32[512,512]{1,0} parameter(1)
  ROOT d = f32[512,512]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
HLO
cat >"$tmp/dot1024.hlo" <<'HLO'
HloModule dot1024
ENTRY main {
  a = f32[1024,1024]{1,0} parameter(0)
  b = f32[1024,1024]{1,0} parameter(1)
  ROOT d = f32[1024,1024]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}
HLO
cat >"$tmp/bdot.hlo" <<'HLO'
HloModule bdot
ENTRY main {
  a = f32[32,256,256]{2,1,0} parameter(0)
  b = f32[32,256,256]{2,1,0} parameter(1)
  ROOT d = f32[32,256,256]{2,1,0} dot(a, b), lhs_batch_dims={0}, rhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_contracting_dims={1}
}
HLO
cat >"$tmp/attn.hlo" <<'HLO'
HloModule attn
ENTRY main {
  q = f32[8,512,8,64]{3,2,1,0} parameter(0)
  k = f32[8,512,8,64]{3,2,1,0} parameter(1)
  ROOT s = f32[8,8,512,512]{3,2,1,0} dot(q, k), lhs_batch_dims={0,2}, rhs_batch_dims={0,2}, lhs_contracting_dims={3}, rhs_contracting_dims={3}
}
HLO
cat >"$tmp/conv.hlo" <<'HLO'
HloModule conv
ENTRY main {
  x = f32[8,56,56,64]{3,2,1,0} parameter(0)
  k = f32[3,3,64,64]{3,2,1,0} parameter(1)
  ROOT c = f32[8,56,56,64]{3,2,1,0} convolution(x, k), window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f
}
HLO
cat >"$tmp/rowred.hlo" <<'HLO'
HloModule rowred
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
ENTRY main {
  x = f32[4096,4096]{1,0} parameter(0)
  z = f32[] constant(0)
  ROOT r = f32[4096]{0} reduce(x, z), dimensions={1}, to_apply=add
}
HLO
cat >"$tmp/softmax.hlo" <<'HLO'
HloModule softmax
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}
max {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] maximum(a, b)
}
ENTRY main {
  x = f32[4096,1024]{1,0} parameter(0)
  ni = f32[] constant(-inf)
  m = f32[4096]{0} reduce(x, ni), dimensions={1}, to_apply=max
  mb = f32[4096,1024]{1,0} broadcast(m), dimensions={0}
  d = f32[4096,1024]{1,0} subtract(x, mb)
  e = f32[4096,1024]{1,0} exponential(d)
  z = f32[] constant(0)
  s = f32[4096]{0} reduce(e, z), dimensions={1}, to_apply=add
  sb = f32[4096,1024]{1,0} broadcast(s), dimensions={0}
  ROOT r = f32[4096,1024]{1,0} divide(e, sb)
}
HLO
cat >"$tmp/mlp.hlo" <<'HLO'
HloModule mlp
ENTRY main {
  x = f32[512,1024]{1,0} parameter(0)
  w1 = f32[1024,1024]{1,0} parameter(1)
  b1 = f32[1024]{0} parameter(2)
  w2 = f32[1024,256]{1,0} parameter(3)
  b2 = f32[256]{0} parameter(4)
  h = f32[512,1024]{1,0} dot(x, w1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  hb = f32[512,1024]{1,0} broadcast(b1), dimensions={1}
  ha = f32[512,1024]{1,0} add(h, hb)
  z = f32[] constant(0)
  zb = f32[512,1024]{1,0} broadcast(z), dimensions={}
  r = f32[512,1024]{1,0} maximum(ha, zb)
  o = f32[512,256]{1,0} dot(r, w2), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ob = f32[512,256]{1,0} broadcast(b2), dimensions={1}
  ROOT y = f32[512,256]{1,0} add(o, ob)
}
HLO
cat >"$tmp/gather.hlo" <<'HLO'
HloModule embed
ENTRY main {
  t = f32[50000,512]{1,0} parameter(0)
  i = s32[4096,1]{1,0} parameter(1)
  ROOT g = f32[4096,512]{1,0} gather(t, i), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,512}
}
HLO

if [ "$mode" = process ]; then
  # in.npz holds each row's inputs as arg0, arg1, ... (the parameters in
  # order); rows.py builds them and runs both sides.
  cat >"$tmp/proc.py" <<'PY'
import os, resource, subprocess, sys, time
import numpy as np
hlorun, tmp, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
rng = np.random.default_rng(1)
f = lambda *s: rng.standard_normal(s).astype(np.float32)
CONV = """p = np.pad(a0, ((0, 0), (1, 1), (1, 1), (0, 0)))
c = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(1, 2))
c = c.transpose(0, 1, 2, 4, 5, 3).reshape(8 * 56 * 56, 9 * 64)
r = (c @ a1.reshape(9 * 64, 64)).reshape(8, 56, 56, 64)"""
LOOP = """i, acc, h = np.int32(0), a0, np.full(16, 0.5, np.float32)
while i < 1000:
    i = i + np.int32(1)
    acc = acc + h
r = acc"""
# row: (hlo file, label, inputs, numpy code computing r from a0, a1, ...)
ROWS = [
    ("chain", "elementwise chain (4 ops)", lambda: [f(4096, 4096) for _ in range(3)], "r = ((a0 * a1) + a2) * a0 - a1"),
    ("transpose", "transpose 4096x4096", lambda: [f(4096, 4096)], "r = np.ascontiguousarray(a0.T)"),
    ("broadcast", "broadcast 4096->4096x4096", lambda: [f(4096)], "r = np.broadcast_to(a0, (4096, 4096)).copy()"),
    ("while", "while loop x1000", lambda: [f(16)], LOOP),
    ("dot512", "dot f32 512x512", lambda: [f(512, 512), f(512, 512)], "r = a0 @ a1"),
    ("dot1024", "dot f32 1024x1024", lambda: [f(1024, 1024), f(1024, 1024)], "r = a0 @ a1"),
    ("bdot", "batched dot 32x256^3", lambda: [f(32, 256, 256), f(32, 256, 256)], "r = np.matmul(a0, a1)"),
    ("attn", "attention dot 8x512x8x64", lambda: [f(8, 512, 8, 64), f(8, 512, 8, 64)],
     "r = np.matmul(a0.transpose(0, 2, 1, 3), a1.transpose(0, 2, 3, 1))"),
    ("conv", "conv 3x3 8x56x56x64->64", lambda: [f(8, 56, 56, 64), f(3, 3, 64, 64)], CONV),
    ("rowred", "row sum 4096x4096", lambda: [f(4096, 4096)], "r = a0.sum(1)"),
    ("softmax", "softmax 4096x1024", lambda: [f(4096, 1024)],
     "e = np.exp(a0 - a0.max(1, keepdims=True))\nr = e / e.sum(1, keepdims=True)"),
    ("mlp", "2-layer MLP 512x1024", lambda: [f(512, 1024), f(1024, 1024), f(1024), f(1024, 256), f(256)],
     "r = np.maximum(a0 @ a1 + a2, 0) @ a3 + a4"),
    ("gather", "embedding gather 4096", lambda: [f(50000, 512), rng.integers(0, 50000, (4096, 1)).astype(np.int32)],
     "r = a0[a1[:, 0]]"),
]

def run(cmd):
    """(wall, cpu) seconds of one whole run; cpu = user + system of the child"""
    r0, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    t, r1 = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    return t, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

print("whole process: hlorun MODEL.hlo --inputs in.npz --output out.npy --quiet (stdout to /dev/null) against")
print("python3 -c 'import numpy as np; np.load; compute; np.save'; fastest of %d alternating runs after"
      " one warm-up; load average: %s, %d CPUs" % (runs, " ".join(open("/proc/loadavg").read().split()[:3]),
                                                    os.cpu_count()))
print("%-26s %10s %10s %7s   %10s %10s %7s" % ("benchmark", "hlorun", "numpy", "ratio", "hlorun cpu", "numpy cpu", "ratio"))
for key, label, make, code in ROWS:
    ins = make()
    npz = os.path.join(tmp, key + ".in.npz")
    np.savez(npz, **{"arg%d" % i: a for i, a in enumerate(ins)})
    load = "z = np.load(%r)\n" % npz + "".join("a%d = z['arg%d']\n" % (i, i) for i in range(len(ins)))
    py = [sys.executable, "-c", "import numpy as np\n" + load + code + "\nnp.save(%r, r)" % os.path.join(tmp, "np.out.npy")]
    hl = [hlorun, os.path.join(tmp, key + ".hlo"), "--inputs", npz, "--output", os.path.join(tmp, "hl.out.npy"),
          "--quiet"]
    h, n, hc, nc = [], [], [], []
    for i in range(runs + 1):
        (th, ch), (tn, cn) = run(hl), run(py)
        if i:
            h.append(th); n.append(tn); hc.append(ch); nc.append(cn)
    a, b = np.load(os.path.join(tmp, "hl.out.npy")), np.load(os.path.join(tmp, "np.out.npy"))
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-3, atol=1e-3):
        sys.exit("bench: %s: hlorun and numpy results differ" % key)
    os.remove(npz)
    print("%-26s %7.0f ms %7.0f ms %7.2f   %7.0f ms %7.0f ms %7.2f" % (label, min(h) * 1e3, min(n) * 1e3, min(h) / min(n),
          min(hc) * 1e3, min(nc) * 1e3, min(hc) / min(nc)), flush=True)
print("ratio: hlorun / numpy (< 1: hlorun faster); cpu: user + system time of the whole process (all threads):"
      " other load on the machine stretches wall time but hardly CPU time")
PY
  "${benv[@]}" $py "$tmp/proc.py" "$bindir/hlorun" "$tmp" "$runs"
  exit 0
fi

# Both sides run with the same environment: without this machine's
# older-OpenBLAS workaround variables (these commands only), so that both
# pick the same OpenBLAS kernels for this CPU.
benv=(env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE)

# best eval time (seconds) of hlorun: one process, $runs warm evaluations of
# the same bound inputs (--repeat), best of them
hlo_time() {
  "${benv[@]}" "$@" "$bindir/hlorun" "$hlo" --random-inputs=1 --quiet --repeat "$runs" --stats="$tmp/s.json" --stats-format json
  $py -c 'import json,sys; print(json.load(open(sys.argv[1]))["eval_ns"]/1e9)' "$tmp/s.json"
}
# the same over $reps evaluations, "WALL CPU": also the least CPU time of
# one evaluation (eval_cpu_ns)
hlo_times() {
  "${benv[@]}" "$@" "$bindir/hlorun" "$hlo" --random-inputs=1 --quiet --repeat "$reps" --stats="$tmp/s.json" --stats-format json
  $py -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["eval_ns"]/1e9, s["eval_cpu_ns"]/1e9)' "$tmp/s.json"
}

hlo=$tmp/chain.hlo; chain=$(hlo_time)
hlo=$tmp/transpose.hlo; transpose=$(hlo_time)
hlo=$tmp/broadcast.hlo; broadcast=$(hlo_time)
hlo=$tmp/while.hlo; while_t=$(hlo_time)

"${benv[@]}" $py - "$runs" "$chain" "$transpose" "$broadcast" "$while_t" <<'PY'
import sys, time
import numpy as np
runs = int(sys.argv[1])
h_chain, h_tr, h_bc, h_wh = map(float, sys.argv[2:6])
rng = np.random.default_rng(1)
a, b, c = (rng.uniform(-1, 1, (4096, 4096)).astype(np.float32) for _ in range(3))
v = rng.uniform(-1, 1, 4096).astype(np.float32)
acc0 = rng.uniform(-1, 1, 16).astype(np.float32)

def best(f):
    t = []
    for _ in range(runs):
        t0 = time.perf_counter(); f(); t.append(time.perf_counter() - t0)
    return min(t)

def loop():
    i, acc, h = np.int32(0), acc0, np.full(16, 0.5, np.float32)
    while i < 1000:
        i = i + np.int32(1)
        acc = acc + h
    return acc

import subprocess
COLD = '''
import sys, time
import numpy as np
rng = np.random.default_rng(1)
a, b, c = (rng.uniform(-1, 1, (4096, 4096)).astype(np.float32) for _ in range(3))
v = rng.uniform(-1, 1, 4096).astype(np.float32)
f = {"chain": lambda: ((a * b) + c) * a - b, "transpose": lambda: np.ascontiguousarray(a.T),
     "broadcast": lambda: np.broadcast_to(v, (4096, 4096)).copy()}[sys.argv[1]]
t0 = time.perf_counter(); f(); print(time.perf_counter() - t0)
'''

def cold(name):
    return min(float(subprocess.run([sys.executable, "-c", COLD, name], capture_output=True,
                                    text=True, check=True).stdout) for _ in range(runs))

n_chain = best(lambda: ((a * b) + c) * a - b)
n_tr = best(lambda: np.ascontiguousarray(a.T))
n_bc = best(lambda: np.broadcast_to(v, (4096, 4096)).copy())
n_wh = best(loop)
c_chain, c_tr, c_bc = cold("chain"), cold("transpose"), cold("broadcast")
print("method: best of %d warm evaluations each (hlorun --repeat %d, one process; numpy: %d calls"
      " in one process); ratio = hlorun / numpy" % (runs, runs, runs))
print("%-26s %12s %12s %12s %8s %8s" % ("benchmark", "hlorun", "numpy", "numpy cold", "ratio", "ratio/cold"))
for name, h, n, c in (("elementwise chain (4 ops)", h_chain, n_chain, c_chain),
                      ("transpose 4096x4096", h_tr, n_tr, c_tr),
                      ("broadcast 4096->4096x4096", h_bc, n_bc, c_bc),
                      ("while loop x1000", h_wh, n_wh, n_wh)):
    print("%-26s %10.2f ms %10.2f ms %10.2f ms %8.2f %8.2f" % (name, h * 1e3, n * 1e3, c * 1e3, h / n, h / c))
print("while loop overhead: hlorun %.2f us/iteration, numpy (python loop) %.2f us/iteration"
      % (h_wh / 1000 * 1e6, n_wh / 1000 * 1e6))
PY

# numpy's side of the compute ops: best of RUNS warm calls of one op in a
# fresh process, "WALL CPU" (seconds; CPU = time.process_time, all threads)
cat >"$tmp/np_op.py" <<'PY'
import sys, time
import numpy as np
key, runs = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(1)
f = lambda *s: rng.standard_normal(s).astype(np.float32)

def setup():
    if key == "dot512":
        a, b = f(512, 512), f(512, 512); return lambda: a @ b
    if key == "dot1024":
        a, b = f(1024, 1024), f(1024, 1024); return lambda: a @ b
    if key == "bdot":
        a, b = f(32, 256, 256), f(32, 256, 256); return lambda: np.matmul(a, b)
    if key == "attn":  # bqhd,bkhd->bhqk as matmul on transposed views
        q, k = f(8, 512, 8, 64), f(8, 512, 8, 64)
        return lambda: np.matmul(q.transpose(0, 2, 1, 3), k.transpose(0, 2, 3, 1))
    if key == "conv":  # im2col + one matmul (what a BLAS-backed conv does)
        cx, ck = f(8, 56, 56, 64), f(3, 3, 64, 64)
        def conv():
            p = np.pad(cx, ((0, 0), (1, 1), (1, 1), (0, 0)))
            cols = np.lib.stride_tricks.sliding_window_view(p, (3, 3), axis=(1, 2))
            cols = cols.transpose(0, 1, 2, 4, 5, 3).reshape(8 * 56 * 56, 9 * 64)
            return (cols @ ck.reshape(9 * 64, 64)).reshape(8, 56, 56, 64)
        return conv
    if key == "rowred":
        rx = f(4096, 4096); return lambda: rx.sum(1)
    if key == "softmax":
        sx = f(4096, 1024)
        def softmax():
            e = np.exp(sx - sx.max(1, keepdims=True))
            return e / e.sum(1, keepdims=True)
        return softmax
    if key == "mlp":
        mx, mw1, mb1, mw2, mb2 = f(512, 1024), f(1024, 1024), f(1024), f(1024, 256), f(256)
        return lambda: np.maximum(mx @ mw1 + mb1, 0) @ mw2 + mb2
    if key == "gather":
        table, ids = f(50000, 512), rng.integers(0, 50000, 4096); return lambda: table[ids]
    raise SystemExit("unknown op " + key)

fn = setup()
t, c = [], []
for _ in range(runs):
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    t.append(time.perf_counter() - t0); c.append(time.process_time() - c0)
print(min(t), min(c))
PY

# Compute ops: hlorun and numpy alternate op by op for $rounds rounds (each
# side's time is its best over all rounds), so that a change in the
# machine's load hits both sides alike; once with OpenBLAS's default thread
# count and once with OPENBLAS_NUM_THREADS=1 on both sides (the same
# library's kernels on one core: what is left is our own overhead).
rounds=${BENCH_ROUNDS:-3}
reps=${BENCH_REPEATS:-20}
ops="dot512 dot1024 bdot attn conv rowred softmax mlp gather"
declare -A name=([dot512]="dot f32 512x512" [dot1024]="dot f32 1024x1024" [bdot]="batched dot 32x256^3" [attn]="attention dot 8x512x8x64"
  [conv]="conv 3x3 8x56x56x64->64" [rowred]="row sum 4096x4096" [softmax]="softmax 4096x1024"
  [mlp]="2-layer MLP 512x1024" [gather]="embedding gather 4096")
declare -A hbest nbest hcpu ncpu
minf() { $py -c 'import sys; v=[float(x) for x in sys.argv[1:] if x]; print(min(v))' "$@"; }
for c in $ops; do
  if ! "${benv[@]}" "$bindir/hlorun" "$tmp/$c.hlo" --random-inputs=1 --quiet 2>"$tmp/err"; then
    echo "bench: hlorun cannot run $c:" >&2; cat "$tmp/err" >&2; exit 1
  fi
done
for threads in default 1; do
  tenv=()
  [ "$threads" = 1 ] && tenv=(OPENBLAS_NUM_THREADS=1)
  for r in $(seq "$rounds"); do
    for c in $ops; do
      hlo=$tmp/$c.hlo
      read -r hw hc < <(hlo_times "${tenv[@]}")
      read -r nw nc < <("${benv[@]}" "${tenv[@]}" $py "$tmp/np_op.py" "$c" "$reps")
      k=$threads.$c
      hbest[$k]=$(minf "${hbest[$k]:-}" "$hw"); hcpu[$k]=$(minf "${hcpu[$k]:-}" "$hc")
      nbest[$k]=$(minf "${nbest[$k]:-}" "$nw"); ncpu[$k]=$(minf "${ncpu[$k]:-}" "$nc")
    done
  done
done

echo
nthreads=$("${benv[@]}" $py -c 'import ctypes; print(ctypes.CDLL("libopenblas.so.0").openblas_get_num_threads())' 2>/dev/null || echo "?")
hblas=$(ldd "$bindir/hlorun" | awk '/blas/ {print $3}' | xargs -r readlink -f | tr '\n' ' ')
nblas=$("${benv[@]}" $py -c 'import numpy, re; print(" ".join(sorted({l.split()[-1] for l in open("/proc/self/maps") if re.search("blas", l)})))')
echo "compute ops: best over $rounds alternating rounds of best-of-$reps; load average: $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs"
echo "  hlorun BLAS: ${hblas:-none}"
echo "  numpy BLAS:  $nblas"
printf "%-26s %10s %10s %6s %6s   %10s %10s %6s %6s\n" "compute op" "hlorun" "numpy" "ratio" "cpu" "hlorun" "numpy" "ratio" "cpu"
printf "%-26s %28s %6s   %28s %6s\n" "  (OpenBLAS threads)" "$nthreads" "ratio" "1" "ratio"
for c in $ops; do
  line=$(printf "%-26s" "${name[$c]}")
  for threads in default 1; do
    k=$threads.$c
    line="$line $($py -c "print('%7.2f ms %7.2f ms %6.2f %6.2f  ' % (${hbest[$k]}*1e3, ${nbest[$k]}*1e3, ${hbest[$k]}/${nbest[$k]}, ${hcpu[$k]}/${ncpu[$k]}))")"
  done
  echo "$line"
done
echo "ratio: wall-clock hlorun / numpy; cpu: CPU-time (all threads) hlorun / numpy (< 1: hlorun faster)"

# Printing a result: f32[4096,4096] (16M elements, random values: mostly
# 9-digit text, ~190 MB) printed with --print-full to /dev/null, timed as a
# whole process (start-up, random inputs, run, printing), best of RUNS; the
# same run with --quiet is the part that is not printing.
cat >"$tmp/print.hlo" <<'HLO'
HloModule print16m
ENTRY main {
  ROOT p = f32[4096,4096]{1,0} parameter(0)
}
HLO
echo
"${benv[@]}" $py - "$runs" "$bindir/hlorun" "$tmp/print.hlo" <<'PY'
import subprocess, sys, time
runs, hlorun, hlo = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def best(*flags):
    t = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([hlorun, hlo, "--random-inputs=1", *flags], stdout=subprocess.DEVNULL,
                       check=True)
        t.append(time.perf_counter() - t0)
    return min(t)

full, quiet = best("--print-full"), best("--quiet")
print("%-26s %10.2f s  (--quiet: %.2f s; printing %.0f ns/element)"
      % ("print 16M f32 --print-full", full, quiet, (full - quiet) / (4096 * 4096) * 1e9))
PY
