#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every local link of every report loads, end to end in headless Chromium.

Reports checked:
  demo     tlparse tests/fixtures/demo.log -o TMP/demo --no-browser
  diff     tlparse diff --no-browser -o TMP/tl_diff tests/fixtures/demo.log DEMO_CHANGED,
           DEMO_CHANGED being the demo changed as tests/diff_check.py's fixed_new_slower does
           (its graph break fixed, a new recompile of predict()): the diff page, with NEW and
           FIXED entries whose compile ids link into before/index.html#[..] and
           after/index.html#[..], and both sides' reports in before/ and after/ (all one
           folder); and the same for a TORCH_LOGS text pair (tests/diff_check.py's text_log),
           whose compile ids link into before/log.html#[..] and after/log.html#[..]
  modes    the other kinds of report, from inputs of our own: a multi-rank landing page and its
           ranks (--all-ranks-html on the logs of tests/make_rank_logs.py), an export report
           (--export on tests/fixtures/export_kinds.log), a provenance report
           (--inductor-provenance on a small tests/e2e/make_big_provenance_log.py log) and
           the dynamic-shapes pages of tests/fixtures/shapes.log and the pages of what the
           reference 0.4.8 added (tests/fixtures/newer.log: runtime metrics pages;
           tests/fixtures/vllm.log and vllm_calls.log: the vLLM summary as index.html, and
           tlparse_index.html)
  corpus   every case of ../shared/corpus/cases.tsv (or $TL_SHARED/corpus/cases.tsv), with
           its flags (multi-rank --all-ranks-html, --export, --inductor-provenance, ...).
           When the corpus is not beside the checkout (a user's clone), that part says so in
           one line ("e2e links: ../shared absent: ..."); every other part always runs.

For each report, starting at index.html, breadth-first over its .html pages (one tab, one
navigation per distinct page, deduplicated; then the .html files no link leads to, which
are listed but not a failure in themselves): every local link of the loaded DOM (a[href],
area[href], link[href], script/img/iframe/frame/embed/source/track/video/audio/input[src],
object[data]; resolved against the page's <base>) is checked; anchors-only "#", javascript:,
http(s):, mailto:, data: and other non-file URLs are not followed. A link is broken when
  - its target is outside the report folder (symbolic links resolved) or does not exist,
    or is a directory;
  - its target is an .html page that fails to load in Chromium (navigation error);
  - it has a fragment (#id, into its own page or another one) naming no id (nor a[name])
    of the target page once loaded (scripts run: ids made by script count);
  - its target is another file (.txt, .json, .jsonl, .log, .css, .js, .png, ...) that cannot
    be read: these are checked on disk (opened and read whole), not navigated to; the ones
    a page loads itself (scripts, styles, images) are also loaded by Chromium, where a
    failure shows as a failed request.
On every page visited, a console error (console.error/assert, or an error-level browser log
entry), an uncaught exception and a failed request (Network.loadingFailed, cancelled ones
excepted) are failures too. Each is printed as
    BROKEN: report NAME: page PAGE: LINK: WHAT
A full-page screenshot of the demo's index.html at 1280 px wide is written to
$E2E_SCREENSHOT (default build/index.png) for the README.

The self-check proves the checker can fail: a copy of the demo report is broken on purpose
(a linked .txt and a linked .html page deleted; a link out of the folder, a missing image,
a dead #anchor into the same page and into another, a console.error and a throw added to
index.html) and the checker must report exactly those defects, and nothing on the intact
copy beyond what the real demo run reports.

    python3 tests/e2e/test_links.py            # run by tests/e2e.sh

Env: TLPARSE_BIN (default build/tlparse), CHROMIUM (default /usr/bin/chromium), TL_SHARED,
E2E_SCREENSHOT, E2E_KEEP=1 keeps the temp folder. Python 3 standard library only.
"""
import atexit
import collections
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402  (after the path is set)

sys.path.insert(0, os.path.dirname(HERE))  # tests/
import diff_check  # noqa: E402  (the pairs of runs of tests/diff.sh)

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
SHARED = os.environ.get("TL_SHARED") or os.path.join(ROOT, "..", "shared")
CASES = os.path.join(SHARED, "corpus", "cases.tsv")
DEMO_LOG = os.path.join(ROOT, "tests", "fixtures", "demo.log")
SCREENSHOT = os.path.abspath(os.environ.get("E2E_SCREENSHOT")
                             or os.path.join(ROOT, "build", "index.png"))
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-links-")
T0 = time.monotonic()

# Corpus cases that are known to write no report, with the reason. A case that writes none
# and is not listed here is a failure. (Empty: every case writes a report.)
NO_REPORT = {}

# Elements and the attribute that holds their URL.
LINK_ATTRS = [("a", "href"), ("area", "href"), ("link", "href"), ("script", "src"),
              ("img", "src"), ("iframe", "src"), ("frame", "src"), ("embed", "src"),
              ("source", "src"), ("track", "src"), ("video", "src"), ("audio", "src"),
              ("input", "src"), ("object", "data")]
HTML_EXT = (".html", ".htm")

# Runs in the page once it has loaded: its links (resolved against document.baseURI, as the
# browser follows them) and the names a fragment can point to.
COLLECT_JS = r"""(sel) => {
  const links = [];
  for (const [tag, attr] of sel) {
    for (const el of document.querySelectorAll(`${tag}[${attr}]`)) {
      const raw = el.getAttribute(attr);
      let url = null;
      try { url = new URL(raw.trim(), document.baseURI).href; } catch (e) {}
      links.push([tag, attr, raw, url]);
    }
  }
  const ids = [...document.querySelectorAll('[id]')].map((e) => e.id)
    .concat([...document.querySelectorAll('a[name]')].map((e) => e.getAttribute('name')));
  return { links, ids, url: location.href };
}"""


@atexit.register
def remove_tmp():
    if not os.environ.get("E2E_KEEP"):
        shutil.rmtree(TMP, ignore_errors=True)


# ---- the checker ---------------------------------------------------------------------------
class Problem(collections.namedtuple("Problem", "report page link what")):
    """One failure: on `page` (report-relative), `link` (the element, or the kind of event)."""

    def key(self):
        """What identifies it independently of where the report folder is."""
        return (self.page, self.link, self.what.split(":")[0])

    def __str__(self):
        return "BROKEN: report %s: page %s: %s: %s" % (self.report, self.page, self.link,
                                                        self.what)


class Result:
    def __init__(self, name):
        self.name = name
        self.pages = 0  # .html pages navigated to
        self.links = 0  # local link occurrences checked
        self.targets = 0  # distinct files they point to
        self.external = 0  # links not followed (http(s):, mailto:, javascript:, ...)
        self.html_files = 0  # .html files in the folder
        self.unreached = []  # .html files no link leads to (visited last; not a failure)
        self.records = []  # (page, link, target rel or None) for every local link
        self.problems = []
        self.seconds = 0.0
        self.render_seconds = 0.0

    def summary(self):
        return ("report %s: %d pages visited (of %d .html files), %d links checked "
                "(%d distinct files, %d external links not followed), %s%.2fs in Chromium"
                % (self.name, self.pages, self.html_files, self.links, self.targets,
                   self.external, "rendered in %.2fs, " % self.render_seconds
                   if self.render_seconds else "", self.seconds))


def describe(tag, attr, raw):
    raw = raw if len(raw) <= 160 else raw[:160] + "\u2026"
    return '<%s %s="%s">' % (tag, attr, raw)


def url_path(url):
    """The local path and the fragment of a file: URL."""
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.unquote(parts.path), parts.fragment


def fragment_found(frag, ids):
    """Does a #fragment name an element? (HTML: the fragment as is, then percent-decoded.)"""
    return frag in ids or urllib.parse.unquote(frag) in ids


class Checker:
    """Follows the links of report folders in one reused tab."""

    def __init__(self, page):
        self.page = page
        self.failed = []  # Network.loadingFailed of the current page: (url, error)
        self._urls = {}
        page.on("Network.requestWillBeSent",
                lambda p: self._urls.__setitem__(p.get("requestId"),
                                                 p.get("request", {}).get("url", "")))
        page.on("Network.loadingFailed", self._on_failed)

    def _on_failed(self, p):
        if not p.get("canceled"):
            self.failed.append((self._urls.get(p.get("requestId"), "?"),
                                p.get("errorText", "")))

    def check(self, name, root, on_index=None):
        """Check the report in folder `root`; returns a Result. on_index(page) is called
        once index.html has loaded (the screenshot)."""
        t0 = time.monotonic()
        res = Result(name)
        real_root = os.path.realpath(root)
        html_files = set()
        for d, _s, files in os.walk(real_root):
            html_files |= {os.path.join(d, f) for f in files if f.endswith(HTML_EXT)}
        res.html_files = len(html_files)

        def rel(path):
            return os.path.relpath(path, real_root).replace(os.sep, "/")

        def problem(page, link, what):
            res.problems.append(Problem(name, page, link, what))

        target_state = {}  # real path -> None (fine) or why it is broken
        ids_of = {}  # page rel -> set of ids, once loaded
        anchors = collections.defaultdict(list)  # page rel -> [(from page, link, fragment)]
        index = os.path.join(real_root, "index.html")
        if not os.path.isfile(index):
            problem("index.html", "index.html", "the report has no index.html")
            res.seconds = time.monotonic() - t0
            return res
        queue = collections.deque([index])
        queued = {index}
        orphans = None
        while queue or orphans is None:
            if not queue:  # then the .html files no link leads to: loaded and checked too
                orphans = sorted(html_files - queued)
                res.unreached = [rel(f) for f in orphans]
                queue.extend(orphans)
                queued |= set(orphans)
                continue
            path = queue.popleft()
            here = rel(path)
            self.page.clear()
            self.failed.clear()
            try:
                self.page.navigate(cdp.file_url(path), timeout=30)
                res.pages += 1
                if on_index and here == "index.html":
                    on_index(self.page)
                got = self.page.evaluate(COLLECT_JS, LINK_ATTRS, timeout=30)
            except cdp.Error as e:
                problem(here, "(navigation)", "page failed to load: %s" % e)
                continue
            ids_of[here] = set(got["ids"])
            page_path = url_path(got["url"])[0]
            for tag, attr, raw, url in got["links"]:
                link = describe(tag, attr, raw)
                if url is None:
                    problem(here, link, "not a valid URL")
                    continue
                scheme = urllib.parse.urlsplit(url).scheme
                if scheme != "file":
                    res.external += 1
                    continue
                target, frag = url_path(url)
                if target == page_path:  # resolves to this very page (<base> applied)
                    if not frag:  # "", "#" or "?q": the page itself, nothing to check
                        res.external += 1
                        continue
                    res.links += 1
                    res.records.append((here, link, here))
                    if frag and frag != "top":
                        anchors[here].append((here, link, frag))
                    continue
                res.links += 1
                real = os.path.realpath(target)
                inside = real == real_root or real.startswith(real_root + os.sep)
                trel = rel(real) if inside else None
                res.records.append((here, link, trel))
                if not inside:
                    problem(here, link, "outside the report folder: %s" % target)
                    continue
                if real not in target_state:
                    target_state[real] = self._check_file(real)
                    if target_state[real] is None and real.endswith(HTML_EXT) \
                            and real not in queued:
                        queued.add(real)
                        queue.append(real)
                if target_state[real] is not None:
                    problem(here, link, "%s: %s" % (target_state[real], trel))
                elif frag and frag != "top" and real.endswith(HTML_EXT):
                    anchors[trel].append((here, link, frag))
            self._events(here, problem)
        for target, uses in anchors.items():
            if target not in ids_of:
                continue  # it failed to load: already reported
            for here, link, frag in uses:
                if not fragment_found(frag, ids_of[target]):
                    problem(here, link, "no id %s in %s" % (frag, target))
        res.targets = len(target_state)
        res.seconds = time.monotonic() - t0
        return res

    @staticmethod
    def _check_file(real):
        """None if `real` is a readable regular file, else why not."""
        if not os.path.exists(real):
            return "no such file"
        if not os.path.isfile(real):
            return "not a regular file"
        if real.endswith(HTML_EXT):
            return None  # read by Chromium when it is visited
        try:
            with open(real, "rb") as f:
                while f.read(1 << 20):
                    pass
        except OSError as e:
            return "cannot be read (%s)" % e.strerror
        return None

    def _events(self, here, problem):
        """The console errors, exceptions and failed requests of the page just visited."""
        failed_urls = {u for u, _ in self.failed}
        for c in self.page.console:
            if c["type"] not in ("error", "assert"):
                continue
            if c.get("source") == "network" and c.get("url") in failed_urls:
                continue  # "Failed to load resource": reported below as the failed request
            problem(here, "(console %s)" % c["type"],
                    "console error: %s%s" % (c["text"][:300],
                                             " (at %s)" % c["url"] if c.get("url") else ""))
        for e in self.page.errors:
            problem(here, "(exception)", "uncaught exception: %s" % e[:300])
        for url, err in self.failed:
            problem(here, "(request %s)" % url, "request failed: %s" % err)


# ---- running tlparse -----------------------------------------------------------------------
SANITIZER = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:",
             "ERROR: UndefinedBehaviorSanitizer")


def render(log, out, flags=()):
    """Run tlparse; returns (exit status or a reason string, stderr, seconds)."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([BIN, log, "-o", out, "--no-browser", *flags], capture_output=True,
                           text=True, errors="replace", timeout=180)
        return p.returncode, p.stderr, time.monotonic() - t0
    except (OSError, subprocess.TimeoutExpired) as e:
        return "cannot run %s: %s" % (BIN, e), "", time.monotonic() - t0


def render_diff(before, after, out):
    """Run tlparse diff into folder out; returns what render() does."""
    t0 = time.monotonic()
    try:
        p = subprocess.run([BIN, "diff", "--no-browser", "-o", out, before, after],
                           capture_output=True, text=True, errors="replace", timeout=180)
        return p.returncode, p.stderr, time.monotonic() - t0
    except (OSError, subprocess.TimeoutExpired) as e:
        return "cannot run %s diff: %s" % (BIN, e), "", time.monotonic() - t0


def diff_pairs():
    """[(name, before log, after log, the page the compile ids link to)]: the demo against
    the demo changed (fixed_new_slower), a TORCH_LOGS text against one changed."""
    d = os.path.join(TMP, "diff-logs")
    os.makedirs(d, exist_ok=True)
    changed = os.path.join(d, "demo_changed.log")
    entries = diff_check.read_entries(DEMO_LOG)
    diff_check.write_entries(diff_check.fixed_new_slower(entries), changed)
    texts = []
    for i, kw in enumerate([{}, {"graph_break": False, "extra_recompile": True}]):
        texts.append(os.path.join(d, "text%d.log" % i))
        with open(texts[-1], "w", encoding="utf-8") as f:
            f.write(diff_check.text_log(**kw))
    return [("diff", DEMO_LOG, changed, "index.html"),
            ("diff-torch_logs", texts[0], texts[1], "log.html")]


def read_cases():
    """[(name, input path, [flags])] of cases.tsv."""
    base = os.path.dirname(os.path.abspath(CASES))
    rows = []
    with open(CASES, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            name, inp, *rest = line.split("\t")
            rows.append((name, os.path.join(base, inp), shlex.split(rest[0]) if rest else []))
    return rows


# ---- the tests -----------------------------------------------------------------------------
class S:
    browser = None
    checker = None
    demo = os.path.join(TMP, "demo")
    demo_run = None  # (status, stderr, seconds)
    demo_result = None
    totals = []  # Results


def setUpModule():
    S.demo_run = render(DEMO_LOG, S.demo)
    S.browser = cdp.Browser(CHROMIUM)
    S.checker = Checker(S.browser.new_page(width=1280, height=720))


def tearDownModule():
    if S.browser:
        S.browser.close()
    pages = sum(r.pages for r in S.totals)
    links = sum(r.links for r in S.totals)
    bad = sum(len(r.problems) for r in S.totals)
    print("e2e links total: %d reports, %d pages visited, %d links checked, %d problems, "
          "%.1fs in all" % (len(S.totals), pages, links, bad, time.monotonic() - T0), flush=True)
    if os.environ.get("E2E_KEEP"):
        print("e2e: kept " + TMP)


def report(res):
    print("  " + res.summary(), flush=True)
    if res.unreached:
        print("    .html files no link leads to (not a failure; visited too): %s%s"
              % (", ".join(res.unreached[:4]), ", ..." if len(res.unreached) > 4 else ""))
    for p in res.problems:
        print("  " + str(p), flush=True)


class Links(unittest.TestCase):
    def setUp(self):
        print(flush=True)  # after unittest's "test name ... ": our lines start on their own

    def check_rendered(self, name, out, run):
        """Fail on a run that wrote no report or reported a sanitizer error; else check."""
        status, stderr, seconds = run
        if not isinstance(status, int):
            self.fail("report %s: %s" % (name, status))
        if any(s in stderr for s in SANITIZER):
            self.fail("report %s: tlparse reported a sanitizer error:\n%s" % (name, stderr))
        if not os.path.isfile(os.path.join(out, "index.html")):
            if name in NO_REPORT:
                print("  report %s: no report, as documented: %s" % (name, NO_REPORT[name]))
                return None
            self.fail("report %s: tlparse exited %s and wrote no index.html:\n%s"
                      % (name, status, stderr[-2000:]))
        if status != 0:
            print("  report %s: tlparse exited %d (report written, followed): %s"
                  % (name, status, stderr.strip().splitlines()[-1:] or ""), flush=True)
        res = S.checker.check(name, out)
        res.render_seconds = seconds
        S.totals.append(res)
        report(res)
        return res

    def test_1_demo(self):
        """demo report: every local link loads; screenshot of index.html"""
        status, stderr, seconds = S.demo_run
        self.assertEqual(status, 0, "tlparse %s exited %s:\n%s" % (DEMO_LOG, status, stderr))

        def shoot(page):
            os.makedirs(os.path.dirname(SCREENSHOT), exist_ok=True)
            page.screenshot(SCREENSHOT, full_page=True)

        res = S.checker.check("demo", S.demo, on_index=shoot)
        res.render_seconds = seconds
        S.demo_result = res
        S.totals.append(res)
        report(res)
        print("  screenshot of demo index.html (1280 px wide): " + SCREENSHOT, flush=True)
        self.assertTrue(os.path.isfile(SCREENSHOT), "no screenshot written")
        self.assertGreater(res.pages, 1, "the demo index.html links no page")
        if res.problems:
            self.fail("broken links in the demo report:\n" + "\n".join(map(str, res.problems)))

    def test_2_self_check(self):
        """self-check: a report broken on purpose fails with exactly the links broken"""
        if S.demo_run[0] != 0:
            self.skipTest("no demo report")
        good = os.path.join(TMP, "self-check", "good")
        bad = os.path.join(TMP, "self-check", "bad")
        shutil.copytree(S.demo, good)
        shutil.copytree(S.demo, bad)
        base = S.checker.check("self-check intact copy", good)
        self.assertTrue(base.records, "no link found in the demo report")
        baseline = {p.key() for p in base.problems}
        self.assertEqual(baseline, {p.key() for p in (S.demo_result or base).problems},
                         "the copy does not check like the original")
        links_to = collections.defaultdict(list)
        for page, link, target in base.records:
            links_to[target].append((page, link))
        # A .html page linked from index.html only, and a .txt linked from pages other
        # than that one: deleting them breaks exactly their links.
        page_victim = next(t for t in sorted(links_to)
                           if t and t != "index.html" and t.endswith(".html")
                           and {p for p, _ in links_to[t]} == {"index.html"})
        txt_victim = next(t for t in sorted(links_to)
                          if t and t.endswith(".txt")
                          and page_victim not in {p for p, _ in links_to[t]})
        os.remove(os.path.join(bad, page_victim))
        os.remove(os.path.join(bad, txt_victim))
        with open(os.path.join(TMP, "self-check", "outside.txt"), "w") as f:
            f.write("outside the report\n")
        other = next(t for t in sorted(links_to) if t and t.endswith(".html")
                     and t not in ("index.html", page_victim))
        added = ('<a href="../outside.txt">out</a><img src="gone.png">'
                 '<a href="#no-such-id">a</a><a href="%s#no-such-id-either">b</a>'
                 '<script>console.error("self-check error")</script>'
                 '<script>throw new Error("self-check throw")</script>' % other)
        with open(os.path.join(bad, "index.html"), encoding="utf-8") as f:
            html = f.read()
        self.assertIn("</body>", html)
        with open(os.path.join(bad, "index.html"), "w", encoding="utf-8") as f:
            f.write(html.replace("</body>", added + "</body>", 1))
        broken = S.checker.check("self-check broken copy", bad)
        for p in broken.problems:
            print("    (%s) %s" % ("already in the intact copy" if p.key() in baseline
                                   else "made on purpose", p), flush=True)
        expected = {(page, link, "no such file")
                    for victim in (page_victim, txt_victim) for page, link in links_to[victim]}
        gone = cdp.file_url(os.path.join(os.path.realpath(bad), "gone.png"))
        expected |= {
            ("index.html", '<a href="../outside.txt">', "outside the report folder"),
            ("index.html", '<img src="gone.png">', "no such file"),
            ("index.html", "(request %s)" % gone, "request failed"),
            ("index.html", '<a href="#no-such-id">', "no id no-such-id in index.html"),
            ("index.html", '<a href="%s#no-such-id-either">' % other,
             "no id no-such-id-either in %s" % other),
            ("index.html", "(console error)", "console error"),
            ("index.html", "(exception)", "uncaught exception"),
        }
        got = {p.key() for p in broken.problems} - baseline
        self.assertEqual(got, expected, "the checker did not report exactly the defects made")
        print("  self-check: deleted %s and %s, added 6 defects to index.html: all %d "
              "reported, nothing else" % (page_victim, txt_victim, len(expected)), flush=True)

    def test_3_diff(self):
        """diff: the diff page and both sides' reports, every local link loads; its compile
        ids link into the sides' reports, at their anchors"""
        for name, before, after, cid_page in diff_pairs():
            with self.subTest(report=name):
                out = os.path.join(TMP, name, "tl_diff")
                res = self.check_rendered(name, out, render_diff(before, after, out))
                self.assertIsNotNone(res)
                with open(os.path.join(out, "index.html"), encoding="utf-8") as f:
                    page = f.read()
                for badge in ("NEW", "FIXED"):
                    self.assertIn(">%s</span>" % badge, page, "no %s entry on the page" % badge)
                # compile ids of each side, linked from the page to an anchor of its report
                # (which the checker then found: a dead anchor is a problem)
                for side in ("before", "after"):
                    target = "%s/%s" % (side, cid_page)
                    cids = [link for page_, link, t in res.records
                            if page_ == "index.html" and t == target
                            and 'href="%s#[' % target in link]
                    self.assertTrue(cids, "%s: no compile id linked into %s" % (name, target))
                    print("  %s: %d compile id links into %s#[..]" % (name, len(cids), target),
                          flush=True)
                for side in ("before", "after"):
                    self.assertTrue(any(t == side + "/index.html" for _, _, t in res.records),
                                    "%s: the page does not link %s/index.html" % (name, side))
                if res.problems:
                    self.fail("broken links in report %s:\n%s"
                              % (name, "\n".join(map(str, res.problems))))

    def test_4_modes(self):
        """modes: multi-rank, export, provenance and shapes reports of our own inputs"""
        ranks = os.path.join(TMP, "own_ranks")
        prov = os.path.join(TMP, "own_provenance.log")
        for cmd in ([os.path.join(ROOT, "tests", "make_rank_logs.py"), ranks, "--ranks", "3",
                     "--short", "2", "--gather", "1"],
                    [os.path.join(HERE, "make_big_provenance_log.py"), prov, "--lines", "300",
                     "--kernels", "60"]):
            subprocess.run([sys.executable, *cmd], check=True)
        fixtures = os.path.join(ROOT, "tests", "fixtures")
        cases = [("ranks", ranks, ["--all-ranks-html"]),
                 ("export_kinds", os.path.join(fixtures, "export_kinds.log"), ["--export"]),
                 ("provenance", prov, ["--inductor-provenance"]),
                 ("shapes", os.path.join(fixtures, "shapes.log"), []),
                 ("newer", os.path.join(fixtures, "newer.log"), []),
                 ("vllm", os.path.join(fixtures, "vllm.log"), []),
                 ("vllm_calls", os.path.join(fixtures, "vllm_calls.log"), [])]
        # what each report must link, so that a report that lost its pages does not pass
        must = {"ranks": ["rank_0/index.html", "rank_2/index.html", "chromium_events.json",
                          "rank_0/compile_time.html", "rank_2/compile_time.html"],
                "export_kinds": ["summary.json", "-_-_-_-/symbolic_guard_information_0.html"],
                "provenance": ["provenance_tracking_-_0_0_0.html"],
                "shapes": ["dynamic_shapes.html"],
                "newer": ["-_0_0_0/compilation_metrics_runtime_1.html",
                          "-_0_0_0/bwd_compilation_metrics_runtime_1.html",
                          "-_1_0_0/compilation_metrics_runtime_1.html"],
                "vllm": ["tlparse_index.html", "chromium_events.json",
                         "-_0_0_0/vllm_piecewise_split_graph_4.txt",
                         "-_0_0_0/vllm_submod_0_7.txt", "-_0_0_0/fx_graph_cache_miss_24.json",
                         "-_0_0_0/compilation_metrics_25.html"],
                "vllm_calls": ["tlparse_index.html", "-_0_0_0/vllm_piecewise_split_graph_4.txt",
                               "-_1_0_0/vllm_piecewise_split_graph_31.txt",
                               "-_1_0_0/vllm_submod_0_34.txt"]}
        for name, log, flags in cases:
            with self.subTest(case=name):
                out = os.path.join(TMP, "own", name)
                res = self.check_rendered(name, out, render(log, out, flags))
                self.assertIsNotNone(res, "report %s: no report" % name)
                targets = {t for _, _, t in res.records}
                for t in must[name]:
                    self.assertIn(t, targets, "report %s: no page links %s"
                                  % (name, t))
                if res.problems:
                    self.fail("broken links in report %s (%s):\n%s" % (
                        name, " ".join(flags), "\n".join(map(str, res.problems))))

    def test_5_corpus(self):
        """corpus: the report of every case of cases.tsv, every local link loads"""
        if not os.path.isfile(CASES):
            print("e2e links: ../shared absent: the reports of its %s are not checked"
                  % os.path.relpath(CASES, SHARED), flush=True)
            return
        cases = read_cases()
        self.assertTrue(cases, "no case in " + CASES)
        for name, log, flags in cases:
            with self.subTest(case=name):
                out = os.path.join(TMP, "corpus", name)
                res = self.check_rendered(name, out, render(log, out, flags))
                if res and res.problems:
                    self.fail("broken links in report %s (%s):\n%s" % (
                        name, " ".join(flags) or "no flags", "\n".join(map(str, res.problems))))


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.stdout.reconfigure(errors="backslashreplace")
    if not os.access(BIN, os.X_OK):
        print("FAIL: %s is not an executable (set TLPARSE_BIN)" % BIN)
        return 1
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    # A failing subtest (one corpus case) counts its whole test once.
    bad = len({getattr(t, "test_case", t).id()
               for t, _ in result.failures + result.errors + [(t, 0) for t in
                                                               result.unexpectedSuccesses]})
    print("e2e links: %d passed, %d failed, %d skipped"
          % (max(0, result.testsRun - bad - len(result.skipped)), bad, len(result.skipped)))
    return 0 if result.wasSuccessful() and result.testsRun > len(result.skipped) else 1


if __name__ == "__main__":
    sys.exit(main())
