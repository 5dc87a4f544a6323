#!/usr/bin/python3
"""Writes the golden cases of gather, scatter, sort, top-k, the rng ops and
infeed/outfeed (testdata/interp-gather/, interp-sort/, interp-rng/,
interp-feed/): the .hlo module, the .yaml manifest and the expected .out,
computed here by independent reference implementations (plain Python/numpy
loops over XLA's formal semantics, Random123's block functions with XLA's
prng.cc expansion), never by hlorun.  Run with /usr/bin/python3 (numpy)."""
import math
import os
import struct

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata")

# ---------------------------------------------------------------- literal text


def fnum(et, v):
    """One element in XLA's literal format (values chosen to print exactly)."""
    if et == "pred":
        return "1" if v else "0"
    if et[0] in "su":
        return str(int(v))
    if et[0] == "c":
        return "(%s, %s)" % (fnum("f32", v.real), fnum("f32", v.imag))
    v = float(v)
    if math.isnan(v):
        return "-nan" if math.copysign(1, v) < 0 else "nan"
    if math.isinf(v):
        return "-inf" if v < 0 else "inf"
    if v == int(v) and abs(v) < 1e15:
        return "-0" if v == 0 and math.copysign(1, v) < 0 else str(int(v))
    return repr(float(np.float32(v))) if et == "f32" else repr(v)


def fmt_array(et, a):
    a = np.asarray(a)
    dims = a.shape
    out = ["%s[%s] " % (et, ",".join(str(d) for d in dims))]
    flat = a.reshape(-1) if a.size else []
    pos = [0]
    rank = len(dims)

    def rec(depth, idx):
        left = rank - depth
        if left == 0:
            out.append(fnum(et, flat[pos[0]]))
            pos[0] += 1
            return
        n = dims[depth]
        if rank == 1:
            out.append("{")
        elif left == 1:
            out.append("  {" if n <= 1 else "  { ")
        elif rank > 3 and depth > 0:
            out.append("{ /*i%d=%d*/\n" % (depth - 1, idx[depth - 1]))
        else:
            out.append("{\n")
        for i in range(n):
            rec(depth + 1, idx + [i])
            if i < n - 1:
                out.append(",\n" if left > 1 else ", ")
        if rank == 1:
            out.append("}")
        elif left == 1:
            out.append("}" if n <= 1 else " }")
        else:
            out.append("\n}")

    if rank == 0:
        out.append(fnum(et, a.reshape(-1)[0]) if et != "pred" else ("true" if a else "false"))
    else:
        rec(0, [])
    return "".join(out)


def fmt(v):
    """v: (etype, array) or a list of such (a tuple)."""
    if isinstance(v, list):
        return "(\n" + ",\n".join(fmt(x) for x in v) + "\n)"
    return fmt_array(*v)


def lit(a):
    """HLO constant text for an array of ints/floats/bools."""
    a = np.asarray(a)
    if a.ndim == 0:
        x = a.item()
        return ("true" if x else "false") if a.dtype == bool else fnum("f64", x) if a.dtype.kind == "f" else str(x)
    return "{" + ", ".join(lit(x) for x in a) + "}"


# ---------------------------------------------------------------- case writer


def write_case(folder, name, hlo, expected=None, args=None, exit=0, stderr_contains=None,
               inputs=None):
    d = os.path.join(ROOT, folder)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name + ".hlo"), "w") as f:
        f.write(hlo.strip() + "\n")
    argv = [name + ".hlo"] + (args or [])
    for k, (fname, arr) in enumerate(inputs or []):
        os.makedirs(os.path.join(d, "inputs"), exist_ok=True)
        np.save(os.path.join(d, "inputs", fname), arr)
    y = ["command: hlorun", "args: [%s]" % ", ".join("'%s'" % a for a in argv)]
    if exit:
        y.append("exit: %d" % exit)
    if expected is not None:
        with open(os.path.join(d, name + ".out"), "w") as f:
            f.write(fmt(expected) + "\n")
        y.append("stdout: %s.out" % name)
    if stderr_contains:
        y.append("stderr_contains: '%s'" % stderr_contains)
    with open(os.path.join(d, name + ".yaml"), "w") as f:
        f.write("\n".join(y) + "\n")


# ---------------------------------------------------------------- gather / scatter


def gather_ref(op, idx, offset_dims, collapsed, start_map, ivd, slice_sizes, obd=(), sibd=()):
    op, idx = np.asarray(op), np.asarray(idx)
    if ivd == idx.ndim:
        idx = idx[..., None]
    bshape = [s for d, s in enumerate(idx.shape) if d != ivd]
    offs = [d for d in range(op.ndim) if d not in collapsed and d not in obd]
    out_rank = len(bshape) + len(offset_dims)
    bdims = [d for d in range(out_rank) if d not in offset_dims]
    oshape = [0] * out_rank
    for k, d in enumerate(bdims):
        oshape[d] = bshape[k]
    for k, d in enumerate(offset_dims):
        oshape[d] = slice_sizes[offs[k]]
    out = np.zeros(oshape, op.dtype)
    for o in np.ndindex(*oshape):
        g = [o[d] for d in bdims]
        sl = list(g)
        sl.insert(ivd, slice(None))
        s = idx[tuple(sl)]
        full = [0] * op.ndim
        for k, d in enumerate(start_map):
            full[d] = int(s[k])
        for od, sd in zip(obd, sibd):
            full[od] = g[sd if sd < ivd else sd - 1]
        for d in range(op.ndim):
            full[d] = min(max(full[d], 0), op.shape[d] - slice_sizes[d])
        for k, d in enumerate(offset_dims):
            full[offs[k]] += o[d]
        out[o] = op[tuple(full)]
    return out


