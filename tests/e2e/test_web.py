#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The web page (`make web`: build-web/site/index.html, the engine compiled to WebAssembly)
in headless Chromium, opened from file://.

For tests/fixtures/demo.log, its gzip and zstd, a larger zstd log (demo.log grown by
scripts/grow_trace.py), every log of tests/fixtures, and every log of ../shared/corpus/logs
(when there; a clone with nothing beside it runs the rest), given to the page's file input
(DOM.setFileInputFiles, as a user picking it):
1. The page's report equals `tlparse LOG --bundle X.html`'s: the same files with the same bytes
   (each decoded from the bundle as test_bundle.py reads one), apart from the run information
   (tests/strip_runinfo.py: the index's footer and title, summary.json's generated_by), and the
   same exit code; the progress bar moved at least once.
2. The report is shown in the tab: a frame of the page shows the bundle, whose own frame shows
   the index (its overview heading).
3. No request but the page's own file and blob: URLs (the worker's script, the report), in
   the tab, its worker and the report's frames (attached through DevTools); no console error
   or uncaught exception there; the main thread never stalled 200 ms or more while the
   engine ran (a probe ticking every 20 ms).
4. Not a log: the page says why (the CLI's message and exit code), and shows no report; a .zst
   log cut short, or not zstd inside: the CLI's messages, exit code and report.
5. Each TORCH_LOGS text of the corpus and the fixtures: as 1.
6. Each folder of rank logs (two of our own, by tests/make_rank_logs.py, and the corpus's
   when there), picked as a folder, and its logs picked together:
   the same files as `tlparse FOLDER --all-ranks-html --bundle X.html` (the multi-rank
   landing).
7. Two logs given as Before and After, and picked together: the files of
   `tlparse diff BEFORE AFTER -o tl_diff`, as one page.
8. "Save redacted": the file it saves equals `--bundle --redact`'s (the same salt on both
   sides: the page's tlweb.redactSalt, the CLI's getrandom() preloaded), the report shown
   stays.
9. The site is under 1 MB gzipped.
10. A log of 48 MiB (TLPARSE_WEB_BIG_MB): as 1, with the worker's memory bounded (the files
   the engine writes are Blobs but for 16 MiB at most; the engine's memory is less than the
   log), the progress bar moving, and the main thread never stalled.
11. Dropped (as from a file manager): a log, a folder of rank logs, two logs: as 1, 6 and 7.

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
FIXTURES = os.path.join(ROOT, "tests", "fixtures")
SHARED = os.environ.get("TL_SHARED") or os.path.join(os.path.dirname(ROOT), "shared")
CORPUS = os.path.join(SHARED, "corpus", "logs")
GROW = os.path.join(ROOT, "scripts", "grow_trace.py")
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-web-")
STALL_LIMIT_MS = 200
# The big log of test_10: MiB (TLPARSE_WEB_BIG_MB, default 48), tests/fixtures/demo.log grown
# by scripts/grow_trace.py, and what the worker may hold of the files it writes.
BIG_MB = int(os.environ.get("TLPARSE_WEB_BIG_MB") or 48)
PENDING_LIMIT = 16 << 20

# Before the page's scripts: every task of the main thread that ran 50 ms or more (the Long
# Tasks API), kept in window.__long; the longest that overlaps a run (tlweb.started to
# tlweb.finished) is the run's stall. A task's length, not the gap between a timer's ticks,
# which would also count the time a loaded machine gives the browser no CPU.
STALL_PROBE = r"""(() => {
  if (window.top !== window) return;
  window.__long = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__long.push([e.startTime, e.duration]);
  }).observe({ type: 'longtask', buffered: true });
})();"""
STALL_OF_RUN = r"""(() => {
  let most = 0;
  for (const [start, length] of window.__long || [])
    if (start + length > tlweb.started && start < tlweb.finished) most = Math.max(most, length);
  return most;
})()"""


@atexit.register
def remove_tmp():
    if not os.environ.get("E2E_KEEP"):
        shutil.rmtree(TMP, ignore_errors=True)


