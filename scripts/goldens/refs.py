"""Plain numpy / Python reference implementations of XLA's operation
semantics (written from the operation-semantics seed and XLA's HloEvaluator,
independently of hlotools' kernels) for the golden generators."""
import functools
import itertools

import numpy as np


def window_out(n, size, stride, lo, hi, bdil, wdil):
    padded = (n - 1) * bdil + 1 + lo + hi if n > 0 else lo + hi
    span = (size - 1) * wdil + 1
    return 0 if padded < span else (padded - span) // stride + 1


def window_positions(shape, size, stride, lo, hi, bdil, wdil):
    """For each output index: the list of (operand index or None) in window
    order (row-major), None for padding / dilation holes."""
    r = len(shape)
    outs = [window_out(shape[d], size[d], stride[d], lo[d], hi[d], bdil[d], wdil[d]) for d in range(r)]
    res = {}
    for o in itertools.product(*[range(n) for n in outs]):
        lst = []
        for k in itertools.product(*[range(s) for s in size]):
            idx = []
            for d in range(r):
                u = o[d] * stride[d] + k[d] * wdil[d] - lo[d]
                if u < 0 or u % bdil[d] or u // bdil[d] >= shape[d]:
                    idx = None
                    break
                idx.append(u // bdil[d])
            lst.append(None if idx is None else tuple(idx))
        res[o] = lst
    return outs, res


def reduce_window(xs, inits, fn, size, stride=None, lo=None, hi=None, bdil=None, wdil=None):
    """Variadic reduce-window; fn(accs, vals) -> accs (tuples).  Holes and
    padding take no part (the accumulator starts at init)."""
    shape = xs[0].shape
    r = len(shape)
    stride = stride or [1] * r
    lo = lo or [0] * r
    hi = hi or [0] * r
    bdil = bdil or [1] * r
    wdil = wdil or [1] * r
    outs, pos = window_positions(shape, size, stride, lo, hi, bdil, wdil)
    res = [np.zeros(outs, x.dtype) for x in xs]
    for o, lst in pos.items():
        acc = tuple(inits)
        for idx in lst:
            if idx is not None:
                acc = fn(acc, tuple(x[idx] for x in xs))
        for i in range(len(xs)):
            res[i][o] = acc[i]
    return res


def select_and_scatter(operand, source, init, select, scatter, size, stride, lo=None, hi=None):
    r = operand.ndim
    lo = lo or [0] * r
    hi = hi or [0] * r
    outs, pos = window_positions(operand.shape, size, stride, lo, hi, [1] * r, [1] * r)
    assert list(source.shape) == outs, (source.shape, outs)
    out = np.full(operand.shape, init, operand.dtype)
    for o in itertools.product(*[range(n) for n in outs]):
        kept = None
        for idx in pos[o]:
            if idx is None:
                continue
            if kept is None or not select(operand[kept], operand[idx]):
                kept = idx
        if kept is not None:
            out[kept] = scatter(out[kept], source[o])
    return out


def dot_general(l, r, lb, rb, lc, rc, acc):
    """[batch..., lhs free..., rhs free...] in accumulation dtype acc."""
    lf = [d for d in range(l.ndim) if d not in lb + lc]
    rf = [d for d in range(r.ndim) if d not in rb + rc]
    bs = [l.shape[d] for d in lb]
    ms = [l.shape[d] for d in lf]
    ks = [l.shape[d] for d in lc]
    ns = [r.shape[d] for d in rf]
    p = lambda v: int(np.prod(v, dtype=np.int64))
    L = np.transpose(l, lb + lf + lc).astype(acc).reshape(p(bs), p(ms), p(ks))
    R = np.transpose(r, rb + rc + rf).astype(acc).reshape(p(bs), p(ks), p(ns))
    out = np.zeros((p(bs), p(ms), p(ns)), acc)
    for b in range(p(bs)):
        for k in range(p(ks)):  # plain sums (no BLAS): exact for integers
            out[b] += np.multiply.outer(L[b, :, k], R[b, k, :])
    return out.reshape(bs + ms + ns)


def conv(lhs, rhs, dn, size, stride=None, lo=None, hi=None, bdil=None, wdil=None, rev=None,
         fgc=1, bgc=1, acc=np.float64):
    """XLA convolution, per output element as HloEvaluator computes it.
    dn: dict ib, if, is (list), ki, ko, ks (list), ob, of, os (list)."""
    ns = len(dn["is"])
    stride = stride or [1] * ns
    lo = lo or [0] * ns
    hi = hi or [0] * ns
    bdil = bdil or [1] * ns
    wdil = wdil or [1] * ns
    rev = rev or [False] * ns
    L = np.moveaxis(lhs, [dn["ib"]] + dn["is"] + [dn["if"]], list(range(ns + 2))).astype(acc)
    K = np.moveaxis(rhs, dn["ks"] + [dn["ki"], dn["ko"]], list(range(ns + 2))).astype(acc)
    B, IF = L.shape[0], L.shape[-1]
    KI, O = K.shape[-2], K.shape[-1]
    ins, ks = L.shape[1:-1], K.shape[:-2]
    assert list(ks) == list(size)
    outs = [window_out(ins[d], size[d], stride[d], lo[d], hi[d], bdil[d], wdil[d]) for d in range(ns)]
    Bo = B // bgc
    res = np.zeros([Bo] + outs + [O], acc)
    ofg, obg = O // fgc, O // bgc
    for oz in range(O):
        fg, bg = oz // ofg, oz // obg
        for b in range(Bo):
            for o in itertools.product(*[range(n) for n in outs]):
                s = acc(0)
                for k in itertools.product(*[range(n) for n in ks]):
                    idx = []
                    for d in range(ns):
                        u = o[d] * stride[d] - lo[d] + k[d] * wdil[d]
                        if u % bdil[d] or not 0 <= u // bdil[d] < ins[d]:
                            idx = None
                            break
                        idx.append(u // bdil[d])
                    if idx is None:
                        continue
                    kk = tuple(ks[d] - 1 - k[d] if rev[d] else k[d] for d in range(ns))
                    v = L[(b + bg * Bo,) + tuple(idx)][fg * KI:(fg + 1) * KI]
                    s = s + np.sum(v * K[kk + (slice(None), oz)])
                res[(b,) + o + (oz,)] = s
    return np.moveaxis(res, list(range(ns + 2)), [dn["ob"]] + dn["os"] + [dn["of"]])


def parse_labels(s):
    """'b01f_01io->b01f' -> dn dict."""
    lhs, rest = s.split("_")
    ker, out = rest.split("->")
    sp = lambda t: [t.index(str(i)) for i in range(sum(c.isdigit() for c in t))]
    return {"ib": lhs.index("b"), "if": lhs.index("f"), "is": sp(lhs),
            "ki": ker.index("i"), "ko": ker.index("o"), "ks": sp(ker),
            "ob": out.index("b"), "of": out.index("f"), "os": sp(out)}


def fold(fn, init, values):
    return functools.reduce(fn, values, init)