def scatter_ref(ops, idx, upds, fn, uwd, iwd, sdod, ivd, ibd=(), sibd=()):
    outs = [np.array(o, copy=True) for o in ops]
    idx = np.asarray(idx)
    if ivd == idx.ndim:
        idx = idx[..., None]
    u0 = np.asarray(upds[0])
    usd = [d for d in range(u0.ndim) if d not in uwd]
    wdims = [d for d in range(outs[0].ndim) if d not in iwd and d not in ibd]
    wsize = [1] * outs[0].ndim
    for k, d in enumerate(wdims):
        wsize[d] = u0.shape[uwd[k]]
    for u in np.ndindex(*u0.shape):
        g = [u[d] for d in usd]
        sl = list(g)
        sl.insert(ivd, slice(None))
        s = idx[tuple(sl)]
        start = [0] * outs[0].ndim
        for k, d in enumerate(sdod):
            start[d] = int(s[k])
        for od, sd in zip(ibd, sibd):
            start[od] = g[sd if sd < ivd else sd - 1]
        if any(start[d] < 0 or start[d] + wsize[d] > outs[0].shape[d] for d in range(len(start))):
            continue  # the whole window is out of bounds: skipped
        full = list(start)
        for k, d in enumerate(wdims):
            full[d] += u[uwd[k]]
        t = tuple(full)
        vals = fn([o[t] for o in outs], [np.asarray(x)[u] for x in upds])
        for o, v in zip(outs, vals):
            o[t] = v
    return outs


ADD = {
    "f32": "add_f32 {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT s = f32[] add(a, b)\n}\n",
}


def binop(name, et, op):
    return ("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  ROOT r = %s[] %s(a, b)\n}\n"
            % (name, et, et, et, op))


