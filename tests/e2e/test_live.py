#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The live page of `tlparse --watch` (live.html, live.js) in headless Chromium.

The files are the library's own: tests/unit/live_gen.c writes what tl_live_page and
tl_live_status make (build/tests/live_gen, or $LIVE_GEN). A Python thread plays the watcher:
it rewrites live.js every second with a fresh heartbeat, and each new generation of the report
is built in a sibling folder and swapped in whole (renameat2 RENAME_EXCHANGE, as the watcher
will; rename away and in where the file system cannot exchange). The index.html of each
generation is made by hand and marked with its number.

1. Over file:// (each file its own origin): live.html shows generation 1 with the bar saying
   "updated 12 s ago · the job is still writing" and the counts.
2. Generation 2 swapped in (its index waits ~0.5 s for a slow image, so its load event comes
   late): within 3 s the visible frame shows it. Sampled every ~30 ms throughout: exactly one
   frame visible, its document never blank, never a half-loaded one (its load event had fired)
   and never back to generation 1 once 2 was shown; generation 2 was seen parsed in the hidden
   frame while generation 1 was still the one shown, and it came in the other frame.
3. The reader follows a link in the report, or clicks into its text: a new generation does not
   take them away; the bar offers it, and its button shows it.
4. Several ranks: the per-rank table; idle: "no new lines for 3 min"; an old heartbeat:
   "the watcher stopped 40 s ago"; state finished (generation 5 swapped in): "the job
   finished: this is the final report" with a link to index.html; the final folder without
   live.js: "the watcher is gone" and its report shown; a page opened where there is no
   live.js shows the report at once.
