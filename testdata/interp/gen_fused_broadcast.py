#!/usr/bin/python3
"""Writes fused_broadcast.{hlo,out,yaml}: broadcasts that feed an elementwise
chain on >= 1 MiB shapes are read through stride-0 views inside the fused
loop (never materialised).  Covers row (dims={0}), column (dims={1}),
scalar, repeated use and transposing (dims={2,0}: inner stride != 1)
broadcasts, an inner dimension (1000) that does not divide the 4096-element
block, and bf16 (2-byte) elements.  The expected values are computed here
from the definition of broadcast (numpy indexing), independently of hlorun."""
import numpy as np

R, C = 300, 1000
hlo = f"""HloModule fused_broadcast

add {{
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}}

ENTRY main {{
  row = s32[{R}] iota(), iota_dimension=0
  col = s32[{C}] iota(), iota_dimension=0
  k = s32[] constant(7)
  w = s32[{C},3] iota(), iota_dimension=0
  w3 = s32[{C},3] iota(), iota_dimension=1
  th = s32[] constant(1000)
  thousand = s32[{C},3] broadcast(th), dimensions={{}}
  w1 = s32[{C},3] multiply(w3, thousand)
  wv = s32[{C},3] add(w, w1)
  rb = s32[{R},{C}] broadcast(row), dimensions={{0}}
  x = s32[{R},{C}] multiply(rb, rb)
  cb = s32[{R},{C}] broadcast(col), dimensions={{1}}
  y = s32[{R},{C}] subtract(x, cb)
  kb = s32[{R},{C}] broadcast(k), dimensions={{}}
  z = s32[{R},{C}] multiply(y, kb)
  ob = s32[{R},{C}] broadcast(col), dimensions={{1}}
  u = s32[{R},{C}] add(z, ob)
  pos = s32[{R},{C}] iota(), iota_dimension=0
  pos1 = s32[{R},{C}] iota(), iota_dimension=1
  zero = s32[] constant(0)
  sum1 = s32[{R}] reduce(u, zero), dimensions={{1}}, to_apply=add
  wu = s32[{R},{C}] multiply(u, pos1)
  sum2 = s32[{C}] reduce(wu, zero), dimensions={{0}}, to_apply=add
  t3 = s32[3,100,{C}] iota(), iota_dimension=1
  tb = s32[3,100,{C}] broadcast(wv), dimensions={{2,0}}
  tt = s32[3,100,{C}] add(tb, t3)
  t4 = s32[3,100,{C}] multiply(tt, tt)
  sum3 = s32[3,100] reduce(t4, zero), dimensions={{2}}, to_apply=add
  bh = bf16[] constant(0.5)
  bv = bf16[{C}] iota(), iota_dimension=0
  bb = bf16[{2*R},{C}] broadcast(bv), dimensions={{1}}
  bhb = bf16[{2*R},{C}] broadcast(bh), dimensions={{}}
  bm = bf16[{2*R},{C}] multiply(bb, bhb)
  bs = bf16[3,{C}] slice(bm), slice={{[{2*R-3}:{2*R}], [0:{C}]}}
  ROOT result = (s32[{R}], s32[{C}], s32[3,100], bf16[3,{C}]) tuple(sum1, sum2, sum3, bs)
}}
"""

def wrap(a):
    return ((np.asarray(a, dtype=np.int64) + 2**31) % 2**32 - 2**31).astype(np.int64)

row = np.arange(R, dtype=np.int64)
col = np.arange(C, dtype=np.int64)
rb = row[:, None] * np.ones((1, C), np.int64)
cb = np.ones((R, 1), np.int64) * col[None, :]
u = wrap(wrap(wrap(rb * rb - cb) * 7) + col[None, :])
s1 = wrap(u.sum(1))
s2 = wrap((u * col[None, :]).sum(0))
wv = np.arange(C)[:, None] + 1000 * np.arange(3)[None, :]          # [C,3]
tb = np.empty((3, 100, C), np.int64)
for i in range(3):
    for j in range(100):
        tb[i, j, :] = wv[:, i]          # result (i, j, c) <- operand (c, i)
tt = tb + np.arange(100)[None, :, None]
s3 = wrap((tt * tt).sum(2))

def bf16(v):  # round-to-nearest-even to bf16, printed like XLA (shortest repr)
    f = np.float32(v).view(np.uint32)
    f = (f + 0x7fff + ((f >> 16) & 1)) & 0xffff0000
    return float(np.uint32(f).view(np.float32))

def fmt_f(v):
    s = repr(v)
    return s[:-2] if s.endswith(".0") else s

bsv = [[fmt_f(bf16(bf16(c) * 0.5)) for c in range(C)] for _ in range(3)]
ints = lambda a: ", ".join(str(int(x)) for x in a)
out = "(\n"
out += f"s32[{R}] {{{ints(s1)}}},\n"
out += f"s32[{C}] {{{ints(s2)}}},\n"
out += "s32[3,100] {\n" + ",\n".join("  { " + ints(r) + " }" for r in s3) + "\n},\n"
out += f"bf16[3,{C}] {{\n" + ",\n".join("  { " + ", ".join(r) + " }" for r in bsv) + "\n}\n)\n"
open("fused_broadcast.hlo", "w").write(hlo)
open("fused_broadcast.out", "w").write(out)
open("fused_broadcast.yaml", "w").write(
    "command: hlorun\nargs: ['fused_broadcast.hlo']\nstdout: fused_broadcast.out\ntimeout: 30\n")
