#!/usr/bin/python3
"""Writes fused_donated_buffer.{hlo,out,yaml}: a fused elementwise group
whose materialised value takes over the buffer of an operand that dies in
the group (t: read by two members, the second one the taker itself), next
to operands that must not be taken: u (used after the group) and q (also
read through a transposing broadcast inside the group, whose reads do not
follow the block order).  Shapes are 1-2 MiB so that the ops run fused and
span several blocks.  The expected values come from numpy, independently of
hlorun."""
import numpy as np

R, C = 512, 1024
hlo = f"""HloModule fused_donated_buffer

add {{
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  ROOT r = s32[] add(a, b)
}}

ENTRY main {{
  r = s32[{R},{C}] iota(), iota_dimension=0
  c = s32[{R},{C}] iota(), iota_dimension=1
  t = s32[{C},{R}] transpose(c), dimensions={{1,0}}
  u = s32[{C},{R}] transpose(r), dimensions={{1,0}}
  k3 = s32[] constant(3)
  kb = s32[{C},{R}] broadcast(k3), dimensions={{}}
  x = s32[{C},{R}] multiply(t, kb)
  y = s32[{C},{R}] add(x, u)
  z = s32[{C},{R}] subtract(y, t)
  w = s32[{C},{R}] multiply(z, z)
  zero = s32[] constant(0)
  sum1 = s32[{C}] reduce(z, zero), dimensions={{1}}, to_apply=add
  sum2 = s32[{C}] reduce(w, zero), dimensions={{1}}, to_apply=add
  sum3 = s32[{C}] reduce(u, zero), dimensions={{1}}, to_apply=add
  sq = s32[{R},{R}] iota(), iota_dimension=1
  q = s32[{R},{R}] transpose(sq), dimensions={{1,0}}
  rq = s32[{R},{R}] iota(), iota_dimension=1
  m = s32[{R},{R}] multiply(q, rq)
  bq = s32[{R},{R}] broadcast(m), dimensions={{1,0}}
  e = s32[{R},{R}] add(m, bq)
  f = s32[{R},{R}] multiply(e, rq)
  sum4 = s32[{R}] reduce(f, zero), dimensions={{1}}, to_apply=add
  ROOT result = (s32[{C}], s32[{C}], s32[{C}], s32[{R}]) tuple(sum1, sum2, sum3, sum4)
}}
"""

def wrap(a):
    return ((np.asarray(a, dtype=np.int64) + 2**31) % 2**32 - 2**31).astype(np.int64)

rr = np.broadcast_to(np.arange(R)[:, None], (R, C)).astype(np.int64)
cc = np.broadcast_to(np.arange(C)[None, :], (R, C)).astype(np.int64)
t, u = cc.T, rr.T
z = wrap(t * 3 + u - t)
w = wrap(z * z)
s1, s2, s3 = wrap(z.sum(1)), wrap(w.sum(1)), wrap(u.sum(1))
q = np.broadcast_to(np.arange(R)[None, :], (R, R)).T.astype(np.int64)
rq = np.broadcast_to(np.arange(R)[None, :], (R, R)).astype(np.int64)
m = wrap(q * rq)
e = wrap(m + m.T)  # broadcast dims={1,0}: result (i, j) <- operand (j, i)
s4 = wrap(wrap(e * rq).sum(1))

ints = lambda a: ", ".join(str(int(x)) for x in a)
out = "(\n"
out += f"s32[{C}] {{{ints(s1)}}},\n"
out += f"s32[{C}] {{{ints(s2)}}},\n"
out += f"s32[{C}] {{{ints(s3)}}},\n"
out += f"s32[{R}] {{{ints(s4)}}}\n)\n"
open("fused_donated_buffer.hlo", "w").write(hlo)
open("fused_donated_buffer.out", "w").write(out)
open("fused_donated_buffer.yaml", "w").write(
    "command: hlorun\nargs: ['fused_donated_buffer.hlo']\nstdout: fused_donated_buffer.out\ntimeout: 30\n")
