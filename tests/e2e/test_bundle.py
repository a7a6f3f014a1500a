#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The single-page bundle (`tlparse LOG --bundle FILE.html`) in headless Chromium, from file://.

Bundles made, each with its folder beside it (`-o DIR --bundle DIR.html`, one run):
  demo      tests/fixtures/demo.log
  textlog   a TORCH_LOGS text log (tests/diff_check.py's text_log): index.html, log.html
  prov      make_big_provenance_log.py at 400 lines (tlparse -i): the provenance page
  hostile   make_hostile_log.py's log, with test_injection.py's __pwned trap in every frame
  twice     demo.log and a second dump_file of the same name

1. The file itself, read in Python: one element per file of the folder, each the file's bytes
   exactly (base64 per piece, then gzip), nothing else in the page but the loader.
2. Every internal link of every embedded HTML page, followed: breadth-first from index.html,
   each page opened by its route (bundle.html#/PATH), its links collected from the frame's
   DOM (as test_links.py does for folders: a, area, link, script, img, iframe, ... resolved
   against the page's path and <base>, here independently of the loader, in Python), and
   every distinct link then clicked in the frame: the loader must show exactly the file it
   names (path and ?query), with the #fragment navigated to (it must name an id of the
   target, checked once every page is loaded). A .txt/.json file must be shown as text with
   its exact content (read from the frame through DevTools: it is a blob: frame of another
   origin). http(s) links are counted, not followed.
3. Behaviour: a real mouse click on a link, back and forward (the bundle's URL hash is the
   history), opening the bundle with a hash (#/PATH#anchor), ctrl+click (a new tab on
   bundle.html#/PATH), the index's trie toggles, a ?query on the index (query.js passes it
   on, as in the folder), a missing file and a path outside the report (a message, no error).
4. The report's own scripts, compared with the folder opened in the same browser:
   log.html?cid=[0/1] (textlog.js) hides exactly the same lines, reached by clicking the
   index's link; the provenance page highlights exactly the rows the fixture expects.
5. On every page: no console error, no uncaught exception, no dialog, no request but the
   bundle itself and blob: frames, and (hostile) no injected script ran.
6. Open time of the demo bundle: navigation start to the index painted (first slice, and
   whole), printed; bounded loosely (5 s) to catch a loader that waits for the wrong thing.
7. A name the report writes twice (two dumps of one name): the bundle holds both, the viewer
   shows the later, which is what the folder keeps.

    python3 tests/e2e/test_bundle.py            # run by tests/e2e.sh
    python3 tests/e2e/test_bundle.py test_4     # only the tests whose names hold test_4
    python3 tests/e2e/test_bundle.py --open-time FILE.html [RUNS]   # for bench/run.sh

Env: TLPARSE_BIN (default build/tlparse), CHROMIUM (default /usr/bin/chromium), E2E_KEEP=1
keeps the temp folder. Python 3 standard library only.
"""
import atexit
import base64
import collections
import gzip
import hashlib
import html
import json
import os
import re
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
import diff_check  # noqa: E402  (its TORCH_LOGS text log)

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
DEMO_LOG = os.path.join(ROOT, "tests", "fixtures", "demo.log")
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-bundle-")
OPEN_LIMIT_MS = 5000

# The virtual space the test resolves links in (as the loader does, but written here again).
V_ORIGIN = "http://v.invalid"
V_ROOT = V_ORIGIN + "/r/"

LINK_ATTRS = [("a", "href"), ("area", "href"), ("link", "href"), ("script", "src"),
              ("img", "src"), ("iframe", "src"), ("frame", "src"), ("embed", "src"),
              ("source", "src"), ("track", "src"), ("video", "src"), ("audio", "src"),
              ("input", "src"), ("object", "data")]

# test_injection.py's trap: a script that sets window.__pwned is recorded (every frame).
PWNED_TRAP = r"""(() => {
  const log = [];
  Object.defineProperty(window, '__e2eLog', { value: log });
  let v;
  Object.defineProperty(window, '__pwned', { configurable: true,
    get() { return v; }, set(x) { v = x; log.push(String(x)); } });
})();"""


@atexit.register
def remove_tmp():
    if not os.environ.get("E2E_KEEP"):
        shutil.rmtree(TMP, ignore_errors=True)


# ---- the bundle file, read in Python ---------------------------------------------------------
ELEMENT = re.compile(r'<script type="application/x-tlparse-(file|more)"'
                     r'(?: data-path="([^"]*)" data-size="(\d+)")?>([A-Za-z0-9+/=]*)</script>\n')


def read_bundle(path):
    """{path: bytes} of the files in a bundle; raises AssertionError on any other content."""
    with open(path, encoding="utf-8") as f:
        page = f.read()
    start = page.index('<div id="tlb-view">')
    start = page.index("\n", start) + 1
    files, order, pos = {}, [], start
    cur = None
    for m in ELEMENT.finditer(page, start):
        assert m.start() == pos, "unexpected bytes at %d: %r" % (pos, page[pos:pos + 80])
        pos = m.end()
        if m.group(1) == "file":
            cur = [html.unescape(m.group(2)), int(m.group(3)), []]
            order.append(cur)
        else:
            assert cur is not None, "a continuation before any file"
        cur[2].append(m.group(4))
    assert page[pos:] == "</body>\n</html>\n", "the page ends with %r" % page[pos:pos + 80]
    for name, size, pieces in order:
        assert all(len(p) == 65536 for p in pieces[:-1]), "%s: a short piece" % name
        data = gzip.decompress(b"".join(base64.b64decode(p) for p in pieces))
        assert len(data) == size, "%s: %d bytes, data-size %d" % (name, len(data), size)
        files[name] = data  # a name given again: the later file, as bundle.js and a folder
    return files


def folder_files(root):
    out = {}
    for d, _s, names in os.walk(root):
        for n in names:
            p = os.path.join(d, n)
            with open(p, "rb") as f:
                out[os.path.relpath(p, root).replace(os.sep, "/")] = f.read()
    return out


def render(name, log, flags=()):
    """tlparse LOG -o TMP/name --bundle TMP/name.html; returns (folder, bundle)."""
    out = os.path.join(TMP, name)
    bundle = out + ".html"
    p = subprocess.run([BIN, log, "-o", out, "--bundle", bundle, "--no-browser", *flags],
                       capture_output=True, text=True, errors="replace", timeout=180)
    if p.returncode != 0 or not os.path.isfile(bundle):
        raise AssertionError("tlparse %s --bundle exited %d:\n%s" % (log, p.returncode,
                                                                     p.stderr[-2000:]))
    return out, bundle


# ---- the browser side ------------------------------------------------------------------------
FRAME = "document.getElementById('tlb-frame')"

# In the shown page: its links (raw attribute values), ids and <base>.
COLLECT_JS = r"""(sel) => {
  const d = %s.contentDocument;
  const links = [];
  for (const [tag, attr] of sel)
    for (const el of d.querySelectorAll(`${tag}[${attr}]`))
      links.push([tag, attr, el.getAttribute(attr)]);
  const ids = [...d.querySelectorAll('[id]')].map((e) => e.id)
    .concat([...d.querySelectorAll('a[name]')].map((e) => e.getAttribute('name')));
  const b = d.querySelector('base[href]');
  return { links, ids, base: b ? b.getAttribute('href') : null, title: d.title };
}""" % FRAME

# Click the first a/area of the shown page whose href is `raw`, as script (el.click() goes
# through the same click event a mouse makes); resolves once the loader is idle again.
CLICK_JS = r"""(raw, mods) => {
  const d = %s.contentDocument;
  const el = [...d.querySelectorAll('a[href], area[href]')]
    .find((a) => a.getAttribute('href') === raw);
  if (!el) return { why: 'no link ' + raw };
  const init = { bubbles: true, cancelable: true, button: 0, view: d.defaultView };
  el.dispatchEvent(new MouseEvent('click', Object.assign(init, mods || {})));
  return tlbBundle.idle().then(() => ({ cur: tlbBundle.current() }));
}""" % FRAME

# Where the frame is and what it shows (same-origin pages only).
STATE_JS = r"""() => {
  const f = %s, cur = tlbBundle.current();
  let hash = null, search = null, target = null;
  if (cur && cur.kind === 'html') {
    const w = f.contentWindow;
    hash = w.location.hash; search = w.location.search;
    const t = w.document.querySelector(':target');
    target = t ? (t.id || t.getAttribute('name')) : null;
  }
  return { cur, hash, search, target, src: f ? f.getAttribute('src') : null,
           msg: document.getElementById('tlb-view').innerText };
}""" % FRAME

HIGHLIGHTED = r"""() => {
  const d = %s.contentDocument, out = {};
  for (const pane of d.querySelectorAll('.pane[data-kind]'))
    out[pane.dataset.kind] = [...pane.querySelectorAll('.hl')].map(
      (e) => +e.id.slice(e.id.indexOf('-') + 1));
  return out;
}""" % FRAME


def url_clean(raw):
    """What a URL parser reads of an attribute: C0 controls and spaces around it stripped,
    tabs and newlines inside it dropped (WHATWG URL; Python's urljoin does neither)."""
    return re.sub(r"[\t\n\r]", "", raw.strip("".join(map(chr, range(33)))))


def same_fragment(a, b):
    """Fragments equal once percent-decoded (a browser encodes spaces and controls in them)."""
    return urllib.parse.unquote(a) == urllib.parse.unquote(b)


def v_resolve(page, base, raw):
    """(target path, query, fragment) of a link on `page`, or (None, url, None) if it leaves the
    virtual space (external), or ("..", raw, None) if it climbs out of the report."""
    here = V_ROOT + urllib.parse.quote(page)
    if base is not None:
        here = urllib.parse.urljoin(here, url_clean(base))
    url = urllib.parse.urljoin(here, url_clean(raw))
    parts = urllib.parse.urlsplit(url)
    if "%s://%s" % (parts.scheme, parts.netloc) != V_ORIGIN:
        return None, url, None
    if not parts.path.startswith("/r/"):
        return "..", raw, None
    return (urllib.parse.unquote(parts.path[3:]), "?" + parts.query if parts.query else "",
            parts.fragment)


class Viewer:
    """One tab on a bundle: open routes, click links, read what is shown; collects the
    console, exceptions, dialogs and requests of the tab and of its out-of-process frames
    (the blob: frames of text files, attached through DevTools)."""

    def __init__(self, browser, bundle, trap=False):
        self.browser = browser
        self.bundle = bundle
        self.url = cdp.file_url(bundle)
        self.page = browser.new_page(width=1280, height=800)
        self.page.timeout = 20.0
        self.children = {}  # session id -> cdp.Page of an out-of-process frame
        self.problems = []
        if trap:
            self.page.add_init_script(PWNED_TRAP)
        self.page.on("Target.attachedToTarget", self._attached)
        self.page.on("Target.detachedFromTarget",
                     lambda p: self.children.pop(p.get("sessionId"), None))
        self.page.send("Target.setAutoAttach", {"autoAttach": True, "flatten": True,
                                                "waitForDebuggerOnStart": False})
        self.clicks = 0

    def _attached(self, p):
        sid, info = p["sessionId"], p["targetInfo"]
        child = cdp.Page(self.browser, info["targetId"], sid)
        self.browser._pages[sid] = child  # route its events to it (cdp has no public hook)
        self.children[sid] = child
        for method in ("Runtime.enable", "Log.enable", "Network.enable"):
            self.browser.post(method, None, sid)

    def navigate(self, route=""):
        self.page.navigate(self.url + route, timeout=60)
        return self.idle()

    def idle(self):
        return self.page.evaluate("tlbBundle.idle().then(() => tlbBundle.current())")

    def open(self, route):
        return self.page.evaluate("(r) => tlbBundle.open(r).then(() => tlbBundle.current())",
                                  route)

    def state(self):
        return self.page.evaluate("(%s)()" % STATE_JS)

    def wait_shown(self, before, what):
        """Wait until the loader has shown one more file than `before` (after a hashchange)."""
        for _ in range(400):
            if self.page.evaluate("tlbBundle.stats.shown") > before:
                return self.idle()
            self.page.sleep(0.025)
        raise AssertionError("the bundle did not show %s" % what)

    def shown(self):
        return self.page.evaluate("tlbBundle.stats.shown")

    def frame_text(self):
        """The text of the shown blob: frame (another origin: read through its own session)."""
        for _ in range(400):
            for child in list(self.children.values()):
                try:
                    r = child.evaluate("document.readyState === 'complete' && location.protocol"
                                       " === 'blob:' ? [document.contentType, (document."
                                       "querySelector('pre') || document.body).textContent] "
                                       ": null")
                except cdp.Error:
                    continue
                if r:
                    return r
            self.page.sleep(0.025)
        raise AssertionError("no blob: frame showed up")

    def events(self, where):
        """Problems seen since the last call: console errors, exceptions, dialogs, requests
        other than the bundle and blob: frames, injected scripts; then forget them."""
        out = []
        pages = [self.page] + list(self.children.values())
        for pg in pages:
            for c in pg.console:
                if c["type"] in ("error", "assert"):
                    out.append("%s: console %s: %s" % (where, c["type"], c["text"][:300]))
            out += ["%s: uncaught exception: %s" % (where, e[:300]) for e in pg.errors]
            out += ["%s: dialog %s" % (where, d) for d in pg.dialogs]
            for r in pg.requests:
                u = r["url"]
                if not (u.split("#")[0] == self.url or u.startswith("blob:")):
                    out.append("%s: request to %s" % (where, u[:200]))
            pg.clear()
        pwned = self.page.evaluate("window.__e2eLog ? [...window.__e2eLog] : []")
        try:
            pwned += self.page.evaluate(
                "(() => { const w = %s; return w && w.contentWindow.__e2eLog ? "
                "[...w.contentWindow.__e2eLog] : []; })()" % FRAME)
        except cdp.Error:
            pass  # a blob: frame (another origin): text, no script
        out += ["%s: a script of the report ran: __pwned=%s" % (where, v) for v in pwned]
        self.problems += out
        return out

    def close(self):
        self.page.close()


class Walk:
    def __init__(self):
        self.pages = 0
        self.links = 0
        self.clicked = 0
        self.external = 0
        self.text_files = 0
        self.problems = []
        self.seconds = 0.0


def walk(viewer, files, name, strict=True):
    """Visit every HTML page reachable from index.html and click every distinct link.

    strict: a link to a file the report does not have, or to an id its target does not
    have, is a problem (the report's own defect, which test_links.py finds in the folder
    too). Otherwise (the hostile log, whose pages link to such names on purpose) they are
    counted, and clicking one must show the loader's message."""
    t0 = time.monotonic()
    res = Walk()
    res.broken = 0

    def problem(page, what):
        res.problems.append("report %s: page %s: %s" % (name, page, what))

    queue = collections.deque(["index.html"])
    queued = {"index.html"}
    ids_of = {}
    anchors = []  # (from page, raw, target, fragment)
    checked_files = set()
    while queue:
        page = queue.popleft()
        cur = viewer.open("/" + urllib.parse.quote(page))
        if not cur or cur["key"] != page or cur["kind"] != "html":
            problem(page, "opening it showed %s" % cur)
            continue
        res.pages += 1
        got = viewer.page.evaluate(COLLECT_JS, LINK_ATTRS)
        ids_of[page] = set(got["ids"])
        to_click = collections.OrderedDict()
        for tag, attr, raw in got["links"]:
            link = '<%s %s="%s">' % (tag, attr, raw[:120])
            target, query, frag = v_resolve(page, got["base"], raw)
            if target is None:
                res.external += 1
                continue
            res.links += 1
            if target == "..":
                problem(page, "%s: outside the report" % link)
                continue
            if target == "" or target.endswith("/"):
                target += "index.html"
            elif target not in files and target + "/index.html" in files:
                target += "/index.html"
            if target not in files:
                res.broken += 1
                if strict:
                    problem(page, "%s: %s is not in the bundle" % (link, target))
                    continue
                target = None  # clicked: the loader must say so
            elif target.endswith(".html") and target not in queued:
                queued.add(target)
                queue.append(target)
            if target and frag and frag != "top" and target.endswith(".html"):
                anchors.append((page, link, target, frag))
            if tag in ("a", "area") and raw not in to_click:
                to_click[raw] = (target, query, frag, link)
        # Same-page anchors first (the page stays), then the rest, reopening the page.
        order = sorted(to_click.items(), key=lambda kv: kv[1][0] != page)
        for raw, (target, query, frag, link) in order:
            state = viewer.state()["cur"]
            if not state or state["key"] != page or state["search"] != "":
                viewer.open("/" + urllib.parse.quote(page))
            r = viewer.page.evaluate(CLICK_JS, raw, {})
            res.clicked += 1
            if "why" in r:
                problem(page, "%s: %s" % (link, r["why"]))
                continue
            st = viewer.state()
            cur = st["cur"]
            if target is None:
                if not cur or cur["kind"] != "message" or "is not in this bundle" not in st["msg"]:
                    problem(page, "%s: a missing file showed %s" % (link, cur))
                continue
            if not cur or cur["key"] != target:
                problem(page, "%s: showed %s, not %s" % (link, cur, target))
                continue
            if target.endswith(".html"):
                if cur["search"] != query or st["search"] != query:
                    problem(page, "%s: query %r in the loader, %r in the page, not %r"
                            % (link, cur["search"], st["search"], query))
                if frag and not same_fragment((st["hash"] or "#")[1:], frag):
                    problem(page, "%s: the frame is at %r, not #%s" % (link, st["hash"], frag))
            elif target not in checked_files:
                checked_files.add(target)
                ctype, text = viewer.frame_text()
                # The text viewer shows NUL as U+FFFD, as it does for the folder's file.
                want = files[target].decode("utf-8", "replace").replace("\0", "\ufffd")
                res.text_files += 1
                if text.rstrip("\n") != want.rstrip("\n"):
                    problem(page, "%s: the frame shows %d chars (%s), the file has %d"
                            % (link, len(text), ctype, len(want)))
        for e in viewer.events(page):
            res.problems.append("report %s: %s" % (name, e))
    for page, link, target, frag in anchors:
        ids = ids_of.get(target, set())
        if frag not in ids and urllib.parse.unquote(frag) not in ids:
            res.broken += 1
            if strict:
                problem(page, "%s: no id %s in %s" % (link, frag, target))
    res.unreached = sorted(p for p in files if p.endswith(".html") and p not in queued)
    res.seconds = time.monotonic() - t0
    return res


# ---- the tests -------------------------------------------------------------------------------
class S:
    browser = None
    made = {}  # name -> (folder, bundle, files)


def make(name, log, flags=()):
    if name not in S.made:
        folder, bundle = render(name, log, flags)
        S.made[name] = (folder, bundle, read_bundle(bundle))
    return S.made[name]


def setUpModule():
    # The walks follow links faster than a person can (a dozen a second, each one or two
    # navigations of the bundle or its frame), and Chromium stops obeying a frame's
    # navigations for a while after 200 in 10 s.
    S.browser = cdp.Browser(CHROMIUM, args=["--disable-ipc-flooding-protection"])


def tearDownModule():
    if S.browser:
        S.browser.close()
    if os.environ.get("E2E_KEEP"):
        print("e2e: kept " + TMP)


class Bundle(unittest.TestCase):
    def setUp(self):
        print(flush=True)

    def viewer(self, bundle, trap=False):
        v = Viewer(S.browser, bundle, trap)
        self.addCleanup(v.close)
        return v

    def assert_clean(self, v, where):
        self.assertEqual(v.events(where), [], "problems on %s" % where)

    def test_1_file_holds_the_folder(self):
        """the bundle holds every file of the folder, byte for byte, and nothing else"""
        folder, bundle, files = make("demo", DEMO_LOG)
        want = folder_files(folder)
        self.assertEqual(sorted(files), sorted(want))
        for k in want:
            self.assertEqual(files[k], want[k], "%s differs" % k)
        with open(bundle, "rb") as f:
            head = f.read(4096)
        self.assertIn(b"connect-src 'none'", head)
        print("  demo bundle: %d files, %d bytes (the folder: %d bytes)"
              % (len(files), os.path.getsize(bundle), sum(map(len, want.values()))))

    def test_2_demo_links(self):
        """demo: every internal link of every page, clicked, opens its file and anchor"""
        _, bundle, files = make("demo", DEMO_LOG)
        v = self.viewer(bundle)
        v.navigate()
        res = walk(v, files, "demo")
        print("  demo: %d pages, %d links (%d clicked, %d text files shown and compared), "
              "%d external not followed, %.1fs" % (res.pages, res.links, res.clicked,
                                                   res.text_files, res.external, res.seconds))
        if res.unreached:
            print("  .html files no link leads to: %s" % ", ".join(res.unreached))
        self.assertGreater(res.pages, 10)
        self.assertGreater(res.text_files, 10)
        self.assertEqual(res.problems, [])

    def test_3_behaviour(self):
        """demo: mouse click, back/forward, opening with a hash, ctrl+click, toggles, ?query,
        missing and outside files"""
        _, bundle, files = make("demo", DEMO_LOG)
        v = self.viewer(bundle)
        self.assertEqual(v.navigate()["key"], "index.html")
        stats = v.page.evaluate("tlbBundle.stats")
        self.assertEqual(stats["files"], len(files))

        # A real mouse click on failures_and_restarts.html in the frame.
        point = v.page.evaluate(r"""(() => {
          const f = %s, a = f.contentDocument.querySelector('a[href="failures_and_restarts.html"]');
          a.scrollIntoView({ block: 'center' });
          const r = f.getBoundingClientRect(), b = a.getBoundingClientRect();
          return { x: r.left + b.left + b.width / 2, y: r.top + b.top + b.height / 2 };
        })()""" % FRAME)
        n = v.shown()
        for kind, extra in [("mouseMoved", {}),
                            ("mousePressed", {"button": "left", "buttons": 1, "clickCount": 1}),
                            ("mouseReleased", {"button": "left", "buttons": 0, "clickCount": 1})]:
            v.page.send("Input.dispatchMouseEvent", dict(type=kind, x=point["x"],
                                                         y=point["y"], **extra))
        cur = v.wait_shown(n, "failures_and_restarts.html after a mouse click")
        self.assertEqual(cur["key"], "failures_and_restarts.html")
        self.assertTrue(v.page.evaluate("location.hash") == "#/failures_and_restarts.html")

        # An anchor into the index from another page, then back and forward.
        r = v.page.evaluate(CLICK_JS, "index.html#[0/1]", {})
        if "why" in r:  # the failures page may not link it: go through a route instead
            v.open("/index.html#[0/1]")
        st = v.state()
        self.assertEqual((st["cur"]["key"], st["hash"], st["target"]),
                         ("index.html", "#[0/1]", "[0/1]"))
        self.assertGreater(v.page.evaluate("%s.contentWindow.scrollY" % FRAME), 0)
        n = v.shown()
        v.page.evaluate("history.back()")
        self.assertEqual(v.wait_shown(n, "the page before, on back")["key"],
                         "failures_and_restarts.html")
        n = v.shown()
        v.page.evaluate("history.forward()")
        v.wait_shown(n, "the index again, on forward")
        st = v.state()
        self.assertEqual((st["cur"]["key"], st["target"]), ("index.html", "[0/1]"))
        self.assert_clean(v, "back and forward")

        # Back returns to the scroll position the page had.
        v.open("/index.html")
        v.page.evaluate("%s.contentWindow.scrollTo(0, 321)" % FRAME)
        v.page.evaluate(CLICK_JS, "failures_and_restarts.html", {})
        n = v.shown()
        v.page.evaluate("history.back()")
        self.assertEqual(v.wait_shown(n, "the index, on back")["key"], "index.html")
        self.assertEqual(v.page.evaluate("%s.contentWindow.scrollY" % FRAME), 321)

        # The context menu on a link offers bundle.html#/PATH (copy link, open in new tab),
        # and a click on it afterwards still opens its file.
        href = v.page.evaluate(r"""(() => {
          const d = %s.contentDocument, a = d.querySelector('a[href="failures_and_restarts.html"]');
          a.dispatchEvent(new MouseEvent('contextmenu',
                                         { bubbles: true, cancelable: true, button: 2 }));
          return [a.getAttribute('href'), a.href];
        })()""" % FRAME)
        self.assertEqual(href, [v.url + "#/failures_and_restarts.html"] * 2)
        r = v.page.evaluate(r"""(() => {
          const d = %s.contentDocument;
          const a = d.querySelector('a[data-tlb-href="failures_and_restarts.html"]');
          a.click();
          return tlbBundle.idle().then(() => tlbBundle.current());
        })()""" % FRAME)
        self.assertEqual(r["key"], "failures_and_restarts.html")

        # The bar's save link: the shown file, under its own name, as a blob: URL made on the
        # click (the download itself is cancelled here).
        saved = v.page.evaluate(r"""(() => {
          const a = document.getElementById('tlb-save');
          document.addEventListener('click', (e) => e.preventDefault(), { once: true });
          a.click();
          return [a.hidden, a.download, a.href.slice(0, 5)];
        })()""")
        self.assertEqual(saved, [False, "failures_and_restarts.html", "blob:"])

        # Opening the bundle with a hash opens that file at that anchor.
        metrics = sorted(k for k in files if re.match(r"-_0_0_0/compilation_metrics_\d+\.html$", k))
        self.assertTrue(metrics)
        v.navigate("#/" + metrics[0])
        self.assertEqual(v.state()["cur"]["key"], metrics[0])
        v.navigate("#/index.html#[1/0]")
        st = v.state()
        self.assertEqual((st["cur"]["key"], st["target"]), ("index.html", "[1/0]"))
        self.assertEqual(v.page.evaluate("document.title"),
                         v.page.evaluate("%s.contentDocument.title" % FRAME))

        # ctrl+click: a new tab on the bundle at that file (window.open recorded, not run:
        # cdp sees a noopener tab before it has a URL).
        v.page.evaluate("window.__opened = []; window.open = (...a) => { __opened.push(a); "
                        "return null; }")
        r = v.page.evaluate(CLICK_JS, "failures_and_restarts.html", {"ctrlKey": True})
        self.assertNotIn("why", r)
        self.assertEqual(v.state()["cur"]["key"], "index.html", "ctrl+click changed the tab")
        self.assertEqual(v.page.evaluate("__opened"),
                         [[v.url + "#/failures_and_restarts.html", "_blank", "noopener"]])

        # The trie's toggles (toggle.js, onclick attributes) work in the frame.
        toggled = v.page.evaluate(r"""(() => {
          const d = %s.contentDocument, m = d.querySelector('span.marker');
          const ul = m.parentElement.querySelector('ul');
          const before = getComputedStyle(ul).display;
          m.click();
          const after = getComputedStyle(ul).display;
          m.click();
          return [before, after, getComputedStyle(ul).display, m.classList.contains('collapsed')];
        })()""" % FRAME)
        self.assertEqual(toggled, ["block", "none", "block", False])

        # A ?query on the index: query.js appends it to the links, as in the folder, and a
        # click carries it on.
        cur = v.open("/index.html?q=1")
        self.assertEqual((cur["key"], cur["search"]), ("index.html", "?q=1"))
        hrefs = v.page.evaluate("[...%s.contentDocument.querySelectorAll('a[href]')]"
                                ".map((a) => a.getAttribute('href'))" % FRAME)
        self.assertIn("failures_and_restarts.html?q=1", hrefs)
        r = v.page.evaluate(CLICK_JS, "failures_and_restarts.html?q=1", {})
        self.assertEqual((r["cur"]["key"], r["cur"]["search"]),
                         ("failures_and_restarts.html", "?q=1"))

        # Missing and outside files: a message, no error.
        cur = v.open("/no/such/page.html#x")
        self.assertEqual(cur["kind"], "message")
        self.assertIn("no/such/page.html is not in this bundle", v.state()["msg"])
        cur = v.open("/../../etc/passwd")
        self.assertEqual(cur["kind"], "message")
        self.assertIn("outside the report", v.state()["msg"])
        v.open("/index.html")
        self.assert_clean(v, "behaviour")

    def test_4_textlog(self):
        """TORCH_LOGS text: log.html?cid=[0/1] from the index's link filters the lines as the
        folder does; anchors into log.html"""
        log = os.path.join(TMP, "text.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(diff_check.text_log())
        folder, bundle, files = make("textlog", log)
        self.assertIn("log.html", files)
        # The folder, as the reference.
        ref = S.browser.new_page()
        self.addCleanup(ref.close)
        ref.navigate(cdp.file_url(os.path.join(folder, "log.html")) + "?cid=%5B0/1%5D")
        hidden_js = ("(d) => [[...d.querySelectorAll('.log > div.hidden')].map((e) => e.id),"
                     " [...d.querySelectorAll('.log > div:not(.hidden)')].map((e) => e.id),"
                     " (d.getElementById('filter') || {}).textContent]")
        want = ref.evaluate("(%s)(document)" % hidden_js)
        self.assertTrue(want[0] and want[1], "the folder's filter hid nothing: %s" % want)

        v = self.viewer(bundle)
        v.navigate()
        r = v.page.evaluate(CLICK_JS, "log.html?cid=[0/1]", {})
        self.assertNotIn("why", r)
        self.assertEqual((r["cur"]["key"], r["cur"]["search"]), ("log.html", "?cid=[0/1]"))
        got = v.page.evaluate("(%s)(%s.contentDocument)" % (hidden_js, FRAME))
        self.assertEqual(got, want)
        print("  log.html?cid=[0/1]: %d lines shown, %d hidden, as in the folder"
              % (len(got[1]), len(got[0])))
        # "Show every line" (made by textlog.js) goes back to the whole log.
        r = v.page.evaluate(CLICK_JS, "log.html", {})
        self.assertEqual((r["cur"]["key"], r["cur"]["search"]), ("log.html", ""))
        self.assertEqual(v.page.evaluate("%s.contentDocument.querySelectorAll("
                                         "'.log > div.hidden').length" % FRAME), 0)
        res = walk(v, files, "textlog")
        self.assertEqual(res.problems, [])
        self.assert_clean(v, "textlog")

    def test_5_provenance(self):
        """tlparse -i: the provenance page's clicks highlight the rows the fixture expects"""
        log = os.path.join(TMP, "prov.log")
        manifest = os.path.join(TMP, "prov.json")
        subprocess.run([sys.executable, os.path.join(HERE, "make_big_provenance_log.py"), log,
                        manifest, "--lines", "400", "--kernels", "80"], check=True)
        with open(manifest) as f:
            m = json.load(f)
        _, bundle, files = make("prov", log, ["-i"])
        page = next(k for k in files if k.startswith("provenance_tracking_"))
        v = self.viewer(bundle)
        v.navigate()
        r = v.page.evaluate(CLICK_JS, page, {})  # linked from the index
        self.assertNotIn("why", r)
        self.assertEqual(r["cur"]["key"], page)
        for s in m["samples"]:
            kind, line = s["kind"], s["line"]
            want = {k: sorted(set(x)) for k, x in s.items() if k in ("pre", "post", "py")}
            want[kind] = [line]
            v.page.evaluate(r"""(id) => {
              const d = %s.contentDocument, el = d.getElementById(id);
              el.dispatchEvent(new MouseEvent('click',
                                              { bubbles: true, cancelable: true, button: 0 }));
            }""" % FRAME, "%s-%d" % (kind, line))
            got = v.page.evaluate("(%s)()" % HIGHLIGHTED)
            self.assertEqual({k: sorted(set(x)) for k, x in got.items()}, want,
                             "highlight after a click on %s-%d" % (kind, line))
        print("  %s: %d sample clicks highlight as expected" % (page, len(m["samples"])))
        res = walk(v, files, "prov")
        self.assertEqual(res.problems, [])
        self.assert_clean(v, "provenance")

    def test_6_hostile(self):
        """hostile log: every page and link of its bundle, and no injected script runs"""
        log = os.path.join(TMP, "hostile.log")
        subprocess.run([sys.executable, os.path.join(HERE, "make_hostile_log.py"), log],
                       check=True)
        _, bundle, files = make("hostile", log)
        v = self.viewer(bundle, trap=True)
        v.navigate()
        res = walk(v, files, "hostile", strict=False)
        print("  hostile: %d pages, %d links (%d clicked; %d to names the report does not have,"
              " as in its folder), %.1fs" % (res.pages, res.links, res.clicked, res.broken,
                                             res.seconds))
        self.assertEqual(res.problems, [])
        self.assert_clean(v, "hostile")

    def test_8_name_twice(self):
        """a dump_file name logged twice: the folder keeps the later file; the bundle holds both
        and its viewer shows the later, as the folder does"""
        with open(DEMO_LOG, encoding="utf-8") as f:
            text = f.read()
        payload = "# the second dump of <eval_with_key>.3\nx = 2"
        env = {"dump_file": {"name": "<eval_with_key>.3"}, "frame_id": 0, "frame_compile_id": 0,
               "attempt": 0, "has_payload": hashlib.md5(payload.encode()).hexdigest()}
        text += ("V1121 14:03:09.000000 140001 torch/fx/graph_module.py:78] " + json.dumps(env)
                 + "\n" + "".join("\t" + line + "\n" for line in payload.split("\n")))
        log = os.path.join(TMP, "twice.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(text)
        folder, bundle, files = make("twice", log)
        name = "dump_file/eval_with_key_3.html"
        with open(os.path.join(folder, name), "rb") as f:
            want = f.read()
        self.assertIn(b"the second dump", want)
        self.assertEqual(files[name], want)
        # Without -o the bundle is written as the log is read: both dumps are in it.
        bundle = os.path.join(TMP, "twice_alone.html")
        p = subprocess.run([BIN, log, "--bundle", bundle, "--no-browser"], capture_output=True,
                           timeout=180)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        with open(bundle, encoding="utf-8") as f:
            self.assertEqual(f.read().count('data-path="%s"' % name), 2)
        self.assertEqual(read_bundle(bundle)[name], want)
        v = self.viewer(bundle)
        v.navigate()
        self.assertEqual(v.open("/" + name)["key"], name)
        shown = v.page.evaluate("%s.contentDocument.body.textContent" % FRAME)
        self.assertIn("the second dump", shown)
        self.assertEqual(v.page.evaluate("tlbBundle.stats")["files"], len(files))
        self.assert_clean(v, "name twice")

    def test_7_open_time(self):
        """demo: time from navigation start to the index painted"""
        _, bundle, _ = make("demo", DEMO_LOG)
        times = []
        for _ in range(3):
            v = Viewer(S.browser, bundle)
            try:
                v.navigate()
                for _ in range(200):
                    st = v.page.evaluate("tlbBundle.stats")
                    if st["firstDone"] is not None:
                        break
                    v.page.sleep(0.025)
                times.append(st)
                self.assert_clean(v, "open time")
            finally:
                v.close()
        best = min(times, key=lambda s: s["firstDone"])
        print("  demo bundle (%d bytes): index painted %.0f ms after navigation start "
              "(first slice %.0f ms, page parsed %.0f ms), best of 3"
              % (os.path.getsize(bundle), best["firstDone"], best["firstPaint"], best["parsed"]))
        self.assertLess(best["firstDone"], OPEN_LIMIT_MS)


def open_time(path, runs):
    """`--open-time FILE.html [RUNS]` (for bench/run.sh): open a bundle RUNS times, each in a
    fresh tab, and print one line of the run whose index was whole on screen first: three
    whole ms from navigation start, to the first slice of the index painted, to all of it
    painted, and to the whole page parsed."""
    best = None
    with cdp.Browser(CHROMIUM) as browser:
        for _ in range(runs):
            page = browser.new_page(width=1280, height=800)
            try:
                page.navigate(cdp.file_url(path), timeout=600)
                for _ in range(2400):
                    st = page.evaluate("tlbBundle.stats")
                    if st["firstDone"] is not None:
                        break
                    page.sleep(0.025)
                else:
                    raise cdp.Timeout("the index of %s was not painted in 60 s" % path)
            finally:
                page.close()
            if best is None or st["firstDone"] < best[1]:
                best = (st["firstPaint"], st["firstDone"], st["parsed"])
    print("%.0f %.0f %.0f" % best)
    return 0


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.stdout.reconfigure(errors="backslashreplace")
    if len(sys.argv) >= 3 and sys.argv[1] == "--open-time":
        return open_time(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 1)
    if not os.access(BIN, os.X_OK):
        print("FAIL: %s is not an executable (set TLPARSE_BIN)" % BIN)
        return 1
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    if len(sys.argv) > 1:  # test names (or parts of them) to run, e.g. test_4
        suite = unittest.TestSuite(t for group in suite for t in group
                                   if any(a in t.id() for a in sys.argv[1:]))
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print("e2e bundle: %d passed, %d failed, %d skipped"
          % (max(0, result.testsRun - bad - len(result.skipped)), bad, len(result.skipped)))
    return 0 if result.wasSuccessful() and result.testsRun > len(result.skipped) else 1


if __name__ == "__main__":
    sys.exit(main())
