"""XLA literal text (as hlorun prints results) and HLO constants, for golden
generators.  Formatting follows xla/literal.cc and RoundTripFpToString:
f32 %.6g (else %.9g when that does not read back), f64 %.15g / %.17g, bf16
%.4g, f16 %.5g; nan/-nan; arrays as in interp/io/literal.c.  bf16 values are
carried as float32 arrays already rounded to bf16 (bf16_round)."""
import numpy as np

NP = {"f32": np.float32, "f64": np.float64, "f16": np.float16, "bf16": np.float32,
      "s8": np.int8, "s16": np.int16, "s32": np.int32, "s64": np.int64, "u8": np.uint8,
      "u32": np.uint32, "u64": np.uint64, "pred": np.bool_, "c64": np.complex64,
      "c128": np.complex128}
FLOATS = ("f32", "f64", "f16", "bf16")


def bf16_round(x):
    """float32 values rounded to the nearest bf16 (ties to even), as float32."""
    a = np.array(x, np.float32, ndmin=1).reshape(np.shape(x))
    b = a.view(np.uint32).astype(np.uint64)
    u = lambda k: np.uint64(k)
    r = (((b + u(0x7FFF) + ((b >> u(16)) & u(1))) >> u(16)) << u(16)).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), a, r).astype(np.float32)


def cast(et, x):
    """x as element type et (integers wrap, floats round once)."""
    x = np.asarray(x)
    if et == "bf16":
        return bf16_round(np.asarray(x, np.float64).astype(np.float32))
    if et.startswith(("s", "u")) and not np.issubdtype(x.dtype, np.integer) and x.dtype != np.bool_:
        x = np.asarray(x).astype(np.int64)
    return x.astype(NP[et])


def _real(v, short, long, back):
    v = float(v)
    if np.isnan(v):
        return "-nan" if np.signbit(v) else "nan"
    s = "%.*g" % (short, v)
    if long and back(float(s)) != back(v):
        s = "%.*g" % (long, v)
    return s


def elem(et, v, scalar=False):
    if et == "f32":
        return _real(v, 6, 9, np.float32)
    if et == "f64":
        return _real(v, 15, 17, float)
    if et == "bf16":
        return _real(v, 4, 0, None)
    if et == "f16":
        return _real(v, 5, 0, None)
    if et in ("c64", "c128"):
        p = "f32" if et == "c64" else "f64"
        return "(%s, %s)" % (elem(p, v.real), elem(p, v.imag))
    if et == "pred":
        return ("true" if v else "false") if scalar else ("1" if v else "0")
    return str(int(v))


def shape_str(et, dims):
    return "%s[%s]" % (et, ",".join(str(d) for d in dims))


def literal(et, arr):
    """One result array as hlorun prints it (shape prefix included)."""
    arr = np.asarray(arr)
    dims = list(arr.shape)
    rank = len(dims)
    flat = [elem(et, v, rank == 0) for v in arr.reshape(-1)]
    out, idx, pos = [], [0] * rank, [0]

    def rec(depth):
        left = rank - depth
        if left == 0:
            out.append(flat[pos[0]])
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
            idx[depth] = i
            rec(depth + 1)
            if i < n - 1:
                out.append(",\n" if left > 1 else ", ")
        if rank == 1:
            out.append("}")
        elif left == 1:
            out.append("}" if n <= 1 else " }")
        else:
            out.append("\n}")

    rec(0)
    return shape_str(et, dims) + " " + "".join(out)


def result(r):
    """r: (et, array) or a list of such / nested lists (tuples)."""
    if isinstance(r, list):
        return "(\n" + ",\n".join(result(x) for x in r) + "\n)"
    return literal(*r)


def _hlo_elem(et, v):
    if et in ("c64", "c128"):
        return "(%s, %s)" % (_hlo_elem("f64", v.real), _hlo_elem("f64", v.imag))
    if et == "pred":
        return "true" if v else "false"
    if et in FLOATS:
        v = float(v)
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    return str(int(v))


def hlo_values(et, arr):
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return _hlo_elem(et, arr.item())
    return "{" + ", ".join(hlo_values(et, a) for a in arr) + "}"


def const(name, et, arr):
    """`name = et[dims] constant(...)` (non-empty arrays)."""
    arr = np.asarray(arr)
    return "  %s = %s constant(%s)" % (name, shape_str(et, arr.shape), hlo_values(et, arr))