def gather_cases():
    F = "interp-gather"
    # Seed: 5 slices of shape [8,6] from a [16,11] array, S64[5,2] indices.
    op = np.arange(16 * 11, dtype=np.int32).reshape(16, 11)
    idx = np.array([[0, 0], [3, 5], [8, 5], [15, 10], [-2, 7]], np.int64)  # last two clamp
    dn = dict(offset_dims=[1, 2], collapsed=[], start_map=[0, 1], ivd=1, slice_sizes=[8, 6])
    exp = gather_ref(op, idx, **dn)
    write_case(F, "seed_slices_8x6_of_16x11", """
HloModule m
ENTRY e {
  op = s32[16,11] parameter(0)
  idx = s64[5,2] parameter(1)
  ROOT g = s32[5,8,6] gather(op, idx), offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={8,6}
}""", ("s32", exp), args=["--inputs", "inputs/op16x11.npy", "--inputs", "inputs/idx5x2.npy"],
               inputs=[("op16x11.npy", op), ("idx5x2.npy", idx)])
    # Seed: [4,5,2] indices (G0, G1 batch dims), slice [8,6].
    idx3 = (np.arange(40).reshape(4, 5, 2) * 7 % 13).astype(np.int32)
    exp = gather_ref(op, idx3, offset_dims=[2, 3], collapsed=[], start_map=[0, 1], ivd=2,
                     slice_sizes=[8, 6])
    write_case(F, "seed_batch_4x5_indices", """
HloModule m
ENTRY e {
  op = s32[16,11] parameter(0)
  idx = s32[4,5,2] constant(%s)
  ROOT g = s32[4,5,8,6] gather(op, idx), offset_dims={2,3}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=2, slice_sizes={8,6}
}""" % lit(idx3), ("s32", exp), args=["--inputs", "inputs/op16x11.npy"])
    # Seed: tf.gather_nd-like rows: slice_sizes [1,11], collapsed dim 0.
    rows = np.array([[1], [0], [15], [7]], np.int32)
    exp = gather_ref(op, rows, offset_dims=[1], collapsed=[0], start_map=[0], ivd=1,
                     slice_sizes=[1, 11])
    write_case(F, "seed_gather_nd_rows", """
HloModule m
ENTRY e {
  op = s32[16,11] parameter(0)
  idx = s32[4,1] constant(%s)
  ROOT g = s32[4,11] gather(op, idx), offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,11}
}""" % lit(rows), ("s32", exp), args=["--inputs", "inputs/op16x11.npy"])
    # Columns, index_vector_dim == rank (implicit trailing 1), u8 indices, f32.
    m = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    cols = np.array([3, 0, 3], np.uint8)
    exp = gather_ref(m, cols, offset_dims=[0], collapsed=[1], start_map=[1], ivd=1,
                     slice_sizes=[3, 1])
    write_case(F, "columns_ivd_eq_rank_u8_indices", """
HloModule m
ENTRY e {
  op = f32[3,4] constant(%s)
  idx = u8[3] constant(%s)
  ROOT g = f32[3,3] gather(op, idx), offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=1, slice_sizes={3,1}
}""" % (lit(m), lit(cols)), ("f32", exp))
    # Index types s8 (negative clamps to 0) and u64 (huge clamps to the end).
    v = np.array([10, 20, 30, 40, 50], np.int32)
    for et, arr, npt in (("s8", [-100, 2, 4], np.int8), ("u64", [2**64 - 1, 1, 3], np.uint64),
                         ("s4", [-8, 7, 1], np.int8)):
        arr = np.array(arr, npt)
        as_i64 = np.array([min(int(x), 2**63 - 1) for x in arr], np.int64)
        exp = gather_ref(v, as_i64,
                         offset_dims=[1], collapsed=[], start_map=[0], ivd=1, slice_sizes=[2])
        write_case(F, "clamp_index_type_" + et, """
HloModule m
ENTRY e {
  op = s32[5] constant(%s)
  idx = %s[3] constant(%s)
  ROOT g = s32[3,2] gather(op, idx), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2}
}""" % (lit(v), et, lit(arr)), ("s32", exp))
    # Batching dims: operand [2,3,2] batch dim 0, indices [2,2] batch dim 0.
    ob = np.arange(12, dtype=np.int32).reshape(2, 3, 2)
    bi = np.array([[2, 0], [1, 1]], np.int32)
    exp = gather_ref(ob, bi, offset_dims=[2], collapsed=[1], start_map=[1], ivd=2,
                     slice_sizes=[1, 1, 2], obd=[0], sibd=[0])
    write_case(F, "batching_dims", """
HloModule m
ENTRY e {
  op = s32[2,3,2] constant(%s)
  idx = s32[2,2] constant(%s)
  ROOT g = s32[2,2,2] gather(op, idx), offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1,2}
}""" % (lit(ob), lit(bi)), ("s32", exp))
    # pred and bf16 operands, empty batch.
    pb = np.array([True, False, True, True])
    pi = np.array([[3], [1]], np.int32)
    exp = gather_ref(pb, pi, offset_dims=[1], collapsed=[], start_map=[0], ivd=1, slice_sizes=[2])
    bf = np.array([1.5, -2, 0.25, 8], np.float32)
    expb = gather_ref(bf, pi, offset_dims=[], collapsed=[0], start_map=[0], ivd=1, slice_sizes=[1])
    write_case(F, "pred_bf16_and_empty", """
HloModule m
ENTRY e {
  p = pred[4] constant(%s)
  b = bf16[4] constant(%s)
  idx = s32[2,1] constant(%s)
  none = s32[0,1] constant({})
  gp = pred[2,2] gather(p, idx), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2}
  gb = bf16[2] gather(b, idx), offset_dims={}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1}
  ge = bf16[0,3] gather(b, none), offset_dims={1}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={3}
  ROOT t = (pred[2,2], bf16[2], bf16[0,3]) tuple(gp, gb, ge)
}""" % (lit(pb), lit(bf), lit(pi)), [("pred", exp), ("bf16", expb), ("bf16", np.zeros((0, 3)))])


