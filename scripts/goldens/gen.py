"""Golden case writer: NAME.hlo, NAME.out (expected result text) and
NAME.yaml under testdata/DIR/."""
import os

import numpy as np

from hlolit import result, shape_str

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata")
written = []


def binop_comp(name, op, et):
    return ("%s {\n  a = %s[] parameter(0)\n  b = %s[] parameter(1)\n  ROOT r = %s[] %s(a, b)\n}\n"
            % (name, et, et, et, op))


def module(name, comps, lines, outs):
    """outs: list of (instruction name, et, dims) forming the root tuple."""
    shapes = ", ".join(shape_str(et, dims) for _, et, dims in outs)
    names = ", ".join(n for n, _, _ in outs)
    body = "\n".join(lines)
    return ("HloModule %s\n\n%s\nENTRY main {\n%s\n  ROOT out = (%s) tuple(%s)\n}\n"
            % (name, "\n".join(comps), body, shapes, names))


def write(d, name, hlo, expected, inputs=None):
    """expected: list of (et, array) in root-tuple order; inputs: list of
    (file name, array) saved as .npy and bound with --inputs."""
    path = os.path.join(ROOT, d)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name + ".hlo"), "w") as f:
        f.write(hlo)
    with open(os.path.join(path, name + ".out"), "w") as f:
        f.write(result(list(expected)) + "\n")
    args = ["'%s.hlo'" % name]
    if inputs:
        os.makedirs(os.path.join(path, "inputs"), exist_ok=True)
        for fn, arr in inputs:
            np.save(os.path.join(path, "inputs", fn), arr)
        args += ["'--inputs'", "'%s'" % ",".join("inputs/" + fn for fn, _ in inputs)]
    if any(np.size(arr) > 1000 for _, arr in expected):
        args.append("'--print-full'")  # hlorun summarises arrays over 1000 elements
    with open(os.path.join(path, name + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: [%s]\nstdout: %s.out\n" % (", ".join(args), name))
    written.append(os.path.join(d, name))


def write_error(d, name, hlo, msg):
    """A case whose module hlorun must refuse (random inputs, exit 1) with
    msg in its diagnostics."""
    path = os.path.join(ROOT, d)
    with open(os.path.join(path, name + ".hlo"), "w") as f:
        f.write(hlo)
    with open(os.path.join(path, name + ".yaml"), "w") as f:
        f.write("command: hlorun\nargs: ['%s.hlo', '--random-inputs']\nexit: 1\n"
                "stderr_contains: '%s'\n" % (name, msg))
