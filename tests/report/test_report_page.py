#!/usr/bin/env python3
"""Browser tests of the --report page (docs/report.md) in headless Chromium.

usage: test_report_page.py BINDIR TESTDATA_REPORT_DIR
Exits 77 (CTest SKIP) when no Chromium is installed; scripts/bootstrap.sh
--tests installs it, so CI runs these.

Each case writes a page with hlorun or hlolayout, opens it, and checks:
the charts are SVG, the peak the page shows equals --stats' peak (or the
hand-derived one), clicking another point of the chart changes the buffer
table, a header click sorts the table, and the page logged no error and
threw no exception.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(cmd, expect_rc):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != expect_rc:
        print(p.stderr)
        raise SystemExit("%s: exit %d, expected %d" % (" ".join(cmd), p.returncode, expect_rc))
    return p


def table_rows(b):
    return b.eval("Array.from(document.querySelectorAll('#buffers tr')).slice(1)"
                  ".filter(r => !r.querySelector('button'))"
                  ".map(r => Array.from(r.cells).map(c => c.textContent))")


def check_page(b, html, name, peaks):
    """peaks: {space id: peak bytes} the page must show."""
    secs = b.open(html)
    print("%s: %d bytes, loaded in %.3f s" % (name, os.path.getsize(html), secs))
    check(b.eval("window.hloReport && window.hloReport.ready") is True, name + ": page script ran")
    nsvg = b.eval("document.querySelectorAll('#charts svg[data-space]').length")
    check(nsvg == len(peaks), "%s: %s charts, want %d" % (name, nsvg, len(peaks)))
    check(b.eval("document.querySelectorAll('#charts svg path.area').length") == nsvg,
          name + ": every chart has its area path")
    for sid, want in peaks.items():
        shown = b.eval("(e => e && +e.dataset.bytes)(document.querySelector('.peak-value[data-space=\"%d\"]'))" % sid)
        check(shown == want, "%s: S(%d) peak shown %s, want %d" % (name, sid, shown, want))
        dot = b.eval("(e => e && +e.dataset.bytes)(document.querySelector('svg[data-space=\"%d\"] circle.peak'))" % sid)
        check(dot == want, "%s: S(%d) peak marker %s, want %d" % (name, sid, dot, want))
    # The buffers at the peak add up to it (the default selection is the
    # peak of the space with the highest one).
    top = max(peaks, key=lambda k: peaks[k])
    total = b.eval("(() => { const D = hloReport.data.devices[0]; const k = D.spaces.findIndex(s => s.id == %d);"
                   " const s = D.spaces[k]; let t = 0; for (const x of D.buffers) if (x[2] == k && x[3] <= s.peakEvent"
                   " && (x[4] < 0 || s.peakEvent < x[4])) t += x[7]; return t; })()" % top)
    check(total == peaks[top], "%s: buffers live at the peak total %s, want %d" % (name, total, peaks[top]))
    before = table_rows(b)
    check(len(before) > 0, name + ": the buffer table lists the buffers at the peak")
    ev0 = b.eval("document.getElementById('buffers').dataset.event")
    # Click the first point whose live bytes differ from the peak's.
    pos = b.eval("""(() => {
      const D = hloReport.data.devices[0]; const k = D.spaces.findIndex(s => s.id == %d);
      const s = D.spaces[k]; const i = s.points.findIndex(p => p[1] != s.peak);
      if (i < 0) return null;
      const svg = document.querySelector('svg[data-space="%d"]'); svg.scrollIntoView();
      const r = svg.getBoundingClientRect(); const steps = Math.max(D.steps, 1);
      const next = i + 1 < s.points.length ? s.points[i + 1][0] : D.steps;
      return [r.left + 60 + ((s.points[i][0] + next) / 2) / steps * 900, r.top + 80, s.points[i][2]];
    })()""" % (top, top))
    if pos is None:
        check(False, name + ": no point other than the peak to click")
    else:
        b.click(pos[0], pos[1])
        ev1 = b.eval("document.getElementById('buffers').dataset.event")
        check(ev1 != ev0 and int(ev1) == pos[2],
              "%s: clicking a point selects it (table event %s -> %s, want %s)" % (name, ev0, ev1, pos[2]))
        check(table_rows(b) != before, name + ": the buffer table changed after the click")
        hover = b.eval("document.getElementById('tip').textContent")
        check("step" in (hover or ""), name + ": hovering shows the point's instruction")
    # Sorting: the "padded" column (3) sorts by bytes, both ways.
    for direction in ("asc", "desc"):
        b.eval("(() => { const th = document.querySelector('#cost-instrs th[data-col=\"1\"]');"
               " th.scrollIntoView(); return 1; })()")
        r = b.eval("(() => { const r = document.querySelector('#cost-instrs th[data-col=\"1\"]').getBoundingClientRect();"
                   " return [r.left + r.width / 2, r.top + r.height / 2]; })()")
        b.click(r[0], r[1])
        cls = b.eval("document.querySelector('#cost-instrs th[data-col=\"1\"]').className")
        col = b.eval("Array.from(document.querySelectorAll('#cost-instrs tr')).slice(1).filter(r => r.cells.length > 1).map(r => r.cells[1].textContent)")
        want = sorted(col, reverse=(direction == "desc"))
        check(cls == "sorted-" + direction and col == want,
              "%s: opcode column sorted %s after a header click (%s)" % (name, direction, cls))
    probs = b.problems()
    check(not probs, "%s: console errors or exceptions: %s" % (name, probs))


def main():
    bindir, data = sys.argv[1], sys.argv[2]
    exe = cdp.find_chromium()
    if not exe:
        print("chromium is not installed: skipped (scripts/bootstrap.sh --tests installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="hlo-report-test-")
    hlorun, hlolayout = os.path.join(bindir, "hlorun"), os.path.join(bindir, "hlolayout")
    b = cdp.Browser(exe)
    try:
        # 1. A run: the peaks are --stats' own.
        page = os.path.join(tmp, "run.html")
        stats = os.path.join(tmp, "stats.json")
        run([hlorun, os.path.join(data, "timeline.hlo"), "--random-inputs", "--quiet", "--device", "tpu-v4",
             "--report", page, "--stats=" + stats, "--stats-format", "json"], 0)
        spaces = json.load(open(stats))["memory_spaces"]
        check_page(b, page, "run", {s["id"]: s["peak_bytes"] for s in spaces if s["peak_bytes"] > 0})
        # 2. A run stopped by a full VMEM: the page up to there, exit 1.  The
        # peak (16687104 B) is derived by hand in oom_vmem.yaml.
        page = os.path.join(tmp, "oom.html")
        run([hlorun, os.path.join(data, "oom_vmem.hlo"), "--device", "tpu-v4", "--report", page], 1)
        b.open(page)
        check(b.eval("!!document.getElementById('oom')"), "oom: the page names the full space")
        check(b.eval("!!document.getElementById('run-error')"), "oom: the page shows the run's error")
        check(b.eval("+document.querySelector('.peak-value[data-space=\"1\"]').dataset.bytes") == 16687104,
              "oom: VMEM peak 16687104")
        # At the peak ad has just been made and a (its operand) not yet
        # released: a, b, c, d and ad; the error, one step later, lists 4.
        check(len(table_rows(b)) == 5, "oom: 5 buffers live in VMEM at the peak")
        check(not b.problems(), "oom: console errors: %s" % b.problems())
        # 3. hlolayout: program order, no run; peaks by hand in timeline.hlo.
        page = os.path.join(tmp, "plan.html")
        run([hlolayout, "--module", os.path.join(data, "timeline.hlo"), "--device", "tpu-v4", "--report", page], 0)
        check_page(b, page, "plan", {0: 5632, 1: 12288})
        # 4. A path holding "</script>" (the directory "t<") cannot end the
        # data's script element: the page still runs and shows it whole.
        odd = os.path.join(tmp, "t<")
        os.mkdir(odd)
        src = os.path.join(odd, "script>.hlo")
        with open(os.path.join(data, "timeline.hlo")) as f, open(src, "w") as g:
            g.write(f.read())
        page = os.path.join(tmp, "odd.html")
        run([hlolayout, "--module", src, "--report", page], 0)
        b.open(page)
        check(b.eval("window.hloReport && hloReport.data.file") == src, "odd: the file name survives")
        check(not b.problems(), "odd: console errors: %s" % b.problems())
    finally:
        b.close()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