def scatter_cases():
    F = "interp-gather"
    add = lambda a, b: [x + y for x, y in zip(a, b)]
    # Rows updated with add; duplicate index accumulates; OOB window skipped.
    op = np.arange(12, dtype=np.float32).reshape(4, 3)
    idx = np.array([[1], [3], [1], [4], [-1]], np.int32)
    up = (np.arange(15, dtype=np.float32).reshape(5, 3) + 1) * 10
    exp = scatter_ref([op], idx, [up], add, uwd=[1], iwd=[0], sdod=[0], ivd=1)[0]
    write_case(F, "scatter_add_duplicates_oob_skipped", """
HloModule m
%s
ENTRY e {
  op = f32[4,3] constant(%s)
  idx = s32[5,1] constant(%s)
  up = f32[5,3] constant(%s)
  ROOT s = f32[4,3] scatter(op, idx, up), update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_f32
}""" % (ADD["f32"], lit(op), lit(idx), lit(up)), ("f32", exp))
    # Partially out-of-bounds 2-wide window skipped whole; "return update".
    v = np.array([1, 2, 3, 4, 5], np.int32)
    idx = np.array([0, 4, 3, -1], np.int32)
    up = np.array([[10, 11], [20, 21], [30, 31], [40, 41]], np.int32)
    exp = scatter_ref([v], idx, [up], lambda a, b: b, uwd=[1], iwd=[], sdod=[0], ivd=1)[0]
    write_case(F, "scatter_replace_window_partially_oob", """
HloModule m
repl {
  a = s32[] parameter(0)
  ROOT b = s32[] parameter(1)
}
ENTRY e {
  op = s32[5] constant(%s)
  idx = s32[4] constant(%s)
  up = s32[4,2] constant(%s)
  ROOT s = s32[5] scatter(op, idx, up), update_window_dims={1}, inserted_window_dims={}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, indices_are_sorted=false, unique_indices=false, to_apply=repl
}""" % (lit(v), lit(idx), lit(up)), ("s32", exp))
    # Variadic scatter with a non-trivial computation (max of a, keep b from
    # the same side), u8 and s32 operands, 2-D indices.
    a = np.array([[5, 1], [7, 2]], np.uint8)
    b = np.array([[0, 0], [0, 0]], np.int32)
    idx = np.array([[0, 1], [1, 0], [0, 1]], np.int64)
    ua = np.array([9, 3, 4], np.uint8)
    ub = np.array([100, 200, 300], np.int32)

    def argmax_fn(acc, upd):
        return [upd[0], upd[1]] if upd[0] > acc[0] else [acc[0], acc[1]]

    ea, eb = scatter_ref([a, b], idx, [ua, ub], argmax_fn, uwd=[], iwd=[0, 1], sdod=[0, 1], ivd=1)
    write_case(F, "scatter_variadic_argmax_callback", """
HloModule m
amax {
  a0 = u8[] parameter(0)
  a1 = s32[] parameter(1)
  b0 = u8[] parameter(2)
  b1 = s32[] parameter(3)
  gt = pred[] compare(b0, a0), direction=GT
  m0 = u8[] select(gt, b0, a0)
  m1 = s32[] select(gt, b1, a1)
  ROOT t = (u8[], s32[]) tuple(m0, m1)
}
ENTRY e {
  a = u8[2,2] constant(%s)
  b = s32[2,2] constant(%s)
  idx = s64[3,2] constant(%s)
  ua = u8[3] constant(%s)
  ub = s32[3] constant(%s)
  ROOT s = (u8[2,2], s32[2,2]) scatter(a, b, idx, ua, ub), update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1, to_apply=amax
}""" % (lit(a), lit(b), lit(idx), lit(ua), lit(ub)), [("u8", ea), ("s32", eb)])
    # Batching dims + mul on s4 (wraps) + pred or.
    op = np.array([[1, 2, 3], [1, 1, 1]], np.int64)
    idx = np.array([[2, 0], [1, 1]], np.int32)
    up = np.array([[3, 2], [-2, 5]], np.int64)
    mul = lambda acc, u: [acc[0] * u[0]]
    e = scatter_ref([op], idx, [up], mul, uwd=[], iwd=[1], sdod=[1], ivd=2, ibd=[0], sibd=[0])[0]
    e = ((e + 8) % 16) - 8  # s4 wraps
    write_case(F, "scatter_batching_dims_mul_s4", """
HloModule m
%s
ENTRY e {
  op = s4[2,3] constant(%s)
  idx = s32[2,2] constant(%s)
  up = s4[2,2] constant(%s)
  ROOT s = s4[2,3] scatter(op, idx, up), update_window_dims={}, inserted_window_dims={1}, input_batching_dims={0}, scatter_indices_batching_dims={0}, scatter_dims_to_operand_dims={1}, index_vector_dim=2, to_apply=mul_s4
}""" % (binop("mul_s4", "s4", "multiply"), lit(op), lit(idx), lit(up)), ("s4", e))
    p = np.array([False, False, True])
    pi = np.array([[0], [0], [1]], np.int32)
    pu = np.array([True, False, False])
    e = scatter_ref([p], pi, [pu], lambda a, b: [a[0] or b[0]], uwd=[], iwd=[0], sdod=[0], ivd=1)[0]
    c = np.array([1 + 2j, 3 - 1j], np.complex64)
    cu = np.array([2 + 0j, 0.5 + 0.5j], np.complex64)
    ce = scatter_ref([c], np.array([[1], [1]], np.int32), [cu], add, uwd=[], iwd=[0], sdod=[0],
                     ivd=1)[0]
    write_case(F, "scatter_pred_or_c64_add", """
HloModule m
%s%s
ENTRY e {
  p = pred[3] constant(%s)
  pi = s32[3,1] constant(%s)
  pu = pred[3] constant(%s)
  sp = pred[3] scatter(p, pi, pu), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=or_pred
  c = c64[2] constant({(1, 2), (3, -1)})
  ci = s32[2,1] constant({{1}, {1}})
  cu = c64[2] constant({(2, 0), (0.5, 0.5)})
  sc = c64[2] scatter(c, ci, cu), update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add_c64
  ROOT t = (pred[3], c64[2]) tuple(sp, sc)
}""" % (binop("or_pred", "pred", "or"), binop("add_c64", "c64", "add"), lit(p), lit(pi), lit(pu)),
               [("pred", e), ("c64", ce)])


# ---------------------------------------------------------------- sort / top-k


def total_key(x):
    """XLA's total order on f32 as a sortable integer."""
    b = struct.unpack("<i", struct.pack("<f", float(x)))[0]
    return b if b >= 0 else -(b & 0x7fffffff) - 1


