#!/usr/bin/env bash
# Compares hlorun with numpy and PyTorch on this machine, in one run:
#   - an elementwise chain ((a*b)+c)*a-b, a fused tanh((x+y)*y) and a clamp
#     (relu6) on f32[4096,4096]
#   - a transpose of f32[4096,4096], a broadcast f32[4096] -> [4096,4096]
#     and a row sum of f32[4096,4096]
#   - dot 512 and 1024 (f32), a batched dot, an attention-shaped dot
#     (bqhd,bkhd->bhqk), a ResNet-style 3x3 convolution (NHWC 8x56x56x64 ->
#     64; numpy: im2col + matmul; torch: oneDNN on channels_last), a softmax
#     over f32[4096,1024], a 2-layer MLP and an embedding gather
#   - a 1000-iteration while loop (counter + f32[16] accumulator): the
#     per-iteration overhead in microseconds
# hlorun's time is its evaluation time (--stats eval_ns: inputs already
# bound, parsing excluded) with --repeat REPS: the best of REPS warm
# evaluations in one process; numpy's and torch's are the best of REPS warm
# calls on arrays already in memory, each op in a fresh process.  Every row
# runs at all cores (hlorun --threads N, OPENBLAS_NUM_THREADS=N for numpy,
# torch.set_num_threads(N)) and at one thread, so the table also gives
# hlorun's speed-up from 1 to N threads.  The sides alternate op by op for
# BENCH_ROUNDS rounds (default 3), each side's time its best over all
# rounds, so that load changes hit all alike; BENCH_REPEATS (default RUNS,
# at least 10) calls per round, and for short ops as many as take about
# 0.25 s (at most 300, the same count on every side; the header line
# names them): on this class of 2-vCPU machine a 1.4 ms 2-thread sgemm
# takes anywhere from 1.3 to 3 ms from call to call.  The
# CPU column compares CPU time (hlorun --stats eval_cpu_ns against numpy's
# time.process_time, all threads): other load stretches wall time but
# hardly the CPU time.  All sides run without OPENBLAS_CORETYPE /
# OPENBLAS_L2_SIZE (an old core type makes OpenBLAS pick slower kernels).
# PyTorch comes from Debian (python3-torch), installed here when missing.
# On a loaded machine single runs of the same binary vary by 1.5x: compare
# ratios across several runs, and the CPU column first.  A niced job does
# not free a core for the N-thread column: with autogroup scheduling
# (/proc/sys/kernel/sched_autogroup_enabled = 1, as on the 2-vCPU bench VM)
# nice only ranks processes of one session, and a `nice -n 15` fuzzer
# started from another session still takes one of the two cores whenever
# hlorun wants both (perf record -a: the fuzzer on CPU 1 throughout, both
# hlorun threads taking turns on CPU 0), so t=N shows no gain over t=1.
# Nice the session's group instead: echo 15 > /proc/FUZZER_PID/autogroup.
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
cat >"$tmp/tanh.hlo" <<'HLO'
HloModule tanh_chain
ENTRY main {
  x = f32[4096,4096]{1,0} parameter(0)
  y = f32[4096,4096]{1,0} parameter(1)
  s = f32[4096,4096]{1,0} add(x, y)
  m = f32[4096,4096]{1,0} multiply(s, y)
  ROOT t = f32[4096,4096]{1,0} tanh(m)
}
HLO
cat >"$tmp/clamp.hlo" <<'HLO'
HloModule clamp
ENTRY main {
  x = f32[4096,4096]{1,0} parameter(0)
  lo = f32[] constant(0)
  hi = f32[] constant(6)
  ROOT c = f32[4096,4096]{1,0} clamp(lo, x, hi)
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
    ("tanh", "fused tanh((x+y)*y)", lambda: [f(4096, 4096) for _ in range(2)], "r = np.tanh((a0 + a1) * a1)"),
    ("clamp", "clamp(0,x,6) 4096^2", lambda: [f(4096, 4096)], "r = np.clip(a0, np.float32(0), np.float32(6))"),
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

# PyTorch is the second peer (Debian's python3-torch, CPU build with
# oneDNN); installed here when missing, as bootstrap installs the rest.
if ! $py -c 'import torch' 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "bench: installing python3-torch (PyTorch, the second peer)" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
      -o Dpkg::Options::=--force-unsafe-io python3-torch >/dev/null 2>&1 || true
  fi
  $py -c 'import torch' 2>/dev/null || echo "bench: no PyTorch (python3-torch): its columns stay empty" >&2
fi

# One peer's side of an op: best of REPS warm calls in a fresh process at
# THREADS threads (numpy: OPENBLAS_NUM_THREADS, set by the caller; torch:
# set_num_threads), "WALL CPU" seconds (CPU = time.process_time, all
# threads).  The inputs are the same shapes and distributions as hlorun's.
cat >"$tmp/peer_op.py" <<'PY'
import sys, time
import numpy as np
lib, key, runs, threads = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(1)
f = lambda *s: rng.standard_normal(s).astype(np.float32)

def numpy_op():
    if key == "chain":
        a, b, c = f(4096, 4096), f(4096, 4096), f(4096, 4096); return lambda: ((a * b) + c) * a - b
    if key == "tanh":
        x, y = f(4096, 4096), f(4096, 4096); return lambda: np.tanh((x + y) * y)
    if key == "clamp":
        x = f(4096, 4096); return lambda: np.clip(x, np.float32(0), np.float32(6))
    if key == "transpose":
        a = f(4096, 4096); return lambda: np.ascontiguousarray(a.T)
    if key == "broadcast":
        v = f(4096); return lambda: np.broadcast_to(v, (4096, 4096)).copy()
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

def torch_op():
    import torch
    torch.set_num_threads(threads)
    torch.set_grad_enabled(False)
    t = lambda *s: torch.from_numpy(f(*s))
    if key == "chain":
        a, b, c = t(4096, 4096), t(4096, 4096), t(4096, 4096); return lambda: ((a * b) + c) * a - b
    if key == "tanh":
        x, y = t(4096, 4096), t(4096, 4096); return lambda: torch.tanh((x + y) * y)
    if key == "clamp":
        x = t(4096, 4096); return lambda: torch.clamp(x, 0, 6)
    if key == "transpose":
        a = t(4096, 4096); return lambda: a.t().contiguous()
    if key == "broadcast":
        v = t(4096); return lambda: v.expand(4096, 4096).contiguous()
    if key in ("dot512", "dot1024"):
        n = 512 if key == "dot512" else 1024
        a, b = t(n, n), t(n, n); return lambda: a @ b
    if key == "bdot":
        a, b = t(32, 256, 256), t(32, 256, 256); return lambda: torch.matmul(a, b)
    if key == "attn":
        q, k = t(8, 512, 8, 64), t(8, 512, 8, 64)
        return lambda: torch.matmul(q.transpose(1, 2), k.permute(0, 2, 3, 1))
    if key == "conv":  # NHWC data as channels_last NCHW tensors (no copy): oneDNN's layout
        x = t(8, 56, 56, 64).permute(0, 3, 1, 2)
        w = t(3, 3, 64, 64).permute(3, 2, 0, 1).contiguous()
        return lambda: torch.nn.functional.conv2d(x, w, padding=1).permute(0, 2, 3, 1)
    if key == "rowred":
        rx = t(4096, 4096); return lambda: rx.sum(1)
    if key == "softmax":
        sx = t(4096, 1024); return lambda: torch.softmax(sx, 1)
    if key == "mlp":
        mx, mw1, mb1, mw2, mb2 = t(512, 1024), t(1024, 1024), t(1024), t(1024, 256), t(256)
        return lambda: torch.relu(mx @ mw1 + mb1) @ mw2 + mb2
    if key == "gather":
        table, ids = t(50000, 512), torch.from_numpy(rng.integers(0, 50000, 4096)); return lambda: table[ids]
    raise SystemExit("unknown op " + key)

fn = numpy_op() if lib == "numpy" else torch_op()
tw, tc = [], []
for _ in range(runs):
    c0, t0 = time.process_time(), time.perf_counter()
    fn()
    tw.append(time.perf_counter() - t0); tc.append(time.process_time() - c0)
print(min(tw), min(tc))
PY

# Every row, for each thread count (all cores, then 1): hlorun (--threads
# N, --repeat REPS, its best eval_ns / eval_cpu_ns), numpy
# (OPENBLAS_NUM_THREADS=N) and torch (set_num_threads(N)) alternate op by
# op for ROUNDS rounds; each side's time is its best over the rounds.
cat >"$tmp/eval.py" <<'PY'
import json, os, subprocess, sys
hlorun, tmp, rounds, reps, py = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
ROWS = [("chain", "elementwise chain (4 ops)"), ("tanh", "fused tanh((x+y)*y)"), ("clamp", "clamp(0,x,6) 4096^2"),
        ("transpose", "transpose 4096x4096"), ("broadcast", "broadcast 4096->4096^2"), ("rowred", "row sum 4096x4096"),
        ("dot512", "dot f32 512x512"), ("dot1024", "dot f32 1024x1024"), ("bdot", "batched dot 32x256^3"),
        ("attn", "attention dot 8x512x8x64"), ("conv", "conv 3x3 8x56x56x64->64"), ("softmax", "softmax 4096x1024"),
        ("mlp", "2-layer MLP 512x1024"), ("gather", "embedding gather 4096")]
ncpu = os.cpu_count()
have_torch = subprocess.run([py, "-c", "import torch"], capture_output=True).returncode == 0

# Calls per process, per op: at least `reps`, and more for short ops, up to
# about 0.25 s of calls (at most 300): a 1 ms dot at 2 threads read 1.44 ms
# as the best of 10 calls x 3 rounds, 1.08 ms as the best of 300.
nreps = {}

def hl(key, threads, n=None):
    s = os.path.join(tmp, "s.json")
    n = n or nreps[key]
    subprocess.run([hlorun, os.path.join(tmp, key + ".hlo"), "--random-inputs=1", "--quiet", "--repeat", str(n),
                    "--threads", str(threads), "--stats=" + s, "--stats-format", "json"], check=True)
    j = json.load(open(s))
    return j["eval_ns"] / 1e9, j["eval_cpu_ns"] / 1e9

def peer(lib, key, threads):
    env = dict(os.environ, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    out = subprocess.run([py, os.path.join(tmp, "peer_op.py"), lib, key, str(nreps[key]), str(threads)], env=env,
                         capture_output=True, text=True, check=True).stdout.split()
    return float(out[0]), float(out[1])

for key, _label in ROWS:
    t = hl(key, ncpu, 3)[0]
    nreps[key] = max(reps, min(300, int(0.25 / max(t, 1e-6))))

best = {}
def keep(k, v):
    best[k] = v if k not in best else (min(best[k][0], v[0]), min(best[k][1], v[1]))
for _ in range(rounds):
    for key, _label in ROWS:
        for threads in (ncpu, 1):
            keep(("hl", key, threads), hl(key, threads))
            keep(("np", key, threads), peer("numpy", key, threads))
            if have_torch:
                keep(("pt", key, threads), peer("torch", key, threads))

ms = lambda k: "%8.2f" % (best[k][0] * 1e3) if k in best else "%8s" % "-"
ratio = lambda a, b: "%6.2f" % (best[a][0] / best[b][0]) if a in best and b in best else "%6s" % "-"
cratio = lambda a, b: "%6.2f" % (best[a][1] / best[b][1]) if a in best and b in best else "%6s" % "-"
print("best over %d alternating rounds of best-of-N warm calls (N: %d, or ~0.25 s of calls up to 300 for short ops:"
      " %s); load average: %s; %d CPUs"
      % (rounds, reps, " ".join("%s %d" % (k, nreps[k]) for k, _ in ROWS if nreps[k] > reps),
         " ".join(open("/proc/loadavg").read().split()[:3]), ncpu))
print("hlorun: --stats eval_ns with --repeat (inputs bound, parsing excluded); numpy and torch: calls in one process")
print("%-26s | %8s %8s %6s | %8s %8s %6s %6s %6s | %8s %8s %6s %6s" % (
    "(ms; ratios hlorun/peer)", "hl t=%d" % ncpu, "hl t=1", "t%d/t1" % ncpu, "numpy", "torch", "/np", "/torch", "cpu/np",
    "np t=1", "pt t=1", "/np", "/torch"))
for key, label in ROWS:
    N, one = ncpu, 1
    print("%-26s | %s %s %6s | %s %s %s %s %s | %s %s %s %s" % (
        label, ms(("hl", key, N)), ms(("hl", key, one)),
        "%6.2f" % (best[("hl", key, one)][0] / best[("hl", key, N)][0]),
        ms(("np", key, N)), ms(("pt", key, N)), ratio(("hl", key, N), ("np", key, N)),
        ratio(("hl", key, N), ("pt", key, N)), cratio(("hl", key, N), ("np", key, N)),
        ms(("np", key, one)), ms(("pt", key, one)), ratio(("hl", key, one), ("np", key, one)),
        ratio(("hl", key, one), ("pt", key, one))), flush=True)
print("t%d/t1: hlorun's speed-up from 1 to %d threads; /np, /torch: hlorun / peer at the same thread count"
      " (< 1: hlorun faster); cpu/np: CPU time (all threads) ratio, which other load hardly moves" % (ncpu, ncpu))
PY

hlo=$tmp/while.hlo
"${benv[@]}" "$bindir/hlorun" "$hlo" --random-inputs=1 --quiet --repeat "$runs" --stats="$tmp/s.json" --stats-format json
"${benv[@]}" $py - "$runs" "$tmp/s.json" <<'PY'
import json, sys, time
import numpy as np
runs, h = int(sys.argv[1]), json.load(open(sys.argv[2]))["eval_ns"] / 1e9
acc0 = np.random.default_rng(1).uniform(-1, 1, 16).astype(np.float32)
def loop():
    i, acc, hh = np.int32(0), acc0, np.full(16, 0.5, np.float32)
    while i < 1000:
        i = i + np.int32(1)
        acc = acc + hh
    return acc
t = []
for _ in range(runs):
    t0 = time.perf_counter(); loop(); t.append(time.perf_counter() - t0)
print("while loop x1000: hlorun %.2f us/iteration, numpy (python loop) %.2f us/iteration"
      % (h / 1000 * 1e6, min(t) / 1000 * 1e6))
PY

for c in chain tanh clamp transpose broadcast rowred dot512 dot1024 bdot attn conv softmax mlp gather; do
  if ! "${benv[@]}" "$bindir/hlorun" "$tmp/$c.hlo" --random-inputs=1 --quiet 2>"$tmp/err"; then
    echo "bench: hlorun cannot run $c:" >&2; cat "$tmp/err" >&2; exit 1
  fi
done
echo
hblas=$(ldd "$bindir/hlorun" | awk '/blas/ {print $3}' | xargs -r readlink -f | tr '\n' ' ')
nblas=$("${benv[@]}" $py -c 'import numpy, re; print(" ".join(sorted({l.split()[-1] for l in open("/proc/self/maps") if re.search("blas", l)})))')
echo "hlorun BLAS: ${hblas:-none} (one thread per call, tiles on hlorun's pool); numpy BLAS: $nblas"
"${benv[@]}" $py "$tmp/eval.py" "$bindir/hlorun" "$tmp" "${BENCH_ROUNDS:-3}" "${BENCH_REPEATS:-$((runs > 10 ? runs : 10))}" "$py"

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
