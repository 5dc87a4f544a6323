#!/usr/bin/python3
"""Writes fused_row_runs.{hlo,npz,yaml}: a row vector broadcast over
f32[400,1000] (dims={0}) read by subtract, divide (both operand orders),
maximum, minimum and multiply inside one fused group, which take its
element as a scalar per row (interp/eval_fused.c, k_binary_scalar).  The
row vector holds NaN in rows 7, 57, ...; x is 0 in column 500 (b / x is
+inf there).  The expected arrays are numpy's float32 IEEE operations on
the same values, compared exactly (--rtol 0 --atol 0)."""
import numpy as np

R, C = 400, 1000
hlo = f"""HloModule fused_row_runs

ENTRY main {{
  j = s32[{R},{C}] iota(), iota_dimension=1
  fj = f32[{R},{C}] convert(j)
  c500 = f32[] constant(-500)
  cb = f32[{R},{C}] broadcast(c500), dimensions={{}}
  xs = f32[{R},{C}] add(fj, cb)
  q = f32[] constant(0.25)
  qb = f32[{R},{C}] broadcast(q), dimensions={{}}
  x = f32[{R},{C}] multiply(xs, qb)
  i = s32[{R}] iota(), iota_dimension=0
  fi = f32[{R}] convert(i)
  h = f32[] constant(0.5)
  hb = f32[{R}] broadcast(h), dimensions={{}}
  one = f32[] constant(1)
  ob = f32[{R}] broadcast(one), dimensions={{}}
  fh = f32[{R}] multiply(fi, hb)
  v0 = f32[{R}] add(fh, ob)
  fifty = s32[] constant(50)
  f50 = s32[{R}] broadcast(fifty), dimensions={{}}
  m = s32[{R}] remainder(i, f50)
  seven = s32[] constant(7)
  s7 = s32[{R}] broadcast(seven), dimensions={{}}
  p = pred[{R}] compare(m, s7), direction=EQ
  z = f32[{R}] subtract(v0, v0)
  qn = f32[{R}] divide(z, z)
  v = f32[{R}] select(p, qn, v0)
  b = f32[{R},{C}] broadcast(v), dimensions={{0}}
  r1 = f32[{R},{C}] subtract(b, x)
  r2 = f32[{R},{C}] divide(x, b)
  r3 = f32[{R},{C}] divide(b, x)
  r4 = f32[{R},{C}] maximum(x, b)
  r5 = f32[{R},{C}] minimum(b, r2)
  r6 = f32[{R},{C}] multiply(r1, b)
  o1 = f32[4,{C}] slice(r1), slice={{[5:9], [0:{C}]}}
  o2 = f32[4,{C}] slice(r2), slice={{[5:9], [0:{C}]}}
  o3 = f32[4,{C}] slice(r3), slice={{[396:400], [0:{C}]}}
  o4 = f32[4,{C}] slice(r4), slice={{[5:9], [0:{C}]}}
  o5 = f32[4,{C}] slice(r5), slice={{[55:59], [0:{C}]}}
  o6 = f32[4,{C}] slice(r6), slice={{[200:204], [0:{C}]}}
  ROOT t = (f32[4,{C}], f32[4,{C}], f32[4,{C}], f32[4,{C}], f32[4,{C}], f32[4,{C}]) tuple(o1, o2, o3, o4, o5, o6)
}}
"""

f = np.float32
x = ((np.arange(C, dtype=f) - f(500)) * f(0.25))[None, :].repeat(R, 0)
v = np.arange(R, dtype=f) * f(0.5) + f(1)
v[np.arange(R) % 50 == 7] = np.nan
b = v[:, None].repeat(C, 1)
with np.errstate(divide="ignore", invalid="ignore"):
    r1 = b - x
    r2 = x / b
    r3 = b / x
    r4 = np.maximum(x, b)
    r5 = np.minimum(b, r2)
    r6 = r1 * b
outs = [r1[5:9], r2[5:9], r3[396:400], r4[5:9], r5[55:59], r6[200:204]]
np.savez("fused_row_runs.npz", **{"out%d" % k: a.astype(f) for k, a in enumerate(outs)})
open("fused_row_runs.hlo", "w").write(hlo)
open("fused_row_runs.yaml", "w").write(
    'description: "binary ops reading a row broadcast one scalar per run: numpy\'s bits"\n'
    "command: hlorun\n"
    "args: ['fused_row_runs.hlo', '-q', '--expect', 'fused_row_runs.npz', '--rtol', '0', '--atol', '0']\n"
    "stderr_contains: \"out5: ok\"\n"
    "timeout: 30\n")
