#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""HTML injection, end to end: a hostile log (make_hostile_log.py) is rendered by tlparse,
then every .html page of the report is scanned as text and opened in headless Chromium
(driven over its DevTools pipe by cdp.py). A log is untrusted: no string from it may run
script, add an element or an event handler, or make a javascript: link; yet every field
must still be shown, escaped. The custom header (--custom-header-html) is the one
documented raw field.

    python3 tests/e2e/test_injection.py            # or: python3 -m unittest ... -v

Env: TLPARSE_BIN (default build/tlparse), CHROMIUM (default /usr/bin/chromium),
E2E_KEEP=1 keeps the temp folder (its path is printed). Python 3 standard library only.
"""
import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import cdp  # noqa: E402  (after the path is set)

ROOT = os.path.dirname(os.path.dirname(HERE))
BIN = os.path.abspath(os.environ.get("TLPARSE_BIN") or os.path.join(ROOT, "build", "tlparse"))
CHROMIUM = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
T0 = time.monotonic()

# ---- set-up: the hostile log and its manifest (now, so that each expectation is a test) --
TMP = tempfile.mkdtemp(prefix="tlparse-e2e-")
LOG = os.path.join(TMP, "hostile.log")
MANIFEST = os.path.join(TMP, "manifest.json")
OUT = os.path.join(TMP, "out")


@atexit.register
def remove_tmp():
    """Remove the temp folder, also when the run is cut short (E2E_KEEP=1 keeps it)."""
    if not os.environ.get("E2E_KEEP"):
        shutil.rmtree(TMP, ignore_errors=True)


_gen = subprocess.run([sys.executable, os.path.join(HERE, "make_hostile_log.py"), LOG, MANIFEST],
                      capture_output=True, text=True)
if _gen.returncode != 0:
    raise RuntimeError("make_hostile_log.py failed: " + _gen.stderr)
with open(MANIFEST, encoding="utf-8") as _f:
    manifest = json.load(_f)
MARKER_RE = re.compile(manifest["marker_regex"])
HEADER = manifest["custom_header"]


class State:
    """What setUpModule found; the tests read it."""

    run = None  # subprocess.CompletedProcess of tlparse, or None
    run_error = None  # why tlparse could not be started
    files = []  # every file of the report, relative, with '/'
    pages = []  # the .html ones
    results = {}  # page (plus query) -> {findings, text, clicks, js_links, extra}
    browser_error = None
    pages_opened = 0
    marker_clicks = 0
    js_link_clicks = 0
    markers_checked = 0
    static_findings = []


S = State


def walk(top):
    """Every file under top, as report-relative paths with '/'."""
    out = []
    for dirpath, _dirs, names in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        for n in names:
            out.append(n if rel == "." else rel.replace(os.sep, "/") + "/" + n)
    return out


# ---- helpers -------------------------------------------------------------------------------
def nonul(s):
    return re.sub("[\u0000\ufffd]", "", s)


def show(s, n=160):
    return json.dumps(s[:n] + "\u2026" if len(s) > n else s, ensure_ascii=False)


def describe_markers(ms):
    return ", ".join("%s (%s)" % (m, manifest["fields"].get(m[2:5]) or "?") for m in ms) \
        or "no marker nearby"


def js_last_index_of(s, sub, from_index):
    """JavaScript's s.lastIndexOf(sub, from_index): the last match starting at <= from_index."""
    from_index = max(0, min(from_index, len(s)))
    return s.rfind(sub, 0, from_index + len(sub))


def uniq(xs):
    return list(dict.fromkeys(xs))


def fields_near(html, start):
    """The field a piece of HTML came from: the markers inside the tag that holds
    html[start..], else the closest marker before that tag (a hostile string is written
    after its marker)."""
    lt = js_last_index_of(html, "<", start)
    s = lt if lt >= 0 and js_last_index_of(html, ">", start - 1) < lt else start
    gt = html.find(">", start)
    e = len(html) if gt < 0 else gt + 1
    markers = uniq(MARKER_RE.findall(html[s:e]))
    if not markers:
        before = MARKER_RE.findall(html[max(0, s - 600):s])
        if before:
            markers = [before[-1]]
    return describe_markers(markers)


# JavaScript's \s, spelled out (Python's differs in a few code points).
WS_CHARS = "\t\n\x0b\x0c\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
WS = "[" + WS_CHARS + "]"
# ASCII-only case folding, as JavaScript's /i without /u (Python's /i would also fold
# e.g. U+017F into 's').
AI = re.I | re.A

