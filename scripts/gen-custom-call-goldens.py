#!/usr/bin/python3
"""Writes the golden cases of the library custom calls found in real XLA
dumps (cuDNN convolutions, cuBLAS(Lt) gemms, CUB radix sort, jaxlib and LAPACK calls,
and their backend_config spellings and refusals) under testdata/interp-custom-call/.

Expected outputs come from numpy/scipy and scripts/goldens/refs.py --
written from the targets' definitions, never from hlorun.  Run with
/usr/bin/python3."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens"))

import cases_backend_json  # noqa: E402
import cases_cublas  # noqa: E402
import cases_cub  # noqa: E402
import cases_cudnn  # noqa: E402
import cases_jaxlib  # noqa: E402
import cases_lapack  # noqa: E402
import gen  # noqa: E402


def main():
    for mod in (cases_cudnn, cases_cublas, cases_jaxlib, cases_lapack, cases_cub,
                cases_backend_json):
        mod.main()
    print("%d cases written" % len(gen.written))


if __name__ == "__main__":
    main()
