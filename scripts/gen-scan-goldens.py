#!/usr/bin/python3
"""Writes the golden run cases of the scan opcode (testdata/interp-scan/):
the .hlo module, the .yaml manifest and the expected .out.  The expected
values come from scan_ref below, a plain numpy loop over the semantics of
XLA's ScanExpander (xla/service/scan_expander.cc): step t visits position
t along the scan dimension (L-1-t when is_reverse), calls the body with the
input slices at that position followed by the carries, stores the body's
outputs at that position and hands its carries to the next step.  The body
of each case is written twice, as HLO text and as the numpy function given
to scan_ref; hlorun is never consulted.  Run with /usr/bin/python3."""
import importlib.util
import os

import numpy as np

_spec = importlib.util.spec_from_file_location(
    "ops_goldens", os.path.join(os.path.dirname(os.path.abspath(__file__)), "gen-interp-ops-goldens.py"))
G = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(G)

F = "interp-scan"


def scan_ref(inputs, inits, body, dim, reverse=False, noutputs=None):
    """Returns (stacked outputs, final carries).  body(slices, carries) ->
    (outputs, carries), lists of numpy arrays."""
    inputs = [np.asarray(x) for x in inputs]
    carries = [np.asarray(c) for c in inits]
    length = inputs[0].shape[dim]
    steps = range(length - 1, -1, -1) if reverse else range(length)
    stacked = None
    for pos in steps:
        slices = [np.take(x, pos, axis=dim) for x in inputs]
        outs, carries = body(slices, carries)
        outs = [np.asarray(o) for o in outs]
        carries = [np.asarray(c) for c in carries]
        if stacked is None:
            stacked = [np.zeros(o.shape[:dim] + (length,) + o.shape[dim:], o.dtype) for o in outs]
        for s, o in zip(stacked, outs):
            idx = [slice(None)] * s.ndim
            idx[dim] = pos
            s[tuple(idx)] = o
    return stacked, carries


def case(name, hlo, expected):
    G.write_case(F, name, "HloModule %s\n\n%s" % (name, hlo), expected=expected)


def cumsum_cases():
    x = np.array([1, 2, 3, 4, 5, 6], np.float32)
    body_text = """add_step {
  x = f32[] parameter(0)
  acc = f32[] parameter(1)
  s = f32[] add(acc, x)
  ROOT t = (f32[], f32[]) tuple(s, s)
}
"""

    def body(sl, c):
        s = np.float32(c[0] + sl[0])
        return [s], [s]

    for rev in (False, True):
        outs, carries = scan_ref([x], [np.float32(0)], body, 0, reverse=rev)
        name = "cumsum_reverse_f32" if rev else "cumsum_forward_f32"
        attr = ", is_reverse=true" if rev else ""
        case(name, body_text + """
ENTRY e {
  x = f32[6] constant(%s)
  zero = f32[] constant(0)
  ROOT scan = (f32[6], f32[]) scan(x, zero), dimensions={0}, num_carries=1%s, to_apply=add_step
}
""" % (G.lit(x), attr), [("f32", outs[0]), ("f32", carries[0])])


def two_carries_two_outputs():
    # Running sum (s32) and running maximum (f32) of two inputs; the outputs
    # are the running sum and the input minus the running maximum.
    a = np.array([3, -1, 4, 1, -5, 9, 2], np.int32)
    b = np.array([0.5, -2, 7.25, 7, 1.5, -3, 8], np.float32)

    def body(sl, c):
        s = np.int32(c[0] + sl[0])
        m = np.float32(max(c[1], sl[1]))
        return [s, np.float32(sl[1] - m)], [s, m]

    outs, carries = scan_ref([a, b], [np.int32(10), np.float32(-100)], body, 0)
    case("two_carries_two_outputs", """body {
  a = s32[] parameter(0)
  b = f32[] parameter(1)
  sum = s32[] parameter(2)
  mx = f32[] parameter(3)
  sum2 = s32[] add(sum, a)
  mx2 = f32[] maximum(mx, b)
  gap = f32[] subtract(b, mx2)
  ROOT t = (s32[], f32[], s32[], f32[]) tuple(sum2, gap, sum2, mx2)
}

ENTRY e {
  a = s32[7] constant(%s)
  b = f32[7] constant(%s)
  s0 = s32[] constant(10)
  m0 = f32[] constant(-100)
  ROOT scan = (s32[7], f32[7], s32[], f32[]) scan(a, b, s0, m0), dimensions={0}, num_carries=2, to_apply=body
}
""" % (G.lit(a), G.lit(b)), [("s32", outs[0]), ("f32", outs[1]), ("s32", carries[0]), ("f32", carries[1])])


