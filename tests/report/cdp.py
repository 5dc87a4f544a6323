"""A headless Chromium driven over the DevTools protocol, Python stdlib only.

Chromium started with --remote-debugging-pipe reads protocol messages on its
fd 3 and writes them on its fd 4, each a JSON object ended by a NUL byte
(docs/report.md, "Browser tests").  This is all the report tests need: open a
page, evaluate JavaScript in it, click at a point, and collect the console
errors and uncaught exceptions the page produced.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Browser:
    def __init__(self, exe, timeout=60):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="hlo-report-chromium-")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def wire_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        # --no-sandbox: Chromium refuses to run as root with its sandbox (CI
        # containers run as root); the pages it opens are our own files.
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--no-sandbox", "--disable-gpu",
             "--remote-debugging-pipe", "--no-first-run", "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--user-data-dir=" + self.profile, "--window-size=1400,1000", "about:blank"],
            # fds 3 and 4 are kept open past the child's close_fds, which
            # runs after wire_fds has put the pipes there.
            pass_fds=sorted({3, 4, to_chrome_r, from_chrome_w}), preexec_fn=wire_fds,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._next = 0
        self.events = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget",
                                 {"targetId": page["targetId"], "flatten": True},
                                 browser=True)["sessionId"]
        self.call("Runtime.enable")
        self.call("Page.enable")
        self.call("Log.enable")

    def _send(self, msg):
        os.write(self._w, json.dumps(msg).encode() + b"\0")

    def _read_one(self, deadline):
        while b"\0" not in self._buf:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self._r, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, browser=False):
        self._next += 1
        msg = {"id": self._next, "method": method, "params": params or {}}
        if self.session and not browser:
            msg["sessionId"] = self.session
        self._send(msg)
        deadline = time.monotonic() + self.timeout
        while True:
            m = self._read_one(deadline)
            if m.get("id") == self._next:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, name):
        deadline = time.monotonic() + self.timeout
        for m in self.events:
            if m["method"] == name:
                return m
        while True:
            m = self._read_one(deadline)
            if "method" in m:
                self.events.append(m)
                if m["method"] == name:
                    return m

    def open(self, path):
        """Loads a file and returns the seconds until its load event."""
        self.events = [e for e in self.events if e["method"] != "Page.loadEventFired"]
        t0 = time.monotonic()
        self.call("Page.navigate", {"url": "file://" + os.path.abspath(path)})
        self.wait_event("Page.loadEventFired")
        self.eval("document.body.getBoundingClientRect().height")  # layout done
        return time.monotonic() - t0

    def eval(self, expr):
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        if "exceptionDetails" in r:
            raise RuntimeError("page error evaluating %s: %s" % (expr, r["exceptionDetails"]))
        return r["result"].get("value")

    def click(self, x, y):
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def problems(self):
        """Uncaught exceptions, console errors and error log entries so far."""
        out = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append("exception: %s" % p["exceptionDetails"].get("text"))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console.%s: %s" % (p["type"], [a.get("value") for a in p.get("args", [])]))
            elif e["method"] == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append("log: %s" % p["entry"].get("text"))
        return out

    def close(self):
        try:
            self.call("Browser.close", browser=True)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._w)
        os.close(self._r)
        shutil.rmtree(self.profile, ignore_errors=True)