DANGEROUS_TAGS = {"img", "svg", "iframe", "frame", "frameset", "object", "embed", "math",
                  "video", "audio", "source", "image", "form", "input", "button", "textarea",
                  "select", "marquee", "link", "applet", "portal", "template", "noscript",
                  "isindex"}
BAD_SCHEME = re.compile(r"^(javascript|vbscript|data):", AI)
ENTITY_RE = re.compile(r"&(#x[0-9a-f]+|#[0-9]+|quot|apos|amp|lt|gt|tab|newline|colon);?", AI)
NAMED = {"quot": '"', "apos": "'", "amp": "&", "lt": "<", "gt": ">", "tab": "\t",
         "newline": "\n", "colon": ":"}


def decode_entities(s):
    def one(m):
        e = m.group(1).lower()
        if e[0] == "#":
            return chr(int(e[2:], 16) if e[1] == "x" else int(e[1:], 10))
        return NAMED[e]

    return ENTITY_RE.sub(one, s)


def url_scheme(v):
    """What a browser reads a URL's scheme from: entities decoded, leading controls and
    spaces dropped, tabs and newlines removed."""
    return re.sub(r"[\t\n\r]", "", re.sub(r"^[\x00-\x20]+", "", decode_entities(v)))


LITERAL = [
    (re.compile(r"<script[^>]*>" + WS + r"*(window|parent)\.__pwned", AI),
     "raw <script>\u2026__pwned"),
    (re.compile(r"<iframe", AI), "raw <iframe"),
    (re.compile(r"<img", AI), "raw <img"),
    (re.compile(r"<svg", AI), "raw <svg"),
    (re.compile(r"href" + WS + "*=" + WS + r"*[\"']?[\x00-\x20]*"
                + r"[\t\n\r]*".join("javascript") + r"[\t\n\r]*:", AI), 'href="javascript:'),
]
TAG_RE = re.compile(r"<([a-zA-Z][a-zA-Z0-9:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
ATTR_RE = re.compile("([^" + WS_CHARS + "\"'>/=]+)(?:" + WS + "*=" + WS
                     + "*(\"[^\"]*\"|'[^']*'|[^" + WS_CHARS + "\"'=<>`]+))?")
SCRIPT_END = re.compile(r"</script", AI)
INJECTED_ATTRS = {"autofocus", "srcdoc", "formaction", "x", "src", "xlink:href", "action"}


# tlparse's own inline SVG: the compile-time chart of the overview at the top of index.html
# (src/report/page_overview.c), rows of <a href="#[0/0]"><title>..</title><rect/><text>..</text>
# </a>. When it holds only those tags with those attributes it is left out of the scans (it
# has an <svg> and x attributes, which the scans flag); anything else in it is scanned.
OWN_CHART = re.compile(r"<svg class='chart' role='group' aria-label='Compile time per compile "
                       r"id' height='\d+' xmlns='http://www\.w3\.org/2000/svg'>\n(.*?)</svg>", re.S)
CHART_TAGS = {"a": {"href"}, "title": set(), "rect": {"class", "x", "y", "width", "height", "rx"},
              "text": {"class", "x", "y", "text-anchor"}}


def without_own_chart(html):
    m = OWN_CHART.search(html)
    if not m:
        return html
    for t in TAG_RE.finditer(m.group(1)):
        allowed = CHART_TAGS.get(t.group(1).lower())
        if allowed is None:
            return html
        for a in ATTR_RE.finditer(t.group(2)):
            an = a.group(1).lower()
            av = re.sub(r"^[\"']|[\"']\Z", "", a.group(2)) if a.group(2) else ""
            if an not in allowed or (an == "href" and not av.startswith("#")):
                return html
    return html[:m.start()] + " " * (m.end() - m.start()) + html[m.end():]


def scan_html(rel, html):
    """Static scan of one page's HTML. Log text is always escaped ('<' never raw), so
    every raw tag is tlparse's own markup or a leak. Returns findings {page, rule, html,
    field}."""
    found = []
    html = without_own_chart(html)

    def add(rule, start, end):
        found.append({"page": rel, "rule": rule, "html": html[start:end],
                      "field": fields_near(html, start)})

    # The literal greps of the issue.
    for rx, rule in LITERAL:
        for m in rx.finditer(html):
            add(rule, m.start(), m.start() + 120)
    # Every raw start tag, with its attributes.
    for m in TAG_RE.finditer(html):
        name = m.group(1).lower()
        attrs = m.group(2)
        s, e = m.start(), m.end()
        if name in DANGEROUS_TAGS:
            add("raw <%s> element" % name, s, e)
        if name == "script":
            close = SCRIPT_END.search(html, e)
            body = html[e:close.start() if close else len(html)]
            if MARKER_RE.search(body) or "__pwned" in body:
                add("log text inside a <script>", s, close.start() if close else e + 200)
        for a in ATTR_RE.finditer(attrs):
            an = a.group(1).lower()
            av = re.sub(r"^[\"']|[\"']\Z", "", a.group(2)) if a.group(2) else ""
            if an.startswith("on"):
                # tlparse's own handler is onclick='toggleList(this)'; anything else is injected.
                if not (an == "onclick" and av == "toggleList(this)"):
                    add("event-handler attribute %s=" % an, s, e)
            elif an in INJECTED_ATTRS:
                add("injected attribute " + an, s, e)
            elif an == "href" and BAD_SCHEME.match(url_scheme(av)):
                add("href with a %s: URL" % url_scheme(av).split(":")[0], s, e)
    return found


# ---- the browser part -----------------------------------------------------------------------
INIT_SCRIPT = r"""(() => {
  const log = [];
  Object.defineProperty(window, '__e2eLog', { value: log });
  let v;
  Object.defineProperty(window, '__pwned', { configurable: true,
    get() { return v; },
    set(x) {
      v = x;
      let where = null;
      try {
        const cs = document.currentScript, ev = window.event;
        const el = cs || (ev && ev.target && ev.target.nodeType === 1 ? ev.target : null);
        if (el) {
          const prev = el.previousSibling ? (el.previousSibling.textContent || '') : '';
          where = { prev: prev.slice(-80), html: el.outerHTML.slice(0, 260) };
        }
      } catch (e) {}
      log.push({ value: String(x), where, frame: window === window.top ? 'top' : 'child' });
    } });
})();"""

# Runs in the page: everything that shows an injection.
AUDIT_IN_PAGE = r"""function auditInPage(markerSrc) {
  const MARK = new RegExp(markerSrc);
  const out = [];
  const ctx = (el) => {
    const prev = el.previousSibling ? (el.previousSibling.textContent || '') : '';
    return { prev: prev.slice(-80), html: el.outerHTML.slice(0, 260) };
  };
  // tlparse's own overview chart (see OWN_CHART): skipped when it holds only its own markup.
  const CHART = { svg: ['class', 'role', 'aria-label', 'height', 'xmlns'], a: ['href'],
    title: [], rect: ['class', 'x', 'y', 'width', 'height', 'rx'],
    text: ['class', 'x', 'y', 'text-anchor'] };
  const own = new Set();
  for (const svg of document.querySelectorAll('section#overview > figure > svg.chart')) {
    const els = [svg, ...svg.querySelectorAll('*')];
    const fits = els.every((e) => CHART[e.localName] &&
      [...e.attributes].every((at) => CHART[e.localName].includes(at.name) &&
        (at.name !== 'href' || at.value.startsWith('#'))));
    if (fits) for (const e of els) own.add(e);
  }
  for (const sel of ['img', 'svg', 'iframe', 'frame', 'object', 'embed', 'math', 'video',
    'audio', 'form', 'input', 'textarea', 'button', 'link', 'meta[http-equiv]', '[autofocus]',
    '[srcdoc]', '[x]']) {
    for (const el of document.querySelectorAll(sel)) {
      if (!own.has(el)) out.push({ rule: `element ${sel}`, ...ctx(el) });
    }
  }
  for (const s of document.querySelectorAll('script')) {
    if (MARK.test(s.textContent) || /__pwned/.test(s.textContent)) out.push({ rule: 'script with log text', ...ctx(s) });
  }
  for (const el of document.querySelectorAll('*')) {
    for (const at of el.attributes) {
      const n = at.name.toLowerCase();
      if (n.startsWith('on') && (MARK.test(at.value) || /__pwned/.test(at.value) ||
          !(n === 'onclick' && at.value === 'toggleList(this)'))) {
        out.push({ rule: `attribute ${n}`, ...ctx(el) });
      }
    }
  }
  for (const a of document.querySelectorAll('a[href], area[href]')) {
    const p = (a.protocol || '').toLowerCase();
    if (p === 'javascript:' || p === 'vbscript:' || p === 'data:') out.push({ rule: `link with ${p} URL`, ...ctx(a) });
  }
  return out;
}"""

HOVER_FOCUS_ALL = r"""(() => {
  for (const el of document.querySelectorAll('body *')) {
    for (const t of ['mouseover', 'mouseenter', 'focus']) el.dispatchEvent(new Event(t));
  }
})()"""
OPEN_DETAILS = "(() => { for (const d of document.querySelectorAll('details')) d.open = true; })()"
EXPAND_ALL = r"""(() => {
  for (const d of document.querySelectorAll('details')) d.open = true;
  for (const u of document.querySelectorAll('ul')) u.style.display = 'block';
})()"""
COUNT = "(sel) => document.querySelectorAll(sel).length"
DISPATCH_CLICK = r"""(sel, i) => { document.querySelectorAll(sel)[i].dispatchEvent(
  new MouseEvent('click', { bubbles: true, cancelable: true, composed: true })); }"""
# javascript-like links: there should be none; click any so an effect shows.
CLICK_JS_LINKS = r"""(() => {
  const r = [];
  for (const a of document.querySelectorAll('a[href]')) {
    const p = (a.protocol || '').toLowerCase();
    if (p === 'javascript:' || p === 'vbscript:' || p === 'data:') { r.push(a.outerHTML.slice(0, 200)); a.click(); }
  }
  return r;
})()"""
STATE = r"""({ log: window.__e2eLog ? [...window.__e2eLog] : [], pwned: window.__pwned,
  url: location.href })"""
BODY_TEXT = "document.body ? document.body.innerText : ''"
CUSTOM_HEADER = r"""(() => {
  const h = document.getElementById('custom-hdr');
  return h ? { tag: h.tagName, text: h.textContent } : null;
})()"""
# The query-parameter script copies location.search onto links: a hostile query must not
# become markup either.
HOSTILE_QUERY = ("?q=%22%3E%3Cimg%20src%3Dx%20onerror%3D%22window.__pwned%3D11%22%3E"
                 "&r=javascript:window.__pwned=11")


def visit(page, rel, query=""):
    """Open one page, interact with it like a person, and collect what shows an injection."""
    findings = []
    page.clear()
    requested = cdp.file_url(os.path.join(OUT, rel)) + query
    doc_url = page.navigate(requested, timeout=15)
    S.pages_opened += 1
    page.sleep(0.03)
    findings += page.evaluate(AUDIT_IN_PAGE, manifest["marker_regex"])
    # Interactions: hover and focus everything (injected handlers would run), expand, then
    # click every trie marker (deepest first, then again to re-open) like a person.
    page.evaluate(HOVER_FOCUS_ALL)
    page.evaluate(OPEN_DETAILS)
    n = page.evaluate(COUNT, "span.marker")
    for order in (list(reversed(range(n))), list(range(n))):
        for i in order:
            try:
                page.click("span.marker", i, timeout=1.0)
            except cdp.Error:
                page.evaluate(DISPATCH_CLICK, "span.marker", i)
            S.marker_clicks += 1
    js_links = page.evaluate(CLICK_JS_LINKS)
    S.js_link_clicks += len(js_links)
    page.sleep(0.2 if js_links else 0.02)
    state = page.evaluate(STATE)
    for entry in state["log"]:
        where = entry.get("where") or {"html": ""}
        findings.append(dict(where, rule="script ran: __pwned=%s (%s frame)"
                             % (entry["value"], entry["frame"])))
    if "pwned" in state and not state["log"]:  # JSON drops the key when it is undefined
        pwned = state["pwned"]
        shown = pwned if isinstance(pwned, str) else json.dumps(pwned)  # as JS's `${x}`
        findings.append({"rule": "window.__pwned=%s" % shown, "html": ""})
    for d in page.dialogs:
        findings.append({"rule": "dialog fired", "html": "%s: %s" % (d["type"], d["message"])})
    for r in page.requests:
        if r["url"] not in (requested, doc_url):
            findings.append({"rule": "unexpected request", "html": r["url"]})
    for url in page.popups:
        findings.append({"rule": "unexpected request", "html": "popup " + url})
    if state["url"] != doc_url:
        findings.append({"rule": "page navigated away", "html": state["url"]})
    page.evaluate(EXPAND_ALL)
    text = page.evaluate(BODY_TEXT)
    extra = page.evaluate(CUSTOM_HEADER) if rel == "index.html" and not query else None
    return {"findings": findings, "text": text, "clicks": n, "js_links": js_links, "extra": extra}


def failed_visit(message):
    return {"findings": [{"rule": "page failed to load", "html": message}], "text": "",
            "clicks": None, "js_links": [], "extra": None}


def run_browser():
    if S.run is None or S.run.returncode != 0 or "index.html" not in S.pages:
        S.browser_error = "tlparse wrote no report to open"
        return
    try:
        browser = cdp.Browser(CHROMIUM)
    except cdp.Error as e:
        S.browser_error = "cannot launch %s: %s" % (CHROMIUM, e)
        return
    try:
        page = browser.new_page()
        page.timeout = 5.0
        page.add_init_script(INIT_SCRIPT)
        for rel in S.pages:
            try:
                S.results[rel] = visit(page, rel)
            except Exception as e:  # noqa: BLE001 (any failure is a finding on that page)
                S.results[rel] = failed_visit(str(e)[:200])
        for rel in ("index.html", "failures_and_restarts.html"):
            if rel not in S.pages:
                continue
            try:
                S.results[rel + HOSTILE_QUERY] = visit(page, rel, HOSTILE_QUERY)
            except Exception as e:  # noqa: BLE001
                S.results[rel + HOSTILE_QUERY] = failed_visit(str(e))
    except Exception:
        S.browser_error = "browser run failed: " + traceback.format_exc()
    finally:
        browser.close()


def setUpModule():
    try:
        # The report with the provenance pages, then export mode's pages into OUT/export.
        S.run = subprocess.run(
            [BIN, LOG, "-o", OUT, "--no-browser", "-i", "--custom-header-html", HEADER],
            capture_output=True, text=True, errors="replace", timeout=60)
        if S.run.returncode == 0:
            S.run = subprocess.run(
                [BIN, LOG, "-o", os.path.join(OUT, "export"), "--no-browser", "--export",
                 "--custom-header-html", HEADER],
                capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        S.run_error = str(e)
    S.files = sorted(walk(OUT)) if os.path.isdir(OUT) else []
    S.pages = [f for f in S.files if f.endswith(".html")]
    run_browser()


def tearDownModule():
    browser_findings = sum(len(r["findings"]) for r in S.results.values())
    print("e2e injection summary: %d files, %d .html pages, %d page loads in Chromium, "
          "%d trie-marker clicks, %d javascript-like links, %d markers checked visible, "
          "%d hostile fields, %d static findings, %d browser findings, %.1fs"
          % (len(S.files), len(S.pages), S.pages_opened, S.marker_clicks, S.js_link_clicks,
             S.markers_checked, len(manifest["fields"]), len(S.static_findings),
             browser_findings, time.monotonic() - T0), flush=True)
    if os.environ.get("E2E_KEEP"):
        print("e2e: kept " + TMP)
    remove_tmp()


def fmt(findings):
    return "\n".join("  - %s: %s\n      field: %s\n      html: %s"
                     % (f["page"], f["rule"], f.get("field") or "?", show(f["html"], 260))
                     for f in findings)


def pages_matching(pattern):
    return [k for k in S.results if re.search(pattern, k)]


# ---- the tests -----------------------------------------------------------------------------
class Injection(unittest.TestCase):
    """HTML injection: a hostile log renders inert."""

    def require_browser(self):
        if S.browser_error is not None:
            self.fail(S.browser_error)

    def test_01_renders(self):
        """tlparse renders the hostile log (exit 0, index.html written)"""
        self.assertIsNone(S.run_error, "cannot run %s: %s" % (BIN, S.run_error))
        self.assertEqual(S.run.returncode, 0, "tlparse exited %s\n%s" % (S.run.returncode,
                                                                       S.run.stderr))
        self.assertIn("index.html", S.pages, "no index.html")
        self.assertIn("failures_and_restarts.html", S.pages, "no failures_and_restarts.html")
        self.assertIn("provenance_tracking_-_0_0_0.html", S.pages, "no provenance page (-i)")
        self.assertIn("export/index.html", S.pages, "no export report (--export)")

    def test_02_static_scan(self):
        """static scan: no page holds raw injected markup"""
        for rel in S.pages:
            with open(os.path.join(OUT, rel), encoding="utf-8", errors="replace") as f:
                S.static_findings += scan_html(rel, f.read())
        self.assertTrue(S.pages, "no .html page")
        if S.static_findings:
            self.fail("raw injected markup in %d place(s):\n%s"
                      % (len(S.static_findings), fmt(S.static_findings)))

    def test_03_no_active_file_types(self):
        """no log-named file is one a browser renders as active content (.svg/.xhtml/.htm/...)"""
        bad = [f for f in S.files
               if re.search(r"\.(svg|svgz|xhtml|xht|htm|xml|xsl|mht|mhtml|shtml)\Z", f, AI)]
        self.assertEqual(bad, [])

    def test_04_custom_header(self):
        """the custom header is the one raw field: present as markup in index.html"""
        with open(os.path.join(OUT, "index.html"), encoding="utf-8", errors="replace") as f:
            html = f.read()
        self.assertIn(HEADER, html, "index.html lacks the raw custom header " + HEADER)
        if S.browser_error is not None:
            return
        r = S.results.get("index.html")
        self.assertTrue(r, "index.html was not opened")
        self.assertEqual(r["extra"], {"tag": "B", "text": "ok"},
                         "the custom header is not an element in the DOM")

    def test_05_browser_inert(self):
        """browser: on every page no script ran, no dialog, no injected element or handler, \
no javascript: link"""
        self.require_browser()
        self.assertEqual(len(S.results), len(S.pages) + 2, "not every page was opened")
        found = []
        for rel, r in S.results.items():
            for f in r["findings"]:
                # Markers inside the element name the field; else the text just before it does.
                h = f.get("html") or ""
                ms = MARKER_RE.findall(h[:(h.find(">") + 1) or len(h)])
                if not ms:
                    ms = MARKER_RE.findall(f.get("prev") or "")[-1:]
                if not ms:
                    ms = MARKER_RE.findall(h)
                found.append({"page": rel, "rule": f["rule"], "html": f.get("html") or "",
                              "field": describe_markers(uniq(ms))})
        if found:
            self.fail("%d injection(s) seen in the browser:\n%s" % (len(found), fmt(found)))

    def test_06_trie_markers(self):
        """browser: the stack trie has markers, and clicking them changes nothing"""
        self.require_browser()
        r = S.results.get("index.html")
        self.assertTrue(r and (r["clicks"] or 0) > 0,
                        "index.html has no trie marker to click (the hostile stacks diverge)")

    def check_expectation(self, e):
        self.require_browser()
        pages = pages_matching(e["page"])
        self.assertTrue(pages, "no page matches " + e["page"])
        text = "\n".join(S.results[p]["text"] for p in pages)
        missing = [m for m in e["markers"] if m not in text]
        S.markers_checked += len(e["markers"])
        # Up to the first NUL (what follows a NUL is checked by test_09).
        not_verbatim = [v for v in e["verbatim"] if v.split("\u0000")[0] not in text]
        if missing:
            self.fail("markers not visible on %s: %s" % (", ".join(pages), "; ".join(
                "%s (%s)" % (m, manifest["fields"].get(m[2:5])) for m in missing)))
        if not_verbatim:
            self.fail("text not shown exactly as logged on %s:\n  %s" % (
                ", ".join(pages), "\n  ".join(show(v, 120) for v in not_verbatim)))

    # Variant j puts a script between NUL bytes. A page should show the NUL as U+FFFD (or
    # the HTML parser drops it) and keep the text after it; some fields are cut at the
    # first NUL instead. Not an injection (nothing after the NUL is shown at all), but a
    # field shown only in part.
    def test_09_nul(self):
        """a NUL in a field is shown as U+FFFD and the text after it is kept"""
        self.require_browser()
        cut = []
        for e in manifest["expect"]:
            text = nonul("\n".join(S.results[p]["text"] for p in pages_matching(e["page"])))
            for v in e["verbatim"]:
                if "\u0000" not in v or nonul(v) in text:
                    continue
                m = MARKER_RE.findall(v[:v.index("\u0000")])
                cut.append("%s: %s" % (e["page"], describe_markers(m[-1:])))
        if cut:
            self.fail("text after a NUL is missing:\n  " + "\n  ".join(cut))


def _add_expectation_tests():
    """One test per expectation of the manifest: shown escaped, not dropped."""
    for i, e in enumerate(manifest["expect"]):
        def test(self, e=e):
            self.check_expectation(e)

        test.__doc__ = "shown escaped, not dropped: %s (%s)" % (e["what"], e["page"])
        setattr(Injection, "test_07_%03d" % i, test)


_add_expectation_tests()


def main():
    # A SIGTERM (ctest's timeout, a killed make) unwinds like Ctrl-C, so Chromium is closed.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.stdout.reconfigure(errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    print("e2e injection: %d passed, %d failed" % (result.testsRun - bad, bad))
    return 0 if result.wasSuccessful() and result.testsRun > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