def matrix_inputs_dim1_reverse():
    # Linear recurrence h' = h * a + b over the columns of [2,4] inputs,
    # scanned along dimension 1 from the last column; a non-default layout
    # on one input.  Outputs: h' and a - b for each column.
    a = np.array([[1, 2, 0.5, -1], [2, 0.5, 1, 3]], np.float32)
    b = np.array([[1, -1, 2, 0.25], [0, 4, -2, 1]], np.float32)

    def body(sl, c):
        h = (c[0] * sl[0] + sl[1]).astype(np.float32)
        return [h, (sl[0] - sl[1]).astype(np.float32)], [h]

    outs, carries = scan_ref([a, b], [np.array([1, -1], np.float32)], body, 1, reverse=True)
    case("matrix_inputs_dim1_reverse", """step {
  a = f32[2] parameter(0)
  b = f32[2] parameter(1)
  h = f32[2] parameter(2)
  ha = f32[2] multiply(h, a)
  h2 = f32[2] add(ha, b)
  d = f32[2] subtract(a, b)
  ROOT t = (f32[2], f32[2], f32[2]) tuple(h2, d, h2)
}

ENTRY e {
  a = f32[2,4]{0,1} constant(%s)
  b = f32[2,4] constant(%s)
  h0 = f32[2] constant({1, -1})
  ROOT scan = (f32[2,4]{0,1}, f32[2,4], f32[2]) scan(a, b, h0), dimensions={1}, num_carries=1, is_reverse=true, to_apply=step
}
""" % (G.lit(a), G.lit(b)), [("f32", outs[0]), ("f32", outs[1]), ("f32", carries[0])])


def empty_scan_dimension():
    # Length 0: the outputs are empty, the carry is the initial value.
    case("empty_scan_dimension", """step {
  x = f32[3] parameter(0)
  c = f32[3] parameter(1)
  s = f32[3] add(c, x)
  ROOT t = (f32[3], f32[3]) tuple(s, s)
}

ENTRY e {
  x = f32[0,3] constant({})
  c0 = f32[3] constant({1, 2, 3})
  ROOT scan = (f32[0,3], f32[3]) scan(x, c0), dimensions={0}, num_carries=1, to_apply=step
}
""", [("f32", np.zeros((0, 3), np.float32)), ("f32", np.array([1, 2, 3], np.float32))])


def bf16_cumprod():
    # Cumulative product in bf16 (every value exact in bf16), associative.
    x = [1.5, 2, 0.5, 4, -0.25]

    def body(sl, c):
        p = c[0] * sl[0]
        return [p], [p]

    outs, carries = scan_ref([np.array(x, np.float64)], [np.float64(1)], body, 0)
    case("bf16_cumprod_associative", """mul_step {
  x = bf16[] parameter(0)
  acc = bf16[] parameter(1)
  p = bf16[] multiply(acc, x)
  ROOT t = (bf16[], bf16[]) tuple(p, p)
}

ENTRY e {
  x = bf16[5] constant(%s)
  one = bf16[] constant(1)
  ROOT scan = (bf16[5], bf16[]) scan(x, one), dimensions={0}, num_carries=1, is_associative=true, to_apply=mul_step
}
""" % G.lit(np.array(x)), [("bf16", outs[0]), ("bf16", carries[0])])


def no_carries_single_output():
    # num_carries=0 and a body returning one array: the result is that array
    # stacked along dimension 1 (rows squared, then summed with the row of b).
    a = np.arange(12, dtype=np.int32).reshape(3, 4) - 5
    b = np.array([[1, 0, -1], [2, 2, 2], [7, 0, 0], [0, 0, 1]], np.int32)

    def body(sl, c):
        return [(sl[0] * sl[0] + sl[1]).astype(np.int32)], []

    outs, _ = scan_ref([a, b.T.copy()], [], body, 1)
    case("no_carries_single_output_s32", """sq {
  x = s32[3] parameter(0)
  y = s32[3] parameter(1)
  xx = s32[3] multiply(x, x)
  ROOT r = s32[3] add(xx, y)
}

ENTRY e {
  a = s32[3,4] constant(%s)
  b = s32[3,4] constant(%s)
  ROOT scan = s32[3,4] scan(a, b), dimensions={1}, num_carries=0, to_apply=sq
}
""" % (G.lit(a), G.lit(b.T)), ("s32", outs[0]))


