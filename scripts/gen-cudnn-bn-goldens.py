#!/usr/bin/python3
"""Writes the golden cases of XLA:GPU's cuDNN batch-norm custom calls
(__cudnn$batchNormalization{ForwardInference,ForwardTraining,Backward})
under testdata/interp-custom-call/cudnn_bn_*.

Expected outputs come from numpy's float64 batch-norm formulas
(scripts/goldens/cases_cudnn_bn.py) -- never from hlorun.  Run with
/usr/bin/python3."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "goldens"))

import cases_cudnn_bn  # noqa: E402
import gen  # noqa: E402


def main():
    cases_cudnn_bn.main()
    print("%d cases written (and the error cases)" % len(gen.written))


if __name__ == "__main__":
    main()