def sort_cases():
    F = "interp-sort"
    # Seed: three operands, comparator on operand 0 only.
    write_case(F, "seed_three_operands", """
HloModule m
cmp {
  a = s32[] parameter(0)
  b = s32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  e = f32[] parameter(4)
  f = f32[] parameter(5)
  ROOT lt = pred[] compare(a, b), direction=LT
}
ENTRY e {
  o0 = s32[2] constant({3, 1})
  o1 = s32[2] constant({42, 50})
  o2 = f32[2] constant({-3, 1.5})
  ROOT s = (s32[2], s32[2], f32[2]) sort(o0, o1, o2), dimensions={0}, to_apply=cmp
}""", [("s32", [1, 3]), ("s32", [50, 42]), ("f32", [1.5, -3])])
    # TOTALORDER with NaN, -0/+0, inf; f32 keys carried with s32 iota; GT
    # written as compare(b, a) LT (descending), along dimension 0.
    x = np.array([[3, np.nan], [-0.0, 1], [np.inf, -np.inf], [0.0, 1]], np.float32)
    i = np.broadcast_to(np.arange(4, dtype=np.int32)[:, None], (4, 2))
    keys = np.vectorize(total_key)(x)
    perm = np.argsort(-keys, axis=0, kind="stable")
    xs, is_ = np.take_along_axis(x, perm, 0), np.take_along_axis(i, perm, 0)
    write_case(F, "totalorder_nan_signed_zero_desc_dim0", """
HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  ROOT gt = pred[] compare(b, a), direction=LT, type=TOTALORDER
}
ENTRY e {
  x = f32[4,2] constant({{3, nan}, {-0.0, 1}, {inf, -inf}, {0, 1}})
  i = s32[4,2] iota(), iota_dimension=0
  ROOT s = (f32[4,2], s32[4,2]) sort(x, i), dimensions={0}, to_apply=cmp, is_stable=true
}""", [("f32", xs), ("s32", is_)])
    # Stability with a callback comparator (lexicographic: key a ascending,
    # then nothing), bf16 keys with ties; and u8 / pred / s4 keys.
    k = np.array([2, 1, 2, 1, 0, 2], np.float32)
    v = np.arange(6, dtype=np.int32)
    perm = np.argsort(k, kind="stable")
    write_case(F, "stable_callback_comparator_bf16", """
HloModule m
cmp {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  c = s32[] parameter(2)
  d = s32[] parameter(3)
  fa = f32[] convert(a)
  fb = f32[] convert(b)
  na = f32[] negate(fa)
  nb = f32[] negate(fb)
  ROOT lt = pred[] compare(nb, na), direction=LT
}
ENTRY e {
  k = bf16[6] constant(%s)
  v = s32[6] iota(), iota_dimension=0
  ROOT s = (bf16[6], s32[6]) sort(k, v), dimensions={0}, to_apply=cmp, is_stable=true
}""" % lit(k), [("bf16", k[perm]), ("s32", v[perm])])
    u = np.array([[200, 3, 77], [0, 255, 1]], np.uint8)
    p = np.array([True, False, True, False])
    s4 = np.array([7, -8, 0, -1, 3], np.int8)
    write_case(F, "keys_u8_pred_s4", """
HloModule m
%s%s%s
ENTRY e {
  u = u8[2,3] constant(%s)
  p = pred[4] constant(%s)
  q = s4[5] constant(%s)
  su = u8[2,3] sort(u), dimensions={1}, to_apply=gt_u8
  sp = pred[4] sort(p), dimensions={0}, to_apply=lt_pred
  sq = s4[5] sort(q), dimensions={0}, to_apply=lt_s4
  ROOT t = (u8[2,3], pred[4], s4[5]) tuple(su, sp, sq)
}""" % ("gt_u8 {\n  a = u8[] parameter(0)\n  b = u8[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=GT\n}\n",
        "lt_pred {\n  a = pred[] parameter(0)\n  b = pred[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n",
        "lt_s4 {\n  a = s4[] parameter(0)\n  b = s4[] parameter(1)\n  ROOT r = pred[] compare(a, b), direction=LT\n}\n",
        lit(u), lit(p), lit(s4)),
               [("u8", -np.sort(-u.astype(int), axis=1)), ("pred", np.sort(p)), ("s4", np.sort(s4))])
    write_case(F, "empty_dimension", """
HloModule m
lt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=LT
}
ENTRY e {
  x = f32[3,0] constant({{}, {}, {}})
  ROOT s = f32[3,0] sort(x), dimensions={1}, to_apply=lt
}""", ("f32", np.zeros((3, 0))))
    # top-k: op (largest / smallest) and the TopK custom call.
    x = np.array([[1, 5, 3, 5, -2], [np.nan, 0, -np.inf, 4, 4]], np.float32)

    def topk(x, k, largest):
        keys = np.vectorize(total_key)(x)
        perm = np.argsort(-keys if largest else keys, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(x, perm, 1), perm.astype(np.int32)

    v1, i1 = topk(x, 3, True)
    v2, i2 = topk(x, 2, False)
    v3, i3 = topk(x, 4, True)
    write_case(F, "topk_op_and_custom_call", """
HloModule m
gt {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  x = f32[2,5] constant({{1, 5, 3, 5, -2}, {nan, 0, -inf, 4, 4}})
  t1 = (f32[2,3], s32[2,3]) topk(x), k=3, largest=true
  t2 = (f32[2,2], s32[2,2]) topk(x), k=2, largest=false
  t3 = (f32[2,4], s32[2,4]) custom-call(x), custom_call_target="TopK", to_apply=gt
  ROOT t = ((f32[2,3], s32[2,3]), (f32[2,2], s32[2,2]), (f32[2,4], s32[2,4])) tuple(t1, t2, t3)
}""", [[("f32", v1), ("s32", i1)], [("f32", v2), ("s32", i2)], [("f32", v3), ("s32", i3)]])


# ---------------------------------------------------------------- rng

M32 = 0xffffffff


def threefry2x32(key, ctr):
    rot = [13, 15, 26, 6, 17, 29, 16, 24]
    ks = [key[0], key[1], 0x1BD11BDA ^ key[0] ^ key[1]]
    x = [(ctr[0] + ks[0]) & M32, (ctr[1] + ks[1]) & M32]
    for blk in range(5):
        for r in rot[(blk % 2) * 4:(blk % 2) * 4 + 4]:
            x[0] = (x[0] + x[1]) & M32
            x[1] = ((x[1] << r) | (x[1] >> (32 - r))) & M32
            x[1] ^= x[0]
        x[0] = (x[0] + ks[(blk + 1) % 3]) & M32
        x[1] = (x[1] + ks[(blk + 2) % 3] + blk + 1) & M32
    return x


def philox4x32(key, ctr):
    k0, k1 = key
    x = list(ctr)
    for _ in range(10):
        p0, p1 = x[0] * 0xD2511F53, x[2] * 0xCD9E8D57
        x = [((p1 >> 32) ^ x[1] ^ k0) & M32, p1 & M32, ((p0 >> 32) ^ x[3] ^ k1) & M32, p0 & M32]
        k0, k1 = (k0 + 0x9E3779B9) & M32, (k1 + 0xBB67AE85) & M32
    return x


# Random123 known answers, so the references above are checked too.
assert threefry2x32([0, 0], [0, 0]) == [0x6b200159, 0x99ba4efe]
assert philox4x32([0, 0], [0, 0, 0, 0]) == [0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8]


def three_fry_u32_1d(key, ctr, n):
    """prng.cc ThreeFryRngBit32 for an even-length vector: split into halves
    [n/2, 1], counters ctr + i, output = interleave(x0[i], x1[i])."""
    k = [key & M32, key >> 32]
    out = []
    for i in range(n // 2):
        c = ctr + i
        x = threefry2x32(k, [c & M32, c >> 32])
        out += x
    return out, ctr + n // 2


def philox_u32(key, ctr_lo, ctr_hi, n):
    """prng.cc PhiloxRngBit32: 4-word blocks for counters ctr + i, words
    round-robin, sliced to n."""
    k = [key & M32, key >> 32]
    out = []
    blocks = (n + 3) // 4
    for i in range(blocks):
        lo = ctr_lo + i
        hi = ctr_hi + (lo >> 64)
        lo &= (1 << 64) - 1
        out += philox4x32(k, [lo & M32, lo >> 32, hi & M32, (hi >> 32) & M32])
    lo = ctr_lo + blocks
    return out[:n], [key, lo & ((1 << 64) - 1), ctr_hi + (lo >> 64)]


M64 = (1 << 64) - 1


def split_shape_into_halves(dims):
    """prng.cc SplitShapeIntoHalves: the first even dimension, else the
    largest (first of equals); rank 0 becomes [1] -> [2]."""
    if not dims:
        return None
    even = [i for i, d in enumerate(dims) if d % 2 == 0]
    if even:
        return even[0]
    best = 0
    for i, d in enumerate(dims):
        if d > dims[best]:
            best = i
    return best


def three_fry_counters(ctr, dims):
    """prng.cc GetThreeFryInputsAndUpdatedState, op by op: broadcast the
    counter, add iota(i) * (product of the later dims >= 2) for every
    dimension >= 2, from the last one."""
    x = np.full(dims, ctr, dtype=object)
    trailing = 1
    for i in range(len(dims) - 1, -1, -1):
        if dims[i] < 2:
            continue
        shape = [1] * len(dims)
        shape[i] = dims[i]
        x = x + np.arange(dims[i], dtype=object).reshape(shape) * trailing
        trailing *= dims[i]
    return x, ctr + int(np.prod(dims, dtype=object))


def three_fry_ref(key, ctr, dims, bits):
    """prng.cc ThreeFryBitGenerator over a shape: 64-bit draws take one
    block per element (x0 | x1 << 32); narrower ones split the shape in
    halves, block words x0, x1 concatenated on a new dim after the split dim,
    reshaped and sliced back; < 32 bits keep the low bits of the u32 draw."""
    k = [key & M32, key >> 32]

    def blocks(c):
        flat = [threefry2x32(k, [int(v) & M32, (int(v) >> 32) & M32]) for v in c.reshape(-1)]
        return (np.array([f[0] for f in flat], dtype=object).reshape(c.shape),
                np.array([f[1] for f in flat], dtype=object).reshape(c.shape))

    if bits == 64:
        c, new = three_fry_counters(ctr, list(dims))
        x0, x1 = blocks(c)
        return np.asarray(x0 | (x1 << 32), dtype=object).reshape(dims), new
    if not dims:
        c, new = three_fry_counters(ctr, [1])
        x0, _ = blocks(c)
        return np.array(x0[0] & ((1 << bits) - 1), dtype=object), new
    sd = split_shape_into_halves(list(dims))
    half = list(dims[:sd]) + [(dims[sd] + 1) // 2, 1] + list(dims[sd + 1:])
    c, new = three_fry_counters(ctr, half)
    x0, x1 = blocks(c)
    both = np.concatenate([x0, x1], axis=sd + 1)
    full = list(dims)
    full[sd] = 2 * ((dims[sd] + 1) // 2)
    both = both.reshape(full)
    both = both[tuple(slice(0, d) for d in dims)]
    return both & ((1 << bits) - 1), new


def philox_ref(key, lo, hi, dims, bits):
    """prng.cc PhiloxBitGenerator: ceil(words/4) blocks with 128-bit counters
    (lo + i, hi + carry), the four words of the blocks interleaved
    (two u64 words for 64-bit draws), sliced to the element count; returns
    the bits and the advanced (lo, hi)."""
    n = int(np.prod(dims, dtype=object))
    words = 2 * n if bits == 64 else n
    nb = (words + 3) // 4
    k = [key & M32, key >> 32]
    out = []
    for i in range(nb):
        l = (lo + i) & M64
        h = (hi + 1) & M64 if l < lo else hi
        w = philox4x32(k, [l & M32, l >> 32, h & M32, h >> 32])
        out += [w[0] | (w[1] << 32), w[2] | (w[3] << 32)] if bits == 64 else w
    nl = (lo + nb) & M64
    nh = (hi + 1) & M64 if nl < lo else hi
    vals = np.array(out[:n], dtype=object) & ((1 << bits) - 1)
    return vals.reshape(dims), (nl, nh)


def rng_bit_generator_ref(alg, state, dims, bits):
    """XLA's RngBitGeneratorExpander: key = state[0]; three_fry counter =
    state[1]; philox counter = (state[1], state[2]) for 3+ words, else the
    reversed state (state[1], state[0]) of which only the low word is
    written back.  New state = [key, counter'] then, here, the words the
    expansion does not read, unchanged."""
    st = list(state)
    if alg == "three_fry":
        vals, c = three_fry_ref(st[0], st[1], dims, bits)
        return [st[0], c & M64] + st[2:], vals
    if len(st) >= 3:
        vals, (l, h) = philox_ref(st[0], st[1], st[2], dims, bits)
        return [st[0], l, h] + st[3:], vals
    vals, (l, _) = philox_ref(st[0], st[1], st[0], dims, bits)
    return [st[0], l], vals


def rng_cases():
    F = "interp-rng"
    bits, st = three_fry_u32_1d(0x0123456789abcdef, 5, 6)
    bits2, st2 = philox_u32(42, 2**64 - 1, 7, 6)
    write_case(F, "bit_generator_three_fry_philox_u32", """
HloModule m
ENTRY e {
  st1 = u64[2] constant({81985529216486895, 5})
  st2 = u64[3] constant({42, 18446744073709551615, 7})
  a = (u64[2], u32[6]) rng-bit-generator(st1), algorithm=rng_three_fry
  b = (u64[3], u32[6]) rng-bit-generator(st2), algorithm=rng_philox
  c = (u64[3], u32[6]) rng-bit-generator(st2), algorithm=rng_default
  ROOT t = ((u64[2], u32[6]), (u64[3], u32[6]), (u64[3], u32[6])) tuple(a, b, c)
}""", [[("u64", [0x0123456789abcdef, st]), ("u32", bits)],
       [("u64", st2), ("u32", bits2)], [("u64", st2), ("u32", bits2)]])
    # rng-get-and-update-state: XLA CPU's initial state 0x7012395, +delta per
    # execution, per instruction (a loop runs it three times).
    write_case(F, "get_and_update_state_in_loop", """
HloModule m
cond {
  p = (s32[], u64[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(3)
  ROOT lt = pred[] compare(i, n), direction=LT
}
body {
  p = (s32[], u64[2]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  j = s32[] add(i, one)
  g = u64[2] rng-get-and-update-state(), delta=-5
  ROOT t = (s32[], u64[2]) tuple(j, g)
}
ENTRY e {
  z = s32[] constant(0)
  s = u64[2] constant({0, 0})
  init = (s32[], u64[2]) tuple(z, s)
  w = (s32[], u64[2]) while(init), condition=cond, body=body
  ROOT r = u64[2] get-tuple-element(w), index=1
}""", ("u64", [0x7012395 - 10, 0]))
    wide_states_case(F)
    # A state without a counter word: XLA's expander slices state[1:2]
    # (three_fry) or state[1:2] of the reversed state (philox) out of it,
    # which the builder rejects for u64[1].
    for alg in ("three_fry", "philox"):
        write_case(F, "bit_generator_%s_bad_state_size" % alg, """
HloModule m
ENTRY e {
  s = u64[1] constant({1})
  ROOT r = (u64[1], u32[2]) rng-bit-generator(s), algorithm=rng_%s
}""" % alg, exit=1, stderr_contains="%s needs a u64[n >= 2] state" % alg)


def wide_states_case(F):
    """States longer than [key, counter]: the expander's own test states
    (rng_bit_generator_expander.hlo: three_fry u64[4], philox u64[6]) with
    u32/u64/u8 scalars as there, plus shapes that exercise the split and
    interleaving, and philox u64[2] whose counter low word wraps."""
    tf, ph, p2 = [9, 10, 11, 12], [0, 1, 8, 9, 4, 1], [7, M64]
    cases = [("a", "three_fry", tf, "u32", []), ("b", "three_fry", tf, "u64", []),
             ("c", "three_fry", tf, "u8", []), ("d", "three_fry", tf, "u32", [3, 5]),
             ("e", "three_fry", tf, "u16", [2, 3]), ("f", "three_fry", tf, "s64", [3]),
             ("g", "philox", ph, "u32", []), ("h", "philox", ph, "u64", []),
             ("i", "philox", ph, "u8", []), ("j", "philox", ph, "u64", [5]),
             ("k", "philox", ph, "s8", [7]), ("l", "philox", p2, "u32", [2, 4])]
    lines, names, shapes, expected = [], [], [], []
    consts = {id(tf): "tf", id(ph): "ph", id(p2): "p2"}
    for arr, nm in ((tf, "tf"), (ph, "ph"), (p2, "p2")):
        lines.append("  %s = u64[%d] constant(%s)" % (nm, len(arr), lit(np.array(arr, dtype=np.uint64))))
    for name, alg, st, et, dims in cases:
        bits = int(et[1:])
        new, vals = rng_bit_generator_ref(alg, st, dims, bits)
        if et[0] == "s":
            vals = np.array([v - (1 << bits) if v >> (bits - 1) else v
                             for v in np.asarray(vals, dtype=object).reshape(-1)],
                            dtype=object).reshape(dims)
        ts = "(u64[%d], %s[%s])" % (len(st), et, ",".join(map(str, dims)))
        lines.append("  %s = %s rng-bit-generator(%s), algorithm=rng_%s" % (name, ts, consts[id(st)], alg))
        names.append(name)
        shapes.append(ts)
        expected.append([("u64", new), (et, np.array(vals, dtype=object).reshape(dims))])
    lines.append("  ROOT t = (%s) tuple(%s)" % (", ".join(shapes), ", ".join(names)))
    write_case(F, "bit_generator_wide_states", "HloModule m\nENTRY e {\n" + "\n".join(lines) + "\n}",
               expected)


def feed_cases():
    F = "interp-feed"
    a = np.array([[1.5, -2], [3, 4]], np.float32)
    b = np.array(7, np.int32)
    write_case(F, "infeed_tuple_outfeed", """
HloModule m
ENTRY e {
  tok = token[] after-all()
  feed = ((f32[2,2], s32[]), token[]) infeed(tok)
  d = (f32[2,2], s32[]) get-tuple-element(feed), index=0
  x = f32[2,2] get-tuple-element(d), index=0
  n = s32[] get-tuple-element(d), index=1
  t2 = token[] get-tuple-element(feed), index=1
  o = token[] outfeed(d, t2), outfeed_shape=(f32[2,2], s32[])
  y = f32[2,2] negate(x)
  ROOT r = (f32[2,2], s32[]) tuple(y, n)
}""", [("f32", -a), ("s32", b)], args=["--infeed", "inputs/a.npy", "--infeed", "inputs/b.npy"],
               inputs=[("a.npy", a), ("b.npy", b)])
    write_case(F, "infeed_missing_data", """
HloModule m
ENTRY e {
  tok = token[] after-all()
  feed = (f32[2,2], token[]) infeed(tok)
  ROOT x = f32[2,2] get-tuple-element(feed), index=0
}""", exit=1, stderr_contains="infeed array 0: no infeed data left (0 given")
    write_case(F, "infeed_wrong_shape", """
HloModule m
ENTRY e {
  tok = token[] after-all()
  feed = (f32[3], token[]) infeed(tok)
  ROOT x = f32[3] get-tuple-element(feed), index=0
}""", exit=1, stderr_contains="infeed array 0: expects f32[3]", args=["--infeed", "inputs/a.npy"])


def main():
    gather_cases()
    scatter_cases()
    sort_cases()
    rng_cases()
    feed_cases()


if __name__ == "__main__":
    main()
