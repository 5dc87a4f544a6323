#!/usr/bin/python3
"""Writes the golden cases of the compute ops (reduce, reduce-window,
select-and-scatter, dot, ragged-dot, sparse dot, convolution, fft, cholesky, triangular-solve,
batch norm, custom-call PartialReduce) under
testdata/interp-{reduce,dot,conv,fft,linalg,sort}/.

Expected outputs come from scripts/goldens/refs.py and numpy -- reference
implementations of XLA's semantics written independently of hlotools'
kernels -- never from hlorun.  Run with /usr/bin/python3 (numpy)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens"))

import cases_conv  # noqa: E402
import cases_dot  # noqa: E402
import cases_linalg  # noqa: E402
import cases_neuron  # noqa: E402
import cases_partial_reduce  # noqa: E402
import cases_ragged  # noqa: E402
import cases_reduce  # noqa: E402
import cases_sparse_dot  # noqa: E402
import gen  # noqa: E402


def main():
    for mod in (cases_reduce, cases_dot, cases_conv, cases_linalg, cases_ragged,
                cases_neuron, cases_partial_reduce, cases_sparse_dot):
        mod.main()
    print("%d cases written" % len(gen.written))


if __name__ == "__main__":
    main()
