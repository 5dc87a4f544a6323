#!/usr/bin/python3
"""Writes testdata/seed/alltoall-1.out: the expected result of the seed's
AllToAll example (operation-semantics, AllToAll):

    x = Parameter(f32[4, 16]);
    AllToAll(x, split_dimension=1, concat_dimension=0, split_count=4)

on 4 replicas, each result f32[16, 4].  Replica r holds
x_r[i][j] = 100*r + 16*i + j.  Each replica splits its operand into 4 blocks
of f32[4, 4] along dimension 1 and sends block k to replica k; replica k
concatenates the blocks it receives along dimension 0 in replica order, so

    out_k[4*s + i][c] = x_s[i][4*k + c] = 100*s + 16*i + 4*k + c.

Computed here with plain loops over that definition -- never from hlorun.
Plain Python, no numpy needed."""
import os

REPLICAS, ROWS, COLS = 4, 4, 16
BLOCK = COLS // REPLICAS


def x(r, i, j):
    return 100 * r + 16 * i + j


def result(k):
    out = []
    for s in range(REPLICAS):          # blocks arrive in replica order
        for i in range(ROWS):
            out.append([x(s, i, BLOCK * k + c) for c in range(BLOCK)])
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "testdata", "seed", "alltoall-1.out")
    lines = []
    for k in range(REPLICAS):
        lines.append("replica %d:" % k)
        rows = result(k)
        lines.append("f32[%d,%d] {" % (len(rows), BLOCK))
        for n, row in enumerate(rows):
            sep = "," if n + 1 < len(rows) else ""
            lines.append("  { " + ", ".join(str(v) for v in row) + " }" + sep)
        lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
