#!/usr/bin/env python3
"""The report of the largest conformance dump stays small and fast
(issue 17, docs/report.md "Scale").

usage: test_report_scale.py BINDIR CONFORMANCE_DIR [--run]
Writes hlolayout --module --report of the largest module of the corpus
(by instruction count), checks the page is at most 5 MB and loads (parse,
script, layout) in at most 2 s in headless Chromium: the best of three
loads, as the machine is shared.  --run also measures hlorun --report of it
(a ~40 s run; not in CTest).  Exits 77 (SKIP) without Chromium.
"""
import glob
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

MAX_BYTES = 5 * 1000 * 1000
MAX_SECONDS = 2.0


def largest(corpus):
    best = None
    for path in glob.glob(os.path.join(corpus, "*", "*.hlo")):
        with open(path, errors="replace") as f:
            n = sum(1 for line in f if " = " in line)
        if not best or n > best[0]:
            best = (n, path)
    return best


def main():
    bindir, corpus = sys.argv[1], sys.argv[2]
    exe = cdp.find_chromium()
    if not exe:
        print("chromium is not installed: skipped")
        return 77
    n, module = largest(corpus)
    print("largest module: %s (~%d instructions)" % (module, n))
    tmp = tempfile.mkdtemp(prefix="hlo-report-scale-")
    pages = [("hlolayout", os.path.join(tmp, "plan.html"),
              [os.path.join(bindir, "hlolayout"), "--module", module, "--report"])]
    if "--run" in sys.argv:
        pages.append(("hlorun", os.path.join(tmp, "run.html"),
                      [os.path.join(bindir, "hlorun"), module, "--random-inputs", "--quiet", "--report"]))
    fails = 0
    b = cdp.Browser(exe)
    try:
        for name, page, cmd in pages:
            subprocess.run(cmd + [page], check=True)
            size = os.path.getsize(page)
            secs = min(b.open(page) for _ in range(3))
            phases = b.eval("hloReport.timings")
            ok = size <= MAX_BYTES and secs <= MAX_SECONDS and not b.problems()
            print("%s --report: %d bytes, loads in %.3f s (best of 3)%s; script (ms): %s"
                  % (name, size, secs, "" if ok else ": FAIL",
                     ", ".join("%s %.0f" % kv for kv in sorted(phases.items()))))
            if b.problems():
                print("  page problems:", b.problems())
            fails += not ok
            os.remove(page)
    finally:
        b.close()
        os.rmdir(tmp)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