5. Over http (same origin, python's http.server): the page the reader is on and its scroll
   position are kept across a swap, on the index and on another page; each new generation's
   pages have the modification times of the old ones (two generations in the same second: a
   "304 Not Modified" would show the old one), and it is shown all the same.
6. Injection: a title and live.js strings holding </script>, <img onerror>, U+2028 and bad
   UTF-8 are shown as text; no script of theirs runs; live.js is ASCII without '<'.

    python3 tests/e2e/test_live.py            # run by tests/e2e.sh

Env: TLPARSE_BIN (default build/tlparse; live_gen is looked for in its build folder's tests/),
LIVE_GEN, CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1 keeps the temp folder. Python 3
standard library only.
"""
import atexit
import ctypes
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402  (after the path is set)

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
LIVE_GEN = os.environ.get("LIVE_GEN") or os.path.join(os.path.dirname(BIN), "tests", "live_gen")
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-live-")
SITE = os.path.join(TMP, "site")
OUT = os.path.join(SITE, "tl_out")  # the report folder the browser has open
SLOW_S = 0.5  # how long the slow image of a generation's index keeps its load event back
SAMPLE_S = 0.03
HOSTILE_TITLE = "t</script><img src=x onerror=window.__pwned=1><script>window.__pwned=2</script>"
# \udcff is the byte 0xff (ill-formed UTF-8) once encoded with surrogateescape.
HOSTILE_TEXT = ("</script><script>window.__pwned=3</script><!--\u2028\u2029"
                "<img src=x onerror=window.__pwned=4>\udcff \"'\\ \u00e9\U0001f600")

if not os.environ.get("E2E_KEEP"):
    atexit.register(shutil.rmtree, TMP, True)


def now_ms():
    return int(time.time() * 1000)


def live_gen(*args):
    if not os.access(LIVE_GEN, os.X_OK):
        raise AssertionError("%s not found: build with -DTL_TESTS=ON (or set LIVE_GEN)" % LIVE_GEN)
    args = [os.fsencode(a) if isinstance(a, str) else a for a in args]
    p = subprocess.run([LIVE_GEN, *args], capture_output=True, timeout=30)
    if p.returncode != 0:
        raise AssertionError("live_gen %r: exit %d: %s" % (args, p.returncode, p.stderr))


def status_args(st):
    out = []
    for k, v in st.items():
        if k == "ranks":
            out += ["rank=%d:%d:%d:%d:%d" % r for r in v]
        else:
            out.append("%s=%s" % (k, v))
    return [a.encode("utf-8", "surrogateescape") for a in out]


# ---- the report of each generation, and the swap -----------------------------------------

def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def report_page(gen, page, slow_url=None):
    paras = "\n".join("<p>line %d of generation %d</p>" % (i, gen) for i in range(400))
    slow = '<img src="%s?gen=%d" width=1 height=1 alt="">' % (slow_url, gen) if slow_url else ""
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>report %d</title></head>"
            "<body data-gen=\"%d\" data-page=\"%s\"><h1>Report generation %d, %s</h1>"
            "<p><a id=\"to2\" href=\"page2.html\">page 2</a> <a href=\"index.html\">index</a></p>"
            "%s\n%s\n</body></html>\n" % (gen, gen, page, gen, page, slow, paras))


def build(folder, gen, title="tlparse: job.log", status=None, slow_url=None):
    """A report folder of generation gen: index.html, page2.html, live.html, live.js (unless
    status is None)."""
    os.makedirs(folder)
    write(os.path.join(folder, "index.html"), report_page(gen, "index", slow_url))
    write(os.path.join(folder, "page2.html"), report_page(gen, "page2"))
    live_gen("page", os.path.join(folder, "live.html"), title.encode("utf-8", "surrogateescape"))
    if status is not None:
        live_gen("status", os.path.join(folder, "live.js"), *status_args(status))


_libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD = -100
RENAME_EXCHANGE = 2


def swap_in(new, cur):
    """Put folder new in the place of cur in one step, as the watcher will; cur's old content
    is removed. Falls back to rename away + rename in where exchange is not supported."""
    r = _libc.renameat2(AT_FDCWD, os.fsencode(new), AT_FDCWD, os.fsencode(cur), RENAME_EXCHANGE)
    if r == 0:
        shutil.rmtree(new)
        return "exchange"
    old = cur + ".old"
    os.rename(cur, old)
    os.rename(new, cur)
    shutil.rmtree(old)
    return "rename (renameat2: %s)" % os.strerror(ctypes.get_errno())


class Watcher(threading.Thread):
    """Rewrites OUT/live.js every second with a fresh heartbeat while beating; every change of
    the folder goes through its lock, as the real watcher does everything in one thread."""

    def __init__(self, folder):
        super().__init__(daemon=True)
        self.folder = folder
        self.lock = threading.Lock()
        self.status = None
        self.beating = False
        self.done = threading.Event()
        self.error = None

    def write(self, **kw):
        """Update the status and write live.js now (heartbeat: now unless given)."""
        with self.lock:
            self.status.update(kw)
            st = dict(self.status)
            if "heartbeat" not in kw:
                st["heartbeat"] = now_ms()
            live_gen("status", os.path.join(self.folder, "live.js"), *status_args(st))

    def swap(self, gen, status, same_mtime=False, **build_kw):
        """Build generation gen beside the folder, then swap it in; status is its live.js
        (None: the folder has none, as a batch run's). same_mtime: its pages get the times of
        the ones they replace (two generations within the same second, for a server whose
        dates have whole seconds)."""
        new = self.folder + ".new"
        with self.lock:
            shutil.rmtree(new, ignore_errors=True)
            if status is not None:
                status = dict(status, generation=gen, updated=now_ms(), heartbeat=now_ms())
            build(new, gen, status=status, **build_kw)
            if same_mtime:
                for name in ("index.html", "page2.html"):
                    st = os.stat(os.path.join(self.folder, name))
                    os.utime(os.path.join(new, name), ns=(st.st_atime_ns, st.st_mtime_ns))
            how = swap_in(new, self.folder)
            if status is not None:
                self.status = status
            return how

    def run(self):
        while not self.done.wait(1.0):
            if self.beating and self.status is not None:
                try:
                    self.write()
                except Exception as e:  # noqa: BLE001  (reported by the test that follows)
                    self.error = e


# ---- a server for the slow image (and for the http test) -------------------------------------

GIF = (b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00"
       b"\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")


class Handler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **kw):
        super().__init__(*a, directory=SITE, **kw)

    def do_GET(self):
        if self.path.startswith("/slow.gif"):
            time.sleep(SLOW_S)
            self.send_response(200)
            self.send_header("Content-Type", "image/gif")
            self.send_header("Content-Length", str(len(GIF)))
            self.end_headers()
            self.wfile.write(GIF)
            return
        super().do_GET()

    def log_message(self, fmt, *a):
        if os.environ.get("LIVE_HTTP_LOG"):
            sys.stderr.write("http: %s %s\n" % (time.time(), fmt % a))


# ---- looking into the page and its frames ----------------------------------------------------

FRAME_JS = """(() => ({url: location.href, ready: document.readyState,
  gen: document.body ? document.body.getAttribute('data-gen') : null,
  page: document.body ? document.body.getAttribute('data-page') : null,
  text: document.body ? document.body.innerText.length : 0, y: Math.round(scrollY)}))()"""

BAR_JS = """(() => { const t = (id) => document.getElementById(id).textContent;
  const bar = document.getElementById('tl-live-bar');
  const vis = (id) => { const e = document.getElementById(id); return !e.hidden &&
    getComputedStyle(e).display !== 'none'; };
  return {state: bar.getAttribute('data-state'), badge: t('tl-live-badge'), text: t('tl-live-text'),
    counts: t('tl-live-counts'), gen: t('tl-live-gen'),
    show: vis('tl-live-show') ? t('tl-live-show') : null,
    index: vis('tl-live-index'), ranks: vis('tl-live-ranks'),
    bad: [...document.querySelectorAll('#tl-live-counts .bad')].map((e) => e.textContent),
    visible: [...document.querySelectorAll('iframe')].filter((f) =>
      getComputedStyle(f).visibility === 'visible').map((f) => f.name)}; })()"""


class Live:
    """A tab on live.html, with reads of its bar and of the documents in its two frames."""

    def __init__(self, page, url):
        self.page = page
        page.navigate(url)
        self.frames = {}
        tree = page.send("Page.getFrameTree")["frameTree"]
        for c in tree.get("childFrames", []):
            self.frames[c["frame"]["name"]] = c["frame"]["id"]
        assert set(self.frames) == {"tl-live-a", "tl-live-b"}, self.frames

    def bar(self):
        return self.page.evaluate(BAR_JS)

    def frame(self, name, js=FRAME_JS):
        """Evaluate js in the document of frame name (another origin: through DevTools)."""
        for _ in range(20):
            try:
                ctx = self.page.send("Page.createIsolatedWorld",
                                     {"frameId": self.frames[name], "worldName": "e2e"})
                res = self.page.send("Runtime.evaluate",
                                     {"expression": js, "contextId": ctx["executionContextId"],
                                      "returnByValue": True})
            except cdp.Timeout:
                raise
            except cdp.Error:  # the frame navigated between the two: again
                continue
            if "exceptionDetails" not in res:
                return res["result"].get("value")
        raise AssertionError("cannot evaluate in frame %s" % name)

    def sample(self):
        """(bar, {frame: document}) read consistently: the visible frame did not change."""
        for _ in range(10):
            b = self.bar()
            docs = {n: self.frame(n) for n in self.frames}
            b2 = self.bar()
            if b["visible"] == b2["visible"]:
                return b2, docs
        raise AssertionError("the visible frame keeps changing")

    def shown(self):
        """The document of the visible frame (None when none is visible)."""
        b, docs = self.sample()
        if len(b["visible"]) != 1:
            return None
        return docs[b["visible"][0]]

    def wait(self, what, cond, timeout=5.0):
        """Poll until cond(bar, shown document) is true; returns (bar, document)."""
        deadline = time.monotonic() + timeout
        while True:
            b, docs = self.sample()
            d = docs[b["visible"][0]] if len(b["visible"]) == 1 else None
            if cond(b, d):
                return b, d
            if time.monotonic() > deadline:
                raise AssertionError("timed out after %gs waiting for %s; bar %s; shown %s"
                                     % (timeout, what, b, d))
            self.page.sleep(0.05)


def timeline(samples, swapped_at):
    """The samples, one line each: time, then each frame (* the visible one) with the
    generation and readiness of its document."""
    lines = ["swap at %.3f s" % swapped_at]
    for t, b, docs in samples:
        lines.append("%.3f  %s" % (t, "  ".join(
            "%s%s %s/%s" % ("*" if n in b["visible"] else " ", n[-1],
                            docs[n]["gen"], docs[n]["ready"]) for n in sorted(docs))))
    return "\n".join(lines)


def gen_is(n, page="index"):
    return lambda b, d: d is not None and d["gen"] == str(n) and d["page"] == page


# ---- the tests ----------------------------------------------------------------------------

class S:
    browser = None
    page = None
    live = None
    watcher = None
    server = None
    port = None
    history = None  # history.length once live.html is open


def setUpModule():
    os.makedirs(SITE)
    S.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    S.port = S.server.server_address[1]
    threading.Thread(target=S.server.serve_forever, daemon=True).start()
    S.browser = cdp.Browser(CHROMIUM)
    S.watcher = Watcher(OUT)
    S.watcher.start()


def tearDownModule():
    if S.watcher:
        S.watcher.done.set()
    if S.browser:
        S.browser.close()
    if S.server:
        S.server.shutdown()


def slow_url():
    return "http://127.0.0.1:%d/slow.gif" % S.port


COUNTS = dict(compile_ids=3, graph_breaks=1, recompiles=0, failures=2)


class LiveTest(unittest.TestCase):
    maxDiff = None

    def errors(self):
        """Uncaught exceptions and console errors of the tab but for missing live.js loads, and
        what went wrong in the watcher thread."""
        page = S.page
        bad = list(page.errors)
        if S.watcher.error:
            bad.append("the watcher thread: %s" % S.watcher.error)
        for m in page.console:
            if m["type"] == "error" and "live.js" not in m["url"] + m["text"]:
                bad.append(m)
        return bad

    def test_1_first_generation(self):
        """file://: generation 1 shown, bar: updated 12 s ago · still writing, counts"""
        status = dict(generation=1, updated=now_ms() - 12000, heartbeat=now_ms(),
                      state="writing", input="/jobs/run 1/job.log", **COUNTS)
        build(OUT, 1, status=status)
        S.watcher.status = status
        S.watcher.beating = True
        S.page = S.browser.new_page()
        S.live = Live(S.page, cdp.file_url(os.path.join(OUT, "live.html")))
        b, d = S.live.wait("generation 1 shown", lambda b, d: gen_is(1)(b, d)
                           and b["state"] == "writing")
        S.history = S.page.evaluate("history.length")
        self.assertEqual(b["badge"], "Live")
        # 12 s old when written, older by the time the browser took to show it (a loaded
        # machine: seconds); younger by at most the age live.js had when first read, which the
        # page takes for the difference of the clocks (up to a poll and a beat: 2 s)
        age = (now_ms() - status["updated"]) / 1000
        m = re.match(r"^updated (\d+) s ago · the job is still writing$", b["text"])
        self.assertTrue(m, b["text"])
        self.assertTrue(10 <= int(m.group(1)) <= age + 1, (b["text"], age))
        self.assertEqual(b["counts"],
                         "3 compile ids · 1 graph break · 0 recompiles · 2 failures")
        self.assertEqual(b["bad"], ["2 failures"])
        self.assertEqual(b["gen"], "#1")
        self.assertFalse(b["ranks"])  # one rank: no table
        self.assertIsNone(b["show"])
        self.assertFalse(b["index"])
        self.assertEqual(len(b["visible"]), 1)
        self.assertEqual(d["ready"], "complete")
        title = S.page.evaluate("document.getElementById('tl-live-title').title")
        self.assertEqual(title, "watching /jobs/run 1/job.log")
        # The frames are of another origin: the page cannot look into them (the case of file://).
        self.assertIsNone(S.page.evaluate(
            "document.querySelector('iframe:not(.tl-live-back)').contentDocument"))
        # Its clock: the same report grows older by itself, two seconds and more, within a few
        # seconds (the bar is drawn once a second, late on a loaded machine), never older than
        # it really is.
        first, later, t0 = int(m.group(1)), None, time.monotonic()
        while time.monotonic() - t0 < 8:
            S.page.sleep(0.25)
            later = int(re.match(r"^updated (\d+) s ago", S.live.bar()["text"]).group(1))
            self.assertLessEqual(later, (now_ms() - status["updated"]) / 1000 + 1, (first, later))
            if later >= first + 2:
                break
        self.assertGreaterEqual(later, first + 2, "the age stood still: %d, then %d after %.1f s"
                                % (first, later, time.monotonic() - t0))
        self.assertEqual(self.errors(), [])

    def test_2_swap_is_double_buffered(self):
        """file://: generation 2 within 3 s, never blank, never half loaded, in the other frame"""
        live = S.live
        b, docs = live.sample()
        first = b["visible"][0]
        samples = []
        t0 = time.monotonic()
        swapped_at = None
        how = None
        while True:
            if swapped_at is None and time.monotonic() - t0 > 0.3:
                how = S.watcher.swap(2, dict(S.watcher.status), slow_url=slow_url())
                swapped_at = time.monotonic() - t0
            b, docs = live.sample()
            samples.append((time.monotonic() - t0, b, docs))
            if swapped_at is not None:
                after = [s for s in samples if s[0] > swapped_at and len(s[1]["visible"]) == 1
                         and s[2][s[1]["visible"][0]]["gen"] == "2"]
                if len(after) >= 10 or time.monotonic() - t0 - swapped_at > 3.5:
                    break
            live.page.sleep(SAMPLE_S)
        log = timeline(samples, swapped_at)
        shown_gen2 = None
        hidden_gen2_parsed = False
        for t, b, docs in samples:
            self.assertEqual(len(b["visible"]), 1, "at %.3fs: visible frames %s\n%s"
                             % (t, b, log))
            v = docs[b["visible"][0]]
            where = "at %.3fs: shown %s\n%s" % (t, v, log)
            self.assertTrue(v["url"].endswith("/index.html"), where)
            self.assertIn(v["gen"], ("1", "2"), where)
            self.assertGreater(v["text"], 1000, "a blank document " + where)
            self.assertEqual(v["ready"], "complete", "not loaded yet " + where)
            if v["gen"] == "2":
                if shown_gen2 is None:
                    shown_gen2 = (t, b["visible"][0])
            else:
                self.assertIsNone(shown_gen2, "at %.3fs: generation 1 again after 2" % t)
                other = docs[[n for n in docs if n != b["visible"][0]][0]]
                if other["gen"] == "2" and other["ready"] != "complete":
                    hidden_gen2_parsed = True
        self.assertIsNotNone(shown_gen2, "generation 2 not shown within 3 s of the swap (%s):\n%s"
                             % (how, log))
        delay = shown_gen2[0] - swapped_at
        self.assertLess(delay, 3.0)
        self.assertNotEqual(shown_gen2[1], first, "generation 2 came in the same frame:\n" + log)
        self.assertTrue(hidden_gen2_parsed, "generation 2 was never seen loading in the hidden "
                        "frame while 1 was shown (its slow image holds its load event back):\n"
                        + log)
        print("\n  swap by %s; generation 2 shown %.2f s after it; %d samples in %.1f s"
              % (how, delay, len(samples), samples[-1][0]), end=" ")
        # The frames were loaded with location.replace: no entry in the session history, so the
        # browser's Back leaves the page rather than stepping through generations.
        self.assertEqual(S.page.evaluate("history.length"), S.history)
        b = live.bar()
        self.assertEqual(b["gen"], "#2")
        self.assertRegex(b["text"],
                         r"^updated (just now|[1-3] s ago) · the job is still writing$")
        self.assertEqual(self.errors(), [])

    def test_3_reader_elsewhere_is_not_moved(self):
        """file://: after a link is followed in the report, a new generation waits for a click"""
        live = S.live
        name = live.bar()["visible"][0]
        live.frame(name, "document.getElementById('to2').click()")
        live.wait("page 2 shown", gen_is(2, "page2"))
        S.watcher.swap(3, dict(S.watcher.status))
        b, d = live.wait("the offer of report #3", lambda b, d: b["show"] is not None)
        self.assertEqual(b["show"], "report #3 is ready: show it")
        S.page.sleep(1.5)
        b, d = live.sample()
        d = d[b["visible"][0]]
        self.assertEqual((d["gen"], d["page"]), ("2", "page2"), "the reader was moved")
        S.page.click("#tl-live-show")
        b, d = live.wait("report 3 shown after the click", gen_is(3))
        self.assertIsNone(b["show"])
        self.assertEqual(b["gen"], "#3")

        # A click into the report's text (a mouse press in the frame, on no link) gives it the
        # focus: the reader is busy there, and the next generation waits as well.
        for kind, extra in [("mouseMoved", {}),
                            ("mousePressed", {"button": "left", "buttons": 1, "clickCount": 1}),
                            ("mouseReleased", {"button": "left", "buttons": 0, "clickCount": 1})]:
            S.page.send("Input.dispatchMouseEvent", dict(type=kind, x=900, y=300, **extra))
        self.assertTrue(S.page.evaluate("document.activeElement.tagName === 'IFRAME'"))
        S.watcher.swap(4, dict(S.watcher.status))
        b, d = live.wait("the offer of report #4", lambda b, d: b["show"] is not None)
        self.assertEqual(b["show"], "report #4 is ready: show it")
        self.assertEqual((d["gen"], d["page"]), ("3", "index"))
        S.page.click("#tl-live-show")
        b, d = live.wait("report 4 shown after the click", gen_is(4))
        self.assertEqual(self.errors(), [])

    def test_4_ranks_idle_stopped(self):
        """ranks table; idle: no new lines for 3 min; old heartbeat: the watcher stopped 40 s ago"""
        live = S.live
        S.watcher.write(ranks=[(0, 2, 1, 0, 0), (1, 3, 0, 4, 1)])
        b, _ = live.wait("the rank table", lambda b, d: b["ranks"])
        S.page.click("#tl-live-ranks summary")
        rows = S.page.evaluate("[...document.querySelectorAll('#tl-live-ranks tbody tr')]"
                               ".map((r) => [...r.cells].map((c) => c.textContent))")
        self.assertEqual(rows, [["0", "2", "1", "0", "0"], ["1", "3", "0", "4", "1"]])

        S.watcher.write(state="idle", last_input=now_ms() - 180000)
        b, _ = live.wait("idle", lambda b, d: b["state"] == "idle")
        self.assertRegex(b["text"], r"^updated \d+ s ago · no new lines for 3 min$")
        self.assertEqual(b["badge"], "Live")

        S.watcher.beating = False
        S.watcher.write(state="writing", heartbeat=now_ms() - 40000)
        b, _ = live.wait("stopped", lambda b, d: b["state"] == "stopped")
        self.assertRegex(b["text"],
                         r"^updated \d+ s ago · the watcher stopped (39|4[0-3]) s ago$")
        self.assertEqual(b["badge"], "Stopped")

        S.watcher.write(state="stopped", message="interrupted (SIGINT)")
        b, _ = live.wait("stopped by state", lambda b, d: "interrupted" in b["text"])
        self.assertRegex(b["text"],
                         r"^updated \d+ s ago · the watcher stopped (just now|[1-2] s ago) · "
                         r"interrupted "
                         r"\(SIGINT\)$")
        self.assertEqual(self.errors(), [])

    def test_5_finished_then_gone(self):
        """finished: the final report, a link to index.html; then no live.js: the watcher is gone"""
        live = S.live
        S.watcher.swap(5, dict(S.watcher.status, state="finished", message=""))
        b, d = live.wait("the final report", lambda b, d: gen_is(5)(b, d)
                         and b["state"] == "finished")
        self.assertEqual(b["badge"], "Final")
        self.assertRegex(b["text"], r"^updated (just now|[1-3] s ago) · the job finished: this is "
                         r"the final report$")
        self.assertTrue(b["index"])
        href = S.page.evaluate("document.getElementById('tl-live-index').href")
        self.assertEqual(href, cdp.file_url(os.path.join(OUT, "index.html")))

        # The watch's final report after a Ctrl-C: final, stopped; live.js is then looked at
        # only every 5 s.
        S.watcher.swap(6, dict(S.watcher.status, state="stopped", final="1", message=""))
        b, d = live.wait("the final report of a stopped watch",
                         lambda b, d: gen_is(6)(b, d) and "final report" in b["text"])
        self.assertEqual(b["badge"], "Final")
        self.assertRegex(b["text"], r"^updated (just now|[1-3] s ago) · the watch was stopped: "
                         r"this is the final report of what the job wrote until then$")
        self.assertTrue(b["index"])
        loads = S.page.evaluate("performance.getEntriesByType('resource')"
                                ".filter((e) => e.name.indexOf('live.js') >= 0).length")
        time.sleep(3.2)
        later = S.page.evaluate("performance.getEntriesByType('resource')"
                                ".filter((e) => e.name.indexOf('live.js') >= 0).length")
        self.assertLessEqual(later - loads, 1, "a final live.js is looked at every 5 s")
        self.assertEqual(self.errors(), [])

        # A folder made by other means replaces it: it has no live.js.
        S.watcher.beating = False
        S.watcher.swap(7, None)
        b, d = live.wait("the watcher is gone",
                         lambda b, d: b["state"] == "gone" and gen_is(7)(b, d), timeout=15)
        self.assertRegex(b["text"], r"^the watcher is gone \(no live\.js\): this is the report as "
                         r"it is in the folder · last heard from (just now|\d+ s ago)$")
        self.assertTrue(b["index"])

        # Opened afresh on a folder without live.js: the report at once.
        page = S.browser.new_page()
        fresh = Live(page, cdp.file_url(os.path.join(OUT, "live.html")))
        b, d = fresh.wait("the report without a watcher", gen_is(7), timeout=3)
        b, d = fresh.wait("the watcher is gone", lambda b, d: b["state"] == "gone", timeout=4)
        self.assertRegex(b["text"], r"^the watcher is gone \(no live\.js\)")
        page.close()

    def test_6_http_keeps_the_place(self):
        """http (same origin): a swap keeps the page the reader is on and its scroll position"""
        S.watcher.beating = False
        with S.watcher.lock:
            shutil.rmtree(OUT, ignore_errors=True)
        status = dict(generation=1, updated=now_ms(), heartbeat=now_ms(), state="writing",
                      **COUNTS)
        build(OUT, 1, status=status)
        S.watcher.status = status
        S.watcher.beating = True
        page = S.browser.new_page()
        live = Live(page, "http://127.0.0.1:%d/tl_out/live.html" % S.port)
        b, d = live.wait("generation 1 over http", gen_is(1))
        # Same origin: the page itself can look into its frame.
        self.assertIsNotNone(page.evaluate(
            "document.querySelector('iframe:not(.tl-live-back)').contentDocument.body"))
        live.frame(b["visible"][0], "scrollTo(0, 1500)")
        S.watcher.swap(2, dict(S.watcher.status), same_mtime=True)
        b, d = live.wait("generation 2 over http", gen_is(2), timeout=4)
        self.assertEqual(d["y"], 1500, "scroll position not kept: %s" % d)

        live.frame(b["visible"][0], "document.getElementById('to2').click()")
        b, d = live.wait("page 2", gen_is(2, "page2"))
        live.frame(b["visible"][0], "scrollTo(0, 900)")
        S.watcher.swap(3, dict(S.watcher.status), same_mtime=True)
        b, d = live.wait("page 2 of generation 3", gen_is(3, "page2"), timeout=4)
        self.assertEqual(d["y"], 900, "scroll position not kept: %s" % d)
        self.assertIsNone(b["show"])
        S.watcher.beating = False
        page.close()

    def test_7_injection(self):
        """a hostile title and hostile strings in live.js are text; nothing of theirs runs"""
        folder = os.path.join(TMP, "hostile")
        status = dict(generation=7, updated=now_ms(), heartbeat=now_ms(), state="writing",
                      input=HOSTILE_TEXT, message=HOSTILE_TEXT, **COUNTS)
        build(folder, 7, title=HOSTILE_TITLE, status=status)
        with open(os.path.join(folder, "live.js"), "rb") as f:
            js = f.read()
        self.assertTrue(all(c < 0x80 for c in js), "live.js is not ASCII")
        self.assertNotIn(b"<", js)
        with open(os.path.join(folder, "live.html"), "rb") as f:
            page_html = f.read().decode("utf-8")
        self.assertNotIn("<img", page_html)
        self.assertEqual(page_html.count("<script"), 1)  # ours only
        page = S.browser.new_page()
        page.add_init_script("window.__pwned = undefined")
        live = Live(page, cdp.file_url(os.path.join(folder, "live.html")))
        b, d = live.wait("the hostile report",
                         lambda b, d: gen_is(7)(b, d) and b["state"] == "writing")
        self.assertIsNone(page.evaluate("window.__pwned === undefined ? null : window.__pwned"))
        self.assertEqual(page.evaluate("document.title"), HOSTILE_TITLE)
        self.assertEqual(page.evaluate("document.getElementById('tl-live-title').textContent"),
                         HOSTILE_TITLE)
        shown = HOSTILE_TEXT.replace("\udcff", "\ufffd")
        self.assertTrue(b["text"].endswith(" · " + shown), b["text"])
        self.assertEqual(page.evaluate("document.getElementById('tl-live-title').title"),
                         "watching " + shown)
        self.assertEqual(page.evaluate("document.images.length"), 0)
        self.assertEqual(page.evaluate("[...document.scripts].filter((s) => "
                                       "!/\\/live\\.js\\?n=/.test(s.src)).length"), 1)
        self.assertEqual(page.errors, [])
        self.assertEqual(page.dialogs, [])
        page.close()


if __name__ == "__main__":
    r = unittest.main(verbosity=2, exit=False).result
    bad = len(r.failures) + len(r.errors)
    print("e2e live: %d passed, %d failed" % (max(0, r.testsRun - bad), bad))
    sys.exit(0 if r.wasSuccessful() else 1)
