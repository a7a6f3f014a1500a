#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The overview at the top of index.html, the footer, the titles, and the pages at phone and
laptop width, light and dark.

1. The demo trace (tests/fixtures/demo.log, copied with a fixed modification time and run
   from its folder as `tlparse demo.log -o demo --no-browser`): the overview's exact figures
   (5 compile ids, analysed 6 times: 4 ok, 1 restarted, 1 failed; 1.641 s in all; FX graph cache 1 hit, 4
   misses; 2 restarts and failures), its chart (6 bars in compile order, each linked to its
   compile id's listing, coloured by status, with the exact time as tooltip), the footer and
   summary.json's generated_by, a <title> in every page, and no link to the
   collectives_parity.json a single-rank run does not write.
2. The hostile log of make_hostile_log.py under a file name that is itself markup: the
   overview, the title and the footer show it escaped (static scan and in the browser).
3. In Chromium: the index has no horizontal scroll at 1280 and at 390 px, the failures page
   fits 1280 px, the bars link to their compile ids, and with prefers-color-scheme: dark
   (CDP Emulation.setEmulatedMedia) the pages are dark; screenshots of the index in
   build/index.png and build/index-dark.png.

    python3 tests/e2e/test_overview.py

Env: TLPARSE_BIN (default build/tlparse), CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1
keeps the temp folder. Python 3 standard library only.
"""
import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402  (after the path is set)

ROOT = os.path.dirname(os.path.dirname(HERE))
with open(os.path.join(ROOT, "VERSION"), encoding="utf-8") as _f:
    VERSION = _f.read().strip()  # the version, as the file VERSION says it
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
DEMO = os.path.join(ROOT, "tests", "fixtures", "demo.log")
SHOTS = os.path.join(ROOT, "build")
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-overview-")
MTIME = 1700000000  # 2023-11-14 22:13:20 UTC
HOSTILE_NAME = "h<img src=x onerror=window.__pwned=1>&amp;'\".log"  # no '/': a file name

if not os.environ.get("E2E_KEEP"):
    atexit.register(shutil.rmtree, TMP, True)

# The demo's compile ids, in compile order: (id, status class, exact seconds, function).
DEMO_BARS = [
    ("[0/0]", "status-ok", "0.428487", "forward"),
    ("[1/0]", "status-break", "0.029624", "attention_block"),
    ("[1/0_1]", "status-ok", "0.24952", "attention_block"),
    ("[2/0]", "status-error", "0.433334", "torch_dynamo_resume_in_attention_block_at_25"),
    ("[3/0]", "status-ok", "0.066496", "predict"),
    ("[0/1]", "status-ok", "0.433196", "forward"),
]
WORDS = {"status-ok": "ok", "status-break": "restarted (graph break)", "status-error": "failed"}


def run_in(folder, log, out, *flags):
    p = subprocess.run([BIN, log, "-o", out, "--no-browser", *flags], cwd=folder,
                       capture_output=True, timeout=300)
    if p.returncode != 0:
        raise AssertionError("tlparse %s: exit %d: %s" % (log, p.returncode,
                                                          p.stderr.decode(errors="replace")))
    return os.path.join(folder, out)


def revision():
    out = subprocess.run([BIN, "--version"], capture_output=True, text=True).stdout
    m = re.match(r"tlparse \S+ \(revision (.*)\)$", out.strip())
    return m.group(1) if m else ""


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def section(html, start, end):
    i = html.index(start)
    return html[i:html.index(end, i) + len(end)]


def setUpModule():
    work = os.path.join(TMP, "work")
    os.makedirs(work)
    shutil.copy(DEMO, os.path.join(work, "demo.log"))
    os.utime(os.path.join(work, "demo.log"), (MTIME, MTIME))
    S.demo = run_in(work, "demo.log", "demo")
    hostile = os.path.join(work, HOSTILE_NAME)
    subprocess.run([sys.executable, os.path.join(HERE, "make_hostile_log.py"), hostile,
                    os.path.join(TMP, "manifest.json")], check=True, timeout=120)
    os.utime(hostile, (MTIME, MTIME))
    S.hostile = run_in(work, HOSTILE_NAME, "hostile")


class S:
    demo = hostile = None


class Static(unittest.TestCase):
    def test_1_overview_figures(self):
        """demo: the overview's counts, total time, cache line and restarts, as printed"""
        html = read(os.path.join(S.demo, "index.html"))
        ov = section(html, "<section class='overview' id='overview'>", "</section>")
        self.assertIn("<p class='counts'><strong>5 compile ids</strong>, analysed 6 times: "
                      "<span class='chip status-ok'>4 ok</span> "
                      "<span class='chip status-break'>1 restarted (graph break)</span> "
                      "<span class='chip status-error'>1 failed</span></p>", ov)
        self.assertIn("<p class='total'>Total compile time: <strong>1.641 s</strong></p>", ov)
        self.assertIn("<p class='cache'>FX graph cache: 1 hit, 4 misses</p>", ov)
        self.assertIn("<a href=\"failures_and_restarts.html\">2 restarts and failures</a>", ov)
        self.assertLess(html.index("id='overview'"), html.index("<h2>Diagnosis</h2>"))
        # the figures agree with summary.json's: compile ids are compilations, [1/0] and its
        # restart [1/0_1] one (the overview's chips and bars count the analyses apart)
        s = json.loads(read(os.path.join(S.demo, "summary.json")))
        self.assertEqual(s["compile_ids"], 5)
        self.assertAlmostEqual(s["compile_time"]["total_s"], 1.640657)
        self.assertEqual(s["cache"]["fx_graph"], {"hit": 1, "miss": 4, "bypass": 0})

    def test_2_chart(self):
        """demo: one bar per compile id, in order, linked, coloured, with its exact time"""
        html = read(os.path.join(S.demo, "index.html"))
        svg = section(html, "<svg class='chart'", "</svg>")
        rows = re.findall(r"<a href=\"#([^\"]*)\"><title>([^<]*)</title>(.*?)</a>", svg)
        self.assertEqual(len(rows), 6)
        self.assertEqual(svg.count("<a "), 6)
        anchors = set(re.findall(r'<a id="([^"]*)">', html))
        for (cid, cls, secs, fn), (href, title, body) in zip(DEMO_BARS, rows):
            self.assertEqual(href, cid)
            self.assertIn(href, anchors)
            self.assertEqual(title, "%s %s: %s s, %s" % (cid, fn, secs, WORDS[cls]))
            self.assertIn("<text class='cid' x='4' y='", body)
            self.assertIn(">%s</text>" % cid, body)
            self.assertIn("<rect class='%s' " % cls, body)
            self.assertIn(">%.3f s</text>" % float(secs), body)
        # the slowest bar takes the whole width given to bars
        self.assertIn("width='58.00%'", rows[3][2])
        self.assertNotIn("slowest of", html)

    def test_3_footer_and_generated_by(self):
        """demo: the footer and summary.json say what made the report"""
        html = read(os.path.join(S.demo, "index.html"))
        rev = revision()
        want = "<footer class='runinfo'>\n<p>tlparse %s%s · command: <code class='cmd'>" \
            "tlparse demo.log -o demo --no-browser</code> · input: <code>demo.log</code>, " \
            "312791 bytes, modified 2023-11-14 22:13:20 UTC</p>\n</footer>\n" % (
                VERSION, " (revision <code>%s</code>)" % rev if rev else "")
        self.assertIn(want, html)
        self.assertLess(html.index(want), html.index("</body>"))
        self.assertGreater(html.index(want), html.index("Build products below"))
        g = json.loads(read(os.path.join(S.demo, "summary.json")))["generated_by"]
        self.assertEqual(g, {"tool": "tlparse", "version": VERSION, "revision": rev or None,
                             "command_line": "tlparse demo.log -o demo --no-browser",
                             "redacted": None,
                             "input": {"path": "demo.log", "size": 312791,
                                       "mtime": "2023-11-14T22:13:20Z"}})

    def test_4_titles(self):
        """demo: every page has a <title> in its <head>, and the specific ones say what"""
        missing = []
        for d, _, files in os.walk(S.demo):
            for f in files:
                if not f.endswith(".html"):
                    continue
                rel = os.path.relpath(os.path.join(d, f), S.demo)
                m = re.search(r"<head>.*?<title>([^<]+)</title>.*?</head>", read(os.path.join(d, f)),
                              re.S)
                if not m:
                    missing.append(rel)
        self.assertEqual(missing, [])

        def title(rel):
            return re.search(r"<title>([^<]*)</title>", read(os.path.join(S.demo, rel))).group(1)

        self.assertEqual(title("index.html"), "tlparse: demo.log")
        self.assertEqual(title("failures_and_restarts.html"), "Failures and restarts")
        self.assertEqual(title("compile_time.html"), "Compile time")
        self.assertEqual(title("-_2_0_0/compilation_metrics_30.html"), "Compilation metrics [2/0]")
        self.assertEqual(title("-_1_0_1/compilation_metrics_24.html"),
                         "Compilation metrics [1/0_1]")
        self.assertEqual(title("-_0_0_0/bwd_compilation_metrics_34.html"),
                         "Backward compilation metrics [0/0]")
        self.assertEqual(title("-_0_0_0/dynamo_guards_11.html"), "Guards [0/0]")
        self.assertEqual(
            title("-_0_0_0/inductor_output_code_crkky56anna7ciap2v7y2yvk2j34oeebgtiqvs4p5v6sveuzypyr_8.html"),
            "Output code [0/0]")

    def test_5_rough_edges(self):
        """demo: no dangling collectives_parity.json link, the compiled-autograd wording, and
        a failed compile's metrics page says why values are missing"""
        html = read(os.path.join(S.demo, "index.html"))
        self.assertFalse(os.path.exists(os.path.join(S.demo, "collectives_parity.json")))
        self.assertNotIn("collectives_parity.json", html)
        self.assertNotIn("with a its", html)
        self.assertIn("marks a compilation made by compiled autograd, a being its compiled "
                      "autograd id.", html)
        m = read(os.path.join(S.demo, "-_2_0_0", "compilation_metrics_30.html"))
        self.assertIn("<p>Guard Count: <span class='na'>not recorded: the compile failed "
                      "(BackendCompilerFailed) before this was measured</span></p>", m)
        self.assertNotIn(": </p>", m)
        r = read(os.path.join(S.demo, "-_1_0_0", "compilation_metrics_14.html"))
        self.assertIn("Backend <abbr title=\"Time spent running the backend compiler\">[?]</abbr>: "
                      "<span class='na'>not recorded: dynamo restarted the analysis", r)

    def test_6_hostile(self):
        """hostile log under a hostile name: overview, title and footer show it escaped"""
        html = read(os.path.join(S.hostile, "index.html"))
        self.assertNotIn("<img", html)
        self.assertNotIn("<script>window.__pwned", html)
        esc = "h&lt;img src=x onerror=window.__pwned=1&gt;&amp;amp;'\".log"
        self.assertIn("<title>tlparse: %s</title>" % esc, html)
        footer = section(html, "<footer class='runinfo'>", "</footer>")
        self.assertIn("input: <code>%s</code>" % esc, footer)
        self.assertIn("command: <code class='cmd'>tlparse 'h&lt;img src=x ", footer)
        ov = section(html, "<section class='overview' id='overview'>", "</section>")
        # only our own tags in the overview; the log's text appears escaped in the tooltips
        tags = set(t.lower() for t in re.findall(r"<([a-zA-Z][a-zA-Z0-9]*)", ov))
        self.assertLessEqual(tags, {"section", "h2", "p", "strong", "span", "a", "figure", "svg",
                                    "title", "rect", "text", "figcaption"})
        titles = re.findall(r"<title>([^<]*)</title>", ov)
        self.assertTrue(any("ZQ" in t and "&lt;script&gt;" in t for t in titles), titles)
        s = json.loads(read(os.path.join(S.hostile, "summary.json")))
        self.assertEqual(s["generated_by"]["input"]["path"], HOSTILE_NAME)


def dark_luminance(rgb):
    nums = [int(x) for x in re.findall(r"\d+", rgb)[:3]]
    return (0.2126 * nums[0] + 0.7152 * nums[1] + 0.0722 * nums[2]) / 255


class Browser(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.browser = cdp.Browser(CHROMIUM)

    @classmethod
    def tearDownClass(cls):
        cls.browser.close()

    def open(self, rel, width, dark=False, folder=None):
        page = self.browser.new_page(width=width, height=900)
        self.addCleanup(page.close)
        if dark:
            page.send("Emulation.setEmulatedMedia",
                      {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        page.navigate(cdp.file_url(os.path.join(folder or S.demo, rel)))
        return page

    def widths(self, page):
        return page.evaluate("[document.documentElement.scrollWidth, innerWidth]")

    def test_1_no_horizontal_scroll(self):
        """index and compile-time page at 1280 and 390 px, failures page at 1280 px: no
        horizontal scroll"""
        for rel, width in (("index.html", 1280), ("index.html", 390),
                           ("failures_and_restarts.html", 1280), ("compile_time.html", 1280),
                           ("compile_time.html", 390)):
            page = self.open(rel, width)
            sw, iw = self.widths(page)
            self.assertLessEqual(sw, iw, "%s at %d px is %d px wide" % (rel, width, sw))
            self.assertEqual(page.errors, [])
        page = self.open("index.html", 390)
        # the chart fits: its bars end inside it
        right = page.evaluate("""(() => {
          const svg = document.querySelector('svg.chart').getBoundingClientRect();
          let r = 0;
          for (const e of document.querySelectorAll('svg.chart rect:not(.row), svg.chart text'))
            r = Math.max(r, e.getBoundingClientRect().right);
          return [r, svg.right];
        })()""")
        self.assertLessEqual(right[0], right[1] + 0.5)

    def test_2_bars_link(self):
        """clicking a bar goes to its compile id's listing; its tooltip is the exact time"""
        page = self.open("index.html", 1280)
        n = page.evaluate("document.querySelectorAll('svg.chart a').length")
        self.assertEqual(n, 6)
        tip = page.evaluate("document.querySelectorAll('svg.chart a')[3]"
                            ".querySelector('title').textContent")
        self.assertEqual(tip, "[2/0] torch_dynamo_resume_in_attention_block_at_25: 0.433334 s, "
                              "failed")
        page.click("svg.chart a rect.status-error")
        page.sleep(0.2)
        self.assertEqual(page.evaluate("decodeURIComponent(location.hash)"), "#[2/0]")
        self.assertEqual(page.evaluate("document.getElementById('[2/0]') !== null"), True)

    def test_3_dark(self):
        """prefers-color-scheme: dark makes every kind of page dark, light keeps them light"""
        os.makedirs(SHOTS, exist_ok=True)
        for rel in ("index.html", "failures_and_restarts.html", "compile_time.html",
                    "-_2_0_0/compilation_metrics_30.html", "-_0_0_0/dynamo_guards_11.html",
                    "dump_file/eval_with_key_3.html"):
            page = self.open(rel, 1280, dark=True)
            bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
            fg = page.evaluate("getComputedStyle(document.body).color")
            self.assertLess(dark_luminance(bg), 0.2, "%s: background %s" % (rel, bg))
            self.assertGreater(dark_luminance(fg), 0.6, "%s: text %s" % (rel, fg))
            if rel == "index.html":
                page.screenshot(os.path.join(SHOTS, "index-dark.png"))
        page = self.open("index.html", 1280)
        bg = page.evaluate("getComputedStyle(document.body).backgroundColor")
        self.assertGreater(dark_luminance(bg), 0.9, bg)
        page.screenshot(os.path.join(SHOTS, "index.png"))
        print("\n  screenshots: %s, %s" % (os.path.join(SHOTS, "index.png"),
                                           os.path.join(SHOTS, "index-dark.png")), end=" ")

    def test_4_hostile_in_browser(self):
        """hostile name and log: no script ran, the title is the name as text"""
        page = self.open("index.html", 1280, folder=S.hostile)
        self.assertEqual(page.evaluate("document.title"), "tlparse: " + HOSTILE_NAME)
        self.assertIsNone(page.evaluate("window.__pwned === undefined ? null : window.__pwned"))
        foot = page.evaluate("document.querySelector('footer.runinfo').textContent")
        self.assertIn("input: " + HOSTILE_NAME, foot)


if __name__ == "__main__":
    r = unittest.main(verbosity=2, exit=False).result
    bad = len(r.failures) + len(r.errors)
    print("e2e overview: %d passed, %d failed" % (max(0, r.testsRun - bad), bad))
    sys.exit(0 if r.wasSuccessful() else 1)
