#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The web page (`make web`: build-web/site/index.html, the engine compiled to WebAssembly)
in headless Chromium, opened from file://.

For tests/fixtures/demo.log, its gzip, and every log of ../shared/corpus/logs (when there), given
to the page's file input (DOM.setFileInputFiles, as a user picking it):
1. The page's report equals `tlparse LOG --bundle X.html`'s: the same files with the same bytes
   (each decoded from the bundle as test_bundle.py reads one), apart from the run information
   (tests/strip_runinfo.py: the index's footer and title, summary.json's generated_by), and the
   same exit code; the progress bar moved at least once.
2. The report is shown in the tab: a frame of the page shows the bundle, whose own frame shows
   the index (its overview heading).
3. No request but the page's own file and blob: URLs (the worker's script, the report), in
   the tab, its worker and the report's frames (attached through DevTools); no console error
   or uncaught exception there; the main thread never stalled 500 ms or more while the
   engine ran (a probe ticking every 20 ms).
4. Not a log: the page says why (the CLI's message and exit code), and shows no report; a .zst
   log: the page says it cannot read zstd yet.

    python3 tests/e2e/test_web.py               # run by tests/web.sh (after `make web`)

Env: TLPARSE_BIN (default build/tlparse), TLPARSE_WEB_SITE (default build-web/site/index.html),
CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1 keeps the temp folder. Python 3 standard
library only.
"""
import atexit
import glob
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402  (after the path is set)
from test_bundle import read_bundle  # noqa: E402

sys.path.insert(0, os.path.dirname(HERE))  # tests/
import strip_runinfo  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
SITE = os.path.abspath(os.environ.get("TLPARSE_WEB_SITE")
                       or os.path.join(ROOT, "build-web", "site", "index.html"))
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus", "logs")
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-web-")
STALL_LIMIT_MS = 500

# Before the page's scripts: the longest gap between two ticks of a 20 ms timer while a run
# is going on (window.__stall), to tell a blocked main thread.
STALL_PROBE = r"""(() => {
  if (window.top !== window) return;
  let last = performance.now();
  window.__stall = 0;
  setInterval(() => {
    const t = performance.now();
    if (window.tlweb && window.tlweb.state === 'running')
      window.__stall = Math.max(window.__stall, t - last);
    last = t;
  }, 20);
})();"""


@atexit.register
def remove_tmp():
    if not os.environ.get("E2E_KEEP"):
        shutil.rmtree(TMP, ignore_errors=True)


def logs():
    demo = os.path.join(ROOT, "tests", "fixtures", "demo.log")
    gz = os.path.join(TMP, "demo.log.gz")
    with open(demo, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    out = [demo, gz]
    out += sorted(p for p in glob.glob(os.path.join(CORPUS, "*")) if os.path.isfile(p))
    return out


def cli_bundle(log, n):
    """cd DIR && tlparse NAME --bundle TMP/cli_N.html (the log named as the page names it):
    (exit code, {path: bytes} or None)."""
    out = os.path.join(TMP, "cli_%d.html" % n)
    p = subprocess.run([BIN, os.path.basename(log), "--bundle", out, "--no-browser"],
                       cwd=os.path.dirname(log), capture_output=True, timeout=300)
    return p.returncode, read_bundle(out) if os.path.isfile(out) else None


def stripped(files):
    """The files with their run information taken out (strip_runinfo's rules)."""
    out = dict(files)
    for name, data in files.items():
        base = name.rsplit("/", 1)[-1]
        if base == "index.html" and "/" not in name:
            text = data.decode("utf-8", "surrogateescape")
            text = strip_runinfo.TITLE.sub("<title>tlparse: *</title>",
                                           strip_runinfo.FOOTER.sub("", text), count=1)
            out[name] = text.encode("utf-8", "surrogateescape")
        elif base == "summary.json":
            text = data.decode("utf-8", "surrogateescape")
            out[name] = strip_runinfo.MEMBER.sub("", text, count=1).encode(
                "utf-8", "surrogateescape")
    return out


class Web(unittest.TestCase):
    browser = None

    @classmethod
    def setUpClass(cls):
        if not os.path.isfile(SITE):
            raise AssertionError("%s is missing: run `make web`" % SITE)
        cls.browser = cdp.Browser(executable=CHROMIUM)
        cls.page = cls.browser.new_page()
        cls.page.timeout = 20.0
        cls.page.add_init_script(STALL_PROBE)
        # session id -> cdp.Page of a worker or out-of-process frame, kept when it is gone (a
        # worker ends with its run) so that what it collected is still read
        cls.children = {}
        cls.attach_all(cls.page)

    @classmethod
    def attach_all(cls, page):
        """Attach to every worker and out-of-process frame under page, and theirs in turn, so
        that their requests, console and exceptions are collected too (as test_bundle.py)."""
        def attached(p):
            sid, info = p["sessionId"], p["targetInfo"]
            child = cdp.Page(cls.browser, info["targetId"], sid)
            child.kind = info.get("type")
            cls.browser._pages[sid] = child  # route its events to it (cdp has no public hook)
            cls.children[sid] = child
            for method in ("Runtime.enable", "Log.enable", "Network.enable"):
                cls.browser.post(method, None, sid)
            cls.attach_all(child)

        page.on("Target.attachedToTarget", attached)
        cls.browser.post("Target.setAutoAttach", {"autoAttach": True, "flatten": True,
                                                  "waitForDebuggerOnStart": False},
                         page.session_id)

    @classmethod
    def tearDownClass(cls):
        if cls.browser:
            cls.browser.close()

    def run_page(self, log, timeout=300):
        """Open the site afresh, give it LOG; the page's tlweb state once the run ended."""
        p = self.page
        self.children.clear()
        p.clear()
        self.seen = {"requests": [], "errors": [], "console": [], "kinds": set()}
        p.navigate(cdp.file_url(SITE))
        doc = p.send("DOM.getDocument", {"depth": 0})
        node = p.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"],
                                            "selector": "#tlw-file"})
        p.send("DOM.setFileInputFiles", {"nodeId": node["nodeId"], "files": [log]})
        p._wait(lambda: p.evaluate("tlweb.state") not in ("idle", "running"), timeout,
                "the page's report of " + log)
        return p.evaluate("""(async () => ({
            state: tlweb.state, code: tlweb.code, messages: tlweb.messages,
            progress: tlweb.progress, stall: window.__stall,
            status: document.getElementById('tlw-status').textContent,
            frame: document.getElementById('tlw-frame').getAttribute('src'),
            bundle: tlweb.bundle ? await tlweb.bundle.text() : null }))()""")

    def collect(self):
        """What the tab and its workers and frames did since run_page (children come and go:
        what each collected is moved into self.seen)."""
        for pg in [self.page] + list(self.children.values()):
            self.seen["requests"] += pg.requests
            self.seen["errors"] += pg.errors
            self.seen["console"] += pg.console
            if pg is not self.page:
                self.seen["kinds"].add(pg.kind)
            pg.clear()
        return self.seen

    def check_quiet(self):
        """No request but the page's own file and blob: URLs (the worker's script, the
        report's frames); no exception or console error anywhere."""
        seen = self.collect()
        site_url = cdp.file_url(SITE)
        other = [r["url"] for r in seen["requests"]
                 if r["url"] != site_url and not r["url"].startswith("blob:")]
        self.assertEqual(other, [], "requests other than the page's own file")
        self.assertIn(site_url, [r["url"] for r in seen["requests"]], "the network log is off")
        self.assertEqual(seen["errors"], [])
        self.assertEqual([c for c in seen["console"] if c["type"] == "error"], [])

    def frame_texts(self):
        """innerText of every out-of-process frame of the tab, keyed by its URL; for the
        bundle's, the text of the page its loader shows (its frame #tlb-frame)."""
        out = {}
        for child in list(self.children.values()):
            if child.kind != "iframe" or child._gone:
                continue
            try:
                url, text = child.evaluate("""(() => {
                    const f = document.getElementById('tlb-frame');
                    const d = f && f.contentDocument ? f.contentDocument : document;
                    return [location.href, d.body ? d.body.innerText : ''];
                })()""")
            except cdp.Error:
                continue
            out[url] = text
        return out

    def test_1_same_report_as_cli(self):
        for n, log in enumerate(logs()):
            with self.subTest(log=os.path.basename(log)):
                code, want = cli_bundle(log, n)
                got = self.run_page(log)
                self.assertEqual(got["code"], code, got["messages"])
                self.assertIsNotNone(want, "the CLI made no bundle of %s" % log)
                self.assertEqual(got["state"], "done", got["messages"])
                self.assertGreaterEqual(got["progress"], 1, "the progress bar never moved")
                path = os.path.join(TMP, "web_%d.html" % n)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(got["bundle"])
                have = stripped(read_bundle(path))
                want = stripped(want)
                self.assertEqual(sorted(have), sorted(want), "the files differ")
                for name in want:
                    self.assertEqual(have[name], want[name], "%s differs" % name)
                self.check_quiet()
                self.assertIn("worker", self.seen["kinds"], "the worker was not watched")
                self.assertLess(got["stall"], STALL_LIMIT_MS, "the main thread stalled")

    def test_2_report_shown(self):
        got = self.run_page(os.path.join(ROOT, "tests", "fixtures", "demo.log"))
        self.assertTrue(got["frame"] and got["frame"].startswith("blob:"), got["frame"])
        deadline = time.monotonic() + 20
        while True:
            texts = self.frame_texts()
            if any("compile ids" in t and "Diagnosis" in t for t in texts.values()):
                break
            if time.monotonic() > deadline:
                self.fail("no frame shows the index: %r" % {u: t[:200] for u, t in texts.items()})
            self.page.sleep(0.2)
        self.assertIn(got["frame"], texts)
        self.check_quiet()

    def test_3_not_a_log(self):
        path = os.path.join(TMP, "notes.log")
        with open(path, "w") as f:
            f.write("just some text\nnothing to see\n")
        code, _ = cli_bundle(path, 999)
        got = self.run_page(path)
        self.assertEqual(got["state"], "failed")
        self.assertEqual(got["code"], code)
        self.assertNotEqual(code, 0)
        self.assertTrue(any("is not a TORCH_TRACE log" in m for m in got["messages"]),
                        got["messages"])
        self.assertIn("no report", got["status"])
        self.assertIsNone(got["frame"])
        self.check_quiet()

    def test_4_zstd_refused(self):
        path = os.path.join(TMP, "demo.log.zst")
        subprocess.run(["zstd", "-q", "-f", os.path.join(ROOT, "tests", "fixtures", "demo.log"),
                        "-o", path], check=True)
        got = self.run_page(path)
        self.assertEqual((got["state"], got["code"]), ("failed", 1))
        self.assertEqual(got["messages"],
                         ["tlparse: error: demo.log.zst: zstd: zstd is not built into this page"])
        self.check_quiet()


if __name__ == "__main__":
    unittest.main(verbosity=2)