def carry_only_result():
    # A body returning only its carry: the result is the final carry (an
    # s64 dot-product accumulator over the rows of two matrices).
    a = np.array([[1, 2], [3, 4], [5, 6]], np.int64)
    b = np.array([[7, -1], [0, 2], [-3, 1]], np.int64)

    def body(sl, c):
        return [], [np.int64(c[0] + np.dot(sl[0], sl[1]))]

    _, carries = scan_ref([a, b], [np.int64(100)], body, 0)
    case("carry_only_result_s64", """acc_dot {
  x = s64[2] parameter(0)
  y = s64[2] parameter(1)
  acc = s64[] parameter(2)
  d = s64[] dot(x, y), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT r = s64[] add(acc, d)
}

ENTRY e {
  a = s64[3,2] constant(%s)
  b = s64[3,2] constant(%s)
  init = s64[] constant(100)
  ROOT scan = s64[] scan(a, b, init), dimensions={0}, num_carries=1, to_apply=acc_dot
}
""" % (G.lit(a), G.lit(b)), ("s64", carries[0]))


def pred_parity():
    # Running parity (xor) of a pred sequence and whether any was set (or),
    # reversed; the output is the parity so far.
    x = np.array([True, False, True, True, False], bool)

    def body(sl, c):
        p = np.logical_xor(c[0], sl[0])
        return [p], [p, np.logical_or(c[1], sl[0])]

    outs, carries = scan_ref([x], [np.bool_(False), np.bool_(False)], body, 0, reverse=True)
    case("pred_parity_reverse", """parity {
  x = pred[] parameter(0)
  p = pred[] parameter(1)
  any = pred[] parameter(2)
  p2 = pred[] xor(p, x)
  any2 = pred[] or(any, x)
  ROOT t = (pred[], pred[], pred[]) tuple(p2, p2, any2)
}

ENTRY e {
  x = pred[5] constant({1, 0, 1, 1, 0})
  f = pred[] constant(false)
  ROOT scan = (pred[5], pred[], pred[]) scan(x, f, f), dimensions={0}, num_carries=2, is_reverse=true, to_apply=parity
}
""", [("pred", outs[0]), ("pred", carries[0]), ("pred", carries[1])])


def parameters_and_gte():
    # Inputs from entry parameters (bound with --inputs), a scan used through
    # get-tuple-element, and a body with a broadcast carry of rank 2.
    x = np.array([[[1, 2], [3, 4]], [[0.5, 0], [-1, 2]], [[2, 2], [2, 2]]], np.float32)

    def body(sl, c):
        m = (c[0] @ sl[0]).astype(np.float32)
        return [np.float32(m.sum())], [m]

    outs, carries = scan_ref([x], [np.eye(2, dtype=np.float32)], body, 0)
    d = os.path.join(G.ROOT, F)
    os.makedirs(d, exist_ok=True)
    np.save(os.path.join(d, "matmul_chain_x.npy"), x)
    with open(os.path.join(d, "matmul_chain.hlo"), "w") as f:
        f.write("""HloModule matmul_chain

add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}

chain {
  x = f32[2,2] parameter(0)
  m = f32[2,2] parameter(1)
  m2 = f32[2,2] dot(m, x), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  zero = f32[] constant(0)
  s = f32[] reduce(m2, zero), dimensions={0,1}, to_apply=add
  ROOT t = (f32[], f32[2,2]) tuple(s, m2)
}

ENTRY e {
  x = f32[3,2,2] parameter(0)
  one = f32[] constant(1)
  zero = f32[] constant(0)
  i = s32[2,2] iota(), iota_dimension=0
  j = s32[2,2] iota(), iota_dimension=1
  diag = pred[2,2] compare(i, j), direction=EQ
  ones = f32[2,2] broadcast(one), dimensions={}
  zeros = f32[2,2] broadcast(zero), dimensions={}
  eye = f32[2,2] select(diag, ones, zeros)
  scan = (f32[3], f32[2,2]) scan(x, eye), dimensions={0}, num_carries=1, to_apply=chain
  sums = f32[3] get-tuple-element(scan), index=0
  last = f32[2,2] get-tuple-element(scan), index=1
  ROOT r = (f32[2,2], f32[3]) tuple(last, sums)
}
""")
    with open(os.path.join(d, "matmul_chain.yaml"), "w") as f:
        f.write("command: hlorun\nargs: ['matmul_chain.hlo', '--inputs', 'matmul_chain_x.npy']\n"
                "stdout: matmul_chain.out\n")
    with open(os.path.join(d, "matmul_chain.out"), "w") as f:
        f.write(G.fmt([("f32", carries[0]), ("f32", outs[0])]) + "\n")


if __name__ == "__main__":
    cumsum_cases()
    two_carries_two_outputs()
    matrix_inputs_dim1_reverse()
    empty_scan_dimension()
    bf16_cumprod()
    no_carries_single_output()
    carry_only_result()
    pred_parity()
    parameters_and_gte()