def corpus_files(pattern):
    """The corpus's entries matching PATTERN, or [] (said once) when ../shared is absent."""
    if not os.path.isdir(CORPUS):
        if not corpus_files.said:
            print("web: %s absent: the corpus's logs are not checked (our own are)" % CORPUS,
                  file=sys.stderr)
            corpus_files.said = True
        return []
    return sorted(glob.glob(os.path.join(CORPUS, pattern)))


corpus_files.said = False


def grown(mb, name):
    """tests/fixtures/demo.log grown to MB MiB (scripts/grow_trace.py) as TMP/NAME."""
    out = os.path.join(TMP, name)
    subprocess.run([sys.executable, GROW, "--size-mb", str(mb), "-o", out,
                    os.path.join(FIXTURES, "demo.log")], check=True, capture_output=True)
    return out


def logs():
    demo = os.path.join(FIXTURES, "demo.log")
    gz = os.path.join(TMP, "demo.log.gz")
    with open(demo, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    zst = os.path.join(TMP, "demo.log.zst")
    subprocess.run(["zstd", "-q", "-f", demo, "-o", zst], check=True)
    big = os.path.join(TMP, "grown.log.zst")  # several zstd frames' worth of blocks
    subprocess.run(["zstd", "-q", "-f", "-19", grown(3, "grown.log"), "-o", big], check=True)
    out = [demo, gz, zst, big]
    out += sorted(p for p in glob.glob(os.path.join(FIXTURES, "*.log")) if p != demo)
    out += [p for p in corpus_files("*") if os.path.isfile(p)]
    return out


def cli_bundle(log, n, *flags, env=None):
    """cd DIR && tlparse NAME --bundle TMP/cli_N.html FLAGS (the log named as the page names
    it): (exit code, {path: bytes} or None)."""
    out = os.path.join(TMP, "cli_%s.html" % n)
    p = subprocess.run([BIN, os.path.basename(log), "--bundle", out, "--no-browser", *flags],
                       cwd=os.path.dirname(log), capture_output=True, timeout=300, env=env)
    return p.returncode, read_bundle(out) if os.path.isfile(out) else None


def cli_diff(before, after):
    """cd DIR && tlparse diff BEFORE AFTER -o tl_diff (the logs of one folder DIR, named as the
    page names them): (exit code, {path: bytes} of DIR/tl_diff, or None)."""
    out = os.path.join(os.path.dirname(before), "tl_diff")
    p = subprocess.run([BIN, "diff", os.path.basename(before), os.path.basename(after), "-o",
                        "tl_diff", "--no-browser"], cwd=os.path.dirname(before),
                       capture_output=True, timeout=300)
    if not os.path.isdir(out):
        return p.returncode, None
    files = {}
    for d, _, names in os.walk(out):
        for name in names:
            path = os.path.join(d, name)
            with open(path, "rb") as f:
                files[os.path.relpath(path, out)] = f.read()
    return p.returncode, files


def rank_folders():
    """Two folders of rank logs of our own (tests/make_rank_logs.py: four ranks alike; five
    that differ), then the corpus's."""
    out = []
    for name, flags in (("ranks_alike", []),
                        ("ranks_differ", ["--ranks", "5", "--extra", "1", "--gather", "2",
                                          "--short", "3", "--hit", "4"])):
        folder = os.path.join(TMP, name)
        if not os.path.isdir(folder):
            subprocess.run([sys.executable, os.path.join(ROOT, "tests", "make_rank_logs.py"),
                            folder, *flags], check=True, capture_output=True)
        out.append(folder)
    return out + [p for p in corpus_files("*") if os.path.isdir(p)]


def torch_logs():
    """The corpus's TORCH_LOGS texts (../shared/corpus/torch_logs), and the fixtures'."""
    out = sorted(glob.glob(os.path.join(os.path.dirname(CORPUS), "torch_logs", "*.txt")))
    return out + sorted(glob.glob(os.path.join(FIXTURES, "torch_logs", "*.txt")))


# The salt of the redaction's hashes, the same in the page (tlweb.redactSalt) and the CLI
# (whose getrandom() is SALT_C, preloaded): bytes 0, 1, ..., 15.
SALT_HEX = bytes(range(16)).hex()
SALT_C = r"""#include <stddef.h>
#include <sys/types.h>
ssize_t getrandom(void *buf, size_t n, unsigned flags)
{
    (void)flags;
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)buf)[i] = (unsigned char)i;
    return (ssize_t)n;
}
"""


def salted_env():
    """The environment of a CLI run whose redaction salt is SALT_HEX."""
    so = os.path.join(TMP, "salt.so")
    if not os.path.isfile(so):
        src = os.path.join(TMP, "salt.c")
        with open(src, "w") as f:
            f.write(SALT_C)
        subprocess.run(["cc", "-shared", "-fPIC", "-o", so, src], check=True)
    env = dict(os.environ, LD_PRELOAD=so)
    # an ASan build's runtime must come first, unless told not to check
    env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") + ":verify_asan_link_order=0").lstrip(":")
    return env


def stripped(files):
    """The files with their run information taken out (strip_runinfo's rules)."""
    out = {}
    for name, data in files.items():
        text = data.decode("utf-8", "surrogateescape")
        new = strip_runinfo.strip_text(name.rsplit("/", 1)[-1], text)
        out[name] = data if new == text else new.encode("utf-8", "surrogateescape")
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

    def open_site(self):
        p = self.page
        self.children.clear()
        p.clear()
        self.seen = {"requests": [], "errors": [], "console": [], "kinds": set()}
        p.navigate(cdp.file_url(SITE))

    def pick(self, selector, files):
        """Give FILES to the page's file input SELECTOR, as a user picking them."""
        p = self.page
        doc = p.send("DOM.getDocument", {"depth": 0})
        node = p.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"],
                                            "selector": selector})
        p.send("DOM.setFileInputFiles", {"nodeId": node["nodeId"], "files": files})

    def wait_run(self, what, timeout=300):
        """The page's tlweb state once its run ended."""
        p = self.page
        p._wait(lambda: p.evaluate("tlweb.state") not in ("idle", "running"), timeout,
                "the page's report of " + what)
        return p.evaluate("""(async () => ({
            state: tlweb.state, kind: tlweb.kind, code: tlweb.code, messages: tlweb.messages,
            progress: tlweb.progress, stall: STALL_OF_RUN,
            status: document.getElementById('tlw-status').textContent,
            frame: document.getElementById('tlw-frame').getAttribute('src'),
            redact_button: !document.getElementById('tlw-redact').hidden,
            bundle: tlweb.bundle ? await tlweb.bundle.text() : null }))()""".replace(
            "STALL_OF_RUN", STALL_OF_RUN), timeout=120)

    def run_page(self, log, selector="#tlw-file", timeout=300):
        """Open the site afresh, give it LOG (a path, or a list of them) through the file
        input SELECTOR; the page's tlweb state once the run ended."""
        self.open_site()
        self.pick(selector, log if isinstance(log, list) else [log])
        return self.wait_run(str(log), timeout)

    def page_files(self, got, n):
        """The files of the page's bundle, run information taken out."""
        path = os.path.join(TMP, "web_%s.html" % n)
        with open(path, "w", encoding="utf-8") as f:
            f.write(got["bundle"])
        return stripped(read_bundle(path))

    def assert_same_files(self, have, want):
        self.assertEqual(sorted(have), sorted(want), "the files differ")
        for name in want:
            self.assertEqual(have[name], want[name], "%s differs" % name)

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
                self.assertEqual(got["kind"], "log")
                self.assert_same_files(self.page_files(got, n), stripped(want))
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
        # the probe sees a stall: 300 ms of the main thread's in a run
        self.page.evaluate("""setTimeout(() => { tlweb.started = performance.now();
            while (performance.now() - tlweb.started < 300) ;
            tlweb.finished = performance.now(); }, 0)""")
        self.page.sleep(0.5)
        self.assertGreaterEqual(self.page.evaluate(STALL_OF_RUN), 300)

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

    def test_4_bad_zstd(self):
        """A .zst log cut short, and one whose bytes are not zstd's: the CLI's messages and
        exit code, and the CLI's report of what could be read."""
        demo = os.path.join(ROOT, "tests", "fixtures", "demo.log")
        with open(demo, "rb") as f:
            packed = subprocess.run(["zstd", "-q", "-c"], input=f.read(), check=True,
                                    capture_output=True).stdout
        cut = os.path.join(TMP, "cut.log.zst")
        with open(cut, "wb") as f:
            f.write(packed[:len(packed) // 2])
        bad = os.path.join(TMP, "bad.log.zst")
        with open(bad, "wb") as f:
            f.write(packed[:8] + bytes(range(256)) * 4)
        for n, path in enumerate([cut, bad]):
            with self.subTest(log=os.path.basename(path)):
                p = subprocess.run([BIN, os.path.basename(path), "--bundle", "cli_z%d.html" % n,
                                    "--no-browser"], cwd=TMP, capture_output=True, timeout=60)
                want_msgs = [line for line in p.stderr.decode().splitlines()
                             if line.startswith("tlparse: ")]
                self.assertTrue(want_msgs, p.stderr)
                got = self.run_page(path)
                self.assertEqual(got["code"], p.returncode, got["messages"])
                # the CLI's last line names its bundle, the page's names report.html
                self.assertEqual([m for m in got["messages"] if m.startswith("tlparse: ")
                                  and not m.startswith("tlparse: report.html")],
                                 [m for m in want_msgs if not m.startswith("tlparse: cli_z")])
                out = os.path.join(TMP, "cli_z%d.html" % n)
                if os.path.isfile(out):
                    self.assertEqual(got["state"], "done")
                    self.assert_same_files(self.page_files(got, "z%d" % n),
                                           stripped(read_bundle(out)))
                else:
                    self.assertEqual(got["state"], "failed")
                self.check_quiet()

    def test_5_torch_logs_text(self):
        texts = torch_logs()
        self.assertGreaterEqual(len(texts), 6, "no TORCH_LOGS texts found")
        for n, log in enumerate(texts):
            with self.subTest(log=os.path.basename(log)):
                code, want = cli_bundle(log, "text_%d" % n)
                self.assertIsNotNone(want, "the CLI made no bundle of %s" % log)
                got = self.run_page(log)
                self.assertEqual((got["state"], got["kind"], got["code"]), ("done", "log", code),
                                 got["messages"])
                self.assertIn("raw.log", want)
                self.assert_same_files(self.page_files(got, "text_%d" % n), stripped(want))
                self.check_quiet()

    def test_6_rank_folder(self):
        """A folder of rank logs picked as a folder, and its logs picked together (the page
        names them the folder logs/): the CLI's multi-rank landing of the folder."""
        folders = rank_folders()
        self.assertGreaterEqual(len(folders), 2, "tests/make_rank_logs.py wrote no folders")
        for n, folder in enumerate(folders):
            with self.subTest(folder=os.path.basename(folder)):
                code, want = cli_bundle(folder, "ranks_%d" % n, "--all-ranks-html")
                self.assertIsNotNone(want, "the CLI made no bundle of %s" % folder)
                self.assertIn("rank_0/index.html", want)
                got = self.run_page(folder, "#tlw-dir")
                self.assertEqual((got["state"], got["kind"], got["code"]),
                                 ("done", "ranks", code), got["messages"])
                self.assert_same_files(self.page_files(got, "ranks_%d" % n), stripped(want))
                self.check_quiet()
                if len(os.listdir(folder)) < 2:
                    continue  # one log picked alone is that log's report (test_1)
                # the same logs picked together: the folder is named logs/
                logs_dir = os.path.join(TMP, "ranks_%d" % n, "logs")
                shutil.copytree(folder, logs_dir)
                code, want = cli_bundle(logs_dir, "ranks_logs_%d" % n, "--all-ranks-html")
                got = self.run_page(sorted(glob.glob(os.path.join(logs_dir, "*"))))
                self.assertEqual((got["state"], got["kind"], got["code"]),
                                 ("done", "ranks", code), got["messages"])
                self.assert_same_files(self.page_files(got, "ranks_logs_%d" % n),
                                       stripped(want))
                self.check_quiet()

    def test_7_diff(self):
        """Two logs given to Before and After, and the same two picked together (the older is
        BEFORE): the CLI's `tlparse diff` folder, as one page."""
        before = os.path.join(TMP, "d", "before.log")
        after = os.path.join(TMP, "d", "after.log")
        os.makedirs(os.path.dirname(before))
        shutil.copy(os.path.join(FIXTURES, "demo.log"), before)
        shutil.copy(os.path.join(FIXTURES, "newer.log"), after)
        os.utime(before, (1_700_000_000, 1_700_000_000))
        os.utime(after, (1_700_000_100, 1_700_000_100))
        code, want = cli_diff(before, after)
        self.assertEqual(code, 0)
        self.assertIn("after/index.html", want)
        self.assertIn("diff.json", want)
        want = stripped(want)
        self.open_site()
        self.pick("#tlw-before", [before])
        self.assertEqual(self.page.evaluate("tlweb.state"), "idle")
        self.pick("#tlw-after", [after])
        got = self.wait_run("the diff")
        self.assertEqual((got["state"], got["kind"], got["code"]), ("done", "diff", 0),
                         got["messages"])
        self.assertFalse(got["redact_button"], "a diff offers no redacted bundle")
        self.assert_same_files(self.page_files(got, "diff_1"), want)
        self.check_quiet()
        got = self.run_page([after, before])
        self.assertEqual((got["state"], got["kind"], got["code"]), ("done", "diff", 0),
                         got["messages"])
        self.assert_same_files(self.page_files(got, "diff_2"), want)
        self.check_quiet()

    def test_8_save_redacted(self):
        """The button saves the CLI's --bundle --redact of the shown report (with the same
        salt), as NAME-redacted.html in the download folder, and the report stays shown."""
        downloads = os.path.join(TMP, "downloads")
        os.makedirs(downloads)
        self.browser.send("Browser.setDownloadBehavior", {"behavior": "allow",
                                                          "downloadPath": downloads})
        cases = [(os.path.join(FIXTURES, "demo.log"), "#tlw-file", (),
                  "demo.log-redacted.html"),
                 (rank_folders()[0], "#tlw-dir", ("--all-ranks-html",),
                  os.path.basename(rank_folders()[0]) + "-redacted.html")]
        for n, (log, selector, flags, name) in enumerate(cases):
            with self.subTest(log=os.path.basename(log)):
                code, want = cli_bundle(log, "redact_%d" % n, "--redact", *flags,
                                        env=salted_env())
                self.assertIsNotNone(want)
                got = self.run_page(log, selector)
                self.assertEqual(got["state"], "done", got["messages"])
                self.assertTrue(got["redact_button"])
                shown = got["frame"]
                self.page.evaluate("tlweb.redactSalt = '%s'" % SALT_HEX)
                self.page.click("#tlw-redact")
                p = self.page
                p._wait(lambda: p.evaluate("tlweb.redact.state") not in ("idle", "running"),
                        300, "the redacted bundle")
                red = p.evaluate("""(async () => ({state: tlweb.redact.state,
                    code: tlweb.redact.code, name: tlweb.redact.name,
                    bundle: await tlweb.redact.bundle.text(),
                    frame: document.getElementById('tlw-frame').getAttribute('src')}))()""")
                self.assertEqual((red["state"], red["code"], red["name"]), ("done", code, name))
                self.assertEqual(red["frame"], shown, "the shown report changed")
                have = self.page_files(red, "redact_%d" % n)
                self.assertIn(b"redacted", have["index.html"])
                self.assertNotIn(b"redacted", self.page_files(got, "shown_%d" % n)["index.html"])
                self.assert_same_files(have, stripped(want))
                saved = os.path.join(downloads, name)
                deadline = time.monotonic() + 20
                while not os.path.isfile(saved) and time.monotonic() < deadline:
                    self.page.sleep(0.2)
                with open(saved, encoding="utf-8") as f:
                    self.assertEqual(f.read(), red["bundle"])
                self.check_quiet()

    def test_10_big_log(self):
        """A log of BIG_MB MiB: the CLI's bundle; the worker held at most PENDING_LIMIT bytes of
        the files it wrote (the rest is in Blobs, out of its memory), the engine's memory stayed
        under the log's size, the bar moved all along, the main thread never stalled."""
        log = grown(BIG_MB, "big.log")
        code, want = cli_bundle(log, "big")
        got = self.run_page(log, timeout=900)
        self.assertEqual((got["state"], got["code"]), ("done", code), got["messages"])
        memory = self.page.evaluate("tlweb.memory")
        self.assertLessEqual(memory["pending"], PENDING_LIMIT, memory)
        self.assertLess(memory["wasm"], os.path.getsize(log), memory)
        self.assertGreaterEqual(got["progress"], 10, "the progress bar moved too seldom")
        print("\nweb: %d MiB log: main thread's longest stall %.0f ms, %.1f s" %
              (BIG_MB, got["stall"], self.page.evaluate("tlweb.ms") / 1000), file=sys.stderr)
        self.assertLess(got["stall"], STALL_LIMIT_MS, "the main thread stalled")
        self.assert_same_files(self.page_files(got, "big"), stripped(want))
        self.check_quiet()

    def test_11_drop(self):
        """Dropped on the page (Input.dispatchDragEvent, as a user dragging from a file
        manager): a log, a folder of rank logs, two logs; each gives what picking them gives."""
        demo = os.path.join(FIXTURES, "demo.log")
        folder = rank_folders()[1]
        before = os.path.join(TMP, "drop", "before.log")
        after = os.path.join(TMP, "drop", "after.log")
        os.makedirs(os.path.dirname(before))
        shutil.copy(os.path.join(FIXTURES, "edge.log"), before)
        shutil.copy(os.path.join(FIXTURES, "shapes.log"), after)
        os.utime(before, (1_700_000_000, 1_700_000_000))
        os.utime(after, (1_700_000_100, 1_700_000_100))
        cases = [([demo], "log", cli_bundle(demo, "drop_log")),
                 ([folder], "ranks", cli_bundle(folder, "drop_ranks", "--all-ranks-html")),
                 ([after, before], "diff", cli_diff(before, after))]
        for n, (paths, kind, (code, want)) in enumerate(cases):
            with self.subTest(kind=kind):
                self.assertIsNotNone(want)
                self.open_site()
                data = {"items": [], "files": paths, "dragOperationsMask": 1}
                for t in ("dragEnter", "dragOver", "drop"):
                    self.page.send("Input.dispatchDragEvent", {"type": t, "x": 60, "y": 30,
                                                               "data": data})
                got = self.wait_run("the drop of %s" % paths)
                self.assertEqual((got["state"], got["kind"], got["code"]), ("done", kind, code),
                                 got["messages"])
                self.assert_same_files(self.page_files(got, "drop_%d" % n), stripped(want))
                self.check_quiet()

    def test_9_size(self):
        """The site (the page, its scripts and the engine, as served) under 1 MB gzipped."""
        with open(SITE, "rb") as f:
            site = f.read()
        packed = len(gzip.compress(site, 9))
        self.assertLess(packed, 1_000_000, "the site is %d bytes gzipped" % packed)
        self.assertGreater(packed, 100_000, "the site holds no engine")


if __name__ == "__main__":
    unittest.main(verbosity=2)
